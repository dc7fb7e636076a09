package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/engine"
	"github.com/hippo-mem/hippo/vector"
)

// chunkColumns is the column list scanChunk reads, in order.
const chunkColumns = engine.ChunkColumns

// recalledColumns is chunkColumns without the embedding, which recall
// results leave out: decoding it cost every recall a copy of each vector
// its caller has no use for.
var recalledColumns = strings.Replace(chunkColumns, "embedding", "NULL", 1)

type rowScanner interface{ Scan(dest ...any) error }

func scanChunk(r rowScanner) (*hippo.Chunk, error) { return engine.ScanChunk(r.Scan) }

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

type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// insertChunk inserts c; ECONFLICT when its ID or, for a memory, its
// content in its scope is taken.
func insertChunk(ctx context.Context, tx execer, c *hippo.Chunk) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO chunks (`+chunkColumns+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, chunkArgs(c)...)
	switch {
	case isUniqueViolation(err):
		return &hippo.Error{Code: hippo.ECONFLICT, Message: fmt.Sprintf("chunk %s: a chunk with this ID, or a memory with this content in scope %q, already exists", c.ID, c.Scope)}
	case err != nil:
		return fmt.Errorf("insert chunk: %w", err)
	}
	return nil
}

// chunkArgs are c's values in the order of chunkColumns.
func chunkArgs(c *hippo.Chunk) []any {
	var supAt any
	if c.SupersededAt != nil {
		supAt = formatTime(*c.SupersededAt)
	}
	var prov hippo.Provenance
	if c.Provenance != nil {
		prov = *c.Provenance
	}
	return []any{c.ID, c.AgentID, c.Scope, string(c.Kind), c.Content, nullIfEmpty(c.ContentHash),
		vector.Encode(c.Embedding), nullIfEmpty(string(c.Metadata)),
		c.RunningIntensity, c.EncounterCount, c.AccessCount, formatTime(c.LastAccessedAt),
		nullIfEmpty(c.SupersededBy), supAt, formatTime(c.CreatedAt),
		nullIfEmpty(c.SuspiciousReason), nullIfEmpty(prov.Origin), nullIfEmpty(prov.Caller),
		nullIfEmpty(prov.Source), nullIfEmpty(prov.InputHash)}
}

// Chunk returns one chunk by ID, of agentID unless agentID is "".
func (db *DB) Chunk(ctx context.Context, agentID, id string) (*hippo.Chunk, error) {
	return getChunk(ctx, db.read, agentID, id)
}

func getChunk(ctx context.Context, q queryRower, agentID, id string) (*hippo.Chunk, error) {
	query := `SELECT ` + chunkColumns + ` FROM chunks WHERE id = ?`
	args := []any{id}
	if agentID != "" {
		query += ` AND agent_id = ?`
		args = append(args, agentID)
	}
	c, err := scanChunk(q.QueryRowContext(ctx, query, args...))
	if err == sql.ErrNoRows {
		return nil, hippo.Errorf(hippo.ENOTFOUND, "chunk %s not found", id)
	}
	return c, err
}

// DeleteChunks implements hippo.Admin: engine.DeleteChunks, in one write
// transaction.
func (db *DB) DeleteChunks(ctx context.Context, agentID string, ids []string) (deleted, resurrected []string, err error) {
	return engine.DeleteChunks(ctx, adminStore{db}, agentID, ids)
}

// PlanDelete implements hippo.Admin: engine.PlanDelete, in one read
// transaction.
func (db *DB) PlanDelete(ctx context.Context, agentID string, ids []string) (*hippo.DeletePlan, error) {
	return engine.PlanDelete(ctx, adminStore{db}, agentID, ids)
}

// PurgeSuperseded implements hippo.Admin: engine.PurgeSuperseded.
func (db *DB) PurgeSuperseded(ctx context.Context, f hippo.PurgeFilter) ([]*hippo.Chunk, error) {
	return engine.PurgeSuperseded(ctx, adminStore{db}, f)
}

// adminStore is the database as engine.AdminStore; its transactions are
// agentTx of no agent.
type adminStore struct{ db *DB }

func (s adminStore) AdminView(ctx context.Context, fn func(engine.AdminTx) error) error {
	tx, err := s.db.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	return fn(agentTx{tx: tx})
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
	if err := fn(agentTx{tx: tx}); err != nil {
		return err
	}
	return tx.Commit()
}

func (s adminStore) AfterDelete(ctx context.Context) {
	_ = s.db.pruneChanges(ctx, changeLogKeep)
	s.db.afterBulkWrite(ctx)
}

// DeleteChunk implements engine.ChunkDeleter.
func (t agentTx) DeleteChunk(ctx context.Context, agentID, id string) (string, error) {
	query, args := `DELETE FROM chunks WHERE id = ?`, []any{id}
	if agentID != "" {
		query += ` AND agent_id = ?`
		args = append(args, agentID)
	}
	var owner string
	err := t.tx.QueryRowContext(ctx, query+` RETURNING agent_id`, args...).Scan(&owner)
	if err == sql.ErrNoRows {
		return "", nil
	}
	return owner, err
}

// Unsupersede implements engine.ChunkDeleter.
func (t agentTx) Unsupersede(ctx context.Context, owner, id string) ([]string, error) {
	return engine.ReadIDs(t.tx.QueryContext(ctx, `UPDATE chunks SET superseded_by = NULL, superseded_at = NULL
		WHERE superseded_by = ? AND agent_id = ? RETURNING id`, id, owner))
}

// Listed implements engine.AdminTx.
func (t agentTx) Listed(ctx context.Context, agentID, id string) (*hippo.Chunk, error) {
	query, args := `SELECT `+listColumns+` FROM chunks WHERE id = ?`, []any{id}
	if agentID != "" {
		query += ` AND agent_id = ?`
		args = append(args, agentID)
	}
	cs, err := engine.ReadChunks(t.tx.QueryContext(ctx, query, args...))
	if err != nil || len(cs) == 0 {
		return nil, err
	}
	return cs[0], nil
}

// SupersededBy implements engine.AdminTx.
func (t agentTx) SupersededBy(ctx context.Context, owner, id string) ([]string, error) {
	return engine.ReadIDs(t.tx.QueryContext(ctx, `SELECT id FROM chunks WHERE superseded_by = ? AND agent_id = ? ORDER BY id`, id, owner))
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

// Repoint implements engine.AdminTx.
func (t agentTx) Repoint(ctx context.Context, owner, id, next string) error {
	_, err := t.tx.ExecContext(ctx, `UPDATE chunks SET superseded_by = ? WHERE superseded_by = ? AND agent_id = ?`, next, id, owner)
	return err
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

// saveStrength writes a chunk's strength fields (running intensity,
// encounters, accesses and last access) as hippo.Chunk's Strengthen or
// Merge left them.
func saveStrength(ctx context.Context, tx execer, c *hippo.Chunk) error {
	_, err := tx.ExecContext(ctx, `UPDATE chunks SET running_intensity = ?, encounter_count = ?,
		access_count = ?, last_accessed_at = ? WHERE id = ?`,
		c.RunningIntensity, c.EncounterCount, c.AccessCount, formatTime(c.LastAccessedAt), c.ID)
	return err
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
	if err := db.lockModelTx(ctx, tx, model, len(chunks[0].Embedding)); err != nil {
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
		if err := insertChunk(ctx, tx, c); err != nil {
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
