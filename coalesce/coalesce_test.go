package coalesce_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/coalesce"
	"github.com/hippo-mem/hippo/local"
	"github.com/hippo-mem/hippo/mock"
	"github.com/hippo-mem/hippo/openai"
	"github.com/hippo-mem/hippo/sqlite"
)

const dim = 16

// newAPI is a fake OpenAI-compatible endpoint and the real client on it.
func newAPI(t *testing.T) (*mock.Server, *openai.Embedder) {
	t.Helper()
	srv := mock.NewServer(t, dim)
	e, err := openai.NewEmbedder(openai.Config{BaseURL: srv.BaseURL(), APIKey: "sk-test", Model: "mock-embed"})
	if err != nil {
		t.Fatal(err)
	}
	return srv, e
}

// together runs f(i) for i < n at the same moment and waits for all.
func together(n int, f func(i int)) {
	var start, done sync.WaitGroup
	start.Add(1)
	for i := range n {
		done.Add(1)
		go func() {
			defer done.Done()
			start.Wait()
			f(i)
		}()
	}
	start.Done()
	done.Wait()
}

// TestConcurrentCallsShareOneRequest: calls within the window go out as one
// request, and each gets its own vectors back, in order.
func TestConcurrentCallsShareOneRequest(t *testing.T) {
	srv, api := newAPI(t)
	c, err := coalesce.New(api, coalesce.Options{Window: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	const n = 8
	got := make([][][]float32, n)
	errs := make([]error, n)
	together(n, func(i int) {
		texts := []string{fmt.Sprintf("memory %d", i)}
		if i%2 == 0 {
			texts = append(texts, fmt.Sprintf("memory %d, second text", i))
		}
		got[i], errs[i] = c.Embed(context.Background(), texts)
	})
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("call %d: %v", i, errs[i])
		}
		want := []string{fmt.Sprintf("memory %d", i)}
		if i%2 == 0 {
			want = append(want, fmt.Sprintf("memory %d, second text", i))
		}
		if len(got[i]) != len(want) {
			t.Fatalf("call %d: %d vectors for %d texts", i, len(got[i]), len(want))
		}
		for j, text := range want {
			if !slices.Equal(got[i][j], srv.Vector(text)) {
				t.Errorf("call %d text %d: not the vector of %q", i, j, text)
			}
		}
	}
	if b := srv.EmbedBatches(); len(b) != 1 || b[0] != 12 {
		t.Errorf("requests carried %v texts, want one request of 12", b)
	}
	if s := c.Stats(); s.Calls != n || s.Requests != 1 || s.Texts != 12 || s.Retries != 0 {
		t.Errorf("stats %+v, want 8 calls, 1 request, 12 texts, no retry", s)
	}
}

// TestMaxBatch: no request carries more than MaxBatch texts, and a call
// larger than that goes out on its own, whole.
func TestMaxBatch(t *testing.T) {
	srv, api := newAPI(t)
	c, err := coalesce.New(api, coalesce.Options{Window: 100 * time.Millisecond, MaxBatch: 4})
	if err != nil {
		t.Fatal(err)
	}
	const n = 10
	errs := make([]error, n)
	vecs := make([][][]float32, n)
	together(n, func(i int) { vecs[i], errs[i] = c.Embed(context.Background(), []string{fmt.Sprint("text ", i)}) })
	for i := range n {
		if errs[i] != nil || len(vecs[i]) != 1 || !slices.Equal(vecs[i][0], srv.Vector(fmt.Sprint("text ", i))) {
			t.Fatalf("call %d: %v, %d vectors", i, errs[i], len(vecs[i]))
		}
	}
	total := 0
	for _, b := range srv.EmbedBatches() {
		if b > 4 {
			t.Errorf("a request carried %d texts, over MaxBatch 4", b)
		}
		total += b
	}
	if total != n || len(srv.EmbedBatches()) < 3 {
		t.Errorf("requests %v: want the 10 texts in at least 3 requests", srv.EmbedBatches())
	}
	big := []string{"a", "b", "c", "d", "e", "f"}
	if v, err := c.Embed(context.Background(), big); err != nil || len(v) != len(big) {
		t.Fatalf("a call of 6 texts: %v, %d vectors", err, len(v))
	}
	if b := srv.EmbedBatches(); b[len(b)-1] != 6 {
		t.Errorf("a call over MaxBatch went out as %d texts, want 6 in one request", b[len(b)-1])
	}
}

