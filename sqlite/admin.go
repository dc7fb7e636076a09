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
	"github.com/hippo-mem/hippo/internal/sqlstore"
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
		COALESCE(SUM(kind = 'memory'), 0), COALESCE(SUM(superseded_by IS NOT NULL), 0),
		COALESCE(SUM(kind = 'memory' AND origin = 'remember_facts'), 0) FROM chunks`).
		Scan(&s.Chunks, &s.Facts, &s.Memories, &s.Superseded, &s.KeptTexts)
	if err != nil {
		return nil, fmt.Errorf("count chunks: %w", err)
	}
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM remember_pending`).Scan(&s.Pending); err != nil {
		return nil, fmt.Errorf("count queued texts: %w", err)
	}
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM memory_blocks`).Scan(&s.Blocks); err != nil {
		return nil, fmt.Errorf("count blocks: %w", err)
	}
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM
		(SELECT agent_id FROM chunks UNION SELECT agent_id FROM memory_blocks)`).Scan(&s.Agents); err != nil {
		return nil, fmt.Errorf("count agents: %w", err)
	}
	if s.EmbeddingModel, err = sqlstore.ModelLock(ctx, querierOf(tx)); err != nil {
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

// ChunkFilter is hippo.ChunkFilter.
type ChunkFilter = hippo.ChunkFilter

// chunkWhere returns the SQL condition and arguments of a filter that
// the engine checked.
func chunkWhere(f ChunkFilter) (string, []any) {
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
	return strings.Join(conds, " AND "), args
}

// listColumns is engine.ChunkColumns with an empty vector in place of the
// embedding: listings show text, and decoding every vector is wasted work.
var listColumns = engine.ChunkColumnsAs("X'' AS embedding", "NULL")

// adminStore is the database as engine.AdminStore; its transactions
// are agentTx of no agent.
type adminStore struct {
	sqlstore.Clock
	db *DB
}

func (s adminStore) ListRows(ctx context.Context, f ChunkFilter) (engine.Rows, error) {
	where, args := chunkWhere(f)
	limit := f.Limit
	if limit == 0 {
		limit = -1 // SQLite: no limit
	}
	return s.db.read.QueryContext(ctx, `SELECT `+listColumns+` FROM chunks WHERE `+where+
		` ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`, append(args, limit, f.Offset)...)
}

func (s adminStore) CountRows(ctx context.Context, f ChunkFilter) (n int, err error) {
	where, args := chunkWhere(f)
	err = s.db.read.QueryRowContext(ctx, `SELECT COUNT(*) FROM chunks WHERE `+where, args...).Scan(&n)
	return n, err
}

func (s adminStore) BlockRows(ctx context.Context, agentID string, scope *string) (engine.Rows, error) {
	query := `SELECT agent_id, scope, key, length(value), description, updated_at FROM memory_blocks WHERE agent_id = ?`
	args := []any{agentID}
	if scope != nil {
		query += ` AND scope = ?`
		args = append(args, *scope)
	}
	return s.db.queryRead(ctx, query+` ORDER BY scope, key`, args...)
}

func (s adminStore) AgentRows(ctx context.Context) (engine.Rows, error) {
	return s.db.read.QueryContext(ctx, `SELECT agent_id, SUM(chunks), SUM(facts), SUM(memories),
		SUM(superseded), SUM(blocks) FROM (
			SELECT agent_id, COUNT(*) AS chunks, SUM(kind = 'fact') AS facts,
				SUM(kind = 'memory') AS memories, SUM(superseded_by IS NOT NULL) AS superseded,
				0 AS blocks
			FROM chunks GROUP BY agent_id
			UNION ALL
			SELECT agent_id, 0, 0, 0, 0, COUNT(*) FROM memory_blocks GROUP BY agent_id
		) GROUP BY agent_id ORDER BY agent_id`)
}

type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// BlockInfo describes a block without its value.
type BlockInfo = hippo.BlockInfo

// DeletePlan is hippo.DeletePlan.
type DeletePlan = hippo.DeletePlan

// PurgeFilter is hippo.PurgeFilter.
type PurgeFilter = hippo.PurgeFilter

// PendingAgents implements hippo.Learner.
func (db *DB) PendingAgents(ctx context.Context) ([]string, error) {
	return engine.ReadIDs(db.read.QueryContext(ctx, `SELECT DISTINCT agent_id FROM remember_pending ORDER BY agent_id`))
}
