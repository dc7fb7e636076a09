package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/engine"
	"github.com/jackc/pgx/v5"
)

// Stats implements hippo.Admin: counts in one read snapshot. FileSize is
// the bytes of Hippo's tables and indexes; PostgreSQL's WAL is the
// server's, so WALSize is 0.
func (db *DB) Stats(ctx context.Context) (*hippo.Stats, error) {
	s := &hippo.Stats{Path: db.dsn, DecayModel: db.cfg.Decay, DecayClock: db.DecayClock()}
	err := pgx.BeginTxFunc(ctx, db.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE kind = 'fact'),
			count(*) FILTER (WHERE kind = 'memory'), count(*) FILTER (WHERE superseded_by IS NOT NULL) FROM chunks`).
			Scan(&s.Chunks, &s.Facts, &s.Memories, &s.Superseded)
		if err != nil {
			return fmt.Errorf("count chunks: %w", err)
		}
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM memory_blocks`).Scan(&s.Blocks); err != nil {
			return fmt.Errorf("count blocks: %w", err)
		}
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM
			(SELECT agent_id FROM chunks UNION SELECT agent_id FROM memory_blocks) AS a`).Scan(&s.Agents); err != nil {
			return fmt.Errorf("count agents: %w", err)
		}
		s.EmbeddingModel, err = readLock(ctx, tx)
		return err
	})
	if err != nil {
		return nil, err
	}
	s.FileSize = db.DiskBytes()
	return s, nil
}

// Agents implements hippo.Admin: every agent owning a chunk or a block.
func (db *DB) Agents(ctx context.Context) ([]hippo.AgentSummary, error) {
	rows, err := db.pool.Query(ctx, `SELECT agent_id, sum(chunks), sum(facts), sum(memories), sum(superseded), sum(blocks) FROM (
			SELECT agent_id, count(*) AS chunks, count(*) FILTER (WHERE kind = 'fact') AS facts,
				count(*) FILTER (WHERE kind = 'memory') AS memories,
				count(*) FILTER (WHERE superseded_by IS NOT NULL) AS superseded, 0 AS blocks
			FROM chunks GROUP BY agent_id
			UNION ALL
			SELECT agent_id, 0, 0, 0, 0, count(*) FROM memory_blocks GROUP BY agent_id
		) AS a GROUP BY agent_id ORDER BY agent_id COLLATE "C"`)
	if err != nil {
		return nil, fmt.Errorf("list agents: %w", err)
	}
	defer rows.Close()
	out := []hippo.AgentSummary{}
	for rows.Next() {
		var a hippo.AgentSummary
		var c, f, m, s, b int64
		if err := rows.Scan(&a.AgentID, &c, &f, &m, &s, &b); err != nil {
			return nil, fmt.Errorf("list agents: %w", err)
		}
		a.Chunks, a.Facts, a.Memories, a.Superseded, a.Blocks = int(c), int(f), int(m), int(s), int(b)
		out = append(out, a)
	}
	return out, rows.Err()
}

// foldSQL folds a text column as hippo.Fold does a Go string: compatibility
// decomposition, combining accents dropped, lower case. The columns are
// COLLATE "C", whose lower() changes ASCII only: the database's default
// collation lowers every letter ("Ελλάδα" is "ελλάδα").
const foldSQL = `lower(regexp_replace(normalize(%s, NFKD), '[\u0300-\u036f]', '', 'g') COLLATE "default")`

// chunkWhere returns the SQL condition and arguments of the filter,
// checked (engine.CheckFilter).
func chunkWhere(f hippo.ChunkFilter) (string, []any, error) {
	if err := engine.CheckFilter(f); err != nil {
		return "", nil, err
	}
	conds := []string{"true"}
	var args []any
	arg := func(v any) string {
		args = append(args, v)
		return fmt.Sprintf("$%d", len(args))
	}
	if f.AgentID != "" {
		conds = append(conds, "agent_id = "+arg(f.AgentID))
	}
	if f.Scope != nil {
		conds = append(conds, "scope = "+arg(*f.Scope))
	}
	if f.Kind != "" {
		conds = append(conds, "kind = "+arg(string(f.Kind)))
	}
	if !f.Superseded {
		conds = append(conds, "superseded_by IS NULL")
	}
	if f.Suspicious {
		conds = append(conds, "suspicious IS NOT NULL")
	}
	if f.Text != "" {
		conds = append(conds, "strpos("+fmt.Sprintf(foldSQL, "content")+", "+arg(hippo.Fold(f.Text))+") > 0")
	}
	return strings.Join(conds, " AND "), args, nil
}

// listColumns is chunkColumns with an empty vector.
var listColumns = strings.Replace(chunkColumns, " embedding,", " ''::bytea AS embedding,", 1)

// ListChunks implements hippo.Admin: the chunks the filter selects,
// newest first, without their embeddings.
func (db *DB) ListChunks(ctx context.Context, f hippo.ChunkFilter) ([]*hippo.Chunk, error) {
	where, args, err := chunkWhere(f)
	if err != nil {
		return nil, err
	}
	query := `SELECT ` + listColumns + ` FROM chunks WHERE ` + where + ` ORDER BY created_at DESC, id DESC`
	if f.Limit > 0 {
		query += fmt.Sprintf(` LIMIT %d`, f.Limit)
	}
	query += fmt.Sprintf(` OFFSET %d`, f.Offset)
	return queryChunks(ctx, db.pool, query, args...)
}

// CountChunks implements hippo.Admin.
func (db *DB) CountChunks(ctx context.Context, f hippo.ChunkFilter) (int, error) {
	where, args, err := chunkWhere(f)
	if err != nil {
		return 0, err
	}
	var n int
	if err := db.pool.QueryRow(ctx, `SELECT count(*) FROM chunks WHERE `+where, args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("count chunks: %w", err)
	}
	return n, nil
}

// ListBlocks implements hippo.Admin: an agent's blocks, in one scope
// unless scope is nil, by scope and key.
func (db *DB) ListBlocks(ctx context.Context, agentID string, scope *string) ([]hippo.BlockInfo, error) {
	query := `SELECT agent_id, scope, key, char_length(value), description, updated_at FROM memory_blocks WHERE agent_id = $1`
	args := []any{agentID}
	if scope != nil {
		query += ` AND scope = $2`
		args = append(args, *scope)
	}
	rows, err := db.pool.Query(ctx, query+` ORDER BY scope COLLATE "C", key COLLATE "C"`, args...)
	if err != nil {
		return nil, fmt.Errorf("list blocks: %w", err)
	}
	defer rows.Close()
	out := []hippo.BlockInfo{}
	for rows.Next() {
		var b hippo.BlockInfo
		var updated string
		if err := rows.Scan(&b.AgentID, &b.Scope, &b.Key, &b.Chars, &b.Description, &updated); err != nil {
			return nil, fmt.Errorf("list blocks: %w", err)
		}
		if b.UpdatedAt, err = parseTime(updated); err != nil {
			return nil, fmt.Errorf("block %q: %w", b.Key, err)
		}
		out = append(out, b)
	}
	return out, rows.Err()
}

// Vacuum runs VACUUM on the tables that hold chunk text, so that the
// space of deleted tuples is reclaimed and their text no longer read from
// the table's pages (docs/RELIABILITY.md says what remains: WAL archives,
// replicas, backups).
func (db *DB) Vacuum(ctx context.Context) error {
	for _, t := range []string{"chunks", "chunk_inputs", "hippo_changes", "hippo_reembed", "memory_blocks"} {
		if _, err := db.pool.Exec(ctx, `VACUUM `+t); err != nil {
			return fmt.Errorf("vacuum %s: %w", t, err)
		}
	}
	return nil
}
