package postgres_test

// The scale benchmark of both stores, by one command: the same synthetic
// chunks loaded into SQLite and PostgreSQL, then, on a fresh handle (a
// server starting), the first recall (the agent's cold index load) and
// recall p50/p95.

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/internal/pgtest"
	"github.com/hippo-mem/hippo/postgres"
	"github.com/hippo-mem/hippo/sqlite"
)

// scaleEmbedder answers each query text with a preset vector, so that
// timing covers the store and the engine, not an embedding model.
type scaleEmbedder struct {
	dim     int
	vectors map[string][]float32
}

func (e *scaleEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v, ok := e.vectors[t]
		if !ok {
			return nil, fmt.Errorf("no vector for %q", t)
		}
		out[i] = v
	}
	return out, nil
}

func (e *scaleEmbedder) Model() string  { return "bench-synthetic" }
func (e *scaleEmbedder) Dimension() int { return e.dim }

// scaleStore is what the benchmark needs of a store.
type scaleStore interface {
	hippo.Store
	InsertChunks(ctx context.Context, agentID, scope, model string, chunks []*hippo.Chunk) error
}

// scaleResult is one line of the report.
type scaleResult struct {
	store              string
	chunks, dim        int
	ingestPerSec       float64
	coldLoad, p50, p95 time.Duration
	found, queries     int
	stages             map[string]time.Duration // p50 of each recall stage
}

const scaleAgent = "bench-agent"

// runScaleStore loads n chunks of dim dimensions through open's first
// handle, then times recalls on a second.
func runScaleStore(ctx context.Context, name string, open func() (scaleStore, error), n, dim, queries int) (*scaleResult, error) {
	res := &scaleResult{store: name, chunks: n, dim: dim, queries: queries}
	rng := rand.New(rand.NewPCG(uint64(n), uint64(dim)))
	randomVec := func() []float32 {
		v := make([]float32, dim)
		for i := range v {
			v[i] = float32(rng.NormFloat64())
		}
		return v
	}
	targets := map[int]int{}
	for len(targets) < queries {
		if i := rng.IntN(n); targets[i] == 0 {
			targets[i] = len(targets) + 1
		}
	}
	emb := &scaleEmbedder{dim: dim, vectors: map[string][]float32{}}
	targetIDs := make([]string, queries)
	db, err := open()
	if err != nil {
		return nil, err
	}
	const batch = 10_000
	var ingest time.Duration
	for start := 0; start < n; start += batch {
		chunks := make([]*hippo.Chunk, 0, batch)
		for i := start; i < min(start+batch, n); i++ {
			v := randomVec()
			c := &hippo.Chunk{ID: fmt.Sprintf("C%09d", i), Content: fmt.Sprintf("synthetic memory %d", i), Embedding: v}
			if q := targets[i] - 1; q >= 0 {
				targetIDs[q] = c.ID
				noisy := make([]float32, dim)
				for j := range noisy {
					noisy[j] = v[j] + 0.45*float32(rng.NormFloat64())
				}
				emb.vectors[fmt.Sprintf("query %d", q)] = noisy
			}
			chunks = append(chunks, c)
		}
		t := time.Now()
		if err := db.InsertChunks(ctx, scaleAgent, "", emb.Model(), chunks); err != nil {
			db.Close()
			return nil, err
		}
		ingest += time.Since(t)
	}
	res.ingestPerSec = float64(n) / ingest.Seconds()
	if err := db.Close(); err != nil {
		return nil, err
	}

	// A fresh handle, as a server starting: the first recall loads.
	if db, err = open(); err != nil {
		return nil, err
	}
	defer db.Close()
	stages := map[string][]time.Duration{}
	m, err := db.Service(hippo.MemoryOptions{AgentID: scaleAgent, Embedder: emb,
		Stages: func(stage string, d time.Duration) { stages[stage] = append(stages[stage], d) }})
	if err != nil {
		return nil, err
	}
	times := make([]time.Duration, 0, queries)
	for q := range queries {
		t := time.Now()
		got, err := m.Recall(ctx, hippo.RecallInput{Query: fmt.Sprintf("query %d", q), Limit: 10})
		if err != nil {
			return nil, err
		}
		if q == 0 {
			res.coldLoad = time.Since(t)
		} else {
			times = append(times, time.Since(t))
		}
		if len(got) > 0 && got[0].Chunk.ID == targetIDs[q] {
			res.found++
		}
	}
	slices.Sort(times)
	res.p50, res.p95 = times[len(times)/2], times[len(times)*95/100]
	res.stages = map[string]time.Duration{}
	for stage, ds := range stages {
		slices.Sort(ds)
		res.stages[stage] = ds[len(ds)/2]
	}
	return res, nil
}

