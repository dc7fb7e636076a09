// Package storetest is the conformance suite every Hippo store runs: one
// Run(t, backend) that drives a store through hippo's interfaces only, with
// the offline embedder, extractor and classifier, and checks every
// MemoryService behaviour and the concurrency cases a backend must get
// right. A backend's own test calls it:
//
//	func TestStore(t *testing.T) { storetest.Run(t, backend) }
package storetest

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/local"
)

// Store is what the suite needs of a store: the interfaces the CLI and the
// MCP server use.
type Store interface {
	hippo.Store
	hippo.Admin
	hippo.Exporter
	hippo.Importer
}

// Backend makes stores for the suite.
type Backend struct {
	// New returns the name of a new, empty store (a path, a DSN).
	New func(t *testing.T) string
	// Open opens a handle on the store called name, closed when the test
	// ends. Two handles on one store behave like two processes.
	Open func(t *testing.T, name string) Store
	// OpenWith, if set, opens a handle like Open whose clock is now and
	// whose database decays by model (recording it). The decay cases need
	// it and are skipped without it.
	OpenWith func(t *testing.T, name string, now func() time.Time, model hippo.DecayModel) Store
}

// Run runs the whole suite against b.
func Run(t *testing.T, b Backend) {
	for _, tc := range []struct {
		name string
		fn   func(*testing.T, Backend)
	}{
		{"StoreMemoryDedup", testStoreMemoryDedup},
		{"StoreMemories", testStoreMemories},
		{"RecallAndBoost", testRecallAndBoost},
		{"BoostFirstResultsWeakRest", testBoostFirstResultsWeakRest},
		{"RecallScopesAndIsolation", testRecallScopesAndIsolation},
		{"RememberFacts", testRememberFacts},
		{"FactHistory", testFactHistory},
		{"Forget", testForget},
		{"Blocks", testBlocks},
		{"Reinforce", testReinforce},
		{"Context", testContext},
		{"Conversation", testConversation},
		{"ConcurrentIdenticalFacts", testConcurrentIdenticalFacts},
		{"ConcurrentStoreMemory", testConcurrentStoreMemory},
		{"ReaderSeesOtherWriter", testReaderSeesOtherWriter},
		{"ReloadAfterBulkImport", testReloadAfterBulkImport},
		{"Suspicious", testSuspicious},
		{"Provenance", testProvenance},
		{"EditTrust", testEditTrust},
		{"UpdateMemory", testUpdateMemory},
		{"UpdateMemoryFact", testUpdateMemoryFact},
		{"ConcurrentUpdateFact", testConcurrentUpdateFact},
		{"DecayModels", testDecayModels},
		{"DecayExportImport", testDecayExportImport},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, b) })
	}
}

// memory binds agent's memory on s with the offline models, writing to
// scope and recalling every scope.
func memory(t *testing.T, s Store, agent, scope string, ex hippo.Extractor) hippo.AgentMemory {
	t.Helper()
	if ex == nil {
		ex = local.NewExtractor()
	}
	m, err := s.Service(hippo.MemoryOptions{AgentID: agent, Scope: scope, Embedder: local.NewEmbedder(),
		Extractor: ex, Classifier: local.NewClassifier()})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func open(t *testing.T, b Backend) Store {
	t.Helper()
	return b.Open(t, b.New(t))
}

func noFloor() *float64 { z := 0.0; return &z }

// recallContents recalls query (no relevance floor) and returns the
// results' contents, best first.
func recallContents(t *testing.T, m hippo.MemoryService, in hippo.RecallInput) []string {
	t.Helper()
	if in.MinRelevance == nil {
		in.MinRelevance = noFloor()
	}
	res, err := m.Recall(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(res))
	for i, r := range res {
		out[i] = r.Chunk.Content
	}
	return out
}

// liveChunks lists an agent's live chunks of kind by content.
func liveChunks(t *testing.T, s Store, agent string, kind hippo.Kind) map[string]*hippo.Chunk {
	t.Helper()
	cs, err := s.ListChunks(context.Background(), hippo.ChunkFilter{AgentID: agent, Kind: kind})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*hippo.Chunk{}
	for _, c := range cs {
		if c.SupersededBy == "" {
			if out[c.Content] != nil {
				t.Errorf("%q is stored twice", c.Content)
			}
			out[c.Content] = c
		}
	}
	return out
}

func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	if got := hippo.ErrorCode(err); got != code {
		t.Errorf("error %v: code %q, want %q", err, got, code)
	}
}

