package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Group commit, per agent and server. An agent's writers are serialised
// (its advisory lock), and each durable commit waits for PostgreSQL's WAL
// flush while holding that lock: one agent's writes could go no faster
// than one flush each. So concurrent agentWrite calls of one agent on one
// server queue, and the first leads: it runs every call waiting in one
// transaction, each inside its own savepoint, commits once and only then
// acknowledges each caller. A call whose function fails is rolled back to
// its savepoint and gets its error; the others commit. Calls that arrive
// meanwhile form the next group, led by the first of them. One call alone
// runs without a savepoint. (sqlite's group commit, for one agent.)

// groupCall is one agentWrite waiting for, or running in, a group.
type groupCall struct {
	ctx    context.Context
	queued time.Time
	fn     func(querier, *hippo.ModelLock) error
	lead   chan struct{} // this call leads the next group
	done   chan error    // the call's outcome, after its group's commit
}

// agentGroup queues one agent's writes.
type agentGroup struct {
	mu      sync.Mutex
	queue   []*groupCall
	leading bool // a group is running; queue[0] leads the next
}

// group is the agent's queue, made on first use.
func (db *DB) group(agent string) *agentGroup {
	db.groupsMu.Lock()
	defer db.groupsMu.Unlock()
	if db.groups == nil {
		db.groups = map[string]*agentGroup{}
	}
	g := db.groups[agent]
	if g == nil {
		g = &agentGroup{}
		db.groups[agent] = g
	}
	return g
}

// agentWrite runs fn in a write transaction of the agent, committed when
// fn returns nil, possibly together with other calls of the agent
// (group commit). BEGIN, the locks (lockAgent) and the model lock, read
// once the locks are held, go in one round trip; fn gets the model lock
// (nil when none, or when an earlier call of the group may have set it).
func (db *DB) agentWrite(ctx context.Context, agent string, fn func(querier, *hippo.ModelLock) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	g := db.group(agent)
	call := &groupCall{ctx: ctx, queued: time.Now(), fn: fn, lead: make(chan struct{}, 1), done: make(chan error, 1)}
	g.mu.Lock()
	g.queue = append(g.queue, call)
	if !g.leading {
		g.leading = true
		g.mu.Unlock()
		db.runGroup(agent, g)
		return <-call.done
	}
	g.mu.Unlock()
	select {
	case err := <-call.done:
		return err
	case <-call.lead:
		db.runGroup(agent, g)
		return <-call.done
	}
}

// runGroup runs the calls queued for the agent as one group, then hands
// the lead to the first call that arrived meanwhile, if any.
func (db *DB) runGroup(agent string, g *agentGroup) {
	g.mu.Lock()
	calls := g.queue
	g.queue = nil
	g.mu.Unlock()
	db.observeGroup(calls)
	db.commitGroup(agent, calls)
	g.mu.Lock()
	if len(g.queue) > 0 {
		g.queue[0].lead <- struct{}{}
	} else {
		g.leading = false
		// Forget the idle queue. A caller that took it from the map just
		// before leads it alone: the agent's lock still serialises it.
		db.groupsMu.Lock()
		if db.groups[agent] == g {
			delete(db.groups, agent)
		}
		db.groupsMu.Unlock()
	}
	g.mu.Unlock()
}

// commitGroup runs calls in one transaction and delivers each outcome.
func (db *DB) commitGroup(agent string, calls []*groupCall) {
	errs := make([]error, len(calls))
	defer func() {
		for i, c := range calls {
			c.done <- errs[i]
		}
	}()
	fail := func(err error) {
		for i := range errs {
			if errs[i] == nil {
				errs[i] = err
			}
		}
	}
	// A group's statements run to their end whatever happens to one
	// caller: cancelling a statement closes the connection, and with it
	// the other calls' transaction. A call cancelled while it waited is
	// skipped. A call alone keeps its cancellation.
	ctx := calls[0].ctx
	if len(calls) > 1 {
		ctx = context.WithoutCancel(ctx)
	}
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		fail(err)
		return
	}
	// A connection left inside a transaction is destroyed by the pool on
	// release, never reused.
	defer conn.Release()
	lock, err := beginAgent(ctx, conn, agent)
	if err != nil {
		fail(err)
		return
	}
	rollback := func() { _, _ = conn.Exec(context.WithoutCancel(ctx), `ROLLBACK`) }
	if len(calls) == 1 {
		if errs[0] = calls[0].fn(conn, lock); errs[0] != nil {
			rollback()
			return
		}
	} else {
		committed := 0
		for i, c := range calls {
			if errs[i] = c.ctx.Err(); errs[i] != nil {
				continue
			}
			if _, err := conn.Exec(ctx, `SAVEPOINT hippo_call`); err != nil {
				rollback()
				fail(err)
				return
			}
			if errs[i] = c.fn(detached{conn}, lock); errs[i] != nil {
				if _, err := conn.Exec(ctx, `ROLLBACK TO SAVEPOINT hippo_call`); err != nil {
					rollback()
					fail(err)
					return
				}
				continue
			}
			if _, err := conn.Exec(ctx, `RELEASE SAVEPOINT hippo_call`); err != nil {
				rollback()
				fail(err)
				return
			}
			committed++
			lock = nil // an earlier call may have taken the model lock: read it again
		}
		if committed == 0 {
			rollback()
			return
		}
	}
	tag, err := conn.Exec(ctx, `COMMIT`)
	switch {
	case err != nil:
		rollback()
		fail(err)
	case tag.String() != "COMMIT": // a failed transaction ends in ROLLBACK
		fail(errors.New("commit: the transaction was rolled back"))
	}
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

// commitStats counts group commits (hippo.CommitReporter).
type commitStats struct {
	mu      sync.Mutex
	stats   hippo.CommitStats
	observe func(calls int, wait time.Duration)
}

// observeGroup counts a group as it starts.
func (db *DB) observeGroup(calls []*groupCall) {
	var wait time.Duration
	for _, c := range calls {
		wait += time.Since(c.queued)
	}
	db.commits.mu.Lock()
	st := &db.commits.stats
	st.Groups++
	st.Calls += int64(len(calls))
	st.Largest = max(st.Largest, len(calls))
	st.Wait += wait
	observe := db.commits.observe
	db.commits.mu.Unlock()
	if observe != nil {
		observe(len(calls), wait)
	}
}

// CommitStats implements hippo.CommitReporter.
func (db *DB) CommitStats() hippo.CommitStats {
	db.commits.mu.Lock()
	defer db.commits.mu.Unlock()
	return db.commits.stats
}

// ObserveCommits implements hippo.CommitReporter.
func (db *DB) ObserveCommits(fn func(calls int, wait time.Duration)) {
	db.commits.mu.Lock()
	db.commits.observe = fn
	db.commits.mu.Unlock()
}

var _ hippo.CommitReporter = (*DB)(nil)

// detached runs a grouped call's statements without its cancellation: a
// cancelled statement closes the connection, and the other calls'
// transaction with it. A call that has started runs to its end.
type detached struct{ q querier }

func (d detached) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	return d.q.Exec(context.WithoutCancel(ctx), sql, args...)
}

func (d detached) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	return d.q.Query(context.WithoutCancel(ctx), sql, args...)
}

func (d detached) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	return d.q.QueryRow(context.WithoutCancel(ctx), sql, args...)
}
