package postgres

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/engine"
	"github.com/jackc/pgx/v5"
)

// Import implements hippo.Importer: engine.Import over one bulk write
// transaction (DB.bulk: no per-row change log, every reader reloads),
// rows inserted with ON CONFLICT DO NOTHING.
func (db *DB) Import(ctx context.Context, r io.Reader, opts hippo.ImportOptions) (*hippo.ImportResult, error) {
	return engine.Import(ctx, importStore{db}, r, opts)
}

// importStore is the database as engine.ImportStore.
type importStore struct{ db *DB }

func (s importStore) ImportNow() time.Time { return s.db.now() }

func (s importStore) Config() hippo.Config { return s.db.cfg }

func (s importStore) ImportUpdate(ctx context.Context, fn func(engine.ImportTx) error) error {
	return s.db.bulk(ctx, func(tx pgx.Tx) error { return fn(importTx{tx}) })
}

// AfterImport implements engine.ImportStore: nothing to trim, as a bulk
// import logs no changes.
func (s importStore) AfterImport(ctx context.Context) {}

// importTx is the import's write transaction as engine.ImportTx.
type importTx struct{ tx pgx.Tx }

func (t importTx) ModelLock(ctx context.Context) (*hippo.ModelLock, error) {
	return readLock(ctx, t.tx)
}

func (t importTx) LockModel(ctx context.Context, lock hippo.ModelLock) error {
	return lockModelTx(ctx, t.tx, lock.Model, lock.Dimension)
}

func (t importTx) InsertBlock(ctx context.Context, b engine.ImportedBlock) (bool, error) {
	tag, err := t.tx.Exec(ctx, `INSERT INTO memory_blocks (agent_id, scope, key, value, description, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`,
		b.AgentID, b.Scope, b.Key, b.Value, b.Description, formatTime(b.UpdatedAt))
	if err != nil {
		return false, err
	}
	return tag.RowsAffected() > 0, nil
}

func (t importTx) InsertChunk(ctx context.Context, c engine.ImportedChunk) (inserted, dupID bool, err error) {
	tag, err := t.tx.Exec(ctx, insertChunkSQL, c.ID, c.AgentID, c.Scope, string(c.Kind), c.Content,
		nullIfEmpty(c.ContentHash), c.Embedding, nullIfEmpty(c.Metadata), c.RunningIntensity,
		c.EncounterCount, c.AccessCount, formatTime(c.LastAccessedAt), nullIfEmpty(c.SupersededBy),
		nullTime(c.SupersededAt), formatTime(c.CreatedAt), nullIfEmpty(c.Suspicious),
		nullIfEmpty(c.Provenance.Origin), nullIfEmpty(c.Provenance.Caller), nullIfEmpty(c.Provenance.Source),
		nullIfEmpty(c.Provenance.InputHash))
	if err != nil {
		return false, false, fmt.Errorf("import chunk %s: %w", c.ID, err)
	}
	if tag.RowsAffected() > 0 {
		return true, false, nil
	}
	err = t.tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM chunks WHERE id = $1)`, c.ID).Scan(&dupID)
	return false, dupID, err
}

// InsertInput implements engine.ImportTx: only when a chunk of the agent
// refers to it, and once.
func (t importTx) InsertInput(ctx context.Context, in engine.ImportedInput) (bool, error) {
	tag, err := t.tx.Exec(ctx, `INSERT INTO chunk_inputs (agent_id, hash, text, created_at)
		SELECT $1, $2, $3, $4 WHERE EXISTS (SELECT 1 FROM chunks WHERE agent_id = $1 AND input_hash = $2)
		ON CONFLICT DO NOTHING`, in.AgentID, in.Hash, in.Text, formatTime(in.CreatedAt))
	if err != nil {
		return false, fmt.Errorf("import input %s: %w", in.Hash, err)
	}
	return tag.RowsAffected() > 0, nil
}

func (t importTx) Taken(ctx context.Context, id, agent, scope, hash string) (dupID, dupContent bool, err error) {
	err = t.tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM chunks WHERE id = $4),
		EXISTS (SELECT 1 FROM chunks WHERE `+sameMemory+`)`, agent, scope, hash, id).Scan(&dupID, &dupContent)
	return dupID, dupContent, err
}

// nullTime stores the zero time as NULL.
func nullTime(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := formatTime(t)
	return &s
}

func (t importTx) DecayModel(ctx context.Context) (hippo.DecayModel, error) {
	return readDecayModel(ctx, t.tx)
}