// runScale measures both stores at each size and dimension.
func runScale(tb testing.TB, sizes, dims []int, queries int) []*scaleResult {
	ctx := context.Background()
	var out []*scaleResult
	for _, n := range sizes {
		for _, d := range dims {
			path := filepath.Join(tb.TempDir(), "scale.db")
			dsn := pgtest.New(tb)
			for _, s := range []struct {
				name string
				open func() (scaleStore, error)
			}{
				{"sqlite", func() (scaleStore, error) {
					return sqlite.Open(ctx, path, sqlite.Options{Dimension: d})
				}},
				{"postgres", func() (scaleStore, error) {
					return postgres.Open(ctx, dsn, postgres.Options{})
				}},
			} {
				r, err := runScaleStore(ctx, s.name, s.open, n, d, queries)
				if err != nil {
					tb.Fatalf("%s %d × %d: %v", s.name, n, d, err)
				}
				out = append(out, r)
			}
			os.Remove(path)
		}
	}
	return out
}

func scaleReport(rs []*scaleResult) string {
	var b strings.Builder
	stages := []string{hippo.StageSync, hippo.StageText, hippo.StageScan, hippo.StageBoost}
	fmt.Fprintf(&b, "%-9s %-8s %-5s %10s %10s %9s %9s %7s   p50 of %s\n", "store", "chunks", "dim", "ingest/s", "cold load", "p50", "p95", "found",
		strings.Join(stages, ", "))
	for _, r := range rs {
		fmt.Fprintf(&b, "%-9s %-8d %-5d %10.0f %10s %9s %9s %3d/%-3d", r.store, r.chunks, r.dim, r.ingestPerSec,
			r.coldLoad.Round(time.Millisecond), r.p50.Round(10*time.Microsecond), r.p95.Round(10*time.Microsecond), r.found, r.queries)
		for _, s := range stages {
			fmt.Fprintf(&b, " %8s", r.stages[s].Round(10*time.Microsecond))
		}
		b.WriteString("\n")
	}
	return b.String()
}

func TestScaleSmall(t *testing.T) {
	rs := runScale(t, []int{2000}, []int{64}, 20)
	t.Log("\n" + scaleReport(rs))
	for _, r := range rs {
		if r.found < 19 || r.p50 <= 0 || r.ingestPerSec <= 0 {
			t.Errorf("%s: implausible result %+v", r.store, r)
		}
	}
}

// BenchmarkStoreScale prints the scale report of both stores:
//
//	go test -run '^$' -bench StoreScale -benchtime 1x -timeout 60m ./postgres/
//
// HIPPO_BENCH_SIZES and HIPPO_BENCH_DIMS (comma-separated, matched pairwise
// when of equal length, else every pair) change the grid; by default 10k×100
// and 50k×1536.
func BenchmarkStoreScale(b *testing.B) {
	sizes := envInts(b, "HIPPO_BENCH_SIZES", []int{10_000, 50_000})
	dims := envInts(b, "HIPPO_BENCH_DIMS", []int{100, 1536})
	for b.Loop() {
		var rs []*scaleResult
		if len(sizes) == len(dims) {
			for i := range sizes {
				rs = append(rs, runScale(b, sizes[i:i+1], dims[i:i+1], 200)...)
			}
		} else {
			rs = runScale(b, sizes, dims, 200)
		}
		b.Log("\n" + scaleReport(rs))
	}
}

func envInts(b *testing.B, key string, def []int) []int {
	v := os.Getenv(key)
	if v == "" {
		return def
	}
	var out []int
	for _, f := range strings.Split(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			b.Fatalf("%s: bad number %q", key, f)
		}
		out = append(out, n)
	}
	return out
}
