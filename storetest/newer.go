package storetest

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/mock"
)

// testNewerCorrectionFirst: a correction stored as it was said, which
// nothing supersedes, ranks just above the older memory on the same topic
// that it corrects, when it says something changed; a newer memory on the
// topic that changes nothing, and a newer change on another topic, keep
// their places. Only the order changes.
func testNewerCorrectionFirst(t *testing.T, b Backend) {
	e := newEnv(t, b)
	ctx := context.Background()
	m := e.memory("alice")
	const (
		query  = "when is the gig"
		old    = "first gig is at a bar in barrio italia on dec 6"
		detail = "the bar in barrio italia does great empanadas"
		moved  = "ugh the gig got moved to the 13th, the bar double booked us"
		office = "we moved the office to kilimani last week"
	)
	// A long text that says something changed in passing does not move:
	// it says many things (Config.LengthPivot).
	long := "Sure, here is a plan for the set list. " + strings.Repeat("Open with the fast cumbia, then slow down for the ballad. ", 8) +
		"The gig got moved, so rehearse on Thursday instead."
	e.srv.Set(query, mock.Axis(testDim, 0))
	e.srv.Set(old, mock.AtCosine(testDim, 0, 1, 0.8))
	e.srv.Set(detail, vecOf(map[int]float64{0: 0.7, 1: 0.714}))
	// Less relevant than the old one (cosine 0.6), on its topic (0.70).
	e.srv.Set(moved, vecOf(map[int]float64{0: 0.6, 1: 0.367, 2: math.Sqrt(1 - 0.36 - 0.367*0.367)}))
	// Relevant enough (0.38), but not on the old one's topic (0.30).
	e.srv.Set(office, mock.AtCosine(testDim, 0, 3, 0.38))
	e.srv.Set(long, vecOf(map[int]float64{0: 0.6, 1: 0.367, 6: math.Sqrt(1 - 0.36 - 0.367*0.367)}))
	ids := storeInTurn(t, e, m, old, detail, moved, long, office)
	res, err := m.Recall(ctx, hippo.RecallInput{Query: query, Limit: 10, DryRun: true})
	want := []string{ids[moved], ids[old], ids[detail], ids[long], ids[office]}
	if err != nil || !slices.Equal(recalledIDs(res), want) {
		t.Fatalf("recall = %v, %v: want %v (the correction, the gig, the bar, the long text, the office)", recalledIDs(res), err, want)
	}
	for i, r := range res {
		if want := map[int]string{0: ids[old]}[i]; r.Updates != want || r.Corrects != "" {
			t.Errorf("result %d updates %q, corrects %q: want updates %q", i, r.Updates, r.Corrects, want)
		}
	}
	if res[0].Relevance >= res[1].Relevance {
		t.Errorf("the correction's relevance %.3f is not below the old one's %.3f: the test proves nothing", res[0].Relevance, res[1].Relevance)
	}
	// Only the order changes: a page of one holds the old gig.
	if one, err := m.Recall(ctx, hippo.RecallInput{Query: query, Limit: 1, DryRun: true}); err != nil || len(one) != 1 || one[0].Chunk.ID != ids[old] {
		t.Errorf("recall, limit 1 = %v, %v: want the old gig", recalledIDs(one), err)
	}
	// Pages hold every result between them: the correction moves within
	// its page.
	seen := map[string]bool{}
	for off := 0; off < len(want); off += 2 {
		page, err := m.Recall(ctx, hippo.RecallInput{Query: query, Offset: off, Limit: 2, DryRun: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range page {
			seen[r.Chunk.ID] = true
		}
	}
	for _, id := range want {
		if !seen[id] {
			t.Errorf("pages of 2 never returned %s", id)
		}
	}
	// The boost goes to the first results in the order given.
	if _, err := m.Recall(ctx, hippo.RecallInput{Query: query, Limit: 10}); err != nil {
		t.Fatal(err)
	}
	for s, n := range map[string]int{moved: 1, old: 1, detail: 1, long: 0, office: 0} {
		if c := e.mustChunk("alice", ids[s]); c.AccessCount != n {
			t.Errorf("%q has %d accesses after a recall, want %d", s, c.AccessCount, n)
		}
	}
	// Turned off, relevance alone orders them.
	cfg := hippo.DefaultConfig()
	cfg.MinRelevance, cfg.NewerTopic = 0, 0
	off := e.memoryOf(e.open(e.name, Options{Config: &cfg}), "alice")
	if res, err := off.Recall(ctx, hippo.RecallInput{Query: query, Limit: 10, DryRun: true}); err != nil || len(res) != 5 || res[0].Chunk.ID != ids[old] || res[0].Updates != "" {
		t.Errorf("recall with NewerTopic 0 = %v, %v: want the old gig first", recalledIDs(res), err)
	}
}

// The deadline pair of the link tests: a correction whose cosine is 0.5
// with its question and 0.5 with the older memory (relevance 0.49: under
// NewerTopic, over NewerLink), sharing "deadline" with it.
const (
	thesisQuery    = "when is my thesis due"
	thesisDeadline = "thesis deadline is 30 march"
	deadlinePushed = "also the deadline got pushed, now its 15 may"
)

// setDeadlineVectors gives the deadline pair and its question their
// vectors on axes 0 to 2.
func setDeadlineVectors(e *env) {
	e.srv.Set(thesisQuery, mock.Axis(testDim, 0))
	e.srv.Set(thesisDeadline, vecOf(map[int]float64{0: 0.8, 1: 0.6}))
	e.srv.Set(deadlinePushed, vecOf(map[int]float64{0: 0.5, 1: 1.0 / 6, 2: math.Sqrt(1 - 0.25 - 1.0/36)}))
}

// testNewerLinkedByWord: a correction further from the older memory than
// NewerTopic asks still ranks above it when the two share a word that
// few chunks hold (Config.NewerLink); a word that many chunks hold links
// nothing, and a NewerLink of 0 leaves the topic to the cosine.
func testNewerLinkedByWord(t *testing.T, b Backend) {
	e := newEnv(t, b)
	ctx := context.Background()
	m := e.memory("alice")
	const (
		thesis, old, pushed = thesisQuery, thesisDeadline, deadlinePushed
		yoga                = "when is yoga"
		class               = "yoga class is on tuesday evenings"
		moved               = "the class got moved to thursday"
		notes               = "class notes for statistics are online"
	)
	// Each correction as the deadline pair's, on other axes.
	setDeadlineVectors(e)
	e.srv.Set(yoga, mock.Axis(testDim, 3))
	e.srv.Set(class, vecOf(map[int]float64{3: 0.8, 4: 0.6}))
	e.srv.Set(moved, vecOf(map[int]float64{3: 0.5, 4: 1.0 / 6, 5: math.Sqrt(1 - 0.25 - 1.0/36)}))
	e.srv.Set(notes, mock.Axis(testDim, 6))
	ids := storeInTurn(t, e, m, old, class, notes, pushed, moved)
	first := func(m hippo.AgentMemory, query string) (string, string) {
		t.Helper()
		res, err := m.Recall(ctx, hippo.RecallInput{Query: query, Limit: 10, DryRun: true})
		if err != nil || len(res) < 2 {
			t.Fatalf("recall %q = %v, %v", query, recalledIDs(res), err)
		}
		return res[0].Chunk.ID, res[0].Updates
	}
	// "deadline": two chunks hold it.
	if id, upd := first(m, thesis); id != ids[pushed] || upd != ids[old] {
		t.Errorf("recall %q: first %s updating %q, want the pushed deadline updating the old one %s", thesis, id, upd, ids[old])
	}
	// "class": three chunks hold it.
	if id, upd := first(m, yoga); id != ids[class] || upd != "" {
		t.Errorf("recall %q: first %s updating %q, want the yoga class, unmoved", yoga, id, upd)
	}
	cfg := hippo.DefaultConfig()
	cfg.NewerLink = 0
	off := e.memoryOf(e.open(e.name, Options{Config: &cfg}), "alice")
	if id, upd := first(off, thesis); id != ids[old] || upd != "" {
		t.Errorf("recall %q with NewerLink 0: first %s updating %q, want the old deadline", thesis, id, upd)
	}
}

// testNewerLinkCountsTexts: a text remember_facts kept and the facts
// learned from it say one thing, so a word they share counts once towards
// the link's limit: "deadline" in the kept text, its fact and the
// correction is in three chunks but two things said, and links them.
func testNewerLinkCountsTexts(t *testing.T, b Backend) {
	e := newEnv(t, b)
	ctx := context.Background()
	m := e.factMemory("alice")
	const (
		thesis, old, pushed = thesisQuery, thesisDeadline, deadlinePushed
		fact                = "User's thesis deadline is 30 March"
	)
	setDeadlineVectors(e)
	e.srv.Set(fact, mock.Axis(testDim, 7)) // unrelated: the text stands for it
	res, err := m.Remember(ctx, hippo.RememberInput{Text: old, Facts: []hippo.GivenFact{{Fact: fact}}})
	if err != nil || res.Message == nil {
		t.Fatalf("remember = %+v, %v; want the text kept", res, err)
	}
	e.clock.Advance(time.Minute)
	ids := storeInTurn(t, e, m, pushed)
	got, err := m.Recall(ctx, hippo.RecallInput{Query: thesis, Limit: 10, DryRun: true})
	if err != nil || len(got) < 2 {
		t.Fatalf("recall = %v, %v", recalledIDs(got), err)
	}
	if got[0].Chunk.ID != ids[pushed] || got[0].Updates != res.Message.ID {
		t.Errorf("recall %q: first %s updating %q, want the pushed deadline updating the kept text %s",
			thesis, got[0].Chunk.ID, got[0].Updates, res.Message.ID)
	}
}

// storeInTurn stores each of texts as a memory of m, a minute apart, and
// returns their IDs by text.
func storeInTurn(t *testing.T, e *env, m hippo.AgentMemory, texts ...string) map[string]string {
	t.Helper()
	ids := map[string]string{}
	for _, s := range texts {
		res, err := m.StoreMemory(context.Background(), hippo.StoreInput{Content: s})
		if err != nil {
			t.Fatal(err)
		}
		ids[s] = res.Chunk.ID
		e.clock.Advance(time.Minute)
	}
	return ids
}
