package storetest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/local"
	"github.com/hippo-mem/hippo/mock"
	"github.com/hippo-mem/hippo/vector"
)

// words make the chunks' content: real words, so that the offline GloVe
// embedder gives each chunk a vector of its own.
var words = strings.Fields(`apple river mountain coffee garden music teacher
	window doctor bicycle ocean summer winter kitchen library market station
	letter camera forest island bridge engine pencil guitar village planet
	basket candle desert harbor jacket ladder mirror needle orange pocket
	rabbit saddle tunnel violin wallet yellow anchor blanket castle dragon`)

// seedChunks plants n chunks with IDs C00000... in ID order, alternately
// of alice and bob, with vectors of the fake server's model.
func seedChunks(t *testing.T, e *env, n int) {
	t.Helper()
	for start := 0; start < n; start += 5000 {
		var chunks []*hippo.Chunk
		for i := start; i < min(start+5000, n); i++ {
			content := fmt.Sprintf("%s %s %s %s", words[i%len(words)], words[i/len(words)%len(words)],
				words[i/7%len(words)], words[i/131%len(words)])
			chunks = append(chunks, &hippo.Chunk{ID: fmt.Sprintf("C%05d", i), AgentID: []string{"alice", "bob"}[i%2],
				Content: content, Embedding: mock.HashVector(content, testDim)})
		}
		e.plant("", "", chunks...)
	}
}