func testStoreMemoryDedup(t *testing.T, b Backend) {
	ctx := context.Background()
	s := open(t, b)
	m := memory(t, s, "alice", "", nil)
	first, err := m.StoreMemory(ctx, hippo.StoreInput{Content: "We chose SQLite over PostgreSQL"})
	if err != nil {
		t.Fatal(err)
	}
	if first.Duplicate || first.Chunk.EncounterCount != 1 {
		t.Errorf("first store: duplicate %v, encounters %d", first.Duplicate, first.Chunk.EncounterCount)
	}
	again, err := m.StoreMemory(ctx, hippo.StoreInput{Content: "We chose SQLite over PostgreSQL"})
	if err != nil {
		t.Fatal(err)
	}
	if !again.Duplicate || again.Chunk.ID != first.Chunk.ID || again.Chunk.EncounterCount != 2 || again.Chunk.AccessCount != 1 {
		t.Errorf("repeat: duplicate %v, id %s (want %s), encounters %d, accesses %d", again.Duplicate,
			again.Chunk.ID, first.Chunk.ID, again.Chunk.EncounterCount, again.Chunk.AccessCount)
	}
	// Another scope is another memory.
	other, err := memory(t, s, "alice", "work", nil).StoreMemory(ctx, hippo.StoreInput{Content: "We chose SQLite over PostgreSQL"})
	if err != nil {
		t.Fatal(err)
	}
	if other.Duplicate {
		t.Error("the same content in another scope was taken for a duplicate")
	}
	if _, err := m.StoreMemory(ctx, hippo.StoreInput{Content: "  "}); hippo.ErrorCode(err) != hippo.EINVALID {
		t.Errorf("blank content: %v, want %s", err, hippo.EINVALID)
	}
}

