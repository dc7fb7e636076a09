package postgres

import (
	"context"
	"io"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/engine"
	"github.com/hippo-mem/hippo/internal/sqlstore"
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
	return sqlstore.ModelLock(ctx, pgQuerier{t.tx})
}

func (t importTx) LockModel(ctx context.Context, lock hippo.ModelLock) error {
	return sqlstore.LockModel(ctx, pgQuerier{t.tx}, lock.Model, lock.Dimension)
}

func (t importTx) InsertBlock(ctx context.Context, b engine.ImportedBlock) (bool, error) {
	return sqlstore.ImportBlock(ctx, pgQuerier{t.tx}, b)
}

func (t importTx) InsertChunk(ctx context.Context, c engine.ImportedChunk) (inserted, dupID bool, err error) {
	return sqlstore.ImportChunk(ctx, pgQuerier{t.tx}, c)
}

func (t importTx) DropLostContexts(ctx context.Context) error {
	return sqlstore.DropLostContexts(ctx, pgQuerier{t.tx})
}

func (t importTx) InsertInput(ctx context.Context, in engine.ImportedInput) (bool, error) {
	return sqlstore.ImportInput(ctx, pgQuerier{t.tx}, in)
}

func (t importTx) Taken(ctx context.Context, id, agent, scope, hash string) (dupID, dupContent bool, err error) {
	err = t.tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM chunks WHERE id = $4),
		EXISTS (SELECT 1 FROM chunks WHERE `+sameMemory+`)`, agent, scope, hash, id).Scan(&dupID, &dupContent)
	return dupID, dupContent, err
}

func (t importTx) DecayModel(ctx context.Context) (hippo.DecayModel, error) {
	return readDecayModel(ctx, t.tx)
}
