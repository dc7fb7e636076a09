package engine

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/hippo-mem/hippo"
)

// Async remember_facts: the text is kept (when texts are) and queued in
// one transaction, and the call returns; a run in the background learns
// the agent's queued texts in order, each in the transaction that deletes
// its row, so a crash loses none and none is learned twice. What a crash
// leaves queued is learned at the next start (LearnPending).

// PendingText is a text queued by an async remember_facts.
type PendingText struct {
	ID                int64
	Scope, Text, Hash string
	Source, Caller    string
	At                time.Time
}

// pendingBatch is how many queued texts a run reads at a time.
const pendingBatch = 20

// errLearned says another run learned the queued text first: its
// transaction is rolled back and the text counts as learned.
var errLearned = errors.New("queued text already learned")

// runs are the background runs learning queued texts, one an agent per
// store (Indexes): a text queued while the agent's run goes is left to
// it, which looks again before it ends.
type runs struct {
	mu      sync.Mutex
	running map[string]bool // by agent
	again   map[string]bool // queued into a running run
}

// start reports whether a run for agent should start; when one is going
// it is told to look again.
func (r *runs) start(agent string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.running == nil {
		r.running, r.again = map[string]bool{}, map[string]bool{}
	}
	if r.running[agent] {
		r.again[agent] = true
		return false
	}
	r.running[agent] = true
	return true
}

// end reports whether agent's run may end: false when a text was queued
// into it since it last looked.
func (r *runs) end(agent string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.again[agent] {
		delete(r.again, agent)
		return false
	}
	delete(r.running, agent)
	return true
}

// stop ends agent's run, whatever was queued into it.
func (r *runs) stop(agent string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.again, agent)
	delete(r.running, agent)
}

// rememberLater is Remember with in.Async: the text kept as a memory
// (when texts are kept and the memory has an embedder) and queued in one
// write transaction, then learned in the background.
func (m *Memory) rememberLater(ctx context.Context, in hippo.RememberInput) (*hippo.RememberResult, error) {
	if err := m.touch(ctx); err != nil {
		return nil, err
	}
	if in.Text == "" {
		return nil, hippo.Invalidf("text", "is required with async")
	}
	if err := m.checkRemember(in); err != nil {
		return nil, err
	}
	res := &hippo.RememberResult{Facts: []hippo.FactOutcome{}, Pending: true}
	var err error
	res.Message, err = m.keepText(ctx, in, func(tx Tx, now time.Time) error {
		_, err := tx.Enqueue(ctx, PendingText{Scope: m.opts.Scope, Text: in.Text, Hash: hippo.ContentHash(in.Text),
			Source: in.Source, Caller: m.caller(), At: now})
		return err
	})
	if err != nil {
		return nil, err
	}
	id := ""
	if res.Message != nil {
		id = res.Message.ID
	}
	res.Summary = hippo.PendingSummary(id)
	m.learnLater()
	return res, nil
}

// learnLater starts a run learning the agent's queued texts in the
// background, unless one is going. A run that fails stops: what it left
// stays queued for the next start.
func (m *Memory) learnLater() {
	agent := m.opts.AgentID
	if !m.x.runs.start(agent) {
		return
	}
	go func() {
		for {
			if _, err := m.LearnPending(context.Background()); err != nil {
				m.x.runs.stop(agent)
				return
			}
			if m.x.runs.end(agent) {
				return
			}
		}
	}()
}

// LearnPending implements hippo.PendingLearner: each queued text is
// learned as RememberFacts would, in its own scope and with its own source
// and caller, its row deleted with the facts' write.
func (m *Memory) LearnPending(ctx context.Context) (int, error) {
	if m.opts.Extractor == nil || m.opts.Embedder == nil {
		return 0, hippo.Errorf(hippo.EINVALID, "learning queued texts needs a fact extractor and an embedder")
	}
	n := 0
	for {
		var batch []PendingText
		err := m.s.View(ctx, func(tx Tx) error {
			var err error
			batch, err = tx.PendingTexts(ctx, pendingBatch)
			return err
		})
		if err != nil || len(batch) == 0 {
			return n, err
		}
		for _, p := range batch {
			q := *m
			q.pending, q.opts.Scope, q.opts.Caller = p.ID, p.Scope, p.Caller
			calls, notes := []hippo.LLMCall{}, []string{}
			_, err := q.rememberFacts(ctx, hippo.RememberInput{Text: p.Text, Source: p.Source}, &calls, &notes)
			if hippo.ErrorCode(err) == hippo.EINVALID {
				// It can never be learned (a limit lowered since it was
				// queued): the text stays kept, the row goes.
				err = q.donePending(ctx)
			}
			if err != nil && !errors.Is(err, errLearned) {
				return n, err
			}
			n++
		}
	}
}

// donePending deletes the queued text this memory learns, when it gave
// no fact.
func (m *Memory) donePending(ctx context.Context) error {
	if m.pending == 0 {
		return nil
	}
	return m.s.Update(ctx, func(tx Tx) error {
		_, err := tx.DonePending(ctx, m.pending)
		return err
	})
}
