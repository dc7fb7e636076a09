package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/engine"
	"github.com/hippo-mem/hippo/internal/sqlstore"
)

// Group commit (engine.GroupCommit). Writers of every agent share one
// write connection, and a durable commit (an fsync of the WAL) costs more
// than most writes do. So concurrent calls to agentStore.Update share one
// transaction, a savepoint each, and one commit; the store supplies the
// transaction (groupTx), the engine runs the group.

// sqlTx is what a transaction's statements need: a database/sql pool or
// transaction (std), or a group's transaction on the driver connection
// (connTx).
type sqlTx interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (sqlRows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) sqlRow
}

// sqlRows are a query's rows, as *sql.Rows are; sqlRow is one row, whose
// Scan returns sql.ErrNoRows when there is none, as *sql.Row's does.
type (
	sqlRows interface {
		Next() bool
		Scan(dest ...any) error
		Err() error
		Close() error
	}
	sqlRow interface{ Scan(dest ...any) error }
)

// stdConn is a database/sql pool or transaction (*sql.DB, *sql.Tx,
// readTx, preparedTx).
type stdConn interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// std is a stdConn as sqlTx.
type std struct{ c stdConn }

func (s std) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return s.c.ExecContext(ctx, query, args...)
}

func (s std) QueryContext(ctx context.Context, query string, args ...any) (sqlRows, error) {
	rows, err := s.c.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return rows, nil
}

func (s std) QueryRowContext(ctx context.Context, query string, args ...any) sqlRow {
	return s.c.QueryRowContext(ctx, query, args...)
}

// querierOf is a stdConn as sqlstore.Querier.
func querierOf(c stdConn) sqlQuerier { return sqlQuerier{std{c}} }

// readTx runs a read transaction's statements prepared once per
// connection of the read pool (cachedStmt): the driver otherwise compiles
// every statement it runs. A query's first run, and queries beyond the
// cache's bound (lists of IDs of every length), run unprepared.
type readTx struct {
	tx *sql.Tx
	db *DB
}

func (r readTx) stmt(ctx context.Context, query string) *sql.Stmt {
	st := r.db.cachedStmt(query)
	if st == nil {
		return nil
	}
	return r.tx.StmtContext(ctx, st)
}

func (r readTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if st := r.stmt(ctx, query); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return r.tx.ExecContext(ctx, query, args...)
}

func (r readTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st := r.stmt(ctx, query); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return r.tx.QueryContext(ctx, query, args...)
}

