package storetest

import (
	"context"
	"maps"
	"math"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/local"
	"github.com/hippo-mem/hippo/mock"
)

// The text given to remember_facts is kept as a memory of its own, linked
// to the facts it gave.

// testRememberKeepsText: every text is kept, whatever extraction yields
// (facts, none, or an error), once however often it is said, linked to its
// facts; DiscardText keeps the facts alone.
func testRememberKeepsText(t *testing.T, b Backend) {
	e := newEnv(t, b)
	ctx := context.Background()
	m := e.factMemory("alice")
	const text = "I live in Berlin and I keep bees."
	e.srv.Reply(facts("User lives in Berlin", 0.6, "User keeps bees", 0.5))
	res, err := m.RememberFacts(ctx, text)
	if err != nil || len(res.Facts) != 2 || res.Message == nil || !res.Message.New {
		t.Fatalf("remember = %+v, %v", res, err)
	}
	msg := e.mustChunk("alice", res.Message.ID)
	hash := hippo.ContentHash(text)
	if msg.Kind != hippo.KindMemory || msg.Content != text || msg.Provenance == nil ||
		msg.Provenance.Origin != hippo.OriginRememberFacts || msg.Provenance.InputHash != hash {
		t.Errorf("kept text = %+v", msg)
	}
	for _, f := range res.Facts {
		if c := e.mustChunk("alice", f.ChunkID); c.Provenance == nil || c.Provenance.InputHash != hash {
			t.Errorf("fact %q is not linked to its text: %+v", f.Content, c.Provenance)
		}
	}

	if st, err := e.s.Stats(ctx); err != nil || st.KeptTexts != 1 || st.Memories != 1 {
		t.Errorf("stats = %+v, %v: want the one kept text", st, err)
	}

	// The same text again strengthens the one kept.
	e.srv.Reply(facts("User lives in Berlin", 0.6, "User keeps bees", 0.5))
	again, err := m.RememberFacts(ctx, text)
	if err != nil || again.Message == nil || again.Message.New || again.Message.ID != res.Message.ID {
		t.Fatalf("again = %+v, %v", again, err)
	}
	if c := e.mustChunk("alice", res.Message.ID); c.EncounterCount != 2 {
		t.Errorf("encounters of the kept text = %d, want 2", c.EncounterCount)
	}

	// An extraction that fails keeps the text, and says so.
	e.srv.Chat = func(mock.ChatRequest) (string, int) { return "", http.StatusUnauthorized }
	_, err = m.RememberFacts(ctx, "My sister Ana is a nurse.")
	e.srv.Chat = nil
	if err == nil || !strings.Contains(err.Error(), "the text was kept as memory") {
		t.Fatalf("failed extraction: %v, want the error and the kept text", err)
	}
	if got := recallContents(t, m, hippo.RecallInput{Query: "My sister Ana is a nurse.", MinRelevance: noFloor()}); !slices.Contains(got, "My sister Ana is a nurse.") {
		t.Errorf("the text of a failed extraction is not recalled: %q", got)
	}

	// DiscardText keeps no text: no memory, no source.
	d := e.factMemory("bob", discardText)
	e.srv.Reply(facts("User lives in Oslo", 0.6))
	dr, err := d.RememberFacts(ctx, "I live in Oslo.")
	if err != nil || dr.Message != nil || len(dr.Facts) != 1 {
		t.Fatalf("discarding remember = %+v, %v", dr, err)
	}
	if n, err := e.s.CountChunks(ctx, hippo.ChunkFilter{AgentID: "bob"}); err != nil || n != 1 {
		t.Errorf("bob has %d chunks, want the fact alone (%v)", n, err)
	}
	if info, err := d.MemorySource(ctx, dr.Facts[0].ChunkID); err != nil || info.Input != "" {
		t.Errorf("source with DiscardText = %+v, %v: want no text", info, err)
	}
	e.srv.Reply(`{"facts": []}`)
	if dr, err := d.RememberFacts(ctx, "thanks!"); err != nil || dr.Message != nil || dr.Summary != hippo.NoFactsSummary(dr.Reason) {
		t.Errorf("discarding remember without facts = %+v, %v", dr, err)
	}
}

