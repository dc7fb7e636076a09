package main

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/coalesce"
)

// TestShareWhenBusy checks that a lone Embed call goes straight to the
// embedder, not waiting out the window, and that calls made while one is
// in progress share a request through the coalescer.
func TestShareWhenBusy(t *testing.T) {
	inner := &gatedEmbedder{entered: make(chan struct{}, 1), release: make(chan struct{})}
	// A window far longer than the test: a call that waited it would time
	// the test out. A batch of two texts is sent as soon as it is full.
	c, err := coalesce.New(inner, coalesce.Options{Window: time.Second, MaxBatch: 2})
	if err != nil {
		t.Fatal(err)
	}
	e := &shareWhenBusy{Wrapped: hippo.Wrapped{Embedder: inner}, shared: c}
	ctx := context.Background()

	close(inner.release)
	if _, err := e.Embed(ctx, []string{"alone"}); err != nil {
		t.Fatal(err)
	}
	if st := c.Stats(); st.Calls != 0 || inner.calls.Load() != 1 {
		t.Fatalf("a lone call: %d coalesced calls, %d embedder calls; want 0 and 1", st.Calls, inner.calls.Load())
	}
	<-inner.entered

	// The first call holds the embedder; two more arrive meanwhile.
	inner.release = make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		if _, err := e.Embed(ctx, []string{"first"}); err != nil {
			t.Error(err)
		}
	})
	<-inner.entered
	for _, text := range []string{"second", "third"} {
		wg.Go(func() {
			if _, err := e.Embed(ctx, []string{text}); err != nil {
				t.Error(err)
			}
		})
	}
	<-inner.entered // the request the other two share
	close(inner.release)
	wg.Wait()
	if st := c.Stats(); st.Calls != 2 || st.Requests != 1 {
		t.Fatalf("calls during another: %d coalesced calls in %d requests; want 2 in 1", st.Calls, st.Requests)
	}
	if n := inner.calls.Load(); n != 3 {
		t.Fatalf("%d embedder calls, want 3 (the lone one, the first, the shared one)", n)
	}
}

// gatedEmbedder returns fixed vectors once release is closed, saying on
// entered when a call has begun.
type gatedEmbedder struct {
	entered chan struct{}
	release chan struct{}
	calls   atomic.Int64
}

func (g *gatedEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	g.calls.Add(1)
	select {
	case g.entered <- struct{}{}:
	default:
	}
	<-g.release
	vecs := make([][]float32, len(texts))
	for i := range vecs {
		vecs[i] = []float32{1, 0, 0}
	}
	return vecs, nil
}

func (g *gatedEmbedder) Model() string  { return "gated" }
func (g *gatedEmbedder) Dimension() int { return 3 }