func (r readTx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if st := r.stmt(ctx, query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return r.tx.QueryRowContext(ctx, query, args...)
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
	return storeRow{q.tx.QueryRowContext(ctx, query, args...)}
}

// storeRow is a row whose Scan reports a missing row as
// sqlstore.ErrNoRows.
type storeRow struct{ sqlRow }

func (r storeRow) Scan(dest ...any) error {
	if err := r.sqlRow.Scan(dest...); err != sql.ErrNoRows {
		return err
	}
	return sqlstore.ErrNoRows
}

// groupTx is a transaction on the write connection as engine.GroupTx:
// a group's calls run in it, each in a savepoint when there are several.
// It runs on the driver connection (lightConn) rather than in a *sql.Tx:
// database/sql starts a goroutine for every transaction and every query
// in one, and the driver one for every statement whose context can be
// cancelled, six for a lone store_memory, each waking an idle thread.
// The sql.Conn held from begin to end keeps the pool from handing the
// driver connection to anyone else meanwhile.
type groupTx struct {
	db      *DB
	conn    *sql.Conn
	lc      *lightConn
	several bool
}

// beginGroup begins a group's transaction (engine.GroupCommit's begin).
// BEGIN IMMEDIATE waits for another process's write lock up to the busy
// timeout, whatever the group's context.
func (db *DB) beginGroup(_ context.Context, _ string, several bool) (*groupTx, error) {
	db.writing.Add(1)
	g := &groupTx{db: db, several: several}
	conn, err := db.write.Conn(context.Background())
	if err == nil {
		g.conn = conn
		err = conn.Raw(func(dc any) (err error) {
			g.lc, err = db.lightOf(context.Background(), dc)
			return err
		})
		if err == nil {
			err = g.lc.exec(`BEGIN IMMEDIATE`)
		}
		if err != nil {
			conn.Close()
		}
	}
	if err != nil {
		db.writing.Add(-1)
		return nil, err
	}
	return g, nil
}

// in is the transaction as one agent's call sees it (detached from its
// cancellation when there are several, connTx).
func (g *groupTx) in(m *agentStore) storeTx {
	return storeTx{txOf(connTx{lc: g.lc, detach: g.several}, m.opts.AgentID), m}
}

func (g *groupTx) Savepoint(context.Context) error  { return g.lc.exec(`SAVEPOINT grouped`) }
func (g *groupTx) RollbackTo(context.Context) error { return g.lc.exec(`ROLLBACK TO grouped`) }
func (g *groupTx) Release(context.Context) error    { return g.lc.exec(`RELEASE grouped`) }

// Commit commits the transaction and gives the connection back; after a
// failed commit Rollback does.
func (g *groupTx) Commit(context.Context) error {
	if err := g.lc.exec(`COMMIT`); err != nil {
		return err
	}
	g.end(false)
	return nil
}

// Rollback abandons the transaction (a no-op once Commit succeeded). A
// connection the ROLLBACK fails on (as after a commit SQLite already
// rolled back) is discarded, so that none is pooled inside a transaction.
func (g *groupTx) Rollback(context.Context) {
	if g.conn == nil {
		return
	}
	g.end(g.lc.exec(`ROLLBACK`) != nil)
}

// end gives the connection back to the pool, or discards it when bad.
func (g *groupTx) end(bad bool) {
	if bad {
		_ = g.conn.Raw(func(any) error {
			g.lc.close()
			g.db.light = nil
			return driver.ErrBadConn
		})
	}
	g.conn.Close()
	g.conn = nil
	g.db.writing.Add(-1)
}

// connTx is a group's transaction as one call's sqlTx: its statements run
// on the driver connection, prepared once (lightConn.prepare), and never
// interrupted midway, which would roll back the whole group's
// transaction. A call alone (not detach) is checked for cancellation
// before each statement, so that a cancelled call fails at its next
// statement and its transaction is rolled back; a call of several runs to
// its end, as GroupCommit has it.
type connTx struct {
	lc     *lightConn
	detach bool
}

func (c connTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	st, done, nv, err := c.start(ctx, query, args)
	if err != nil {
		return nil, err
	}
	defer done()
	return st.(driver.StmtExecContext).ExecContext(context.Background(), nv)
}

func (c connTx) QueryContext(ctx context.Context, query string, args ...any) (sqlRows, error) {
	st, done, nv, err := c.start(ctx, query, args)
	if err != nil {
		return nil, err
	}
	rows, err := st.(driver.StmtQueryContext).QueryContext(context.Background(), nv)
	if err != nil {
		done()
		return nil, err
	}
	return &connRows{rows: rows, vals: make(driverRow, len(rows.Columns())), done: done}, nil
}

func (c connTx) QueryRowContext(ctx context.Context, query string, args ...any) sqlRow {
	rows, err := c.QueryContext(ctx, query, args...)
	return connRow{rows, err}
}

// start checks the call's context and prepares query with its arguments
// converted as database/sql converts them; done releases the statement.
func (c connTx) start(ctx context.Context, query string, args []any) (driver.Stmt, func(), []driver.NamedValue, error) {
	if !c.detach {
		if err := ctx.Err(); err != nil {
			return nil, nil, nil, err
		}
	}
	nv := make([]driver.NamedValue, len(args))
	for i, a := range args {
		v, err := driver.DefaultParameterConverter.ConvertValue(a)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("sql: converting argument $%d type: %w", i+1, err)
		}
		nv[i] = driver.NamedValue{Ordinal: i + 1, Value: v}
	}
	c.lc.ctx = context.Background()
	st, done, err := c.lc.prepare(query)
	return st, done, nv, err
}

// connRows are a driver query's rows as sqlRows: closed at their end, as
// *sql.Rows are.
type connRows struct {
	rows   driver.Rows
	vals   driverRow
	err    error
	done   func()
	closed bool
}

func (r *connRows) Next() bool {
	if r.closed {
		return false
	}
	if err := r.rows.Next(r.vals); err != nil {
		if err != io.EOF {
			r.err = err
		}
		r.Close()
		return false
	}
	return true
}

func (r *connRows) Scan(dest ...any) error {
	if r.closed {
		return errors.New("sql: Rows are closed")
	}
	return r.vals.Scan(dest...)
}

func (r *connRows) Err() error { return r.err }

func (r *connRows) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	err := r.rows.Close()
	r.done()
	return err
}

// connRow is a query's first row as sqlRow.
type connRow struct {
	rows sqlRows
	err  error
}

func (r connRow) Scan(dest ...any) error {
	if r.err != nil {
		return r.err
	}
	defer r.rows.Close()
	if !r.rows.Next() {
		if err := r.rows.Err(); err != nil {
			return err
		}
		return sql.ErrNoRows
	}
	if err := r.rows.Scan(dest...); err != nil {
		return err
	}
	return r.rows.Close()
}

var _ hippo.CommitReporter = (*DB)(nil)
