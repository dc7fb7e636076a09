package engine

import (
	"context"
	"sync"
	"time"

	"github.com/hippo-mem/hippo"
)

// GroupCommit queues concurrent writes by key (a store's writer: the
// whole database, or one agent) so that they share one durable commit.
// The first write of a key leads: its store's run function gets every
// write waiting under the key, runs them in one transaction (each in a
// savepoint of its own, so that one failing write fails alone), commits
// once and sets each write's outcome; only then does any of them return.
// Writes that arrive meanwhile form the next group, led by the first of
// them. A write alone is a group of one and waits for nothing.
type GroupCommit[P any] struct {
	run func(key string, calls []*GroupCall[P])

	mu     sync.Mutex
	queues map[string]*groupQueue[P] // keys with a group running

	statsMu sync.Mutex
	stats   hippo.CommitStats
	observe func(calls int, wait time.Duration)
}

// GroupCall is one write in a group: its context, the store's payload
// (what to run), and its outcome, which run sets.
type GroupCall[P any] struct {
	Ctx     context.Context
	Payload P
	Err     error

	queued time.Time
	lead   chan struct{} // this call leads the next group
	done   chan struct{} // closed once Err is set
}

type groupQueue[P any] struct {
	mu      sync.Mutex
	calls   []*GroupCall[P]
	leading bool // a group is running; calls[0] leads the next
}

// NewGroupCommit returns a GroupCommit whose groups run through run. run
// must set every call's Err (nil: committed); a call whose Ctx ended
// while it waited should be skipped with that error.
func NewGroupCommit[P any](run func(key string, calls []*GroupCall[P])) *GroupCommit[P] {
	return &GroupCommit[P]{run: run, queues: map[string]*groupQueue[P]{}}
}

// Do runs p as one write of key's next group and returns its outcome
// once the group has committed (or p failed). Waiting ignores ctx: the
// call stays queued, and its group skips it if ctx has ended by then.
func (g *GroupCommit[P]) Do(ctx context.Context, key string, p P) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	call := &GroupCall[P]{Ctx: ctx, Payload: p, queued: time.Now(), lead: make(chan struct{}, 1), done: make(chan struct{})}
	g.mu.Lock()
	q := g.queues[key]
	if q == nil {
		q = &groupQueue[P]{}
		g.queues[key] = q
	}
	g.mu.Unlock()
	q.mu.Lock()
	q.calls = append(q.calls, call)
	if !q.leading {
		q.leading = true
		q.mu.Unlock()
		g.runGroup(key, q)
		return call.Err
	}
	q.mu.Unlock()
	select {
	case <-call.done:
	case <-call.lead:
		g.runGroup(key, q)
	}
	<-call.done
	return call.Err
}

// runGroup runs every call queued under key as one group, hands the lead
// to the first call queued meanwhile or forgets the idle queue.
func (g *GroupCommit[P]) runGroup(key string, q *groupQueue[P]) {
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

// record counts a group as it starts.
func (g *GroupCommit[P]) record(calls []*GroupCall[P]) {
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
func (g *GroupCommit[P]) Stats() hippo.CommitStats {
	g.statsMu.Lock()
	defer g.statsMu.Unlock()
	return g.stats
}

// Observe sets a function called as each group starts, with its number of
// calls and their summed wait (hippo.CommitReporter).
func (g *GroupCommit[P]) Observe(fn func(calls int, wait time.Duration)) {
	g.statsMu.Lock()
	defer g.statsMu.Unlock()
	g.observe = fn
}

// Queued is how many calls wait under key for the next group, and Keys
// how many keys have a group running: for tests.
func (g *GroupCommit[P]) Queued(key string) int {
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
func (g *GroupCommit[P]) Keys() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.queues)
}
