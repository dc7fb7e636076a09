package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/engine"
)

// Group commit. Writers of every agent share one write connection, and a
// durable commit (an fsync of the WAL) costs more than most writes do. So
// concurrent calls to agentStore.Update queue, and the first of them leads:
// it runs every call waiting in one transaction, each inside its own
// savepoint, commits once, and only then acknowledges each caller. A call
// whose function fails is rolled back to its savepoint and gets its error;
// the others commit. Calls that arrive meanwhile form the next group, led
// by the first of them. With one writer at a time a group is one call, run
// as before.

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

// groupCall is one Update waiting for, or running in, a group.
type groupCall struct {
	ctx    context.Context
	m      *agentStore
	fn     func(engine.Tx) error
	queued time.Time
	lead   chan struct{} // this call leads the next group
	done   chan error    // the call's outcome, after its group's commit
}

// committer queues Update calls into groups.
type committer struct {
	db      *DB
	mu      sync.Mutex
	queue   []*groupCall
	leading bool // a group is running; the call at queue[0] leads next

	statsMu sync.Mutex
	stats   hippo.CommitStats
	observe func(calls int, wait time.Duration)
}

// update runs fn as one call of a group and returns once the group has
// committed (or fn has failed).
func (c *committer) update(ctx context.Context, m *agentStore, fn func(engine.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	call := &groupCall{ctx: ctx, m: m, fn: fn, queued: time.Now(), lead: make(chan struct{}, 1), done: make(chan error, 1)}
	c.mu.Lock()
	c.queue = append(c.queue, call)
	if !c.leading {
		c.leading = true
		c.mu.Unlock()
		return c.runGroup(call)
	}
	c.mu.Unlock()
	// Waiting ignores ctx: the call stays queued and is skipped with ctx's
	// error when its group finds ctx done (run).
	select {
	case err := <-call.done:
		return err
	case <-call.lead:
		return c.runGroup(call)
	}
}

// runGroup runs every queued call (call among them) as one group, hands
// the lead to the first call queued meanwhile, and returns call's outcome.
func (c *committer) runGroup(call *groupCall) error {
	c.mu.Lock()
	group := c.queue
	c.queue = nil
	c.mu.Unlock()
	c.run(group)
	c.mu.Lock()
	if len(c.queue) > 0 {
		c.queue[0].lead <- struct{}{}
	} else {
		c.leading = false
	}
	c.mu.Unlock()
	return <-call.done
}

// run runs a group in one transaction and delivers each call's outcome.
func (c *committer) run(group []*groupCall) {
	start := time.Now()
	errs := make([]error, len(group))
	live := 0
	for i, g := range group {
		if err := g.ctx.Err(); err != nil {
			errs[i] = err
		} else {
			live++
		}
	}
	if live > 0 {
		if err := c.runTx(group, errs, live > 1); err != nil {
			for i := range errs {
				if errs[i] == nil {
					errs[i] = err
				}
			}
		}
	}
	if live > 0 {
		c.db.prepareNoted(context.Background(), false)
	}
	var wait time.Duration
	for i, g := range group {
		wait += start.Sub(g.queued)
		g.done <- errs[i]
	}
	c.record(live, wait)
}

// runTx runs the group's live calls in one transaction, a savepoint each
// when there are several, and commits. A call's own failure goes to its
// errs entry; the error returned is one that failed the whole group (the
// transaction could not start, roll back to a savepoint, or commit), and
// nothing of the group is then committed.
func (c *committer) runTx(group []*groupCall, errs []error, savepoints bool) (err error) {
	tx, err := c.db.write.BeginTx(context.Background(), nil)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	for i, g := range group {
		if errs[i] != nil {
			continue
		}
		if !savepoints {
			errs[i] = g.fn(storeTx{agentTx{writeTx{tx: tx, db: c.db}, g.m.opts.AgentID}, g.m})
			if errs[i] != nil {
				return errs[i]
			}
			break
		}
		if _, err := tx.Exec(`SAVEPOINT grouped`); err != nil {
			return fmt.Errorf("group commit: savepoint: %w", err)
		}
		errs[i] = g.fn(storeTx{agentTx{writeTx{tx: tx, db: c.db, detach: true}, g.m.opts.AgentID}, g.m})
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

func (c *committer) record(calls int, wait time.Duration) {
	if calls == 0 {
		return
	}
	c.statsMu.Lock()
	c.stats.Groups++
	c.stats.Calls += int64(calls)
	c.stats.Wait += wait
	if calls > c.stats.Largest {
		c.stats.Largest = calls
	}
	observe := c.observe
	c.statsMu.Unlock()
	if observe != nil {
		observe(calls, wait)
	}
}

// CommitStats implements hippo.CommitReporter: the groups committed so
// far by this process.
func (db *DB) CommitStats() hippo.CommitStats {
	db.group.statsMu.Lock()
	defer db.group.statsMu.Unlock()
	return db.group.stats
}

// ObserveCommits implements hippo.CommitReporter: fn is called after each
// group with its number of calls and their summed wait in the queue.
func (db *DB) ObserveCommits(fn func(calls int, wait time.Duration)) {
	db.group.statsMu.Lock()
	defer db.group.statsMu.Unlock()
	db.group.observe = fn
}

var _ hippo.CommitReporter = (*DB)(nil)
