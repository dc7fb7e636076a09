package storetest

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/local"
)

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
	// A memory rewritten by the writer is found by its new content only.
	espresso := liveChunks(t, writer, "alice", hippo.KindMemory)["The user drinks espresso every morning"]
	tea := "The user drinks green tea every afternoon"
	if _, err := w.UpdateMemory(ctx, hippo.UpdateInput{ID: espresso.ID, Content: &tea}); err != nil {
		t.Fatal(err)
	}
	if got := recallContents(t, r, hippo.RecallInput{Query: "green tea", Limit: 1}); !slices.Equal(got, []string{tea}) {
		t.Errorf("reader after another writer's update: %q", got)
	}
	if got := recallContents(t, r, hippo.RecallInput{Query: "espresso"}); slices.Contains(got, "The user drinks espresso every morning") {
		t.Errorf("reader recalls the content another writer replaced: %q", got)
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

// testIndexUsage: the resident indexes are reported by agent, row and
// byte once recall has loaded them.
func testIndexUsage(t *testing.T, b Backend) {
	ctx := context.Background()
	e := newEnv(t, b)
	if u := e.s.IndexUsage(); u != (hippo.IndexUsage{}) {
		t.Fatalf("before any recall: %+v, want nothing resident", u)
	}
	for _, agent := range []string{"agent-a", "agent-b"} {
		m := e.memory(agent)
		store(t, m, "first note of "+agent)
		store(t, m, "second note of "+agent)
		if _, err := m.Recall(ctx, hippo.RecallInput{Query: "note"}); err != nil {
			t.Fatal(err)
		}
	}
	u := e.s.IndexUsage()
	if u.Agents != 2 || u.Rows != 4 || u.Bytes < 4*testDim {
		t.Errorf("usage %+v, want 2 agents, 4 rows and at least a byte per dimension each", u)
	}
}

// testIndexMemoryBound: with Options.IndexMemory too small for two
// agents' indexes, using a third drops the least recently used; a dropped
// agent's recall loads its index again and finds what it found before.
func testIndexMemoryBound(t *testing.T, b Backend) {
	ctx := context.Background()
	e := newEnv(t, b)
	db := e.open(b.New(t), Options{IndexMemory: 1})
	zero := 0.0
	first := map[string]string{}
	recall := func(agent string) string {
		t.Helper()
		m := e.memoryOf(db, agent)
		res, err := m.Recall(ctx, hippo.RecallInput{Query: "note about " + agent, MinRelevance: &zero, Limit: 1})
		if err != nil || len(res) != 1 {
			t.Fatalf("recall %s: %v, %d results", agent, err, len(res))
		}
		return res[0].Chunk.ID
	}
	for _, agent := range []string{"a", "b", "c"} {
		m := e.memoryOf(db, agent)
		store(t, m, "note about "+agent)
		store(t, m, "another thing entirely for "+agent)
		first[agent] = recall(agent)
	}
	u := db.IndexUsage()
	if u.Agents != 1 || u.Limit != 1 || u.Evictions < 2 {
		t.Errorf("usage %+v: want only the agent in use resident, two evicted", u)
	}
	loads := u.Loads
	if got := recall("a"); got != first["a"] {
		t.Errorf("agent a after eviction recalled %s, want %s", got, first["a"])
	}
	if u := db.IndexUsage(); u.Loads != loads+1 || u.Agents != 1 {
		t.Errorf("usage %+v: want a's index loaded again (loads %d) and the rest dropped", u, loads+1)
	}
	if _, err := b.OpenWith(t, b.New(t), Options{IndexMemory: -1}); hippo.ErrorCode(err) != hippo.EINVALID {
		t.Errorf("IndexMemory -1: %v, want EINVALID", err)
	}
}

// testIndexMemoryBoundConcurrent: agents recalled at once from several
// goroutines under a bound that fits one index at a time evict each other
// and keep finding their own memories (run it with -race).
func testIndexMemoryBoundConcurrent(t *testing.T, b Backend) {
	ctx := context.Background()
	e := newEnv(t, b)
	db := e.open(b.New(t), Options{IndexMemory: 1})
	agents := []string{"a", "b", "c", "d"}
	ids := map[string]string{}
	for _, agent := range agents {
		m := e.memoryOf(db, agent)
		ids[agent] = store(t, m, "note about "+agent).ID
	}
	zero := 0.0
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20 {
				agent := agents[(g+i)%len(agents)]
				m, err := db.Service(hippo.MemoryOptions{AgentID: agent, Embedder: e.emb})
				if err != nil {
					t.Error(err)
					return
				}
				res, err := m.Recall(ctx, hippo.RecallInput{Query: "note about " + agent, MinRelevance: &zero, Limit: 1})
				if err != nil || len(res) != 1 || res[0].Chunk.ID != ids[agent] {
					t.Errorf("recall %s: %v %v", agent, err, res)
					return
				}
			}
		}()
	}
	wg.Wait()
	if u := db.IndexUsage(); u.Evictions == 0 || u.Loads < int64(len(agents)) {
		t.Errorf("usage %+v: want evictions and reloads", u)
	}
}

// testReaderFollowsWritesAndForgets has one handle write and forget while
// another recalls: each recall sees the state committed before it.
func testReaderFollowsWritesAndForgets(t *testing.T, b Backend) {
	ctx := context.Background()
	name := b.New(t)
	w, r := b.Open(t, name), b.Open(t, name)
	wm, rm := memory(t, w, "alice", "", nil), memory(t, r, "alice", "", nil)
	recall := func(q string) []string {
		t.Helper()
		out := recallContents(t, rm, hippo.RecallInput{Query: q, Limit: 20})
		slices.Sort(out)
		return out
	}
	for _, c := range []string{"The cat sleeps on the sofa", "Invoices go out on the first Monday"} {
		if _, err := wm.StoreMemory(ctx, hippo.StoreInput{Content: c}); err != nil {
			t.Fatal(err)
		}
	}
	if got := recall("cat sofa"); len(got) != 2 {
		t.Fatalf("reader sees %q, want both memories", got)
	}
	// Recalls boost; the writer's next write lands after.
	if _, err := wm.StoreMemory(ctx, hippo.StoreInput{Content: "The dog barks at the postman"}); err != nil {
		t.Fatal(err)
	}
	if got := recall("dog postman"); len(got) != 3 {
		t.Fatalf("reader after a third write sees %q", got)
	}
	if _, err := wm.Forget(ctx, hippo.ForgetInput{Description: "The cat sleeps on the sofa"}); err != nil {
		t.Fatal(err)
	}
	if got := recall("cat sofa"); slices.Contains(got, "The cat sleeps on the sofa") {
		t.Fatalf("reader still recalls a forgotten memory: %q", got)
	}
}
