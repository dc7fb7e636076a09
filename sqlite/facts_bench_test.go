package sqlite_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/local"
	"github.com/hippo-mem/hippo/sqlite"
)

// BenchmarkRememberFacts times the fact pipeline offline (rule-based
// extraction, GloVe embedding, the nearest-facts check, the offline
// classifier and the write) on an agent that already holds 10k facts, and
// reports the median and 95th percentile of one call.
//
//	go test -run '^$' -bench RememberFacts -benchtime 200x ./sqlite/
func BenchmarkRememberFacts(b *testing.B) {
	ctx := context.Background()
	emb := local.NewEmbedder()
	clk := &clock{t: time.Date(2026, 1, 10, 12, 0, 0, 0, time.UTC)}
	db, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "bench.db"), sqlite.Options{Now: clk.Now, NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	memories := readEvalColumn(b, "memories.tsv", 1)
	var words []string
	for _, s := range memories {
		words = append(words, strings.Fields(s)...)
	}
	r := rand.New(rand.NewPCG(10_000, 11))
	sentence := func() string {
		s := make([]string, 5+r.IntN(8))
		for j := range s {
			s[j] = words[r.IntN(len(words))]
		}
		return "User " + strings.Join(s, " ")
	}
	const n, batch = 10_000, 5000
	for start := 0; start < n; start += batch {
		texts := make([]string, batch)
		for i := range texts {
			texts[i] = sentence()
		}
		vecs, err := emb.Embed(ctx, texts)
		if err != nil {
			b.Fatal(err)
		}
		chunks := make([]*hippo.Chunk, batch)
		for i, t := range texts {
			chunks[i] = &hippo.Chunk{Kind: hippo.KindFact, Content: t, Embedding: vecs[i],
				RunningIntensity: 0.5, EncounterCount: 1}
		}
		if err := db.InsertChunks(ctx, "bench-agent", "", emb.Model(), chunks); err != nil {
			b.Fatal(err)
		}
	}
	m, err := db.Memory(sqlite.MemoryOptions{AgentID: "bench-agent", Embedder: emb,
		Extractor: local.NewExtractor(), Classifier: local.NewClassifier()})
	if err != nil {
		b.Fatal(err)
	}
	places := []string{"Berlin", "Paris", "Lisbon", "Oslo", "Kyoto", "Austin", "Nairobi", "Lima"}
	likes := []string{"Go", "tea", "chess", "jazz", "hiking", "Rust", "sushi", "opera"}
	text := func(i int) string {
		return fmt.Sprintf("I live in %s and I love %s. My sister is called Ann%d.",
			places[i%len(places)], likes[(i/len(places))%len(likes)], i)
	}
	if _, err := m.RememberFacts(ctx, text(0)); err != nil {
		b.Fatal(err)
	}
	var took []time.Duration
	i := 1
	for b.Loop() {
		start := time.Now()
		if _, err := m.RememberFacts(ctx, text(i)); err != nil {
			b.Fatal(err)
		}
		took = append(took, time.Since(start))
		i++
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(took[len(took)*95/100].Microseconds())/1000, "p95-ms")
}
