package sqlite_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/sqlite"
	"github.com/hippo-mem/hippo/storetest"
)

// BenchmarkConcurrentStores stores b.N distinct memories of 1536
// dimensions from 1, 8 and 32 goroutines, each acknowledged durably
// (synchronous=FULL): the write path alone, where concurrent writes share
// commits (group commit). groups/op-style figures: calls/group is the mean
// group size.
//
//	go test -run '^$' -bench ConcurrentStores -benchtime 4000x ./sqlite/
func BenchmarkConcurrentStores(b *testing.B) {
	for _, writers := range []int{1, 8, 32} {
		b.Run(fmt.Sprintf("writers=%d", writers), func(b *testing.B) {
			ctx := context.Background()
			db, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "bench.db"), sqlite.Options{Dimension: 1536})
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			m, err := db.Memory(sqlite.MemoryOptions{AgentID: "bench", Embedder: storetest.SeededEmbedder{Dim: 1536}})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := m.StoreMemory(ctx, hippo.StoreInput{Content: "warm-up"}); err != nil {
				b.Fatal(err)
			}
			before := db.CommitStats()
			var next atomic.Int64
			var wg sync.WaitGroup
			b.ResetTimer()
			for range writers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for {
						i := next.Add(1)
						if i > int64(b.N) {
							return
						}
						content := fmt.Sprintf("Note %d: the deploy of service %d moved to slot %d", i, i%50, i%7)
						if _, err := m.StoreMemory(ctx, hippo.StoreInput{Content: content}); err != nil {
							b.Error(err)
							return
						}
					}
				}()
			}
			wg.Wait()
			b.StopTimer()
			st := db.CommitStats()
			groups, calls := st.Groups-before.Groups, st.Calls-before.Calls
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "memories/s")
			if groups > 0 {
				b.ReportMetric(float64(calls)/float64(groups), "calls/group")
			}
		})
	}
}

// BenchmarkStoreMemoriesLibrary is storetest.BenchStoreMemories on SQLite.
//
//	go test -run '^$' -bench StoreMemoriesLibrary -benchtime 50000x ./sqlite/
func BenchmarkStoreMemoriesLibrary(b *testing.B) {
	storetest.BenchStoreMemories(b, func(b *testing.B, dim int) hippo.Store {
		db, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "bench.db"), sqlite.Options{Dimension: dim})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { db.Close() })
		return db
	})
}

// BenchmarkStoreFollowUp stores memories one at a time into an agent that
// holds 10,000 already (384 dimensions, an embedder that costs nothing):
// plain ones, and follow-ups (opening with "It"), which also find the
// newest memory of the scope and embed one more text (engine/followup.go).
//
//	go test -run '^$' -bench StoreFollowUp -benchtime 2000x ./sqlite/
func BenchmarkStoreFollowUp(b *testing.B) {
	for _, kind := range []string{"plain", "follow-up"} {
		b.Run("kind="+kind, func(b *testing.B) {
			ctx := context.Background()
			db, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "bench.db"), sqlite.Options{Dimension: 384})
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			m, err := db.Memory(sqlite.MemoryOptions{AgentID: "bench", Embedder: storetest.NewPooledEmbedder(384)})
			if err != nil {
				b.Fatal(err)
			}
			for i := 0; i < 10000; i += 100 {
				items := make([]hippo.StoreInput, 0, 100)
				for j := i; j < i+100; j++ {
					items = append(items, hippo.StoreInput{Content: fmt.Sprintf("Note %d: the deploy of service %d moved to slot %d", j, j%50, j%7)})
				}
				if _, err := m.StoreMemories(ctx, items); err != nil {
					b.Fatal(err)
				}
			}
			// The index loaded, as in a server that has recalled.
			if _, err := m.Recall(ctx, hippo.RecallInput{Query: "deploy slot", DryRun: true}); err != nil {
				b.Fatal(err)
			}
			open := map[string]string{"plain": "Then", "follow-up": "It"}[kind]
			b.ResetTimer()
			for i := range b.N {
				res, err := m.StoreMemory(ctx, hippo.StoreInput{Content: fmt.Sprintf("%s moved again, to slot %d of rack %d.", open, i, i%13)})
				if err != nil || res.Duplicate {
					b.Fatalf("store %d: %+v, %v", i, res, err)
				}
			}
		})
	}
}
