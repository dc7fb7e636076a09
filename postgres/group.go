package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/hippo-mem/hippo"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Group commit (engine.GroupCommit), per agent and server. An agent's
// writers are serialised (its advisory lock), and each durable commit
// waits for PostgreSQL's WAL flush while holding that lock: one agent's
// writes could go no faster than one flush each. So concurrent agentWrite
// calls of one agent on one server share one transaction, a savepoint
// each, and one commit; the store supplies the transaction (groupTx), the
// engine runs the group.

// agentWrite runs fn in a write transaction of the agent, committed when
// fn returns nil, possibly together with other calls of the agent
// (group commit: db.group, keyed by agent). BEGIN, the locks (lockAgent)
// and the model lock, read once the locks are held, go in one round trip;
// fn gets the model lock (nil when none, or when an earlier call of the
// group may have set it).
func (db *DB) agentWrite(ctx context.Context, agent string, fn func(querier, *hippo.ModelLock) error) error {
	return db.group.Do(ctx, agent, func(g *groupTx) error { return fn(g.q, g.lock) })
}

// groupTx is one agent's write transaction on a connection as
// engine.GroupTx. With several calls, q sets each call's savepoint lazily
// (savepointed).
type groupTx struct {
	conn *pgxpool.Conn
	ctx  context.Context
	q    querier
	sp   *savepointed // nil for a call alone
	lock *hippo.ModelLock
}

// beginGroup begins a group's transaction (engine.GroupCommit's begin).
func (db *DB) beginGroup(ctx context.Context, agent string, several bool) (*groupTx, error) {
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	lock, err := beginAgent(ctx, conn, agent)
	if err != nil {
		conn.Release()
		return nil, err
	}
	g := &groupTx{conn: conn, ctx: ctx, q: conn, lock: lock}
	if several {
		g.sp = &savepointed{conn: conn}
		g.q = g.sp
	}
	return g, nil
}

// Savepoint starts the next call: its savepoint goes with its first
// statement.
func (g *groupTx) Savepoint(context.Context) error {
	g.sp.sent = false
	return nil
}

func (g *groupTx) RollbackTo(ctx context.Context) error {
	switch {
	case g.sp.broken != nil:
		return g.sp.broken
	case !g.sp.sent:
		return nil // the call ran no statement: nothing to undo
	}
	_, err := g.conn.Exec(ctx, `ROLLBACK TO SAVEPOINT hippo_call`)
	return err
}

// Release reports a savepoint that could not be set or the previous one
// released: the transaction had failed before this call (a statement
// error that an earlier call did not return). The next call reads the
// model lock again, as this one may have taken it.
func (g *groupTx) Release(context.Context) error {
	g.lock = nil
	return g.sp.broken
}

// Commit commits; a failed transaction ends in ROLLBACK, which is an
// error. The connection goes back to the pool.
func (g *groupTx) Commit(ctx context.Context) error {
	tag, err := g.conn.Exec(ctx, `COMMIT`)
	switch {
	case err != nil:
		return err
	case tag.String() != "COMMIT":
		return errors.New("commit: the transaction was rolled back")
	}
	g.conn.Release()
	return nil
}

// Rollback rolls back and hands the connection back; a connection left
// inside a transaction is destroyed by the pool on release, never reused.
func (g *groupTx) Rollback(ctx context.Context) {
	_, _ = g.conn.Exec(context.WithoutCancel(ctx), `ROLLBACK`)
	g.conn.Release()
}

// beginAgent begins a write transaction of the agent on conn, with its
// locks (lockAgent), and reads the model lock once they are held, in one
// round trip.
func beginAgent(ctx context.Context, conn *pgxpool.Conn, agent string) (*hippo.ModelLock, error) {
	var model, dim *string
	b := &pgx.Batch{}
	b.Queue(`BEGIN`)
	b.Queue(lockAgentSQL, switchLock, agent)
	b.Queue(readLockSQL).QueryRow(func(r pgx.Row) error { return r.Scan(&model, &dim) })
	if err := conn.SendBatch(ctx, b).Close(); err != nil {
		_, _ = conn.Exec(context.WithoutCancel(ctx), `ROLLBACK`)
		return nil, fmt.Errorf("lock agent %s: %w", agent, err)
	}
	if model == nil || *model == "" {
		return nil, nil
	}
	n := 0
	if dim != nil {
		n, _ = strconv.Atoi(*dim)
	}
	return &hippo.ModelLock{Model: *model, Dimension: n}, nil
}

