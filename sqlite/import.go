package sqlite

import (
	"context"
	"database/sql"
	"io"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/engine"
	"github.com/hippo-mem/hippo/internal/sqlstore"
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
	q := &preparedTx{tx: tx, stmts: map[string]*sql.Stmt{}}
	defer q.close()
	t := &importTx{db: s.db, tx: tx, q: querierOf(q)}
	if t.bulk, err = startBulkLog(ctx, tx); err != nil {
		return err
	}
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
	db   *DB
	tx   *sql.Tx
	q    sqlQuerier // the transaction, its statements prepared once
	bulk *bulkLog
}

func (t *importTx) ModelLock(ctx context.Context) (*ModelLock, error) {
	return sqlstore.ModelLock(ctx, t.q)
}

// DecayModel implements engine.ImportTx.
func (t *importTx) DecayModel(ctx context.Context) (hippo.DecayModel, error) {
	return readDecayModel(ctx, std{t.tx})
}

func (t *importTx) LockModel(ctx context.Context, lock ModelLock) error {
	return sqlstore.LockModel(ctx, t.q, lock.Model, lock.Dimension)
}

func (t *importTx) InsertBlock(ctx context.Context, b engine.ImportedBlock) (bool, error) {
	return sqlstore.ImportBlock(ctx, t.q, b)
}

// InsertChunk implements engine.ImportTx, counting the chunk in the bulk
// change log.
func (t *importTx) InsertChunk(ctx context.Context, c engine.ImportedChunk) (inserted, dupID bool, err error) {
	if inserted, dupID, err = sqlstore.ImportChunk(ctx, t.q, c); inserted {
		err = t.bulk.added(ctx)
	}
	return inserted, dupID, err
}

func (t *importTx) DropLostContexts(ctx context.Context) error {
	return sqlstore.DropLostContexts(ctx, t.q)
}

func (t *importTx) InsertInput(ctx context.Context, in engine.ImportedInput) (bool, error) {
	return sqlstore.ImportInput(ctx, t.q, in)
}

func (t *importTx) Taken(ctx context.Context, id, agent, scope, hash string) (dupID, dupContent bool, err error) {
	err = t.tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM chunks WHERE id = ?),
		EXISTS (SELECT 1 FROM chunks WHERE `+sameMemory+`)`,
		id, agent, scope, hash, hash).Scan(&dupID, &dupContent)
	return dupID, dupContent, err
}

// preparedTx is a transaction whose statements are prepared once, on
// first use: an import runs the same few statements for every row, and
// the driver compiles every statement it runs otherwise.
type preparedTx struct {
	tx    *sql.Tx
	stmts map[string]*sql.Stmt
}

func (p *preparedTx) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	if st := p.stmts[query]; st != nil {
		return st, nil
	}
	st, err := p.tx.PrepareContext(ctx, query)
	if err == nil {
		p.stmts[query] = st
	}
	return st, err
}

func (p *preparedTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	st, err := p.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.ExecContext(ctx, args...)
}

func (p *preparedTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return p.tx.QueryContext(ctx, query, args...)
}

func (p *preparedTx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return p.tx.QueryRowContext(ctx, query, args...)
}

func (p *preparedTx) close() {
	for _, st := range p.stmts {
		st.Close()
	}
}
