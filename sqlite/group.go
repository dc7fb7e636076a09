package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/engine"
)

// Group commit (engine.GroupCommit). Writers of every agent share one
// write connection, and a durable commit (an fsync of the WAL) costs more
// than most writes do. So concurrent calls to agentStore.Update queue, and
// the first of them runs every call waiting in one transaction, each
// inside its own savepoint, and commits once before any returns. A call
// whose function fails is rolled back to its savepoint and gets its
// error; the others commit. With one writer at a time a group is one
// call, run as before.

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

// update is one Update's payload in a group: the agent's store and fn.
type update struct {
	m  *agentStore
	fn func(engine.Tx) error
}

// newCommitter returns the database's group commit: one queue, since
// every agent's writes share the one write connection.
func newCommitter(db *DB) *engine.GroupCommit[update] {
	return engine.NewGroupCommit(func(_ string, calls []*engine.GroupCall[update]) {
		errs := make([]error, len(calls))
		live := 0
		for i, c := range calls {
			if err := c.Ctx.Err(); err != nil {
				errs[i] = err // cancelled while it waited
			} else {
				live++
			}
		}
		if live > 0 {
			if err := runGroupTx(db, calls, errs, live > 1); err != nil {
				for i := range errs {
					if errs[i] == nil {
						errs[i] = err
					}
				}
			}
			db.prepareNoted(context.Background(), false)
		}
		for i, c := range calls {
			c.Err = errs[i]
		}
	})
}

// runGroupTx runs the group's live calls in one transaction, a savepoint
// each when there are several, and commits. A call's own failure goes to
// its errs entry; the error returned is one that failed the whole group
// (the transaction could not start, roll back to a savepoint, or commit),
// and nothing of the group is then committed.
func runGroupTx(db *DB, calls []*engine.GroupCall[update], errs []error, savepoints bool) (err error) {
	tx, err := db.write.BeginTx(context.Background(), nil)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	for i, c := range calls {
		if errs[i] != nil {
			continue
		}
		u := c.Payload
		if !savepoints {
			errs[i] = u.fn(storeTx{agentTx{writeTx{tx: tx, db: db}, u.m.opts.AgentID}, u.m})
			if errs[i] != nil {
				return errs[i]
			}
			break
		}
		if _, err := tx.Exec(`SAVEPOINT grouped`); err != nil {
			return fmt.Errorf("group commit: savepoint: %w", err)
		}
		errs[i] = u.fn(storeTx{agentTx{writeTx{tx: tx, db: db, detach: true}, u.m.opts.AgentID}, u.m})
		if errs[i] != nil {
			if _, err := tx.Exec(`ROLLBACK TO grouped`); err != nil {
				// The failure ended the transaction: nothing of the
				// group can commit.
				return fmt.Errorf("group commit: roll back a failed call: %w", errors.Join(errs[i], err))
			}
		}
		if _, err := tx.Exec(`RELEASE grouped`); err != nil {
			return fmt.Errorf("group commit: release savepoint: %w", err)
		}
	}
	return tx.Commit()
}

// CommitStats implements hippo.CommitReporter: the groups committed so
// far by this process.
func (db *DB) CommitStats() hippo.CommitStats { return db.group.Stats() }

// ObserveCommits implements hippo.CommitReporter: fn is called as each
// group starts with its number of calls and their summed wait in the
// queue.
func (db *DB) ObserveCommits(fn func(calls int, wait time.Duration)) { db.group.Observe(fn) }

var _ hippo.CommitReporter = (*DB)(nil)
