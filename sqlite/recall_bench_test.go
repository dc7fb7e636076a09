package sqlite_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/mock"
	"github.com/hippo-mem/hippo/openai"
	"github.com/hippo-mem/hippo/sqlite"
)

// BenchmarkRecall recalls among n chunks of d dimensions, every chunk
// considered, and checks that a planted target comes first.
//
//	go test -run '^$' -bench Recall -benchtime 10x ./sqlite/
func BenchmarkRecall(b *testing.B) {
	for _, n := range []int{10_000, 50_000} {
		for _, dim := range []int{384, 1536} {
			b.Run(fmt.Sprintf("chunks=%d/dim=%d", n, dim), func(b *testing.B) {
				benchRecall(b, n, dim)
			})
		}
	}
}

func benchRecall(b *testing.B, n, dim int) {
	ctx := context.Background()
	srv := mock.NewServer(b, dim)
	emb, err := openai.NewEmbedder(openai.Config{BaseURL: srv.BaseURL(), Model: "bench-embed"})
	if err != nil {
		b.Fatal(err)
	}
	clk := &clock{t: time.Date(2026, 1, 10, 12, 0, 0, 0, time.UTC)}
	db, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "bench.db"), sqlite.Options{Now: clk.Now, NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()

	r := rand.New(rand.NewPCG(uint64(n), uint64(dim)))
	randomVec := func() []float32 {
		v := make([]float32, dim)
		for i := range v {
			v[i] = float32(r.NormFloat64())
		}
		return v
	}
	target := randomVec()
	targetAt := r.IntN(n)
	const batch = 5000
	var targetID string
	for start := 0; start < n; start += batch {
		chunks := make([]*hippo.Chunk, 0, batch)
		for i := start; i < min(start+batch, n); i++ {
			c := &hippo.Chunk{Content: fmt.Sprintf("chunk %d", i), Embedding: randomVec()}
			if i == targetAt {
				c.Content, c.Embedding = "the planted target", target
			}
			chunks = append(chunks, c)
		}
		if err := db.InsertChunks(ctx, "bench-agent", "", "bench-embed", chunks); err != nil {
			b.Fatal(err)
		}
		for _, c := range chunks {
			if c.Content == "the planted target" {
				targetID = c.ID
			}
		}
	}
	// The query is the target plus noise.
	query := make([]float32, dim)
	for i := range query {
		query[i] = target[i] + 0.3*float32(r.NormFloat64())
	}
	srv.Set("find the target", query)
	m, err := db.Memory(sqlite.MemoryOptions{AgentID: "bench-agent", Embedder: emb})
	if err != nil {
		b.Fatal(err)
	}
	// The first recall loads the index from SQLite; time it apart.
	start := time.Now()
	if _, err := m.Recall(ctx, hippo.RecallInput{Query: "find the target", Limit: 10}); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(time.Since(start).Milliseconds()), "load-ms")
	for b.Loop() {
		res, err := m.Recall(ctx, hippo.RecallInput{Query: "find the target", Limit: 10})
		if err != nil {
			b.Fatal(err)
		}
		if len(res) == 0 || res[0].Chunk.ID != targetID {
			b.Fatalf("target %s not found first among %d chunks", targetID, n)
		}
	}
}
