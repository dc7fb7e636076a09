package sqlite_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/local"
	"github.com/hippo-mem/hippo/mock"
	"github.com/hippo-mem/hippo/openai"
	"github.com/hippo-mem/hippo/sqlite"
	"github.com/hippo-mem/hippo/vector"
)

// words make the chunks' content: real words, so that the offline GloVe
// embedder gives each chunk a vector of its own.
var words = strings.Fields(`apple river mountain coffee garden music teacher
	window doctor bicycle ocean summer winter kitchen library market station
	letter camera forest island bridge engine pencil guitar village planet
	basket candle desert harbor jacket ladder mirror needle orange pocket
	rabbit saddle tunnel violin wallet yellow anchor blanket castle dragon`)

// seedChunks inserts n chunks with IDs C00000... in ID order, alternately
// of alice and bob, with vectors of the mock server's model.
func seedChunks(t testing.TB, e *env, n int) {
	t.Helper()
	ctx := context.Background()
	for start := 0; start < n; start += 5000 {
		byAgent := map[string][]*hippo.Chunk{}
		for i := start; i < min(start+5000, n); i++ {
			content := fmt.Sprintf("%s %s %s %s", words[i%len(words)], words[i/len(words)%len(words)],
				words[i/7%len(words)], words[i/131%len(words)])
			agent := []string{"alice", "bob"}[i%2]
			byAgent[agent] = append(byAgent[agent], &hippo.Chunk{ID: fmt.Sprintf("C%05d", i), Content: content,
				Embedding: mock.HashVector(content, testDim)})
		}
		for agent, chunks := range byAgent {
			if err := e.db.InsertChunks(ctx, agent, "", e.emb.Model(), chunks); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// rawDB opens the file without the sqlite package, to look at what it
// stores.
func rawDB(t testing.TB, db *sqlite.DB) *sql.DB {
	t.Helper()
	raw, err := sql.Open("sqlite", "file:"+db.Path()+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { raw.Close() })
	return raw
}

func count(t testing.TB, raw *sql.DB, query string, args ...any) int {
	t.Helper()
	var n int
	if err := raw.QueryRow(query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

func recallFirst(t testing.TB, m *sqlite.Memory, query string) string {
	t.Helper()
	ids := recallIDs(t, m, query)
	if len(ids) == 0 {
		t.Fatalf("recall %q found nothing", query)
	}
	return ids[0]
}

// raceEnabled reports whether the test binary was built with -race, which
// slows SQLite (Go code here) down some fifteen times.
func raceEnabled() bool {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "-race" {
				return s.Value == "true"
			}
		}
	}
	return false
}

// TestReembedInterruptedAndResumed re-embeds 10,000 chunks (2,000 under
// -race, to keep the run short), interrupted halfway and resumed.
func TestReembedInterruptedAndResumed(t *testing.T) {
	n := 10_000
	if raceEnabled() {
		n = 2_000
	}
	const batch = sqlite.DefaultReembedBatch
	half := (n/2 + batch - 1) / batch * batch // chunks done when interrupted
	ctx := context.Background()
	e := newEnv(t)
	seedChunks(t, e, n)
	raw := rawDB(t, e.db)
	glove := local.NewEmbedder()
	aliceOld := e.memory("alice")
	aliceNew := e.memory("alice", func(o *sqlite.MemoryOptions) { o.Embedder = glove })
	known := fmt.Sprintf("C%05d", n/2+42) // alice's, in the second half
	knownContent, err := e.db.Chunk(ctx, "alice", known)
	if err != nil {
		t.Fatal(err)
	}

	// Interrupted once half the chunks are done.
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	start := time.Now()
	_, err = e.db.Reembed(cctx, glove, sqlite.ReembedOptions{Progress: func(done, total int) {
		if total != n {
			t.Errorf("progress total = %d, want %d", total, n)
		}
		if done >= n/2 {
			cancel()
		}
	}})
	firstHalf := time.Since(start)
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), fmt.Sprintf("interrupted after %d of %d", half, n)) {
		t.Fatalf("interrupted reembed: %v", err)
	}

	// Nothing visible changed: the old model answers, the new is refused.
	if lock, err := e.db.EmbeddingModel(ctx); err != nil || *lock != (sqlite.ModelLock{Model: "mock-embed", Dimension: testDim}) {
		t.Fatalf("lock after interruption = %v, %v", lock, err)
	}
	if got := recallFirst(t, aliceOld, knownContent.Content); got != known {
		t.Errorf("old-model recall after interruption: first %s, want %s", got, known)
	}
	_, err = aliceNew.Recall(ctx, hippo.RecallInput{Query: "apple"})
	wantCode(t, err, hippo.ECONFLICT)
	if got := count(t, raw, `SELECT COUNT(*) FROM chunks WHERE length(embedding) != ?`, 4*testDim); got != 0 {
		t.Errorf("%d chunks changed embedding before the switch", got)
	}
	plan, err := e.db.Reembed(ctx, glove, sqlite.ReembedOptions{DryRun: true})
	if err != nil || !plan.DryRun || plan.Chunks != n || plan.Reused != half || plan.Embedded != n-half ||
		plan.To != (sqlite.ModelLock{Model: local.Model, Dimension: local.Dimension}) {
		t.Fatalf("plan = %+v, %v", plan, err)
	}

	// Writes while it is stopped: a new memory, a re-embedded chunk whose
	// content changes, and one deleted.
	added := store(t, aliceOld, "the dentist appointment moved to friday")
	if _, err := aliceOld.UpdateChunk(ctx, "C00010", "the quarterly tax report is due in april"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.db.DeleteChunks(ctx, "", []string{"C00020"}); err != nil {
		t.Fatal(err)
	}

	// Resumed: it starts where it stopped and finishes.
	var first = -1
	start = time.Now()
	res, err := e.db.Reembed(ctx, glove, sqlite.ReembedOptions{Progress: func(done, total int) {
		if first < 0 {
			first = done
		}
	}})
	secondHalf := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	// The chunk updated and the one deleted were among the first half.
	if first != half-2 || res.Reused != half-2 || res.Embedded != n-half+2 || res.Chunks != n || res.Unchanged ||
		*res.From != (sqlite.ModelLock{Model: "mock-embed", Dimension: testDim}) {
		t.Errorf("resumed: first progress %d, result %+v", first, res)
	}
	t.Logf("re-embedded %d chunks with %s: %d in %v (interrupted), %d in %v (resumed); %.0f chunks/s",
		n, local.Model, half, firstHalf.Round(time.Millisecond), res.Embedded, secondHalf.Round(time.Millisecond),
		float64(half+res.Embedded)/(firstHalf+secondHalf).Seconds())

	// Every chunk on the new model, the lock switched, the shadow state gone.
	if lock, err := e.db.EmbeddingModel(ctx); err != nil || *lock != res.To {
		t.Errorf("lock = %v, %v; want %v", lock, err, res.To)
	}
	if got := count(t, raw, `SELECT COUNT(*) FROM chunks WHERE length(embedding) != ?`, 4*local.Dimension); got != 0 {
		t.Errorf("%d chunks not on the new model", got)
	}
	if got := count(t, raw, `SELECT COUNT(*) FROM sqlite_master WHERE name LIKE 'hippo_reembed%'`) +
		count(t, raw, `SELECT COUNT(*) FROM hippo_meta WHERE key = 'reembed_target'`); got != 0 {
		t.Errorf("%d pieces of re-embedding state left", got)
	}
	c, err := e.db.Chunk(ctx, "alice", "C00010")
	if err != nil {
		t.Fatal(err)
	}
	want, _ := glove.Embed(ctx, []string{c.Content})
	if cos := vector.Cosine(c.Embedding, want[0]); cos < 0.9999 {
		t.Errorf("the chunk updated meanwhile has a stale embedding: cosine %v with its content's", cos)
	}

	// Recall works with the new model and refuses the old.
	for query, id := range map[string]string{knownContent.Content: known, "the dentist appointment moved to friday": added.ID,
		"the quarterly tax report is due in april": "C00010"} {
		if got := recallFirst(t, aliceNew, query); got != id {
			t.Errorf("new-model recall %q: first %s, want %s", query, got, id)
		}
	}
	_, err = aliceOld.Recall(ctx, hippo.RecallInput{Query: "apple"})
	wantCode(t, err, hippo.ECONFLICT)

	// Again with the same model: nothing to do.
	res, err = e.db.Reembed(ctx, glove, sqlite.ReembedOptions{})
	if err != nil || !res.Unchanged || res.Embedded != 0 {
		t.Errorf("reembed to the current model = %+v, %v", res, err)
	}
}

// newMockEmbedder is an OpenAI-compatible embedder of model over a fake
// server of dim dimensions.
func newMockEmbedder(t testing.TB, model string, dim int) (*openai.Embedder, *mock.Server) {
	t.Helper()
	srv := mock.NewServer(t, dim)
	emb, err := openai.NewEmbedder(openai.Config{BaseURL: srv.BaseURL(), Model: model})
	if err != nil {
		t.Fatal(err)
	}
	return emb, srv
}

func TestReembedNewTargetStartsOver(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	seedChunks(t, e, 50)
	a, _ := newMockEmbedder(t, "model-a", 16)
	b, _ := newMockEmbedder(t, "model-b", 32)

	// The current model: nothing to do, no state created.
	res, err := e.db.Reembed(ctx, e.emb, sqlite.ReembedOptions{})
	if err != nil || !res.Unchanged || res.From == nil || res.From.Model != "mock-embed" {
		t.Fatalf("reembed to the current model = %+v, %v", res, err)
	}
	if got := count(t, rawDB(t, e.db), `SELECT COUNT(*) FROM sqlite_master WHERE name LIKE 'hippo_reembed%'`); got != 0 {
		t.Errorf("a no-op left %d schema objects", got)
	}

	cctx, cancel := context.WithCancel(ctx)
	_, err = e.db.Reembed(cctx, a, sqlite.ReembedOptions{BatchSize: 10, Progress: func(done, _ int) {
		if done >= 20 {
			cancel()
		}
	}})
	cancel()
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted: %v", err)
	}
	if plan, err := e.db.Reembed(ctx, a, sqlite.ReembedOptions{DryRun: true}); err != nil || plan.Reused != 20 {
		t.Errorf("plan to the interrupted target = %+v, %v", plan, err)
	}
	if plan, err := e.db.Reembed(ctx, b, sqlite.ReembedOptions{DryRun: true}); err != nil || plan.Reused != 0 || plan.Embedded != 50 {
		t.Errorf("plan to another target = %+v, %v", plan, err)
	}

	// Another target starts over.
	first := -1
	res, err = e.db.Reembed(ctx, b, sqlite.ReembedOptions{BatchSize: 7, Progress: func(done, _ int) {
		if first < 0 {
			first = done
		}
	}})
	if err != nil || first != 0 || res.Reused != 0 || res.Embedded != 50 || res.Chunks != 50 ||
		res.To != (sqlite.ModelLock{Model: "model-b", Dimension: 32}) {
		t.Fatalf("reembed to another target: first progress %d, %+v, %v", first, res, err)
	}
	if lock, _ := e.db.EmbeddingModel(ctx); *lock != res.To {
		t.Errorf("lock = %v", lock)
	}
	if got := count(t, rawDB(t, e.db), `SELECT COUNT(*) FROM chunks WHERE length(embedding) != 128`); got != 0 {
		t.Errorf("%d chunks not on model-b", got)
	}
	if plan, err := e.db.Reembed(ctx, b, sqlite.ReembedOptions{DryRun: true}); err != nil || !plan.Unchanged {
		t.Errorf("plan to the current model = %+v, %v", plan, err)
	}

	// A bad batch size is refused; an empty database has nothing to do.
	_, err = e.db.Reembed(ctx, a, sqlite.ReembedOptions{BatchSize: -1})
	wantCode(t, err, hippo.EINVALID)
	if res, err := e.freshDB().Reembed(ctx, a, sqlite.ReembedOptions{}); err != nil || !res.Unchanged || res.From != nil {
		t.Errorf("reembed of an empty database = %+v, %v", res, err)
	}
}

// TestReembedSeenByAnotherProcess switches the model through one handle
// while another, which had loaded its index and seen the old lock, keeps
// serving.
func TestReembedSeenByAnotherProcess(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	seedChunks(t, e, 200)
	other := openDB(t, e.db.Path(), e.clock)
	glove := local.NewEmbedder()
	memory := func(emb hippo.Embedder) *sqlite.Memory {
		m, err := other.Memory(sqlite.MemoryOptions{AgentID: "alice", Embedder: emb})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	oldM, newM := memory(e.emb), memory(glove)
	target, _ := other.Chunk(ctx, "alice", "C00100")
	if got := recallFirst(t, oldM, target.Content); got != target.ID {
		t.Fatalf("recall before the switch: first %s", got)
	}
	_, err := newM.Recall(ctx, hippo.RecallInput{Query: "apple"})
	wantCode(t, err, hippo.ECONFLICT)

	if _, err := e.db.Reembed(ctx, glove, sqlite.ReembedOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := recallFirst(t, newM, target.Content); got != target.ID {
		t.Errorf("new-model recall through the other handle: first %s, want %s", got, target.ID)
	}
	for _, err := range []error{
		func() error { _, err := oldM.Recall(ctx, hippo.RecallInput{Query: "apple"}); return err }(),
		func() error {
			_, err := oldM.StoreMemory(ctx, hippo.StoreInput{Content: "late old-model write"})
			return err
		}(),
	} {
		wantCode(t, err, hippo.ECONFLICT)
		if !strings.Contains(err.Error(), "embedding model mismatch") {
			t.Errorf("old model refused with %q", err)
		}
	}
	if st, err := other.IndexStats(ctx, "alice"); err != nil || st.Dimension != local.Dimension || st.Rows != 100 {
		t.Errorf("the other handle's index = %+v, %v", st, err)
	}
}

// TestIndexRebuildsOnNewDimension switches every vector behind a loaded
// index's back, with the change log intact: folding the changes in meets
// rows of another dimension, and the index is rebuilt from them.
func TestIndexRebuildsOnNewDimension(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	seedChunks(t, e, 40)
	glove := local.NewEmbedder()
	old := e.memory("alice")
	target, _ := e.db.Chunk(ctx, "alice", "C00012")
	if got := recallFirst(t, old, target.Content); got != target.ID {
		t.Fatalf("recall before: first %s", got)
	}

	raw := rawDB(t, e.db)
	tx, err := raw.Begin()
	if err != nil {
		t.Fatal(err)
	}
	rows, err := tx.Query(`SELECT id, content FROM chunks`)
	if err != nil {
		t.Fatal(err)
	}
	contents := map[string]string{}
	for rows.Next() {
		var id, content string
		rows.Scan(&id, &content)
		contents[id] = content
	}
	rows.Close()
	for id, content := range contents {
		v, _ := glove.Embed(ctx, []string{content})
		if _, err := tx.Exec(`UPDATE chunks SET embedding = ? WHERE id = ?`, vector.Encode(v[0]), id); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tx.Exec(`UPDATE hippo_meta SET value = CASE key WHEN 'embedding_model' THEN ? ELSE ? END
		WHERE key IN ('embedding_model', 'embedding_dimension')`, local.Model, fmt.Sprint(local.Dimension)); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}

	m := e.memory("alice", func(o *sqlite.MemoryOptions) { o.Embedder = glove })
	if got := recallFirst(t, m, target.Content); got != target.ID {
		t.Errorf("recall after the switch: first %s, want %s", got, target.ID)
	}
	if st, err := e.db.IndexStats(ctx, "alice"); err != nil || st.Dimension != local.Dimension || st.Rows != 20 {
		t.Errorf("index = %+v, %v", st, err)
	}
}
