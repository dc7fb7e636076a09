package sqlite_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/engine"
	"github.com/hippo-mem/hippo/local"
	"github.com/hippo-mem/hippo/local/minilm"
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

// BenchmarkHybridRecall recalls among n chunks of text with the offline
// embedder, pure vector (α = 0) and hybrid (α = local.HybridAlpha) in turn
// on the same query, and reports each one's time per recall and the
// difference: the cost of the full-text side. Pairing them keeps the
// difference fair on a busy machine. The chunks are the evaluation set's
// memories and sentences drawn from their words, of a year's ages and
// assorted strengths; the queries are its questions.
//
//	go test -run '^$' -bench HybridRecall -benchtime 400x ./sqlite/
//
// With others, another agent's chunks share the database: the agent's
// full-text scores then take its own word statistics (fts.go agentBM25).
func BenchmarkHybridRecall(b *testing.B) {
	for _, n := range []int{10_000, 50_000} {
		b.Run(fmt.Sprintf("chunks=%d", n), func(b *testing.B) {
			benchHybrid(b, n, 0, false, false)
		})
	}
	for _, c := range []struct{ n, others int }{{10_000, 10_000}, {1_000, 50_000}} {
		b.Run(fmt.Sprintf("chunks=%d/others=%d", c.n, c.others), func(b *testing.B) {
			benchHybrid(b, c.n, c.others, false, false)
		})
	}
}

// BenchmarkHybridRecallParts is BenchmarkHybridRecall over chunks of two
// or three sentences drawn from the same words, without parts and each
// with its parts (hippo.Chunk.Parts): about three index rows a chunk, as
// messages that say several things give.
//
//	go test -run '^$' -bench HybridRecallParts -benchtime 400x ./sqlite/
func BenchmarkHybridRecallParts(b *testing.B) {
	b.Run("chunks=10000/parts=off", func(b *testing.B) { benchHybrid(b, 10_000, 0, true, false) })
	b.Run("chunks=10000/parts=on", func(b *testing.B) { benchHybrid(b, 10_000, 0, true, true) })
}

// benchHybrid is a run of BenchmarkHybridRecall among n chunks (and
// others of another agent), of several sentences or one, with parts or
// without.
func benchHybrid(b *testing.B, n, others int, several, parts bool) {
	m, queries := hybridBenchMemory(b, n, others, local.NewEmbedder(), several, parts)
	ctx := context.Background()
	var took [3]time.Duration
	i := 0
	for b.Loop() {
		for j, alpha := range []float64{0, local.HybridAlpha} {
			start := time.Now()
			_, err := m.Recall(ctx, hippo.RecallInput{Query: queries[i%len(queries)], Limit: 10, Alpha: &alpha})
			if err != nil {
				b.Fatal(err)
			}
			took[j] += time.Since(start)
		}
		// A page, as recall_memories and the CLI ask: the matches counted.
		start := time.Now()
		if _, err := m.RecallPage(ctx, hippo.RecallInput{Query: queries[i%len(queries)], Limit: 10}); err != nil {
			b.Fatal(err)
		}
		took[2] += time.Since(start)
		i++
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(i) }
	b.ReportMetric(ms(took[0]), "vector-ms")
	b.ReportMetric(ms(took[1]), "hybrid-ms")
	b.ReportMetric(ms(took[1]-took[0]), "extra-ms")
	b.ReportMetric(ms(took[2]), "page-ms")
}

// BenchmarkMiniLMRecall recalls among n chunks embedded with the offline
// MiniLM embedder, with the embedder's own hybrid weight, the query's
// embedding included: every query is new to the embedder's cache.
//
//	go test -run '^$' -bench MiniLMRecall -benchtime 200x ./sqlite/
func BenchmarkMiniLMRecall(b *testing.B) {
	benchMiniLM(b, false, false)
}

// BenchmarkMiniLMRecallParts is BenchmarkMiniLMRecall among chunks of two
// or three sentences, without and with their sentence parts: the cost of
// parts where the cosines are MiniLM's, most rows far from the query.
//
//	go test -run '^$' -bench MiniLMRecallParts -benchtime 200x -timeout 30m ./sqlite/
func BenchmarkMiniLMRecallParts(b *testing.B) {
	b.Run("chunks=10000/parts=off", func(b *testing.B) { benchMiniLM(b, true, false) })
	b.Run("chunks=10000/parts=on", func(b *testing.B) { benchMiniLM(b, true, true) })
}

