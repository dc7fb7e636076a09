package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/engine"
)

// ImportOptions is hippo.ImportOptions.
type ImportOptions = hippo.ImportOptions

// BlockRef is hippo.BlockRef.
type BlockRef = hippo.BlockRef

// ImportResult is hippo.ImportResult.
type ImportResult = hippo.ImportResult

// Import implements hippo.Importer: engine.Import (the decoding of either
// format, the model checks, agents, dedup and re-embedding) over one write
// transaction, whose rows go in with INSERT ... ON CONFLICT DO NOTHING.
func (db *DB) Import(ctx context.Context, r io.Reader, opts ImportOptions) (*ImportResult, error) {
	return engine.Import(ctx, importStore{db}, r, opts)
}

// importStore is the database as engine.ImportStore.
type importStore struct{ db *DB }

func (s importStore) ImportNow() time.Time { return s.db.now() }

func (s importStore) Config() hippo.Config { return s.db.cfg }

func (s importStore) ImportUpdate(ctx context.Context, fn func(engine.ImportTx) error) error {
	if err := s.db.beforeWrite(ctx); err != nil {
		return err
	}
	tx, err := s.db.write.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	t := &importTx{db: s.db, tx: tx}
	if t.insertChunk, err = tx.PrepareContext(ctx, `INSERT INTO chunks (`+chunkColumns+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`); err != nil {
		return err
	}
	defer t.insertChunk.Close()
	if t.bulk, err = startBulkLog(ctx, tx); err != nil {
		return err
	}
	if t.insertBlock, err = tx.PrepareContext(ctx, `INSERT INTO memory_blocks
		(agent_id, scope, key, value, description, updated_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`); err != nil {
		return err
	}
	defer t.insertBlock.Close()
	if err := fn(t); err != nil {
		return err
	}
	if err := t.bulk.finish(ctx); err != nil {
		return err
	}
	return tx.Commit()
}

// AfterImport implements engine.ImportStore: a bulk import logs a change
// per chunk, so the log is trimmed now rather than after the next
// thousand recalls.
func (s importStore) AfterImport(ctx context.Context) { _ = s.db.pruneChanges(ctx, changeLogKeep) }

// importTx is the import's write transaction as engine.ImportTx.
type importTx struct {
	db                       *DB
	tx                       *sql.Tx
	insertChunk, insertBlock *sql.Stmt
	bulk                     *bulkLog
}

func (t *importTx) ModelLock(ctx context.Context) (*ModelLock, error) {
	return t.db.readLock(ctx, t.tx)
}

// DecayModel implements engine.ImportTx.
func (t *importTx) DecayModel(ctx context.Context) (hippo.DecayModel, error) {
	return readDecayModel(ctx, t.tx)
}

func (t *importTx) LockModel(ctx context.Context, lock ModelLock) error {
	return t.db.lockModelTx(ctx, t.tx, lock.Model, lock.Dimension)
}

func (t *importTx) InsertBlock(ctx context.Context, b engine.ImportedBlock) (bool, error) {
	res, err := t.insertBlock.ExecContext(ctx, b.AgentID, b.Scope, b.Key, b.Value, b.Description, formatTime(b.UpdatedAt))
	if err != nil {
		return false, err
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

func (t *importTx) InsertChunk(ctx context.Context, c engine.ImportedChunk) (inserted, dupID bool, err error) {
	res, err := t.insertChunk.ExecContext(ctx, c.ID, c.AgentID, c.Scope, string(c.Kind), c.Content,
		nullIfEmpty(c.ContentHash), c.Embedding, nullIfEmpty(c.Metadata), c.RunningIntensity,
		c.EncounterCount, c.AccessCount, formatTime(c.LastAccessedAt), nullIfEmpty(c.SupersededBy),
		nullTime(c.SupersededAt), formatTime(c.CreatedAt), nullIfEmpty(c.Suspicious),
		nullIfEmpty(c.Provenance.Origin), nullIfEmpty(c.Provenance.Caller), nullIfEmpty(c.Provenance.Source),
		nullIfEmpty(c.Provenance.InputHash))
	if err != nil {
		return false, false, fmt.Errorf("import chunk %s: %w", c.ID, err)
	}
	if n, _ := res.RowsAffected(); n > 0 {
		return true, false, t.bulk.added(ctx)
	}
	err = t.tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM chunks WHERE id = ?)`, c.ID).Scan(&dupID)
	return false, dupID, err
}

// InsertInput implements engine.ImportTx: only when an inserted chunk of
// the agent refers to it, and once.
func (t *importTx) InsertInput(ctx context.Context, in engine.ImportedInput) (bool, error) {
	res, err := t.tx.ExecContext(ctx, `INSERT INTO chunk_inputs (agent_id, hash, text, created_at)
		SELECT ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM chunks WHERE agent_id = ? AND input_hash = ?)
		ON CONFLICT DO NOTHING`, in.AgentID, in.Hash, in.Text, formatTime(in.CreatedAt), in.AgentID, in.Hash)
	if err != nil {
		return false, fmt.Errorf("import input %s: %w", in.Hash, err)
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

func (t *importTx) Taken(ctx context.Context, id, agent, scope, hash string) (dupID, dupContent bool, err error) {
	err = t.tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM chunks WHERE id = ?),
		EXISTS (SELECT 1 FROM chunks WHERE `+sameMemory+`)`,
		id, agent, scope, hash, hash).Scan(&dupID, &dupContent)
	return dupID, dupContent, err
}

// nullTime stores the zero time as NULL.
func nullTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return formatTime(t)
}
