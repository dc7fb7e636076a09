package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/engine"
)

// Stats is hippo.Stats.
type Stats = hippo.Stats

// Stats counts chunks, blocks and agents in one read snapshot.
func (db *DB) Stats(ctx context.Context) (*Stats, error) {
	tx, err := db.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	s := &Stats{Path: db.path, DecayModel: db.cfg.Decay, DecayClock: db.DecayClock()}
	err = tx.QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(SUM(kind = 'fact'), 0),
		COALESCE(SUM(kind = 'memory'), 0), COALESCE(SUM(superseded_by IS NOT NULL), 0) FROM chunks`).
		Scan(&s.Chunks, &s.Facts, &s.Memories, &s.Superseded)
	if err != nil {
		return nil, fmt.Errorf("count chunks: %w", err)
	}
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM memory_blocks`).Scan(&s.Blocks); err != nil {
		return nil, fmt.Errorf("count blocks: %w", err)
	}
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM
		(SELECT agent_id FROM chunks UNION SELECT agent_id FROM memory_blocks)`).Scan(&s.Agents); err != nil {
		return nil, fmt.Errorf("count agents: %w", err)
	}
	if s.EmbeddingModel, err = db.readLock(ctx, tx); err != nil {
		return nil, err
	}
	if s.FileSize, err = fileSize(db.path); err != nil {
		return nil, err
	}
	if s.WALSize, err = fileSize(db.path + "-wal"); err != nil {
		return nil, err
	}
	return s, nil
}

// DiskBytes implements hippo.SizeReporter: the database file and its
// write-ahead log, 0 for either when it cannot be read.
func (db *DB) DiskBytes() int64 {
	file, _ := fileSize(db.path)
	wal, _ := fileSize(db.path + "-wal")
	return file + wal
}

var _ hippo.SizeReporter = (*DB)(nil)

func fileSize(path string) (int64, error) {
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	} else if err != nil {
		return 0, err
	}
	return st.Size(), nil
}

// AgentSummary is hippo.AgentSummary.
type AgentSummary = hippo.AgentSummary

// Agents lists every agent owning a chunk or a block, by ID.
func (db *DB) Agents(ctx context.Context) ([]AgentSummary, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT agent_id, SUM(chunks), SUM(facts), SUM(memories),
		SUM(superseded), SUM(blocks) FROM (
			SELECT agent_id, COUNT(*) AS chunks, SUM(kind = 'fact') AS facts,
				SUM(kind = 'memory') AS memories, SUM(superseded_by IS NOT NULL) AS superseded,
				0 AS blocks
			FROM chunks GROUP BY agent_id
			UNION ALL
			SELECT agent_id, 0, 0, 0, 0, COUNT(*) FROM memory_blocks GROUP BY agent_id
		) GROUP BY agent_id ORDER BY agent_id`)
	if err != nil {
		return nil, fmt.Errorf("list agents: %w", err)
	}
	defer rows.Close()
	out := []AgentSummary{}
	for rows.Next() {
		var a AgentSummary
		if err := rows.Scan(&a.AgentID, &a.Chunks, &a.Facts, &a.Memories, &a.Superseded, &a.Blocks); err != nil {
			return nil, fmt.Errorf("list agents: %w", err)
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// ChunkFilter is hippo.ChunkFilter.
type ChunkFilter = hippo.ChunkFilter

// chunkWhere returns the SQL condition and arguments of the filter,
// checked (engine.CheckFilter).
func chunkWhere(f ChunkFilter) (string, []any, error) {
	if err := engine.CheckFilter(f); err != nil {
		return "", nil, err
	}
	conds := []string{"1"}
	var args []any
	if f.AgentID != "" {
		conds = append(conds, "agent_id = ?")
		args = append(args, f.AgentID)
	}
	if f.Scope != nil {
		conds = append(conds, "scope = ?")
		args = append(args, *f.Scope)
	}
	if f.Kind != "" {
		conds = append(conds, "kind = ?")
		args = append(args, string(f.Kind))
	}
	if !f.Superseded {
		conds = append(conds, "superseded_by IS NULL")
	}
	if f.Suspicious {
		conds = append(conds, "suspicious IS NOT NULL")
	}
	if f.Text != "" {
		conds = append(conds, "instr("+foldFunc+"(content), ?) > 0")
		args = append(args, hippo.Fold(f.Text))
	}
	return strings.Join(conds, " AND "), args, nil
}

// listColumns is chunkColumns with an empty vector in place of the
// embedding: listings show text, and decoding every vector is wasted work.
var listColumns = strings.Replace(chunkColumns, " embedding,", " X'' AS embedding,", 1)

// ListChunks returns the chunks the filter selects, newest first, without
// their embeddings.
func (db *DB) ListChunks(ctx context.Context, f ChunkFilter) ([]*hippo.Chunk, error) {
	where, args, err := chunkWhere(f)
	if err != nil {
		return nil, err
	}
	query := `SELECT ` + listColumns + ` FROM chunks WHERE ` + where + ` ORDER BY created_at DESC, id DESC`
	limit := f.Limit
	if limit == 0 {
		limit = -1 // SQLite: no limit
	}
	query += ` LIMIT ? OFFSET ?`
	args = append(args, limit, f.Offset)
	return engine.ReadChunks(db.read.QueryContext(ctx, query, args...))
}

// CountChunks counts the chunks the filter selects, ignoring Limit and
// Offset.
func (db *DB) CountChunks(ctx context.Context, f ChunkFilter) (int, error) {
	where, args, err := chunkWhere(f)
	if err != nil {
		return 0, err
	}
	var n int
	if err := db.read.QueryRowContext(ctx, `SELECT COUNT(*) FROM chunks WHERE `+where, args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("count chunks: %w", err)
	}
	return n, nil
}

type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// BlockInfo describes a block without its value.
type BlockInfo = hippo.BlockInfo

// ListBlocks lists an agent's blocks, in one scope unless scope is nil,
// ordered by scope and key.
func (db *DB) ListBlocks(ctx context.Context, agentID string, scope *string) ([]BlockInfo, error) {
	query := `SELECT agent_id, scope, key, length(value), description, updated_at FROM memory_blocks WHERE agent_id = ?`
	args := []any{agentID}
	if scope != nil {
		query += ` AND scope = ?`
		args = append(args, *scope)
	}
	rows, err := db.read.QueryContext(ctx, query+` ORDER BY scope, key`, args...)
	if err != nil {
		return nil, fmt.Errorf("list blocks: %w", err)
	}
	defer rows.Close()
	out := []BlockInfo{}
	for rows.Next() {
		var b BlockInfo
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

// DeletePlan is hippo.DeletePlan.
type DeletePlan = hippo.DeletePlan

// PurgeFilter is hippo.PurgeFilter.
type PurgeFilter = hippo.PurgeFilter
