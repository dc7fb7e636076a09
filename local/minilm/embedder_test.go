package minilm

import (
	"context"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/hippo-mem/hippo/internal/calibrate"
	"github.com/hippo-mem/hippo/local/minilm/internal/wordpiece"
)

// TestEmbedder checks the zero value's API: unit vectors in input order,
// repeated texts, batch against single embedding, the cache returning
// copies, and concurrent use.
func TestEmbedder(t *testing.T) {
	var e Embedder
	if e.Model() != Model || e.Dimension() != Dimension {
		t.Fatalf("Model() = %q, Dimension() = %d", e.Model(), e.Dimension())
	}
	ctx := context.Background()
	texts := []string{"The cat sat on the mat.", "Prefers dark mode.", "The cat sat on the mat.", "Lives in Berlin."}
	vecs, err := e.Embed(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(vecs) != len(texts) {
		t.Fatalf("%d vectors for %d texts", len(vecs), len(texts))
	}
	for i, v := range vecs {
		var n float64
		for _, x := range v {
			n += float64(x) * float64(x)
		}
		if len(v) != Dimension || math.Abs(n-1) > 1e-5 {
			t.Errorf("vector %d: length %d, norm² %g", i, len(v), n)
		}
	}
	if c := calibrate.Cosine(vecs[0], vecs[2]); c != 1 {
		t.Errorf("the same text twice: cosine %g", c)
	}
	if c := calibrate.Cosine(vecs[0], vecs[1]); c > 0.5 {
		t.Errorf("unrelated texts: cosine %g", c)
	}
	first := vecs[0][0]
	vecs[0][0] = 42 // must not reach the cache

	// One text alone (from the model, not the cache) matches its batch.
	m := testModel(t)
	alone, err := m.embed(ctx, texts[1:2], []int{0})
	if err != nil {
		t.Fatal(err)
	}
	if c := calibrate.Cosine(alone[0], vecs[1]); c < 0.99999 {
		t.Errorf("%q alone and in a batch: cosine %g", texts[1], c)
	}

	var wg sync.WaitGroup
	results := make([][][]float32, 4)
	for g := range results {
		wg.Go(func() {
			v, err := NewEmbedder().Embed(ctx, []string{texts[g%2], "Works at Google."})
			if err != nil {
				t.Error(err)
			}
			results[g] = v
		})
	}
	wg.Wait()
	for g, r := range results {
		if len(r) != 2 || g%2 == 0 && r[0][0] != first || g%2 == 1 && calibrate.Cosine(r[0], vecs[1]) != 1 {
			t.Errorf("goroutine %d: vectors differ from the first call's", g)
		}
		if calibrate.Cosine(r[1], results[0][1]) != 1 {
			t.Errorf("goroutine %d: cached vector differs", g)
		}
	}
	if _, err := e.Embed(ctx, nil); err != nil {
		t.Errorf("Embed(nil): %v", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := e.Embed(cancelled, []string{"never embedded before, so not cached"}); err == nil {
		t.Errorf("Embed with a cancelled context: no error")
	}
}

// TestLongText checks the window rule on the model: a text of exactly
// wordpiece.MaxPieces pieces is one window, and a longer one is not its
// first window.
func TestLongText(t *testing.T) {
	m := testModel(t)
	ctx := context.Background()
	exact := strings.TrimSpace(strings.Repeat("memory ", wordpiece.MaxPieces))
	pieces := m.tok.AppendPieces(nil, exact)
	if len(pieces) != wordpiece.MaxPieces {
		t.Fatalf("%d pieces, want %d", len(pieces), wordpiece.MaxPieces)
	}
	long := exact + " and then something else entirely: the cat sat on the mat."
	vecs, err := m.embed(ctx, []string{exact, long}, []int{0, 1})
	if err != nil {
		t.Fatal(err)
	}
	// The first window of long is exact.
	if c := calibrate.Cosine(vecs[0], vecs[1]); c > 0.9999 || c < 0.5 {
		t.Errorf("a long text and its first window: cosine %g, want clearly below 1", c)
	}
	first := make([]float32, hidden)
	seq := append(append([]int32{m.tok.CLS()}, pieces...), m.tok.SEP())
	if err := m.forward(ctx, new(workspace), [][]int32{seq}, [][]float32{first}); err != nil {
		t.Fatal(err)
	}
	if c := calibrate.Cosine(first, vecs[0]); c < 0.99999 {
		t.Errorf("a text of %d pieces and its one window: cosine %g", wordpiece.MaxPieces, c)
	}
}

func TestCache(t *testing.T) {
	c := newCache(2)
	a, b, d := cacheKey("a"), cacheKey("b"), cacheKey("d")
	v := []float32{1, 2}
	c.put(a, v)
	v[0] = 9
	c.put(b, []float32{3})
	if got, ok := c.get(a); !ok || got[0] != 1 {
		t.Fatalf("get(a) = %v, %v", got, ok)
	}
	got, _ := c.get(a)
	got[0] = 7
	c.put(d, []float32{4}) // evicts b, the least recently used
	if _, ok := c.get(b); ok {
		t.Errorf("b not evicted")
	}
	if got, ok := c.get(a); !ok || got[0] != 1 || c.len() != 2 {
		t.Errorf("get(a) = %v, %v; len %d", got, ok, c.len())
	}
}
