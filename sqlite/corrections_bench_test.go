package sqlite_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/local"
	"github.com/hippo-mem/hippo/sqlite"
)

// BenchmarkRecallCorrections recalls among texts kept by remember_facts
// whose facts were corrected (each text's fact superseded by a later one
// that names it in replaces), so that every recall puts corrections above
// the texts they correct, against as many texts and facts never
// corrected: the cost of correctionsFirst. GloVe embeds (fast, offline).
//
//	go test -run '^$' -bench RecallCorrections -benchtime 200x ./sqlite/
func BenchmarkRecallCorrections(b *testing.B) {
	for _, corrected := range []bool{false, true} {
		b.Run(fmt.Sprintf("corrected=%v", corrected), func(b *testing.B) {
			n := 2000 // as many chunks either way: a corrected project has two texts and two facts
			if corrected {
				n = 1000
			}
			ctx := context.Background()
			clk := &clock{t: time.Date(2026, 1, 10, 12, 0, 0, 0, time.UTC)}
			db, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "bench.db"), sqlite.Options{Now: clk.Now, NoSync: true})
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			m, err := db.Memory(sqlite.MemoryOptions{AgentID: "bench", Embedder: local.NewEmbedder(), Classifier: local.NewClassifier()})
			if err != nil {
				b.Fatal(err)
			}
			places := []string{"Berlin", "Lisbon", "Nairobi", "Osaka", "Quito", "Tromsø", "Hanoi", "Perth"}
			for i := range n {
				fact := fmt.Sprintf("User's project %d meets in %s", i, places[i%len(places)])
				text := fmt.Sprintf("project %d: we meet in %s every week", i, places[i%len(places)])
				if _, err := m.Remember(ctx, hippo.RememberInput{Text: text, Facts: []hippo.GivenFact{{Fact: fact}}}); err != nil {
					b.Fatal(err)
				}
				if corrected {
					next := fmt.Sprintf("User's project %d meets in %s", i, places[(i+1)%len(places)])
					if _, err := m.Remember(ctx, hippo.RememberInput{Text: fmt.Sprintf("project %d moved, now %s", i, places[(i+1)%len(places)]),
						Facts: []hippo.GivenFact{{Fact: next, Replaces: fact}}}); err != nil {
						b.Fatal(err)
					}
				}
			}
			var took []time.Duration
			moved, i := 0, 0
			for b.Loop() {
				start := time.Now()
				res, err := m.Recall(ctx, hippo.RecallInput{Query: fmt.Sprintf("where does project %d meet", i%n), Limit: 10, DryRun: true})
				took = append(took, time.Since(start))
				if err != nil {
					b.Fatal(err)
				}
				for _, r := range res {
					if r.Corrects != "" {
						moved++
					}
				}
				i++
			}
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(took[len(took)*95/100].Microseconds())/1000, "p95-ms")
			b.ReportMetric(float64(moved)/float64(len(took)), "moved/op")
		})
	}
}
