package sqlite_test

// The scale benchmark: recall at scale on synthetic stores, against the
// bare memory read of the same vectors, with ingest rate, index memory and
// bytes per chunk on disk.
//
// The index keeps int8 codes, not the float32 vectors, so the bare read is
// of a float32 copy of the vectors' size that the benchmark holds for the
// purpose, timed between recalls in the same run; the read of the index's
// own codes, the first pass's floor, is reported beside it.

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/sqlite"
)

// scaleConfig says which stores to build and how to query them.
type scaleConfig struct {
	Sizes      []int // chunk counts
	Dimensions []int
	Queries    int    // recalls timed per store
	Dir        string // where the databases go; "" means a temporary directory
	Keep       bool   // keep the databases
}

// scaleResult is one line of the report.
type scaleResult struct {
	Chunks        int           `json:"chunks"`
	Dimension     int           `json:"dimension"`
	IngestPerSec  float64       `json:"ingest_per_sec"`
	Load          time.Duration `json:"load_ns"`
	P50           time.Duration `json:"recall_p50_ns"`
	P95           time.Duration `json:"recall_p95_ns"`
	BareRead      time.Duration `json:"bare_read_ns"`  // the float32 vectors' bytes
	CodesRead     time.Duration `json:"codes_read_ns"` // the index's int8 codes
	Ratio         float64       `json:"p50_over_bare_read"`
	Found         int           `json:"targets_found"`
	IndexBytes    int           `json:"index_bytes"`
	RawBytes      int           `json:"raw_vector_bytes"`
	HeapBytes     uint64        `json:"heap_bytes"`
	BytesPerChunk float64       `json:"disk_bytes_per_chunk"`
}

