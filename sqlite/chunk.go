package sqlite

import (
	"context"
	"database/sql"
	"strings"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/engine"
	"github.com/hippo-mem/hippo/internal/sqlstore"
)

// nullable scans a nullable TEXT column into a string ("" for NULL).
func nullable(s *string) engine.NullString { return engine.Nullable(s) }

// nullIfEmpty stores "" as NULL.
func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// ContentHash is hippo.ContentHash.
func ContentHash(content string) string { return hippo.ContentHash(content) }

// Chunk returns one chunk by ID, of agentID unless agentID is "".
func (db *DB) Chunk(ctx context.Context, agentID, id string) (*hippo.Chunk, error) {
	return txOf(std{db.read}, agentID).Chunk(ctx, id)
}

func (s adminStore) AdminView(ctx context.Context, fn func(engine.AdminTx) error) error {
	tx, err := s.db.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	return fn(txOf(std{tx}, ""))
}

func (s adminStore) AdminUpdate(ctx context.Context, _ string, fn func(engine.AdminTx) error) error {
	if err := s.db.beforeWrite(ctx); err != nil {
		return err
	}
	tx, err := s.db.write.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(txOf(std{tx}, "")); err != nil {
		return err
	}
	return tx.Commit()
}

func (s adminStore) AfterDelete(ctx context.Context) {
	_ = s.db.pruneChanges(ctx, changeLogKeep)
	s.db.afterBulkWrite(ctx)
}

// Superseded implements engine.AdminTx.
func (t agentTx) Superseded(ctx context.Context, f hippo.PurgeFilter) ([]*hippo.Chunk, error) {
	query := `SELECT ` + listColumns + ` FROM chunks WHERE superseded_by IS NOT NULL`
	var args []any
	if f.AgentID != "" {
		query += ` AND agent_id = ?`
		args = append(args, f.AgentID)
	}
	if !f.Before.IsZero() {
		query += ` AND COALESCE(superseded_at, created_at) < ?`
		args = append(args, formatTime(f.Before))
	}
	return engine.ReadChunks(t.tx.QueryContext(ctx, query+` ORDER BY created_at, id`, args...))
}

// Purge implements engine.AdminTx.
func (t agentTx) Purge(ctx context.Context, ids []string) error {
	for _, id := range ids {
		if _, err := t.tx.ExecContext(ctx, `DELETE FROM chunks WHERE id = ?`, id); err != nil {
			return err
		}
	}
	return nil
}

// afterBulkWrite is the store's hook after a write that deleted or
// rewrote rows (engine.Store.AfterBulkWrite, ReembedStore.AfterSwitch,
// DeleteChunks, PurgeSuperseded): a WAL checkpoint, so that forgotten text
// does not linger in the log. Failure is harmless: the next checkpoint
// does it.
func (db *DB) afterBulkWrite(ctx context.Context) {
	_, _ = db.write.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`)
}

// placeholders returns "?, ?, ?" for n arguments.
func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

// sameMemory is the condition on chunks that finds the memory an agent
// already holds with a content hash in a scope, the key of memory dedup;
// its arguments are the agent, the scope and the hash twice. The prefix
// comparison is what the unique dedup index holds (migration 0007).
const sameMemory = `agent_id = ? AND scope = ? AND substr(content_hash, 1, 32) = substr(?, 1, 32) AND content_hash = ? AND kind = 'memory'`

// InsertChunks writes chunks as they are (IDs, counters and times kept when
// set, filled in when not) in one transaction, checking the embedding model
// lock. Chunks without an agent or scope take agentID and scope.
//
// It is a bulk loader, not an agent's way to write: it skips fact
// extraction, deduplication, conflict resolution and the trust check
// (SuspiciousReason is stored as given; Provenance, when nil, records
// hippo.OriginBulk) (use Memory's
// RememberFacts and StoreMemory for that). It is public because loading
// stores with given vectors and times is what benchmarks, evaluation sets
// and tests of other packages need, and an export is the other way in
// (Import).
func (db *DB) InsertChunks(ctx context.Context, agentID, scope, model string, chunks []*hippo.Chunk) error {
	if len(chunks) == 0 {
		return nil
	}
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := sqlstore.LockModel(ctx, querierOf(tx), model, len(chunks[0].Embedding)); err != nil {
		return err
	}
	bulk, err := startBulkLog(ctx, tx)
	if err != nil {
		return err
	}
	now := db.now()
	for _, c := range chunks {
		if err := engine.PrepareBulk(c, agentID, scope, db.cfg.DefaultIntensity, now, len(chunks[0].Embedding)); err != nil {
			return err
		}
		if err := txOf(std{tx}, "").Insert(ctx, c); err != nil {
			return err
		}
		if err := bulk.added(ctx); err != nil {
			return err
		}
	}
	if err := bulk.finish(ctx); err != nil {
		return err
	}
	return tx.Commit()
}
