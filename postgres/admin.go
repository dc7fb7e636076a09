package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/engine"
	"github.com/hippo-mem/hippo/internal/sqlstore"
	"github.com/jackc/pgx/v5"
)

// Stats implements hippo.Admin: counts in one read snapshot. FileSize is
// the bytes of Hippo's tables and indexes; PostgreSQL's WAL is the
// server's, so WALSize is 0.
func (db *DB) Stats(ctx context.Context) (*hippo.Stats, error) {
	s := &hippo.Stats{Path: db.dsn, DecayModel: db.cfg.Decay, DecayClock: db.DecayClock()}
	err := pgx.BeginTxFunc(ctx, db.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE kind = 'fact'),
			count(*) FILTER (WHERE kind = 'memory'), count(*) FILTER (WHERE superseded_by IS NOT NULL),
			count(*) FILTER (WHERE kind = 'memory' AND origin = 'remember_facts') FROM chunks`).
			Scan(&s.Chunks, &s.Facts, &s.Memories, &s.Superseded, &s.KeptTexts)
		if err != nil {
			return fmt.Errorf("count chunks: %w", err)
		}
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM remember_pending`).Scan(&s.Pending); err != nil {
			return fmt.Errorf("count queued texts: %w", err)
		}
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM memory_blocks`).Scan(&s.Blocks); err != nil {
			return fmt.Errorf("count blocks: %w", err)
		}
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM
			(SELECT agent_id FROM chunks UNION SELECT agent_id FROM memory_blocks) AS a`).Scan(&s.Agents); err != nil {
			return fmt.Errorf("count agents: %w", err)
		}
		s.EmbeddingModel, err = sqlstore.ModelLock(ctx, pgQuerier{tx})
		return err
	})
	if err != nil {
		return nil, err
	}
	s.FileSize = db.DiskBytes()
	return s, nil
}

// foldSQL folds a text column as hippo.Fold does a Go string: compatibility
// decomposition, combining accents dropped, lower case. The columns are
// COLLATE "C", whose lower() changes ASCII only: the database's default
// collation lowers every letter ("Ελλάδα" is "ελλάδα").
const foldSQL = `lower(regexp_replace(normalize(%s, NFKD), '[\u0300-\u036f]', '', 'g') COLLATE "default")`

// chunkWhere returns the SQL condition and arguments of a filter that
// the engine checked.
func chunkWhere(f hippo.ChunkFilter) (string, []any) {
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
	return strings.Join(conds, " AND "), args
}

// listColumns is engine.ChunkColumns with an empty vector.
var listColumns = engine.ChunkColumnsAs("''::bytea AS embedding", "NULL::bytea")

// adminStore is the database as engine.AdminStore; its transactions
// are agentTx of no agent.
type adminStore struct {
	sqlstore.Clock
	db *DB
}

func (s adminStore) ListRows(ctx context.Context, f hippo.ChunkFilter) (engine.Rows, error) {
	where, args := chunkWhere(f)
	query := `SELECT ` + listColumns + ` FROM chunks WHERE ` + where + ` ORDER BY created_at DESC, id DESC`
	if f.Limit > 0 {
		query += fmt.Sprintf(` LIMIT %d`, f.Limit)
	}
	return s.db.pool.Query(ctx, query+fmt.Sprintf(` OFFSET %d`, f.Offset), args...)
}

func (s adminStore) CountRows(ctx context.Context, f hippo.ChunkFilter) (n int, err error) {
	where, args := chunkWhere(f)
	err = s.db.pool.QueryRow(ctx, `SELECT count(*) FROM chunks WHERE `+where, args...).Scan(&n)
	return n, err
}

func (s adminStore) BlockRows(ctx context.Context, agentID string, scope *string) (engine.Rows, error) {
	query := `SELECT agent_id, scope, key, char_length(value), description, updated_at FROM memory_blocks WHERE agent_id = $1`
	args := []any{agentID}
	if scope != nil {
		query += ` AND scope = $2`
		args = append(args, *scope)
	}
	return s.db.pool.Query(ctx, query+` ORDER BY scope COLLATE "C", key COLLATE "C"`, args...)
}

func (s adminStore) AgentRows(ctx context.Context) (engine.Rows, error) {
	return s.db.pool.Query(ctx, `SELECT agent_id, sum(chunks), sum(facts), sum(memories), sum(superseded), sum(blocks) FROM (
			SELECT agent_id, count(*) AS chunks, count(*) FILTER (WHERE kind = 'fact') AS facts,
				count(*) FILTER (WHERE kind = 'memory') AS memories,
				count(*) FILTER (WHERE superseded_by IS NOT NULL) AS superseded, 0 AS blocks
			FROM chunks GROUP BY agent_id
			UNION ALL
			SELECT agent_id, 0, 0, 0, 0, count(*) FROM memory_blocks GROUP BY agent_id
		) AS a GROUP BY agent_id ORDER BY agent_id COLLATE "C"`)
}

// Vacuum runs VACUUM on the tables that hold chunk text, so that the
// space of deleted tuples is reclaimed and their text no longer read from
// the table's pages (docs/RELIABILITY.md says what remains: WAL archives,
// replicas, backups).
func (db *DB) Vacuum(ctx context.Context) error {
	for _, t := range []string{"chunks", "chunk_inputs", "remember_pending", "hippo_changes", "hippo_reembed", "memory_blocks"} {
		if _, err := db.pool.Exec(ctx, `VACUUM `+t); err != nil {
			return fmt.Errorf("vacuum %s: %w", t, err)
		}
	}
	return nil
}

// PendingAgents implements hippo.Learner.
func (db *DB) PendingAgents(ctx context.Context) ([]string, error) {
	return engine.ReadIDs(db.pool.Query(ctx, `SELECT DISTINCT agent_id FROM remember_pending ORDER BY agent_id COLLATE "C"`))
}