// testRecallOneOfGroup: a kept text and the facts learned from it come
// back once, as the best ranked of them. Ranked first, the text stands for
// its facts (a fact whose own words miss the query is found through it); a
// fact ranked first stands for the text and its sibling facts, which the
// text holds. With facts alone asked for, or no text kept, sibling facts
// are distinct claims and all come back.
func testRecallOneOfGroup(t *testing.T, b Backend) {
	e := newEnv(t, b)
	ctx := context.Background()
	m := e.factMemory("alice")
	const text = "Rangi orchard hives"
	e.srv.Set(text, mock.Axis(testDim, 0))
	e.srv.Set("User manages an orchard", mock.AtCosine(testDim, 1, 0, 0.5))
	e.srv.Set("User keeps hives", mock.AtCosine(testDim, 2, 1, 0.95))
	e.srv.Set("zulu", mock.Axis(testDim, 0))   // the text's own direction
	e.srv.Set("yankee", mock.Axis(testDim, 1)) // the orchard fact's
	e.srv.Reply(facts("User manages an orchard", 0.5, "User keeps hives", 0.5))
	res, err := m.RememberFacts(ctx, text)
	if err != nil || len(res.Facts) != 2 || res.Message == nil {
		t.Fatalf("remember = %+v, %v", res, err)
	}
	orchard, hives := res.Facts[0].ChunkID, res.Facts[1].ChunkID
	got := recallIDs(t, m, "zulu")
	if len(got) == 0 || got[0] != res.Message.ID || slices.Contains(got, orchard) || slices.Contains(got, hives) {
		t.Errorf("recall zulu = %v: want the text %s alone, none of its facts", got, res.Message.ID)
	}
	got = recallIDs(t, m, "yankee")
	if len(got) == 0 || got[0] != orchard || slices.Contains(got, hives) || slices.Contains(got, res.Message.ID) {
		t.Errorf("recall yankee = %v: want the orchard fact %s alone, neither its sibling %s nor the text", got, orchard, hives)
	}
	only, err := m.Recall(ctx, hippo.RecallInput{Query: "yankee", Kind: hippo.KindFact, Limit: 10})
	if err != nil || len(only) != 2 || only[0].Chunk.ID != orchard || only[1].Chunk.ID != hives {
		t.Errorf("recall yankee, facts only = %d results, %v: want both facts", len(only), err)
	}
	bob := e.factMemory("bob", discardText)
	e.srv.Reply(facts("User manages an orchard", 0.5, "User keeps hives", 0.5))
	if _, err := bob.RememberFacts(ctx, text); err != nil {
		t.Fatal(err)
	}
	if got := recallIDs(t, bob, "yankee"); len(got) < 2 {
		t.Errorf("recall yankee with no text kept = %v: want both facts", got)
	}

	// A page the group emptied is filled from further down.
	other, err := m.StoreMemory(ctx, hippo.StoreInput{Content: "an unrelated note"})
	if err != nil {
		t.Fatal(err)
	}
	page, err := m.Recall(ctx, hippo.RecallInput{Query: "zulu", Limit: 2, MinRelevance: noFloor()})
	if err != nil || len(page) != 2 || page[0].Chunk.ID != res.Message.ID || page[1].Chunk.ID != other.Chunk.ID {
		t.Errorf("recall zulu, limit 2 = %d results, %v: want the text and the unrelated note", len(page), err)
	}

	// Once the text is deleted, nothing holds the facts for each other.
	if _, _, err := e.s.DeleteChunks(ctx, "alice", []string{res.Message.ID}); err != nil {
		t.Fatal(err)
	}
	if got := recallIDs(t, m, "yankee"); !slices.Contains(got, orchard) || !slices.Contains(got, hives) {
		t.Errorf("recall yankee after the text was deleted = %v: want both facts", got)
	}
}