// runScale builds each store, measures it and writes one line per store to w.
func runScale(ctx context.Context, cfg scaleConfig, w io.Writer) ([]scaleResult, error) {
	dir := cfg.Dir
	if dir == "" {
		d, err := os.MkdirTemp("", "hippo-bench-")
		if err != nil {
			return nil, err
		}
		dir = d
		if !cfg.Keep {
			defer os.RemoveAll(d)
		}
	}
	if cfg.Queries <= 0 {
		cfg.Queries = 50
	}
	fmt.Fprintf(w, "# %s/%s, %d CPUs\n", runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
	fmt.Fprintf(w, "%-9s %-5s %12s %9s %9s %9s %9s %9s %6s %7s %8s %8s %10s\n",
		"chunks", "dim", "ingest/s", "load", "p50", "p95", "bare", "codes", "ratio", "found", "idx/raw", "heap/raw", "disk/chunk")
	var out []scaleResult
	for _, n := range cfg.Sizes {
		for _, d := range cfg.Dimensions {
			path := filepath.Join(dir, fmt.Sprintf("bench-%d-%d.db", n, d))
			r, err := runScaleStore(ctx, path, n, d, cfg.Queries)
			if !cfg.Keep {
				for _, suffix := range []string{"", "-wal", "-shm"} {
					os.Remove(path + suffix)
				}
			}
			if err != nil {
				return out, fmt.Errorf("%d × %d: %w", n, d, err)
			}
			fmt.Fprintf(w, "%-9d %-5d %12.0f %9s %9s %9s %9s %9s %6.2f %3d/%-3d %8.2f %8.2f %10.0f\n",
				r.Chunks, r.Dimension, r.IngestPerSec, roundDuration(r.Load), roundDuration(r.P50), roundDuration(r.P95), roundDuration(r.BareRead), roundDuration(r.CodesRead),
				r.Ratio, r.Found, cfg.Queries, float64(r.IndexBytes)/float64(r.RawBytes),
				float64(r.HeapBytes)/float64(r.RawBytes), r.BytesPerChunk)
			out = append(out, *r)
		}
	}
	return out, nil
}

func roundDuration(d time.Duration) time.Duration {
	switch {
	case d > time.Second:
		return d.Round(time.Millisecond)
	case d > time.Millisecond:
		return d.Round(10 * time.Microsecond)
	}
	return d.Round(time.Microsecond)
}

// scaleEmbedder answers each query text with a preset vector, so timing
// covers Hippo, not an embedding model.
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

const scaleAgent = "bench-agent"

func runScaleStore(ctx context.Context, path string, n, dim, queries int) (*scaleResult, error) {
	res := &scaleResult{Chunks: n, Dimension: dim, RawBytes: n * dim * 4}
	rng := rand.New(rand.NewPCG(uint64(n), uint64(dim)))
	randomVec := func() []float32 {
		v := make([]float32, dim)
		for i := range v {
			v[i] = float32(rng.NormFloat64())
		}
		return v
	}
	// Targets are spread through the store; each query is its target plus
	// noise, at a cosine near 0.9 like a paraphrase.
	queries = min(queries, n)
	targets := map[int]int{}
	for len(targets) < queries {
		if i := rng.IntN(n); targets[i] == 0 {
			targets[i] = len(targets) + 1 // 1-based: 0 means unused
		}
	}
	emb := &scaleEmbedder{dim: dim, vectors: map[string][]float32{}}
	targetIDs := make([]string, queries)

	db, err := sqlite.Open(ctx, path, sqlite.Options{Dimension: dim})
	if err != nil {
		return nil, err
	}
	const batch = 10_000
	var ingest time.Duration
	for start := 0; start < n; start += batch {
		chunks := make([]*hippo.Chunk, 0, batch)
		for i := start; i < min(start+batch, n); i++ {
			v := randomVec()
			c := &hippo.Chunk{Content: fmt.Sprintf("synthetic memory %d", i), Embedding: v}
			if q := targets[i] - 1; q >= 0 {
				c.ID = sqlite.NewID(time.Now())
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
	res.IngestPerSec = float64(n) / ingest.Seconds()
	if err := db.Close(); err != nil { // checkpoints the WAL into the file
		return nil, err
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	res.BytesPerChunk = float64(st.Size()) / float64(n)

	// A fresh handle, as a server starting up: the first recall loads.
	db, err = sqlite.Open(ctx, path, sqlite.Options{Dimension: dim})
	if err != nil {
		return nil, err
	}
	defer db.Close()
	m, err := db.Memory(sqlite.MemoryOptions{AgentID: scaleAgent, Embedder: emb})
	if err != nil {
		return nil, err
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	t := time.Now()
	if _, err := db.IndexStats(ctx, scaleAgent); err != nil {
		return nil, err
	}
	res.Load = time.Since(t)
	runtime.GC()
	runtime.ReadMemStats(&after)
	res.HeapBytes = after.HeapAlloc - min(before.HeapAlloc, after.HeapAlloc)
	ist, err := db.IndexStats(ctx, scaleAgent)
	if err != nil {
		return nil, err
	}
	res.IndexBytes = ist.VectorBytes + ist.MetaBytes

	// Bare reads are timed between the recalls, so that both see the
	// machine in the same state.
	raw := make([]float32, n*dim)
	for i := range raw {
		raw[i] = float32(i&1023) / 1024
	}
	times := make([]time.Duration, 0, queries)
	var bare, codes []time.Duration
	for q := range queries {
		t := time.Now()
		got, err := m.Recall(ctx, hippo.RecallInput{Query: fmt.Sprintf("query %d", q), Limit: 10})
		if err != nil {
			return nil, err
		}
		times = append(times, time.Since(t))
		if len(got) > 0 && got[0].Chunk.ID == targetIDs[q] {
			res.Found++
		}
		if q%4 == 0 {
			t := time.Now()
			_ = sumParallel(raw)
			bare = append(bare, time.Since(t))
			d, err := db.CodesRead(ctx, scaleAgent)
			if err != nil {
				return nil, err
			}
			codes = append(codes, d)
		}
	}
	slices.Sort(times)
	res.P50, res.P95 = times[len(times)/2], times[len(times)*95/100]
	slices.Sort(bare)
	res.BareRead = bare[len(bare)/2]
	slices.Sort(codes)
	res.CodesRead = codes[len(codes)/2]
	res.Ratio = float64(res.P50) / float64(res.BareRead)
	return res, nil
}

// sumParallel reads every element of v once, in parallel, and returns
// their sum: a bare sequential read of v's bytes.
func sumParallel(v []float32) float64 {
	shards := runtime.GOMAXPROCS(0)
	per := (len(v) + shards - 1) / shards
	sums := make([]float64, shards)
	var wg sync.WaitGroup
	for s := range shards {
		part := v[min(s*per, len(v)):min((s+1)*per, len(v))]
		wg.Add(1)
		go func() {
			defer wg.Done()
			var a0, a1, a2, a3 float32
			i := 0
			for ; i+4 <= len(part); i += 4 {
				a0 += part[i]
				a1 += part[i+1]
				a2 += part[i+2]
				a3 += part[i+3]
			}
			for ; i < len(part); i++ {
				a0 += part[i]
			}
			sums[s] = float64(a0 + a1 + a2 + a3)
		}()
	}
	wg.Wait()
	var total float64
	for _, s := range sums {
		total += s
	}
	return total
}

func TestScaleSmall(t *testing.T) {
	var out strings.Builder
	res, err := runScale(context.Background(), scaleConfig{Sizes: []int{2000}, Dimensions: []int{64}, Queries: 20, Dir: t.TempDir()}, &out)
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + out.String())
	r := res[0]
	if r.Found != 20 {
		t.Errorf("found %d of 20 targets", r.Found)
	}
	if r.BytesPerChunk <= 0 || r.IngestPerSec <= 0 || r.P50 <= 0 || r.BareRead <= 0 || r.CodesRead <= 0 || r.IndexBytes > r.RawBytes {
		t.Errorf("implausible result %+v", r)
	}
}

// BenchmarkScale prints the scale report; run it with
//
//	go test -run '^$' -bench Scale -benchtime 1x ./sqlite/
//
// HIPPO_BENCH_SIZES and HIPPO_BENCH_DIMS (comma-separated) change the grid,
// e.g. HIPPO_BENCH_SIZES=1000000 HIPPO_BENCH_DIMS=384 for the million-chunk
// run (about 2 GB of disk and memory).
func BenchmarkScale(b *testing.B) {
	sizes := envInts(b, "HIPPO_BENCH_SIZES", []int{10_000, 50_000})
	dims := envInts(b, "HIPPO_BENCH_DIMS", []int{100, 384, 1536})
	for b.Loop() {
		var out strings.Builder
		_, err := runScale(context.Background(), scaleConfig{Sizes: sizes, Dimensions: dims, Queries: 200}, &out)
		if err != nil {
			b.Fatal(err)
		}
		b.Log("\n" + out.String())
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
