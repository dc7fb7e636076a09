package sqlite

import (
	"context"
	"database/sql"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/engine"
	"github.com/hippo-mem/hippo/internal/sqlstore"
)

// Group commit (engine.GroupCommit). Writers of every agent share one
// write connection, and a durable commit (an fsync of the WAL) costs more
// than most writes do. So concurrent calls to agentStore.Update share one
// transaction, a savepoint each, and one commit; the store supplies the
// transaction (groupTx), the engine runs the group.

// sqlTx is what a transaction's statements need: *sql.Tx, or a grouped
// call's view of the group's transaction.
type sqlTx interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// writeTx runs a transaction's statements prepared once per DB
// (cachedStmt; read: on the read pool): the driver otherwise compiles
// every statement it runs, and compiling an insert with its triggers
// costs about as much as running it. A query's first run, and queries
// beyond the cache's bound (lists of IDs of every length), run
// unprepared. With detach, a call of a group runs its statements without
// its own cancellation: the driver answers a cancelled statement by
// interrupting SQLite, which may roll back the whole transaction and with
// it the other calls of the group; so a call that has started runs to its
// end, and cancellation counts only while it waits.
type writeTx struct {
	tx           *sql.Tx
	db           *DB
	detach, read bool
}

func (w writeTx) stmt(ctx context.Context, query string) (context.Context, *sql.Stmt) {
	if w.detach {
		ctx = context.WithoutCancel(ctx)
	}
	st := w.db.cachedStmt(query, w.read)
	if st == nil {
		return ctx, nil
	}
	return ctx, w.tx.StmtContext(ctx, st)
}

func (w writeTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	ctx, st := w.stmt(ctx, query)
	if st == nil {
		return w.tx.ExecContext(ctx, query, args...)
	}
	return st.ExecContext(ctx, args...)
}

func (w writeTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	ctx, st := w.stmt(ctx, query)
	if st == nil {
		return w.tx.QueryContext(ctx, query, args...)
	}
	return st.QueryContext(ctx, args...)
}

func (w writeTx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	ctx, st := w.stmt(ctx, query)
	if st == nil {
		return w.tx.QueryRowContext(ctx, query, args...)
	}
	return st.QueryRowContext(ctx, args...)
}

// agentTx is one agent's chunks in a transaction (agent "": every
// agent's): the statements both stores share (sqlstore.Tx), and tx for
// this store's own.
type agentTx struct {
	sqlstore.Tx
	tx sqlTx
}

func txOf(tx sqlTx, agent string) agentTx {
	return agentTx{sqlstore.Tx{Q: sqlQuerier{tx}, Agent: agent}, tx}
}

// sqlQuerier is a connection, transaction or pool as sqlstore.Querier.
type sqlQuerier struct{ tx sqlTx }

func (q sqlQuerier) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	res, err := q.tx.ExecContext(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (q sqlQuerier) Query(ctx context.Context, query string, args ...any) (engine.Rows, error) {
	return q.tx.QueryContext(ctx, query, args...)
}

func (q sqlQuerier) QueryRow(ctx context.Context, query string, args ...any) sqlstore.Row {
	return sqlRow{q.tx.QueryRowContext(ctx, query, args...)}
}

// sqlRow is a row whose Scan reports a missing row as sqlstore.ErrNoRows.
type sqlRow struct{ *sql.Row }

func (r sqlRow) Scan(dest ...any) error {
	if err := r.Row.Scan(dest...); err != sql.ErrNoRows {
		return err
	}
	return sqlstore.ErrNoRows
}

// groupTx is a transaction on the write connection as engine.GroupTx:
// a group's calls run in it, each in a savepoint when there are several.
type groupTx struct {
	db      *DB
	tx      *sql.Tx
	several bool
}

// beginGroup begins a group's transaction (engine.GroupCommit's begin).
func (db *DB) beginGroup(_ context.Context, _ string, several bool) (*groupTx, error) {
	db.writing.Add(1)
	tx, err := db.write.BeginTx(context.Background(), nil)
	if err != nil {
		db.writing.Add(-1)
		db.prepareNoted(context.Background(), false)
		return nil, err
	}
	return &groupTx{db: db, tx: tx, several: several}, nil
}

// in is the transaction as one agent's call sees it (detached from its
// cancellation when there are several, writeTx).
func (g *groupTx) in(m *agentStore) storeTx {
	return storeTx{txOf(writeTx{tx: g.tx, db: g.db, detach: g.several}, m.opts.AgentID), m}
}

func (g *groupTx) Savepoint(context.Context) error {
	_, err := g.tx.Exec(`SAVEPOINT grouped`)
	return err
}

func (g *groupTx) RollbackTo(context.Context) error {
	_, err := g.tx.Exec(`ROLLBACK TO grouped`)
	return err
}

func (g *groupTx) Release(context.Context) error {
	_, err := g.tx.Exec(`RELEASE grouped`)
	return err
}

// Commit and Rollback end the transaction, then prepare the statements
// its calls noted (cachedStmt).
func (g *groupTx) Commit(context.Context) error {
	err := g.tx.Commit()
	g.db.writing.Add(-1)
	g.db.prepareNoted(context.Background(), false)
	return err
}

func (g *groupTx) Rollback(context.Context) {
	g.tx.Rollback()
	g.db.writing.Add(-1)
	g.db.prepareNoted(context.Background(), false)
}

var _ hippo.CommitReporter = (*DB)(nil)