// testKeptTextStays: a text whose fact was superseded stays current and
// recallable (it may say more than its facts did), while the fact leaves
// recall and its history holds facts only.
func testKeptTextStays(t *testing.T, b Backend) {
	e := newEnv(t, b)
	ctx := context.Background()
	m := e.factMemory("alice")
	e.srv.Set("I live in Berlin", mock.AtCosine(testDim, 0, 1, 0.8))
	e.srv.Set("I moved to Bangkok", mock.AtCosine(testDim, 0, 2, 0.8))
	e.srv.Set("User lives in Berlin", mock.Axis(testDim, 0))
	e.srv.Set("User lives in Bangkok", mock.AtCosine(testDim, 0, 3, 0.85))
	e.srv.Reply(facts("User lives in Berlin", 0.6), facts("User lives in Bangkok", 0.6), verdicts("SUPERSEDES"))
	berlin, err := m.RememberFacts(ctx, "I live in Berlin")
	if err != nil {
		t.Fatal(err)
	}
	bangkok, err := m.RememberFacts(ctx, "I moved to Bangkok")
	if err != nil || len(bangkok.Facts) != 1 || bangkok.Facts[0].Action != hippo.ActionSupersedes {
		t.Fatalf("bangkok = %+v, %v", bangkok, err)
	}
	if old := e.mustChunk("alice", berlin.Message.ID); old.SupersededBy != "" {
		t.Errorf("the Berlin text is superseded: %+v", old)
	}
	got := recallIDs(t, m, "I live in Berlin")
	if !slices.Contains(got, berlin.Message.ID) || slices.Contains(got, berlin.Facts[0].ChunkID) {
		t.Errorf("recall = %v: want the Berlin text %s, not its superseded fact", got, berlin.Message.ID)
	}
	if h, err := m.FactHistory(ctx, "", bangkok.Facts[0].ChunkID); err != nil || len(h) != 2 || h[0].Content != "User lives in Berlin" {
		t.Errorf("history = %+v, %v: want the two facts", h, err)
	}
}

// testForgetKeptText: forgetting a kept text forgets it as every fact's
// source too, and the facts stay.
func testForgetKeptText(t *testing.T, b Backend) {
	e := newEnv(t, b)
	ctx := context.Background()
	m := e.factMemory("alice")
	const text = "tama broke his collarbone in august"
	e.srv.Set(text, mock.Axis(testDim, 0))
	e.srv.Set("User's son Tama broke his collarbone in August", mock.AtCosine(testDim, 0, 1, 0.6))
	e.srv.Reply(facts("User's son Tama broke his collarbone in August", 0.5))
	res, err := m.RememberFacts(ctx, text)
	if err != nil || res.Message == nil || len(res.Facts) != 1 {
		t.Fatalf("remember = %+v, %v", res, err)
	}
	gone, err := m.Forget(ctx, hippo.ForgetInput{Description: text, Threshold: 0.99})
	if err != nil || len(gone.Deleted) != 1 || gone.Deleted[0].ID != res.Message.ID {
		t.Fatalf("forget = %+v, %v: want the text alone", gone, err)
	}
	info, err := m.MemorySource(ctx, res.Facts[0].ChunkID)
	if err != nil || info.Input != "" || info.Provenance == nil || info.Provenance.InputHash != "" {
		t.Errorf("the fact's source after its text was forgotten = %+v, %v", info, err)
	}
}

// discardText makes a memory keep no text (MemoryOptions.DiscardText).
func discardText(o *hippo.MemoryOptions) { o.DiscardText = true }