var _ hippo.CommitReporter = (*DB)(nil)

// savepointed is the querier of a group's calls when there are several.
// Each call runs inside a savepoint of its own, set lazily: the SAVEPOINT,
// and the RELEASE of the previous call's, travel in one round trip with
// the call's first statement (a pgx.Batch) rather than in one round trip
// each, inside the agent's lock, where every round trip delays the whole
// group. A call that runs no statement sets no savepoint. COMMIT releases
// the last one. Statements run without their caller's cancellation: a
// cancelled statement closes the connection, and the other calls'
// transaction with it, so a call that has started runs to its end.
type savepointed struct {
	conn *pgxpool.Conn
	open bool // a savepoint of an earlier call is set and not released
	sent bool // this call's savepoint has been sent
	// broken is the error of a RELEASE or SAVEPOINT that failed: the
	// transaction cannot be trusted to hold the earlier calls' writes.
	broken error
}

// send sends sql, preceded by the call's savepoint when it is not set yet,
// and returns the batch positioned on sql's result (nil: sql is to be run
// on its own).
func (s *savepointed) send(ctx context.Context, sql string, args []any) (pgx.BatchResults, error) {
	if s.sent {
		return nil, nil
	}
	b := &pgx.Batch{}
	prefix := 1
	if s.open {
		b.Queue(`RELEASE SAVEPOINT hippo_call`)
		prefix++
	}
	b.Queue(`SAVEPOINT hippo_call`)
	b.Queue(sql, args...)
	s.sent, s.open = true, true
	br := s.conn.SendBatch(context.WithoutCancel(ctx), b)
	for range prefix {
		if _, err := br.Exec(); err != nil {
			br.Close()
			s.broken = err
			return nil, s.broken
		}
	}
	return br, nil
}

func (s *savepointed) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	br, err := s.send(ctx, sql, args)
	switch {
	case err != nil:
		return pgconn.CommandTag{}, err
	case br == nil:
		return s.conn.Exec(context.WithoutCancel(ctx), sql, args...)
	}
	tag, err := br.Exec()
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	return tag, err
}

func (s *savepointed) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	br, err := s.send(ctx, sql, args)
	switch {
	case err != nil:
		return nil, err
	case br == nil:
		return s.conn.Query(context.WithoutCancel(ctx), sql, args...)
	}
	rows, err := br.Query()
	if err != nil {
		br.Close()
		return nil, err
	}
	return &batchRows{Rows: rows, br: br}, nil
}

func (s *savepointed) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	br, err := s.send(ctx, sql, args)
	switch {
	case err != nil:
		return errRow{err}
	case br == nil:
		return s.conn.QueryRow(context.WithoutCancel(ctx), sql, args...)
	}
	return batchRow{br.QueryRow(), br}
}

// batchRows are the rows of a batch's last statement: closing them
// closes the batch.
type batchRows struct {
	pgx.Rows
	br     pgx.BatchResults
	closed bool
	err    error
}

func (r *batchRows) Close() {
	r.Rows.Close()
	if !r.closed {
		r.closed = true
		r.err = r.br.Close()
	}
}

func (r *batchRows) Err() error {
	if err := r.Rows.Err(); err != nil {
		return err
	}
	return r.err
}

// batchRow is the row of a batch's last statement: scanning it closes the
// batch.
type batchRow struct {
	row pgx.Row
	br  pgx.BatchResults
}

func (r batchRow) Scan(dest ...any) error {
	err := r.row.Scan(dest...)
	if cerr := r.br.Close(); err == nil {
		err = cerr
	}
	return err
}

// errRow is a row that failed before it was read.
type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }
