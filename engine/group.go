package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/hippo-mem/hippo"
)

// GroupTx is a store's write transaction that a group of writes shares:
// the primitives GroupCommit runs a group with. When the group has
// several calls each runs between Savepoint and Release, and a failed one
// is undone by RollbackTo; a call alone runs without a savepoint.
type GroupTx interface {
	// Savepoint starts the next call's writes.
	Savepoint(ctx context.Context) error
	// RollbackTo undoes the writes since the last Savepoint.
	RollbackTo(ctx context.Context) error
	// Release ends the call's savepoint; an error means the transaction
	// cannot be trusted to hold the earlier calls' writes.
	Release(ctx context.Context) error
	// Commit commits the transaction.
	Commit(ctx context.Context) error
	// Rollback abandons the transaction.
	Rollback(ctx context.Context)
}

// GroupCommit queues concurrent writes by key (a store's writer: the
// whole database, or one agent) so that they share one durable commit.
// The first write of a key leads: it begins one transaction of the store
// (begin), runs every write waiting under the key in it, each in a
// savepoint of its own so that one failing write fails alone, commits
// once and sets each write's outcome; only then does any of them return.
// Writes that arrive meanwhile form the next group, led by the first of
// them. A write alone is a group of one and waits for nothing.
type GroupCommit[T GroupTx] struct {
	begin func(ctx context.Context, key string, several bool) (T, error)

	mu     sync.Mutex
	queues map[string]*groupQueue[T] // keys with a group running

	statsMu sync.Mutex
	stats   hippo.CommitStats
	observe func(calls int, wait time.Duration)
}

// groupCall is one write in a group: its context, what it runs in the
// transaction, and its outcome.
type groupCall[T GroupTx] struct {
	ctx context.Context
	fn  func(T) error
	err error

	queued time.Time
	lead   chan struct{} // this call leads the next group
	done   chan struct{} // closed once err is set
}

type groupQueue[T GroupTx] struct {
	mu      sync.Mutex
	calls   []*groupCall[T]
	leading bool // a group is running; calls[0] leads the next
}

// NewGroupCommit returns a GroupCommit whose groups run in transactions
// begun by begin, under key; several says the group has more than one
// call. A group's context is its first live call's, without its cancellation
// when there are several: a cancelled statement may end the transaction
// of all of them, so a call that has started runs to its end, and
// cancellation counts only while it waits.
func NewGroupCommit[T GroupTx](begin func(ctx context.Context, key string, several bool) (T, error)) *GroupCommit[T] {
	return &GroupCommit[T]{begin: begin, queues: map[string]*groupQueue[T]{}}
}

// Do runs fn as one write of key's next group and returns its outcome
// once the group has committed (or fn failed). Waiting ignores ctx: the
// call stays queued, and its group skips it if ctx has ended by then.
func (g *GroupCommit[T]) Do(ctx context.Context, key string, fn func(T) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	call := &groupCall[T]{ctx: ctx, fn: fn, queued: time.Now(), lead: make(chan struct{}, 1), done: make(chan struct{})}
	g.mu.Lock()
	q := g.queues[key]
	if q == nil {
		q = &groupQueue[T]{}
		g.queues[key] = q
	}
	g.mu.Unlock()
	q.mu.Lock()
	q.calls = append(q.calls, call)
	if !q.leading {
		q.leading = true
		q.mu.Unlock()
		g.runGroup(key, q)
		return call.err
	}
	q.mu.Unlock()
	select {
	case <-call.done:
	case <-call.lead:
		g.runGroup(key, q)
	}
	<-call.done
	return call.err
}

// runGroup runs every call queued under key as one group, hands the lead
// to the first call queued meanwhile or forgets the idle queue.
func (g *GroupCommit[T]) runGroup(key string, q *groupQueue[T]) {
	q.mu.Lock()
	calls := q.calls
	q.calls = nil
	q.mu.Unlock()
	g.record(calls)
	g.run(key, calls)
	for _, c := range calls {
		close(c.done)
	}
	q.mu.Lock()
	if len(q.calls) > 0 {
		q.calls[0].lead <- struct{}{}
	} else {
		q.leading = false
		// A caller that took the queue from the map just before queues
		// on it and leads it alone.
		g.mu.Lock()
		if g.queues[key] == q {
			delete(g.queues, key)
		}
		g.mu.Unlock()
	}
	q.mu.Unlock()
}

// run runs a group's calls in one transaction and sets each outcome: a
// call cancelled while it waited gets its context's error; a call's own
// failure is its own; a failure of the transaction (begin, a savepoint,
// commit) is every remaining call's, and then nothing of the group is
// committed.
func (g *GroupCommit[T]) run(key string, calls []*groupCall[T]) {
	live := 0
	var ctx context.Context // the first live call's
	for _, c := range calls {
		if c.err = c.ctx.Err(); c.err == nil {
			if live++; live == 1 {
				ctx = c.ctx
			}
		}
	}
	if live == 0 {
		return
	}
	several := live > 1
	if several {
		ctx = context.WithoutCancel(ctx)
	}
	tx, err := g.begin(ctx, key, several)
	if err == nil {
		err = runCalls(ctx, tx, calls, several)
	}
	if err != nil {
		for _, c := range calls {
			if c.err == nil {
				c.err = err
			}
		}
	}
}

// runCalls runs the live calls in tx and ends it: committed when some
// call succeeded, rolled back otherwise; the error is one that failed the
// whole group.
func runCalls[T GroupTx](ctx context.Context, tx T, calls []*groupCall[T], several bool) error {
	committed := 0
	for _, c := range calls {
		if c.err != nil {
			continue // cancelled while it waited
		}
		if !several {
			if c.err = c.fn(tx); c.err == nil {
				committed++
			}
			break
		}
		if err := tx.Savepoint(ctx); err != nil {
			tx.Rollback(ctx)
			return fmt.Errorf("group commit: savepoint: %w", err)
		}
		if c.err = c.fn(tx); c.err != nil {
			if err := tx.RollbackTo(ctx); err != nil {
				// The failure ended the transaction: nothing of the
				// group can commit.
				tx.Rollback(ctx)
				return fmt.Errorf("group commit: roll back a failed call: %w", errors.Join(c.err, err))
			}
		} else {
			committed++
		}
		if err := tx.Release(ctx); err != nil {
			tx.Rollback(ctx)
			return fmt.Errorf("group commit: release savepoint: %w", err)
		}
	}
	if committed == 0 {
		tx.Rollback(ctx)
		return nil
	}
	if err := tx.Commit(ctx); err != nil {
		tx.Rollback(ctx)
		return err
	}
	return nil
}

// record counts a group as it starts.
func (g *GroupCommit[T]) record(calls []*groupCall[T]) {
	var wait time.Duration
	for _, c := range calls {
		wait += time.Since(c.queued)
	}
	g.statsMu.Lock()
	g.stats.Groups++
	g.stats.Calls += int64(len(calls))
	g.stats.Largest = max(g.stats.Largest, len(calls))
	g.stats.Wait += wait
	observe := g.observe
	g.statsMu.Unlock()
	if observe != nil {
		observe(len(calls), wait)
	}
}

// Stats are the groups run so far (hippo.CommitReporter).
func (g *GroupCommit[T]) Stats() hippo.CommitStats {
	g.statsMu.Lock()
	defer g.statsMu.Unlock()
	return g.stats
}

// Observe sets a function called as each group starts, with its number of
// calls and their summed wait (hippo.CommitReporter).
func (g *GroupCommit[T]) Observe(fn func(calls int, wait time.Duration)) {
	g.statsMu.Lock()
	defer g.statsMu.Unlock()
	g.observe = fn
}

// Queued is how many calls wait under key for the next group, and Keys
// how many keys have a group running: for tests.
func (g *GroupCommit[T]) Queued(key string) int {
	g.mu.Lock()
	q := g.queues[key]
	g.mu.Unlock()
	if q == nil {
		return 0
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.calls)
}

// Keys is how many keys have a queue: for tests (an idle key has none).
func (g *GroupCommit[T]) Keys() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.queues)
}