// testCorrectionAboveText: a kept text whose fact was superseded ranks
// below the fact that superseded it whenever both are among the results,
// and the fact names the text it corrects; a query about another part of
// the text, or one the fact may not answer (memories only), leaves the
// text first.
func testCorrectionAboveText(t *testing.T, b Backend) {
	e := newEnv(t, b)
	ctx := context.Background()
	m := e.factMemory("alice")
	const old, moved = "Our office is in Westlands, above a chemist.", "we moved last week, bigger space"
	e.srv.Set("where is the office", mock.Axis(testDim, 0))
	e.srv.Set("what shop is below", mock.Axis(testDim, 2))
	e.srv.Set(old, mock.AtCosine(testDim, 0, 2, 0.9))
	e.srv.Set(moved, mock.AtCosine(testDim, 3, 4, 0.9))
	e.srv.Set("User's office is in Westlands", mock.AtCosine(testDim, 0, 1, 0.6))
	// At cosine 0.5 with the query and 0.85 with the old fact: about the
	// query, and close enough to the old fact to be classified.
	e.srv.Set("User's office is in Kilimani", vecOf(map[int]float64{0: 0.5, 1: 0.6875, 5: math.Sqrt(1 - 0.25 - 0.6875*0.6875)}))
	e.srv.Reply(facts("User's office is in Westlands", 0.6), facts("User's office is in Kilimani", 0.6), verdicts("SUPERSEDES"))
	first, err := m.RememberFacts(ctx, old)
	if err != nil {
		t.Fatal(err)
	}
	second, err := m.RememberFacts(ctx, moved)
	if err != nil || len(second.Facts) != 1 || second.Facts[0].Action != hippo.ActionSupersedes {
		t.Fatalf("second = %+v, %v", second, err)
	}
	text, kilimani := first.Message.ID, second.Facts[0].ChunkID

	res, err := m.Recall(ctx, hippo.RecallInput{Query: "where is the office", Limit: 10, DryRun: true})
	if err != nil || len(res) < 2 || res[0].Chunk.ID != kilimani || res[0].Corrects != text || res[1].Chunk.ID != text || res[1].Corrects != "" {
		t.Fatalf("recall = %s, %v: want the Kilimani fact, correcting the text, then the text", recalledIDs(res), err)
	}
	if res[0].Relevance >= res[1].Relevance {
		t.Errorf("the correction's relevance %.3f is not below the text's %.3f: the test proves nothing", res[0].Relevance, res[1].Relevance)
	}
	// get_context keeps recall's order.
	if c, err := m.Context(ctx, hippo.ContextInput{Query: "where is the office"}); err != nil || len(c.Memories) < 2 || c.Memories[0] != kilimani || c.Memories[1] != text {
		t.Errorf("context = %+v, %v: want the correction before the text", c, err)
	}
	// Only the results' order changes: a page of one holds the text, the
	// correction ranking second.
	if one, err := m.Recall(ctx, hippo.RecallInput{Query: "where is the office", Limit: 1, DryRun: true}); err != nil || len(one) != 1 || one[0].Chunk.ID != text {
		t.Errorf("recall, limit 1 = %s, %v: want the text", recalledIDs(one), err)
	}
	// About another part of the text: the correction is not about it.
	if res, err := m.Recall(ctx, hippo.RecallInput{Query: "what shop is below", Limit: 10, DryRun: true}); err != nil || len(res) == 0 || res[0].Chunk.ID != text || slices.ContainsFunc(res, func(r hippo.Recalled) bool { return r.Corrects != "" }) {
		t.Errorf("recall about the chemist = %s, %v: want the text first, no correction", recalledIDs(res), err)
	}
	// Memories only: the fact may not come back.
	if res, err := m.Recall(ctx, hippo.RecallInput{Query: "where is the office", Kind: hippo.KindMemory, Limit: 10, DryRun: true}); err != nil || len(res) == 0 || res[0].Chunk.ID != text || res[0].Corrects != "" {
		t.Errorf("recall of memories = %s, %v: want the text first", recalledIDs(res), err)
	}
	// Once the correction is forgotten, the text is first again.
	if _, _, err := e.s.DeleteChunks(ctx, "alice", []string{kilimani}); err != nil {
		t.Fatal(err)
	}
	if res, err := m.Recall(ctx, hippo.RecallInput{Query: "where is the office", Limit: 10, DryRun: true}); err != nil || len(res) == 0 || res[0].Chunk.ID != text {
		t.Errorf("recall after the correction was deleted = %s, %v: want the text first", recalledIDs(res), err)
	}
}

// vecOf is the testDim vector with the given components, the rest 0.
func vecOf(parts map[int]float64) []float32 {
	v := make([]float32, testDim)
	for i, x := range parts {
		v[i] = float32(x)
	}
	return v
}