// TestErrorReachesOnlyItsCall: the provider refuses one text; the shared
// request fails, each call is sent again on its own, and only the call
// holding that text fails.
func TestErrorReachesOnlyItsCall(t *testing.T) {
	srv, api := newAPI(t)
	srv.EmbedRefuse = func(text string) bool { return strings.Contains(text, "refused") }
	c, err := coalesce.New(api, coalesce.Options{Window: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	const n, bad = 6, 3
	errs := make([]error, n)
	vecs := make([][][]float32, n)
	together(n, func(i int) {
		text := fmt.Sprint("fine ", i)
		if i == bad {
			text = "refused text"
		}
		vecs[i], errs[i] = c.Embed(context.Background(), []string{text})
	})
	for i := range n {
		switch {
		case i == bad && errs[i] == nil:
			t.Errorf("call %d with the refused text succeeded", i)
		case i != bad && (errs[i] != nil || len(vecs[i]) != 1 || !slices.Equal(vecs[i][0], srv.Vector(fmt.Sprint("fine ", i)))):
			t.Errorf("call %d: %v, %d vectors; want its own vector", i, errs[i], len(vecs[i]))
		}
	}
	if s := c.Stats(); s.Retries != n || s.Requests != n+1 || s.Calls != n {
		t.Errorf("stats %+v, want 1 shared request and %d retries", s, n)
	}
}

// TestCallerContext: a caller whose context ends stops waiting with its
// error; the others of its batch get their vectors.
func TestCallerContext(t *testing.T) {
	srv, api := newAPI(t)
	srv.EmbedDelay = 100 * time.Millisecond
	c, err := coalesce.New(api, coalesce.Options{Window: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var cancelled, other error
	var otherVecs [][]float32
	wg.Add(2)
	go func() {
		defer wg.Done()
		_, cancelled = c.Embed(ctx, []string{"given up"})
	}()
	go func() {
		defer wg.Done()
		otherVecs, other = c.Embed(context.Background(), []string{"waited for"})
	}()
	time.Sleep(20 * time.Millisecond)
	cancel()
	wg.Wait()
	if cancelled != context.Canceled {
		t.Errorf("cancelled caller: %v, want context.Canceled", cancelled)
	}
	if other != nil || len(otherVecs) != 1 || !slices.Equal(otherVecs[0], srv.Vector("waited for")) {
		t.Errorf("the other caller: %v, %d vectors", other, len(otherVecs))
	}
	if _, err := c.Embed(ctx, []string{"late"}); err != context.Canceled {
		t.Errorf("a call with an ended context: %v, want context.Canceled", err)
	}
}

// TestTransparent: the wrapper keeps the wrapped embedder's model,
// dimension, thresholds, α and relevance levels, so that a database's
// configuration is the same with it.
func TestTransparent(t *testing.T) {
	for _, e := range []hippo.Embedder{local.NewEmbedder(), func() hippo.Embedder { _, api := newAPI(t); return api }()} {
		c, err := coalesce.New(e, coalesce.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if c.Model() != e.Model() || c.Dimension() != e.Dimension() || c.Unwrap() != e {
			t.Errorf("%s: model %q dimension %d", e.Model(), c.Model(), c.Dimension())
		}
		base := hippo.DefaultConfig()
		if got, want := base.ForEmbedder(c), base.ForEmbedder(e); got != want {
			t.Errorf("%s: configuration through the wrapper %+v, want %+v", e.Model(), got, want)
		}
	}
}

func TestOptions(t *testing.T) {
	_, api := newAPI(t)
	for _, tt := range []struct {
		opts coalesce.Options
		want string
	}{
		{coalesce.Options{Window: -time.Millisecond}, "window"},
		{coalesce.Options{Window: 2 * time.Second}, "window"},
		{coalesce.Options{MaxBatch: -1}, "max batch"},
	} {
		if _, err := coalesce.New(api, tt.opts); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("New(%+v) = %v, want an error naming %s", tt.opts, err, tt.want)
		}
	}
	if _, err := coalesce.New(nil, coalesce.Options{}); err == nil {
		t.Error("New(nil) succeeded")
	}
}

// TestConcurrentStores: eight concurrent StoreMemory calls through a
// coalescing embedder make fewer requests than calls, and every memory is
// stored with its own vector (recalled first by its own text).
func TestConcurrentStores(t *testing.T) {
	ctx := context.Background()
	srv, api := newAPI(t)
	srv.EmbedDelay = 5 * time.Millisecond
	c, err := coalesce.New(api, coalesce.Options{Window: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "hippo.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	m, err := db.Memory(sqlite.MemoryOptions{AgentID: "agent", Embedder: c})
	if err != nil {
		t.Fatal(err)
	}
	const n = 8
	errs := make([]error, n)
	together(n, func(i int) {
		_, errs[i] = m.StoreMemory(ctx, hippo.StoreInput{Content: fmt.Sprintf("note number %d about the deploy", i)})
	})
	for i, err := range errs {
		if err != nil {
			t.Fatalf("store %d: %v", i, err)
		}
	}
	if reqs := len(srv.EmbedBatches()); reqs >= n {
		t.Errorf("%d stores made %d embedding requests (%v), want fewer", n, reqs, srv.EmbedBatches())
	}
	zero := 0.0
	for i := range n {
		text := fmt.Sprintf("note number %d about the deploy", i)
		res, err := m.Recall(ctx, hippo.RecallInput{Query: text, Alpha: &zero, Limit: 1, MinRelevance: &zero})
		if err != nil || len(res) != 1 || res[0].Chunk.Content != text {
			t.Errorf("recall %q: %v %v", text, err, res)
		}
	}
}

// BenchmarkConcurrentStores stores memories from 8 goroutines through an
// OpenAI-compatible fake whose every request takes 2 ms, with each call
// making its own request and with calls coalesced:
//
//	go test -run '^$' -bench ConcurrentStores -benchtime 2000x ./coalesce/
func BenchmarkConcurrentStores(b *testing.B) {
	for _, window := range []time.Duration{0, coalesce.DefaultWindow} {
		b.Run(fmt.Sprintf("window=%v", window), func(b *testing.B) {
			ctx := context.Background()
			srv := mock.NewServer(b, 1536)
			srv.EmbedDelay = 2 * time.Millisecond
			api, err := openai.NewEmbedder(openai.Config{BaseURL: srv.BaseURL(), APIKey: "sk-test", Model: "mock-embed"})
			if err != nil {
				b.Fatal(err)
			}
			var e hippo.Embedder = api
			if window > 0 {
				if e, err = coalesce.New(api, coalesce.Options{Window: window}); err != nil {
					b.Fatal(err)
				}
			}
			db, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "hippo.db"), sqlite.Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			m, err := db.Memory(sqlite.MemoryOptions{AgentID: "agent", Embedder: e})
			if err != nil {
				b.Fatal(err)
			}
			var next atomic.Int64
			b.ResetTimer()
			var wg sync.WaitGroup
			for range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for {
						i := next.Add(1)
						if i > int64(b.N) {
							return
						}
						if _, err := m.StoreMemory(ctx, hippo.StoreInput{Content: fmt.Sprint("memory ", i)}); err != nil {
							b.Error(err)
							return
						}
					}
				}()
			}
			wg.Wait()
			b.StopTimer()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "memories/s")
			b.ReportMetric(float64(b.N)/float64(len(srv.EmbedBatches())), "texts/request")
		})
	}
}

// ctxEmbedder blocks until its context ends (or a minute passes) and
// reports whether it ended.
type ctxEmbedder struct {
	hippo.Embedder
	ended chan struct{}
	once  sync.Once
}

func (e *ctxEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	select {
	case <-ctx.Done():
		e.once.Do(func() { close(e.ended) })
		return nil, ctx.Err()
	case <-time.After(time.Minute):
		return nil, fmt.Errorf("not cancelled")
	}
}

// TestAbandonedBatchStops: a shared request goes on while any of its
// callers waits for it, and stops once every one of them has left, so that
// work nobody waits for does not run on (a recall of 50,000 characters is
// seconds of CPU on the offline model).
func TestAbandonedBatchStops(t *testing.T) {
	for _, tt := range []struct {
		name    string
		callers int
		opts    coalesce.Options
	}{
		{"one caller, window", 1, coalesce.Options{Window: 5 * time.Millisecond}},
		{"three callers, window", 3, coalesce.Options{Window: 20 * time.Millisecond}},
		{"batch sent full", 3, coalesce.Options{Window: time.Second, MaxBatch: 3}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, api := newAPI(t)
			inner := &ctxEmbedder{Embedder: api, ended: make(chan struct{})}
			c, err := coalesce.New(inner, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			ctxs := make([]context.CancelFunc, tt.callers)
			var wg sync.WaitGroup
			for i := range tt.callers {
				ctx, cancel := context.WithCancel(context.Background())
				ctxs[i] = cancel
				wg.Go(func() { c.Embed(ctx, []string{fmt.Sprint("text ", i)}) })
			}
			time.Sleep(100 * time.Millisecond) // the request is out
			for i, cancel := range ctxs {
				cancel()
				if i < len(ctxs)-1 {
					select {
					case <-inner.ended:
						t.Fatalf("the request stopped when %d of %d callers had left", i+1, tt.callers)
					case <-time.After(50 * time.Millisecond):
					}
				}
			}
			select {
			case <-inner.ended:
			case <-time.After(5 * time.Second):
				t.Fatal("the request went on after every caller left")
			}
			wg.Wait()
		})
	}
}

// TestAbandonedOpenBatch: a batch whose only caller leaves before it is
// sent is dropped, and a call after it gets its vectors.
func TestAbandonedOpenBatch(t *testing.T) {
	srv, api := newAPI(t)
	c, err := coalesce.New(api, coalesce.Options{Window: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { _, err := c.Embed(ctx, []string{"left"}); done <- err }()
	time.Sleep(20 * time.Millisecond)
	cancel()
	if err := <-done; err != context.Canceled {
		t.Fatalf("the caller that left: %v", err)
	}
	vecs, err := c.Embed(context.Background(), []string{"stayed"})
	if err != nil || len(vecs) != 1 || !slices.Equal(vecs[0], srv.Vector("stayed")) {
		t.Fatalf("a call after the dropped batch: %v, %v", vecs, err)
	}
	if st := c.Stats(); st.Requests != 1 || st.Texts != 1 {
		t.Errorf("stats %+v: the dropped batch was sent", st)
	}
}
