package storetest

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
)

// Async remember_facts: the text kept and queued at once, its facts
// learned in the background.

// gatedExtractor is fixedExtractor behind a gate: closed, every extraction
// fails, as an unreachable LLM does, and the texts stay queued.
type gatedExtractor struct {
	facts fixedExtractor
	open  atomic.Bool
	calls atomic.Int32
}

var errGateClosed = errors.New("extractor unreachable")

func (g *gatedExtractor) ExtractFacts(ctx context.Context, text string) ([]hippo.Fact, []hippo.LLMCall, error) {
	g.calls.Add(1)
	if !g.open.Load() {
		return nil, nil, errGateClosed
	}
	return g.facts.ExtractFacts(ctx, text)
}

// pendingCount is the store's count of queued texts.
func pendingCount(t *testing.T, s Store) int {
	t.Helper()
	st, err := s.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return st.Pending
}

// waitLearned waits for the background runs to leave nothing queued: a
// liveness check with a generous bound, not a timing.
func waitLearned(t *testing.T, s Store) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); pendingCount(t, s) > 0; {
		if time.Now().After(deadline) {
			t.Fatalf("%d texts still queued after 30 s", pendingCount(t, s))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitTried waits for a background run to try extracting from g: a
// liveness check with a generous bound, not a timing.
func waitTried(t *testing.T, g *gatedExtractor) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); g.calls.Load() == 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no background run tried the queued text")
		}
	}
}

// testRememberAsync: an async call returns with the text kept and
// searchable and its facts learned in the background, exactly as a
// synchronous call learns them; a run that fails leaves the texts queued
// for LearnPending, which learns each once however many run it.
func testRememberAsync(t *testing.T, b Backend) {
	ctx := context.Background()
	s := open(t, b)
	const text, fact = "I keep three beehives behind the barn.", "User keeps three beehives"
	g := &gatedExtractor{facts: fixedExtractor{text: {fact}, "My sister Ana is a nurse.": {"User's sister Ana is a nurse"}}}
	m := memory(t, s, "alice", "", g)

	// The extractor fails: the text is kept, queued and searchable.
	res, err := m.Remember(ctx, hippo.RememberInput{Text: text, Source: "msg-7", Async: true})
	if err != nil || !res.Pending || res.Message == nil || len(res.Facts) != 0 || res.Summary != hippo.PendingSummary(res.Message.ID) {
		t.Fatalf("async remember = %+v, %v", res, err)
	}
	if got := recallIDs(t, m, text); !slices.Contains(got, res.Message.ID) {
		t.Errorf("recall = %v: the queued text is not searchable", got)
	}
	waitTried(t, g)
	if _, err := m.Remember(ctx, hippo.RememberInput{Text: "My sister Ana is a nurse.", Async: true}); err != nil {
		t.Fatal(err)
	}

	// Reachable again: LearnPending learns both, from two memories at
	// once, each text once, with its source and caller.
	g.open.Store(true)
	var wg sync.WaitGroup
	learned := make([]int, 2)
	for i := range learned {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var err error
			if learned[i], err = memory(t, s, "alice", "", g).(hippo.PendingLearner).LearnPending(ctx); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	waitLearned(t, s)
	facts, err := s.ListChunks(ctx, hippo.ChunkFilter{AgentID: "alice", Kind: hippo.KindFact})
	if err != nil || len(facts) != 2 {
		t.Fatalf("facts after learning = %d, %v; want 2", len(facts), err)
	}
	for _, f := range facts {
		if f.EncounterCount != 1 {
			t.Errorf("%q learned %d times", f.Content, f.EncounterCount)
		}
		if f.Content == fact && (f.Provenance == nil || f.Provenance.Source != "msg-7" || f.Provenance.InputHash != hippo.ContentHash(text)) {
			t.Errorf("provenance of the learned fact = %+v", f.Provenance)
		}
	}
	if got := recallContents(t, m, hippo.RecallInput{Query: fact, Kind: hippo.KindFact}); !slices.Contains(got, fact) {
		t.Errorf("recall = %q: the learned fact is not found", got)
	}

	// A background run learns what is queued while the extractor works.
	if _, err := m.Remember(ctx, hippo.RememberInput{Text: "I drive a red van.", Async: true}); err != nil {
		t.Fatal(err)
	}
	waitLearned(t, s)

	// Refused: async with given facts, or without a text.
	_, err = m.Remember(ctx, hippo.RememberInput{Facts: []hippo.GivenFact{{Fact: fact}}, Text: text, Async: true})
	wantCode(t, err, hippo.EINVALID)
	_, err = m.Remember(ctx, hippo.RememberInput{Async: true})
	wantCode(t, err, hippo.EINVALID)
}

// testForgetQueuedText: forgetting a queued text unqueues it, so its facts
// are never learned.
func testForgetQueuedText(t *testing.T, b Backend) {
	ctx := context.Background()
	s := open(t, b)
	const text = "My locker code is 4471."
	g := &gatedExtractor{facts: fixedExtractor{text: {"User's locker code is 4471"}}}
	m := memory(t, s, "alice", "", g)
	res, err := m.Remember(ctx, hippo.RememberInput{Text: text, Async: true})
	if err != nil || res.Message == nil {
		t.Fatalf("async remember = %+v, %v", res, err)
	}
	gone, err := m.Forget(ctx, hippo.ForgetInput{Description: text, Threshold: 0.99})
	if err != nil || len(gone.Deleted) != 1 || gone.Deleted[0].ID != res.Message.ID {
		t.Fatalf("forget = %+v, %v", gone, err)
	}
	if n := pendingCount(t, s); n != 0 {
		t.Errorf("%d texts still queued after the text was forgotten", n)
	}
	g.open.Store(true)
	if n, err := m.(hippo.PendingLearner).LearnPending(ctx); err != nil || n != 0 {
		t.Errorf("LearnPending = %d, %v; want nothing to learn", n, err)
	}
	if facts, _ := s.ListChunks(ctx, hippo.ChunkFilter{AgentID: "alice", Kind: hippo.KindFact}); len(facts) != 0 {
		t.Errorf("the forgotten text's facts were learned: %v", facts)
	}
}

// testLearnPendingNeedsExtractor: LearnPending on a memory without an
// extractor refuses before touching the queue, and the text stays queued
// for a memory that has one.
func testLearnPendingNeedsExtractor(t *testing.T, b Backend) {
	ctx := context.Background()
	s := open(t, b)
	g := &gatedExtractor{facts: fixedExtractor{"I ride a green tandem.": {"User rides a green tandem"}}}
	m := memory(t, s, "alice", "", g)
	if _, err := m.Remember(ctx, hippo.RememberInput{Text: "I ride a green tandem.", Async: true}); err != nil {
		t.Fatal(err)
	}
	waitTried(t, g)
	bare, err := s.Service(hippo.MemoryOptions{AgentID: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := bare.(hippo.PendingLearner).LearnPending(ctx); hippo.ErrorCode(err) != hippo.EINVALID || n != 0 {
		t.Errorf("LearnPending without an extractor = %d, %v; want EINVALID", n, err)
	}
	if n := pendingCount(t, s); n != 1 {
		t.Errorf("%d texts queued after LearnPending without an extractor, want 1", n)
	}
	g.open.Store(true)
	if n, err := m.(hippo.PendingLearner).LearnPending(ctx); err != nil || n != 1 {
		t.Errorf("LearnPending = %d, %v; want the text learned", n, err)
	}
	waitLearned(t, s)
}