// recalledIDs are the IDs of res, in order.
func recalledIDs(res []hippo.Recalled) []string {
	ids := make([]string, len(res))
	for i, r := range res {
		ids[i] = r.Chunk.ID
	}
	return ids
}

// testClassifyFailureKeepsText: when comparing the extracted facts with
// the known ones fails (the LLM refuses), no fact is written but the text
// is kept, and the error says so.
func testClassifyFailureKeepsText(t *testing.T, b Backend) {
	e := newEnv(t, b)
	ctx := context.Background()
	m := e.factMemory("alice")
	const text = "I moved to Lisbon."
	e.srv.Set("User lives in Berlin", mock.Axis(testDim, 0))
	e.srv.Set("User lives in Lisbon", mock.AtCosine(testDim, 0, 1, 0.85)) // ambiguous: the classifier is asked
	e.srv.Reply(facts("User lives in Berlin", 0.6))
	if _, err := m.RememberFacts(ctx, "I live in Berlin."); err != nil {
		t.Fatal(err)
	}
	e.srv.Reply(facts("User lives in Lisbon", 0.6)) // and no verdicts: the classification call fails
	_, err := m.RememberFacts(ctx, text)
	if err == nil || !strings.Contains(err.Error(), "the text was kept as memory") {
		t.Fatalf("remember with a failing classification: %v, want the error and the kept text", err)
	}
	if got := recallContents(t, m, hippo.RecallInput{Query: text, MinRelevance: noFloor()}); !slices.Contains(got, text) || slices.Contains(got, "User lives in Lisbon") {
		t.Errorf("recall = %q: want the kept text, and no fact written", got)
	}
	// Given facts alike.
	_, err = m.Remember(ctx, hippo.RememberInput{Text: "Lisbon it is.", Facts: []hippo.GivenFact{{Fact: "User lives in Lisbon"}}})
	if err == nil || !strings.Contains(err.Error(), "the text was kept as memory") {
		t.Errorf("given facts with a failing classification: %v, want the error and the kept text", err)
	}
}

// testOfflineFactRanksAsText: a fact the offline extractor cut from a kept
// text does not stand for it: the group ranks as the text does, so a
// memory closer to the query than the text comes first however close the
// fact is, and the fact does not come back beside its text. Facts the
// caller gave stand for their text as before, and with facts alone asked
// for the offline fact comes back. Each fact records what stated it.
func testOfflineFactRanksAsText(t *testing.T, b Backend) {
	e := newEnv(t, b)
	ctx := context.Background()
	offline := func(o *hippo.MemoryOptions) {
		o.Extractor, o.Classifier = local.NewExtractor(), local.NewClassifier()
	}
	const (
		query = "where do I live"
		text  = "I live in Berlin and I play the cello in an orchestra."
		fact  = "User lives in Berlin" // what the offline extractor cuts from text
		cello = "User plays the cello in an orchestra"
		flat  = "My flat is near the river."
	)
	e.srv.Set(query, mock.Axis(testDim, 0))
	e.srv.Set(fact, mock.AtCosine(testDim, 0, 1, 0.9))
	e.srv.Set(flat, mock.AtCosine(testDim, 0, 2, 0.8))
	e.srv.Set(text, mock.AtCosine(testDim, 0, 3, 0.7))
	e.srv.Set(cello, mock.Axis(testDim, 4))
	learn := func(m hippo.AgentMemory, in hippo.RememberInput) (factID, textID, flatID string) {
		t.Helper()
		res, err := m.Remember(ctx, in)
		if err != nil || res.Message == nil || len(res.Facts) == 0 || res.Facts[0].Content != fact {
			t.Fatalf("remember = %+v, %v: want %q first, the text kept", res, err, fact)
		}
		e.clock.Advance(time.Minute)
		mem, err := m.StoreMemory(ctx, hippo.StoreInput{Content: flat})
		if err != nil {
			t.Fatal(err)
		}
		return res.Facts[0].ChunkID, res.Message.ID, mem.Chunk.ID
	}

	alice := e.memory("alice", offline)
	factID, textID, flatID := learn(alice, hippo.RememberInput{Text: text})
	if p := e.mustChunk("alice", factID).Provenance; p == nil || p.Extractor != hippo.ExtractorOffline {
		t.Errorf("offline fact's provenance = %+v, want extractor %q", p, hippo.ExtractorOffline)
	}
	if p := e.mustChunk("alice", textID).Provenance; p == nil || p.Extractor != "" {
		t.Errorf("kept text's provenance = %+v, want no extractor", p)
	}
	if got := recallIDs(t, alice, query); !slices.Equal(got, []string{flatID, textID}) {
		t.Errorf("recall %q = %v: want the flat %s, then the text %s standing for its fact %s", query, got, flatID, textID, factID)
	}
	only, err := alice.Recall(ctx, hippo.RecallInput{Query: query, Kind: hippo.KindFact, Limit: 10})
	if err != nil || len(only) == 0 || only[0].Chunk.ID != factID {
		t.Errorf("recall %q, facts only = %v, %v: want the offline fact first", query, recalledIDs(only), err)
	}

	bob := e.memory("bob", offline)
	factID, textID, flatID = learn(bob, hippo.RememberInput{Text: text, Facts: []hippo.GivenFact{{Fact: fact}, {Fact: cello}}})
	if p := e.mustChunk("bob", factID).Provenance; p == nil || p.Extractor != hippo.ExtractorCaller {
		t.Errorf("given fact's provenance = %+v, want extractor %q", p, hippo.ExtractorCaller)
	}
	if got := recallIDs(t, bob, query); !slices.Equal(got, []string{factID, flatID}) {
		t.Errorf("recall %q = %v: want the given fact %s standing for its text, then the flat %s", query, got, factID, flatID)
	}
}