func testRecallAndBoost(t *testing.T, b Backend) {
	ctx := context.Background()
	s := open(t, b)
	m := memory(t, s, "alice", "", nil)
	for _, c := range []string{"The user drinks espresso every morning", "The deploy runs on Fridays", "Cats sleep most of the day"} {
		if _, err := m.StoreMemory(ctx, hippo.StoreInput{Content: c}); err != nil {
			t.Fatal(err)
		}
	}
	res, err := m.Recall(ctx, hippo.RecallInput{Query: "espresso coffee in the morning", Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].Chunk.Content != "The user drinks espresso every morning" {
		t.Fatalf("recall: %+v", res)
	}
	if res[0].Chunk.AccessCount != 1 || !(res[0].Score > 0) || !(res[0].Relevance > 0) {
		t.Errorf("recalled chunk: accesses %d (want 1, the boost), score %v, relevance %v",
			res[0].Chunk.AccessCount, res[0].Score, res[0].Relevance)
	}
	page, err := m.RecallPage(ctx, hippo.RecallInput{Query: "espresso coffee in the morning", Limit: 1, MinRelevance: noFloor()})
	if err != nil {
		t.Fatal(err)
	}
	if page.Total != 3 || len(page.Results) != 1 {
		t.Errorf("page: total %d, %d results; want 3 and 1", page.Total, len(page.Results))
	}
	if _, err := m.Recall(ctx, hippo.RecallInput{Query: "x", Offset: -1}); hippo.ErrorCode(err) != hippo.EINVALID {
		t.Errorf("negative offset: %v", err)
	}
}

// testBoostFirstResultsWeakRest checks which results a recall uses: only
// the first Config.BoostResults get the retrieval event, and when fewer
// than Config.WeakResults pass the floor the closest of the rest follow,
// marked weak and not boosted; with a floor given, none are added.
func testBoostFirstResultsWeakRest(t *testing.T, b Backend) {
	ctx := context.Background()
	s := open(t, b)
	m := memory(t, s, "alice", "", nil)
	contents := []string{
		"The user drinks espresso every morning", "Espresso beans come from the roaster on Main Street",
		"The user grinds coffee beans by hand", "The user takes coffee black without sugar",
		"The deploy runs on Fridays", "Cats sleep most of the day",
	}
	for _, c := range contents {
		if _, err := m.StoreMemory(ctx, hippo.StoreInput{Content: c}); err != nil {
			t.Fatal(err)
		}
	}
	accesses := func() map[string]int {
		out := map[string]int{}
		for _, c := range liveChunks(t, s, "alice", hippo.KindMemory) {
			out[c.Content] = c.AccessCount
		}
		return out
	}
	cfg := m.Config()
	res, err := m.Recall(ctx, hippo.RecallInput{Query: "espresso coffee beans", Limit: 10, MinRelevance: noFloor()})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != len(contents) {
		t.Fatalf("no floor: %d results, want %d", len(res), len(contents))
	}
	after := accesses()
	for i, r := range res {
		want := 0
		if i < cfg.BoostResults {
			want = 1
		}
		if r.Weak || after[r.Chunk.Content] != want || r.Chunk.AccessCount != want {
			t.Errorf("rank %d %q: weak %v, accesses %d stored and %d returned; want not weak, %d",
				i+1, r.Chunk.Content, r.Weak, after[r.Chunk.Content], r.Chunk.AccessCount, want)
		}
	}

	// Nothing is about the query: the closest few, all weak, none boosted.
	before := accesses()
	res, err = m.Recall(ctx, hippo.RecallInput{Query: "quantum chromodynamics lecture", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != cfg.WeakResults {
		t.Errorf("unrelated query: %d results, want the %d closest", len(res), cfg.WeakResults)
	}
	for _, r := range res {
		if !r.Weak || r.Relevance >= cfg.MinRelevance {
			t.Errorf("unrelated query: %q weak %v relevance %v, want weak under the floor %v", r.Chunk.Content, r.Weak, r.Relevance, cfg.MinRelevance)
		}
	}
	if got := accesses(); !maps.Equal(got, before) {
		t.Errorf("weak results were boosted: accesses %v, before %v", got, before)
	}
	floor := cfg.MinRelevance
	if res, err = m.Recall(ctx, hippo.RecallInput{Query: "quantum chromodynamics lecture", MinRelevance: &floor}); err != nil || len(res) != 0 {
		t.Errorf("unrelated query, floor given: %d results, %v; want none", len(res), err)
	}
}

func testRecallScopesAndIsolation(t *testing.T, b Backend) {
	ctx := context.Background()
	s := open(t, b)
	if _, err := memory(t, s, "alice", "work", nil).StoreMemory(ctx, hippo.StoreInput{Content: "The deploy runs on Fridays"}); err != nil {
		t.Fatal(err)
	}
	if _, err := memory(t, s, "alice", "", nil).StoreMemory(ctx, hippo.StoreInput{Content: "The user drinks espresso"}); err != nil {
		t.Fatal(err)
	}
	all := recallContents(t, memory(t, s, "alice", "", nil), hippo.RecallInput{Query: "deploy Fridays"})
	if len(all) != 2 {
		t.Errorf("every scope: %q, want both memories", all)
	}
	m, err := s.Service(hippo.MemoryOptions{AgentID: "alice", Embedder: local.NewEmbedder(), RecallScopes: []string{"work"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := recallContents(t, m, hippo.RecallInput{Query: "espresso"}); !slices.Equal(got, []string{"The deploy runs on Fridays"}) {
		t.Errorf("scope work: %q", got)
	}
	if got := recallContents(t, memory(t, s, "bob", "", nil), hippo.RecallInput{Query: "deploy Fridays"}); len(got) != 0 {
		t.Errorf("bob recalls alice's memories: %q", got)
	}
}

func testRememberFacts(t *testing.T, b Backend) {
	ctx := context.Background()
	s := open(t, b)
	m := memory(t, s, "alice", "", nil)
	res, err := m.RememberFacts(ctx, "I live in Berlin and I love Go.")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Facts) != 2 || res.Facts[0].Action != hippo.ActionNew || res.Facts[1].Action != hippo.ActionNew {
		t.Fatalf("first call: %+v", res)
	}
	again, err := m.RememberFacts(ctx, "I live in Berlin.")
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Facts) != 1 || again.Facts[0].Action != hippo.ActionDuplicate || again.Facts[0].ChunkID != res.Facts[0].ChunkID {
		t.Errorf("repeat: %+v", again.Facts)
	}
	moved, err := m.RememberFacts(ctx, "I used to live in Berlin, but now I live in Lyon.")
	if err != nil {
		t.Fatal(err)
	}
	live := liveChunks(t, s, "alice", hippo.KindFact)
	if live["User lives in Lyon"] == nil || live["User lives in Berlin"] != nil {
		t.Errorf("after moving: live facts %v (%+v)", keys(live), moved.Facts)
	}
	if c := live["User loves Go"]; c == nil || c.EncounterCount != 1 {
		t.Errorf("an unrelated fact changed: %+v", c)
	}
	if _, err := m.RememberFacts(ctx, ""); hippo.ErrorCode(err) != hippo.EINVALID {
		t.Errorf("empty text: %v", err)
	}
}

func keys(m map[string]*hippo.Chunk) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// editorChange is a new store where alice preferred VS Code, then said
// she uses Neovim now: one fact superseding another.
func editorChange(t *testing.T, b Backend) (Store, hippo.AgentMemory) {
	t.Helper()
	s := open(t, b)
	m := memory(t, s, "alice", "", nil)
	for _, text := range []string{"I prefer VS Code.", "I used to prefer VS Code, but now I use Neovim."} {
		if _, err := m.RememberFacts(context.Background(), text); err != nil {
			t.Fatal(err)
		}
	}
	return s, m
}

func testFactHistory(t *testing.T, b Backend) {
	ctx := context.Background()
	_, m := editorChange(t, b)
	h, err := m.FactHistory(ctx, "do I use Neovim", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(h) != 2 || h[0].Content != "User prefers VS Code" || h[0].Current || h[0].ValidUntil == nil ||
		h[1].Content != "User uses Neovim" || !h[1].Current {
		t.Errorf("history: %+v", h)
	}
	if len(h) == 2 {
		byID, err := m.FactHistory(ctx, "", h[0].ID)
		if err != nil || len(byID) != 2 || byID[1].ID != h[1].ID {
			t.Errorf("history by ID: %+v, %v", byID, err)
		}
	}
	_, err = m.FactHistory(ctx, "", "01NOSUCHCHUNK0000000000000")
	wantCode(t, err, hippo.ENOTFOUND)
}

func testForget(t *testing.T, b Backend) {
	ctx := context.Background()
	s, m := editorChange(t, b)
	if _, err := m.StoreMemory(ctx, hippo.StoreInput{Content: "The deploy runs on Fridays"}); err != nil {
		t.Fatal(err)
	}
	dry, err := m.Forget(ctx, hippo.ForgetInput{Description: "User uses Neovim", DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(dry.Deleted) != 1 || len(liveChunks(t, s, "alice", hippo.KindFact)) != 1 {
		t.Fatalf("dry run: %+v", dry)
	}
	res, err := m.Forget(ctx, hippo.ForgetInput{Description: "User uses Neovim"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Deleted) != 1 || res.Deleted[0].Content != "User uses Neovim" || len(res.Resurrected) != 1 {
		t.Fatalf("forget: %+v", res)
	}
	// What the forgotten fact had superseded is current again.
	if live := liveChunks(t, s, "alice", hippo.KindFact); live["User prefers VS Code"] == nil || len(live) != 1 {
		t.Errorf("after forgetting: %v", keys(live))
	}
	if got := recallContents(t, m, hippo.RecallInput{Query: "Neovim"}); slices.Contains(got, "User uses Neovim") {
		t.Errorf("the forgotten fact is still recalled: %q", got)
	}
}

func testBlocks(t *testing.T, b Backend) {
	ctx := context.Background()
	s := open(t, b)
	m := memory(t, s, "alice", "", nil)
	if blk, err := m.Block(ctx, "persona"); err != nil || blk != nil {
		t.Errorf("missing block: %+v, %v", blk, err)
	}
	if _, err := m.AppendBlock(ctx, "persona", "I am terse."); err != nil {
		t.Fatal(err)
	}
	if _, err := m.AppendBlock(ctx, "persona", "I cite sources."); err != nil {
		t.Fatal(err)
	}
	blk, n, err := m.ReplaceBlock(ctx, "persona", "terse", "brief")
	if err != nil || n != 1 || !strings.Contains(blk.Value, "I am brief.") || !strings.Contains(blk.Value, "I cite sources.") {
		t.Errorf("replace: %+v, %d, %v", blk, n, err)
	}
	_, _, err = m.ReplaceBlock(ctx, "persona", "absent", "x")
	wantCode(t, err, hippo.ENOTFOUND)
	if _, err := m.SetBlock(ctx, "human", "Ann"); err != nil {
		t.Fatal(err)
	}
	if _, err := m.DescribeBlock(ctx, "human", "who the user is"); err != nil {
		t.Fatal(err)
	}
	infos, err := m.Blocks(ctx)
	if err != nil || len(infos) != 2 {
		t.Fatalf("blocks: %+v, %v", infos, err)
	}
	if got, err := m.Block(ctx, "human"); err != nil || got.Value != "Ann" || got.Description != "who the user is" {
		t.Errorf("human: %+v, %v", got, err)
	}
	if err := m.DeleteBlock(ctx, "human"); err != nil {
		t.Fatal(err)
	}
	wantCode(t, m.DeleteBlock(ctx, "human"), hippo.ENOTFOUND)
	if got, err := memory(t, s, "bob", "", nil).Block(ctx, "persona"); err != nil || got != nil {
		t.Errorf("bob sees alice's block: %+v, %v", got, err)
	}
}

func testReinforce(t *testing.T, b Backend) {
	ctx := context.Background()
	s := open(t, b)
	m := memory(t, s, "alice", "", nil)
	up, err := m.StoreMemory(ctx, hippo.StoreInput{Content: "Upvoted memory"})
	if err != nil {
		t.Fatal(err)
	}
	down, err := m.StoreMemory(ctx, hippo.StoreInput{Content: "Downvoted memory"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := m.Reinforce(ctx, []string{up.Chunk.ID}, []string{down.Chunk.ID, "01NOSUCHCHUNK0000000000000"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Upvoted, []string{up.Chunk.ID}) || !slices.Equal(res.Downvoted, []string{down.Chunk.ID}) || len(res.NotFound) != 1 {
		t.Errorf("reinforce: %+v", res)
	}
	live := liveChunks(t, s, "alice", hippo.KindMemory)
	cfg := m.Config()
	if c := live["Upvoted memory"]; c.RunningIntensity != hippo.MovingAverage(cfg.DefaultIntensity, 1, 1) || c.AccessCount != 1 || c.EncounterCount != 2 {
		t.Errorf("upvoted: %+v", c)
	}
	if c := live["Downvoted memory"]; c.RunningIntensity != hippo.MovingAverage(cfg.DefaultIntensity, 1, 0) || c.AccessCount != 0 || c.EncounterCount != 2 {
		t.Errorf("downvoted: %+v", c)
	}
	_, err = m.Reinforce(ctx, nil, nil)
	wantCode(t, err, hippo.EINVALID)
}

func testContext(t *testing.T, b Backend) {
	ctx := context.Background()
	s := open(t, b)
	m := memory(t, s, "alice", "", nil)
	if _, err := m.SetBlock(ctx, "persona", "I am terse."); err != nil {
		t.Fatal(err)
	}
	if _, err := m.StoreMemory(ctx, hippo.StoreInput{Content: "The user drinks espresso every morning"}); err != nil {
		t.Fatal(err)
	}
	c, err := m.Context(ctx, hippo.ContextInput{Query: "espresso in the morning"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.Blocks, []string{"persona"}) || len(c.Memories) != 1 ||
		!strings.Contains(c.Text, "I am terse.") || !strings.Contains(c.Text, "espresso every morning") {
		t.Errorf("context: %+v", c)
	}
	small, err := m.Context(ctx, hippo.ContextInput{Query: "espresso in the morning", MaxChars: 10})
	if err != nil {
		t.Fatal(err)
	}
	if small.Chars > 10 || len(small.OmittedBlocks) != 1 {
		t.Errorf("budget 10: %+v", small)
	}
}

func testConversation(t *testing.T, b Backend) {
	s := open(t, b)
	_, err := memory(t, s, "alice", "", nil).SearchConversation(context.Background(), "hello", 5)
	wantCode(t, err, hippo.EINVALID)
}

// barrier is an extractor that holds each call until n calls have
// arrived, so that concurrent calls plan against the same snapshot.
type barrier struct {
	hippo.Extractor
	wg *sync.WaitGroup
}

func (b barrier) ExtractFacts(ctx context.Context, text string) ([]hippo.Fact, []hippo.LLMCall, error) {
	b.wg.Done()
	b.wg.Wait()
	return b.Extractor.ExtractFacts(ctx, text)
}

func testConcurrentIdenticalFacts(t *testing.T, b Backend) {
	s := open(t, b)
	const n = 4
	var arrived sync.WaitGroup
	arrived.Add(n)
	ex := barrier{local.NewExtractor(), &arrived}
	results := make([]*hippo.RememberResult, n)
	errs := make([]error, n)
	var done sync.WaitGroup
	for i := range n {
		done.Add(1)
		go func() {
			defer done.Done()
			results[i], errs[i] = memory(t, s, "alice", "", ex).RememberFacts(context.Background(), "I'm allergic to peanuts!")
		}()
	}
	done.Wait()
	news := 0
	for i, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
		if results[i].Facts[0].Action == hippo.ActionNew {
			news++
		}
	}
	live := liveChunks(t, s, "alice", hippo.KindFact)
	if len(live) != 1 || news != 1 {
		t.Fatalf("%d identical concurrent calls stored %v (%d new), want one fact", n, keys(live), news)
	}
	for _, c := range live {
		if c.EncounterCount != n {
			t.Errorf("encounters %d, want %d", c.EncounterCount, n)
		}
	}
}

func testConcurrentStoreMemory(t *testing.T, b Backend) {
	name := b.New(t)
	stores := []Store{b.Open(t, name), b.Open(t, name)}
	const n = 8
	dups := make([]bool, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := memory(t, stores[i%2], "alice", "", nil).StoreMemory(context.Background(), hippo.StoreInput{Content: "Same content from everyone"})
			errs[i] = err
			if err == nil {
				dups[i] = res.Duplicate
			}
		}()
	}
	wg.Wait()
	inserted := 0
	for i, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
		if !dups[i] {
			inserted++
		}
	}
	live := liveChunks(t, stores[0], "alice", hippo.KindMemory)
	if inserted != 1 || len(live) != 1 || live["Same content from everyone"].EncounterCount != n {
		t.Errorf("%d concurrent stores through two handles: %d inserted, stored %v", n, inserted, live)
	}
}

func testReaderSeesOtherWriter(t *testing.T, b Backend) {
	ctx := context.Background()
	name := b.New(t)
	writer, reader := b.Open(t, name), b.Open(t, name)
	w, r := memory(t, writer, "alice", "", nil), memory(t, reader, "alice", "", nil)
	if _, err := w.StoreMemory(ctx, hippo.StoreInput{Content: "The deploy runs on Fridays"}); err != nil {
		t.Fatal(err)
	}
	// The reader loads its view first, then the writer changes things.
	if got := recallContents(t, r, hippo.RecallInput{Query: "deploy"}); len(got) != 1 {
		t.Fatalf("reader: %q", got)
	}
	if _, err := w.StoreMemory(ctx, hippo.StoreInput{Content: "The user drinks espresso every morning"}); err != nil {
		t.Fatal(err)
	}
	if got := recallContents(t, r, hippo.RecallInput{Query: "espresso", Limit: 1}); !slices.Equal(got, []string{"The user drinks espresso every morning"}) {
		t.Errorf("reader after another writer's insert: %q", got)
	}
	if _, err := w.Forget(ctx, hippo.ForgetInput{Description: "The deploy runs on Fridays"}); err != nil {
		t.Fatal(err)
	}
	if got := recallContents(t, r, hippo.RecallInput{Query: "deploy"}); slices.Contains(got, "The deploy runs on Fridays") {
		t.Errorf("reader after another writer's forget: %q", got)
	}
	if _, err := w.SetBlock(ctx, "persona", "Terse."); err != nil {
		t.Fatal(err)
	}
	if blk, err := r.Block(ctx, "persona"); err != nil || blk == nil || blk.Value != "Terse." {
		t.Errorf("reader's block: %+v, %v", blk, err)
	}
}

func testReloadAfterBulkImport(t *testing.T, b Backend) {
	ctx := context.Background()
	src := open(t, b)
	m := memory(t, src, "alice", "", nil)
	const n = 300
	for i := range n {
		if _, err := m.StoreMemory(ctx, hippo.StoreInput{Content: fmt.Sprintf("Imported note number %d about topic %d", i, i%7)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := m.StoreMemory(ctx, hippo.StoreInput{Content: "The user drinks espresso every morning"}); err != nil {
		t.Fatal(err)
	}
	var file bytes.Buffer
	if _, err := src.Export(ctx, &file, hippo.ExportOptions{AgentID: "alice"}); err != nil {
		t.Fatal(err)
	}

	name := b.New(t)
	importer, reader := b.Open(t, name), b.Open(t, name)
	r := memory(t, reader, "alice", "", nil)
	if _, err := r.StoreMemory(ctx, hippo.StoreInput{Content: "Already there"}); err != nil {
		t.Fatal(err)
	}
	if got := recallContents(t, r, hippo.RecallInput{Query: "espresso"}); len(got) != 1 {
		t.Fatalf("reader before the import: %q", got)
	}
	res, err := importer.Import(ctx, &file, hippo.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Chunks != n+1 {
		t.Errorf("imported %d chunks, want %d", res.Chunks, n+1)
	}
	if got := recallContents(t, r, hippo.RecallInput{Query: "espresso", Limit: 1}); !slices.Equal(got, []string{"The user drinks espresso every morning"}) {
		t.Errorf("reader after another handle's bulk import: %q", got)
	}
	page, err := r.RecallPage(ctx, hippo.RecallInput{Query: "imported note", MinRelevance: noFloor()})
	if err != nil {
		t.Fatal(err)
	}
	if page.Total != n+2 {
		t.Errorf("reader counts %d chunks, want %d", page.Total, n+2)
	}
}