// embeddingDims counts the store's chunks by the dimensions of their
// embeddings, read from an export.
func embeddingDims(t *testing.T, s Store) map[int]int {
	t.Helper()
	var buf bytes.Buffer
	if _, err := s.Export(context.Background(), &buf, hippo.ExportOptions{}); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Chunks []struct {
			Embedding []byte `json:"embedding_base64"`
		} `json:"chunks"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	out := map[int]int{}
	for _, c := range doc.Chunks {
		out[len(c.Embedding)/4]++
	}
	return out
}

// raceEnabled reports whether the test binary was built with -race, which
// slows the stores' Go code some fifteen times.
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

// testReembedInterruptedAndResumed re-embeds 10,000 chunks (2,000 under
// -race, to keep the run short), interrupted halfway and resumed.
func testReembedInterruptedAndResumed(t *testing.T, b Backend) {
	n := 10_000
	if raceEnabled() {
		n = 2_000
	}
	const batch = hippo.DefaultReembedBatch
	ctx := context.Background()
	e := newEnv(t, b)
	seedChunks(t, e, n)
	glove := local.NewEmbedder()
	r := &reembedRun{t: t, e: e, n: n, half: (n/2 + batch - 1) / batch * batch, glove: glove,
		aliceOld: e.memory("alice"), aliceNew: e.memory("alice", func(o *hippo.MemoryOptions) { o.Embedder = glove })}
	half := r.half
	r.known = fmt.Sprintf("C%05d", n/2+42) // alice's, in the second half
	knownContent, err := e.chunk("alice", r.known)
	if err != nil {
		t.Fatal(err)
	}
	r.knownContent = knownContent.Content

	// Interrupted once half the chunks are done.
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	start := time.Now()
	_, err = e.s.Reembed(cctx, glove, hippo.ReembedOptions{Progress: func(done, total int) {
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
	r.checkUnchanged()

	// Writes while it is stopped: a new memory, a re-embedded chunk whose
	// content changes, and one deleted.
	added := store(t, r.aliceOld, "the dentist appointment moved to friday")
	if _, err := editor(t, r.aliceOld).UpdateChunk(ctx, "C00010", "the quarterly tax report is due in april"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.s.DeleteChunks(ctx, "", []string{"C00020"}); err != nil {
		t.Fatal(err)
	}

	// Resumed: it starts where it stopped and finishes.
	var first = -1
	start = time.Now()
	res, err := e.s.Reembed(ctx, glove, hippo.ReembedOptions{Progress: func(done, total int) {
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
		*res.From != (hippo.ModelLock{Model: "mock-embed", Dimension: testDim}) {
		t.Errorf("resumed: first progress %d, result %+v", first, res)
	}
	t.Logf("re-embedded %d chunks with %s: %d in %v (interrupted), %d in %v (resumed); %.0f chunks/s",
		n, local.Model, half, firstHalf.Round(time.Millisecond), res.Embedded, secondHalf.Round(time.Millisecond),
		float64(half+res.Embedded)/(firstHalf+secondHalf).Seconds())
	r.checkSwitched(res, added.ID)
}

// reembedRun is testReembedInterruptedAndResumed's store and what it
// knows of it.
type reembedRun struct {
	t                  *testing.T
	e                  *env
	n, half            int // chunks, and chunks done when interrupted
	glove              hippo.Embedder
	aliceOld, aliceNew hippo.AgentMemory // on the old model and the new
	known              string            // a chunk of alice's in the second half
	knownContent       string
}

// checkUnchanged checks, after the interruption, that nothing visible
// changed: the old model answers, the new is refused, and a dry run
// plans to reuse the half done.
func (r *reembedRun) checkUnchanged() {
	t, e, n, half := r.t, r.e, r.n, r.half
	ctx := context.Background()
	if lock, err := e.s.EmbeddingModel(ctx); err != nil || *lock != (hippo.ModelLock{Model: "mock-embed", Dimension: testDim}) {
		t.Fatalf("lock after interruption = %v, %v", lock, err)
	}
	if got := recallFirst(t, r.aliceOld, r.knownContent); got != r.known {
		t.Errorf("old-model recall after interruption: first %s, want %s", got, r.known)
	}
	_, err := r.aliceNew.Recall(ctx, hippo.RecallInput{Query: "apple"})
	mustCode(t, err, hippo.ECONFLICT)
	if got := embeddingDims(t, e.s); len(got) != 1 || got[testDim] != n {
		t.Errorf("dimensions of the chunks' embeddings %v before the switch, want %d of %d", got, n, testDim)
	}
	plan, err := e.s.Reembed(ctx, r.glove, hippo.ReembedOptions{DryRun: true})
	if err != nil || !plan.DryRun || plan.Chunks != n || plan.Reused != half || plan.Embedded != n-half ||
		plan.To != (hippo.ModelLock{Model: local.Model, Dimension: local.Dimension}) {
		t.Fatalf("plan = %+v, %v", plan, err)
	}
}

// checkSwitched checks, after the resumed run res, that every chunk is on
// the new model (C00010, updated meanwhile, on its new content), the
// lock switched, recall works with the new model (the memory added
// meanwhile among the results) and refuses the old, and that another run
// has nothing to do.
func (r *reembedRun) checkSwitched(res *hippo.ReembedResult, added string) {
	t, e, n := r.t, r.e, r.n
	ctx := context.Background()
	if lock, err := e.s.EmbeddingModel(ctx); err != nil || *lock != res.To {
		t.Errorf("lock = %v, %v; want %v", lock, err, res.To)
	}
	if got := embeddingDims(t, e.s); len(got) != 1 || got[local.Dimension] != n {
		t.Errorf("dimensions of the chunks' embeddings %v, want %d of %d", got, n, local.Dimension)
	}
	c, err := e.chunk("alice", "C00010")
	if err != nil {
		t.Fatal(err)
	}
	want, _ := r.glove.Embed(ctx, []string{c.Content})
	if cos := vector.Cosine(c.Embedding, want[0]); cos < 0.9999 {
		t.Errorf("the chunk updated meanwhile has a stale embedding: cosine %v with its content's", cos)
	}

	for query, id := range map[string]string{r.knownContent: r.known, "the dentist appointment moved to friday": added,
		"the quarterly tax report is due in april": "C00010"} {
		if got := recallFirst(t, r.aliceNew, query); got != id {
			t.Errorf("new-model recall %q: first %s, want %s", query, got, id)
		}
	}
	_, err = r.aliceOld.Recall(ctx, hippo.RecallInput{Query: "apple"})
	mustCode(t, err, hippo.ECONFLICT)

	// Again with the same model: nothing to do.
	res, err = e.s.Reembed(ctx, r.glove, hippo.ReembedOptions{})
	if err != nil || !res.Unchanged || res.Embedded != 0 {
		t.Errorf("reembed to the current model = %+v, %v", res, err)
	}
}

func testReembedNewTargetStartsOver(t *testing.T, bk Backend) {
	ctx := context.Background()
	e := newEnv(t, bk)
	seedChunks(t, e, 50)
	a, _ := newMockEmbedder(t, "model-a", 16)
	b, _ := newMockEmbedder(t, "model-b", 32)

	// The current model: nothing to do, no state created.
	res, err := e.s.Reembed(ctx, e.emb, hippo.ReembedOptions{})
	if err != nil || !res.Unchanged || res.From == nil || res.From.Model != "mock-embed" {
		t.Fatalf("reembed to the current model = %+v, %v", res, err)
	}

	cctx, cancel := context.WithCancel(ctx)
	_, err = e.s.Reembed(cctx, a, hippo.ReembedOptions{BatchSize: 10, Progress: func(done, _ int) {
		if done >= 20 {
			cancel()
		}
	}})
	cancel()
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted: %v", err)
	}
	if plan, err := e.s.Reembed(ctx, a, hippo.ReembedOptions{DryRun: true}); err != nil || plan.Reused != 20 {
		t.Errorf("plan to the interrupted target = %+v, %v", plan, err)
	}
	if plan, err := e.s.Reembed(ctx, b, hippo.ReembedOptions{DryRun: true}); err != nil || plan.Reused != 0 || plan.Embedded != 50 {
		t.Errorf("plan to another target = %+v, %v", plan, err)
	}

	// Another target starts over.
	first := -1
	res, err = e.s.Reembed(ctx, b, hippo.ReembedOptions{BatchSize: 7, Progress: func(done, _ int) {
		if first < 0 {
			first = done
		}
	}})
	if err != nil || first != 0 || res.Reused != 0 || res.Embedded != 50 || res.Chunks != 50 ||
		res.To != (hippo.ModelLock{Model: "model-b", Dimension: 32}) {
		t.Fatalf("reembed to another target: first progress %d, %+v, %v", first, res, err)
	}
	if lock, _ := e.s.EmbeddingModel(ctx); *lock != res.To {
		t.Errorf("lock = %v", lock)
	}
	if got := embeddingDims(t, e.s); len(got) != 1 || got[32] != 50 {
		t.Errorf("dimensions of the chunks' embeddings %v, want 50 of 32 (model-b)", got)
	}
	if plan, err := e.s.Reembed(ctx, b, hippo.ReembedOptions{DryRun: true}); err != nil || !plan.Unchanged {
		t.Errorf("plan to the current model = %+v, %v", plan, err)
	}

	// A bad batch size is refused; an empty database has nothing to do.
	_, err = e.s.Reembed(ctx, a, hippo.ReembedOptions{BatchSize: -1})
	mustCode(t, err, hippo.EINVALID)
	if res, err := e.fresh().Reembed(ctx, a, hippo.ReembedOptions{}); err != nil || !res.Unchanged || res.From != nil {
		t.Errorf("reembed of an empty database = %+v, %v", res, err)
	}
}

// hashEmbedder embeds text as a few hashed dimensions: another model
// than the offline embedder, to re-embed into.
type hashEmbedder struct{}

func (hashEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, 16)
		for j, r := range t {
			v[(int(r)+j)%16] += 1
		}
		out[i] = v
	}
	return out, nil
}
func (hashEmbedder) Model() string  { return "hash-16" }
func (hashEmbedder) Dimension() int { return 16 }

// testReembedAcrossHandles re-embeds through one handle while another
// holds the agent's index: the other reloads, recalls with the new model
// and refuses the old one.
func testReembedAcrossHandles(t *testing.T, b Backend) {
	ctx := context.Background()
	name := b.New(t)
	a, other := b.Open(t, name), b.Open(t, name)
	ma := memory(t, a, "alice", "", nil)
	for _, c := range []string{"The cat sleeps on the sofa", "Invoices go out on Mondays"} {
		if _, err := ma.StoreMemory(ctx, hippo.StoreInput{Content: c}); err != nil {
			t.Fatal(err)
		}
	}
	mb := memory(t, other, "alice", "", nil)
	if res, err := mb.Recall(ctx, hippo.RecallInput{Query: "cat", MinRelevance: noFloor()}); err != nil || len(res) != 2 {
		t.Fatalf("before: %v %v", res, err)
	}
	res, err := a.Reembed(ctx, hashEmbedder{}, hippo.ReembedOptions{})
	if err != nil || res.Chunks != 2 {
		t.Fatalf("reembed: %+v %v", res, err)
	}
	if _, err := mb.Recall(ctx, hippo.RecallInput{Query: "cat", MinRelevance: noFloor()}); hippo.ErrorCode(err) != hippo.ECONFLICT {
		t.Errorf("recall with the old model after the switch: %v, want ECONFLICT", err)
	}
	nb, err := other.Service(hippo.MemoryOptions{AgentID: "alice", Embedder: hashEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := nb.Recall(ctx, hippo.RecallInput{Query: "The cat sleeps on the sofa", MinRelevance: noFloor()})
	if err != nil || len(got) != 2 || got[0].Chunk.Content != "The cat sleeps on the sofa" || len(got[0].Chunk.Embedding) != 0 && len(got[0].Chunk.Embedding) != 16 {
		t.Errorf("recall with the new model through the other handle: %v %v", got, err)
	}
}