// testFollowUpAfterKeptText: with an extractor that reads follow-ups (the
// offline one), a text opening with "he" or "she" is read after the
// agent's last kept text: "He has hay fever" after "My son is 8." is a
// fact about the user's son. Another agent's text is not its last text,
// and a memory that keeps no text has none.
func testFollowUpAfterKeptText(t *testing.T, b Backend) {
	e := newEnv(t, b)
	ctx := context.Background()
	offline := func(o *hippo.MemoryOptions) {
		o.Extractor, o.Classifier = local.NewExtractor(), local.NewClassifier()
	}
	discard := func(o *hippo.MemoryOptions) { o.DiscardText = true }
	facts := func(m hippo.AgentMemory, text string) []string {
		t.Helper()
		res, err := m.RememberFacts(ctx, text)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, f := range res.Facts {
			out = append(out, f.Content)
		}
		return out
	}
	a := e.memory("agent-a", offline)
	if got := facts(a, "My son is 8."); !slices.Equal(got, []string{"User's son is 8"}) {
		t.Fatalf("facts of the first text = %q", got)
	}
	if got := facts(a, "He has hay fever."); !slices.Equal(got, []string{"User's son has hay fever"}) {
		t.Errorf("facts of the follow-up = %q, want it about the son", got)
	}
	if got := facts(e.memory("agent-b", offline), "He has hay fever."); len(got) != 0 {
		t.Errorf("another agent's follow-up = %q, want no fact: agent-a's text is not its last", got)
	}
	c := e.memory("agent-c", offline, discard)
	facts(c, "My son is 8.")
	if got := facts(c, "He has hay fever."); len(got) != 0 {
		t.Errorf("follow-up without kept texts = %q, want no fact", got)
	}

	// An async call keeps its text before its facts are learned: the text
	// before it is still the one it follows, not itself.
	d := e.memory("agent-d", offline)
	facts(d, "My daughter is 6.")
	if _, err := d.Remember(ctx, hippo.RememberInput{Text: "She loves horses.", Async: true}); err != nil {
		t.Fatal(err)
	}
	waitLearned(t, e.s)
	if live := e.liveFacts("agent-d"); live["User's daughter loves horses"] == nil {
		t.Errorf("facts after an async follow-up = %v, want one about the daughter", slices.Collect(maps.Keys(live)))
	}
}