// benchMiniLM is a run of BenchmarkMiniLMRecall among 10,000 chunks, of
// several sentences or one, with parts or without.
func benchMiniLM(b *testing.B, several, parts bool) {
	m, queries := hybridBenchMemory(b, 10_000, 0, minilm.NewEmbedder(), several, parts)
	ctx := context.Background()
	var took []time.Duration
	i := 0
	for b.Loop() {
		q := fmt.Sprintf("%s (%d)", queries[i%len(queries)], i)
		start := time.Now()
		if _, err := m.Recall(ctx, hippo.RecallInput{Query: q, Limit: 10}); err != nil {
			b.Fatal(err)
		}
		took = append(took, time.Since(start))
		i++
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(took[len(took)*95/100].Microseconds())/1000, "p95-ms")
}

// hybridBenchMemory is an agent of n chunks embedded with emb: the
// evaluation set's memories, then sentences drawn from their words, two or
// three a chunk when several, each chunk with its parts when parts. Before
// them, another agent stores others chunks drawn the same way.
func hybridBenchMemory(b *testing.B, n, others int, emb hippo.Embedder, several, parts bool) (*sqlite.Memory, []string) {
	ctx := context.Background()
	memories := readEvalColumn(b, "memories.tsv", 1)
	queries := readEvalColumn(b, "queries.tsv", 2)
	var words []string
	for _, s := range memories {
		words = append(words, strings.Fields(s)...)
	}
	clk := &clock{t: time.Date(2026, 1, 10, 12, 0, 0, 0, time.UTC)}
	db, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "bench.db"), sqlite.Options{Now: clk.Now, NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	insert := func(agent string, n int, r *rand.Rand) {
		const batch = 5000
		for start := 0; start < n; start += batch {
			texts := make([]string, 0, batch)
			for i := start; i < min(start+batch, n); i++ {
				if i < len(memories) && agent == "bench-agent" {
					texts = append(texts, memories[i])
					continue
				}
				var sentences []string
				for range 1 + boolInt(several) + r.IntN(1+boolInt(several)) {
					s := make([]string, 6+r.IntN(14))
					for j := range s {
						s[j] = words[r.IntN(len(words))]
					}
					sentences = append(sentences, strings.Join(s, " "))
				}
				if several {
					texts = append(texts, strings.Join(sentences, ". ")+".")
				} else {
					texts = append(texts, sentences[0])
				}
			}
			vecs, err := emb.Embed(ctx, texts)
			if err != nil {
				b.Fatal(err)
			}
			chunks := make([]*hippo.Chunk, len(texts))
			cfg := hippo.DefaultConfig()
			for i, t := range texts {
				age := time.Duration(r.Float64() * float64(365*24*time.Hour))
				created := clk.Now().Add(-age)
				chunks[i] = &hippo.Chunk{Content: t, Embedding: vecs[i], CreatedAt: created,
					LastAccessedAt:   created.Add(time.Duration(r.Float64() * float64(age))),
					RunningIntensity: 0.2 + 0.8*r.Float64(), EncounterCount: 1, AccessCount: r.IntN(20)}
				if ss := engine.PartSentences(cfg, hippo.KindMemory, t); parts && len(ss) > 0 {
					sv, err := emb.Embed(ctx, ss)
					if err != nil {
						b.Fatal(err)
					}
					chunks[i].Parts = engine.PartVectors(cfg.PartWeight, vecs[i], sv)
				}
			}
			if err := db.InsertChunks(ctx, agent, "", emb.Model(), chunks); err != nil {
				b.Fatal(err)
			}
		}
	}
	if others > 0 {
		insert("bench-others", others, rand.New(rand.NewPCG(uint64(others), 8)))
	}
	insert("bench-agent", n, rand.New(rand.NewPCG(uint64(n), 7)))
	m, err := db.Memory(sqlite.MemoryOptions{AgentID: "bench-agent", Embedder: emb})
	if err != nil {
		b.Fatal(err)
	}
	// Load the index before timing.
	if _, err := m.Recall(ctx, hippo.RecallInput{Query: queries[0]}); err != nil {
		b.Fatal(err)
	}
	return m, queries
}

// readEvalColumn reads one column of a file of the evaluation set.
func readEvalColumn(b *testing.B, name string, col int) []string {
	data, err := os.ReadFile(filepath.Join("..", "eval", "testdata", name))
	if err != nil {
		b.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Split(line, "\t"); len(f) > col && !strings.HasPrefix(line, "#") {
			out = append(out, f[col])
		}
	}
	return out
}

func boolInt(v bool) int {
	if v {
		return 1
	}
	return 0
}
