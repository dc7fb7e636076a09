package sqlite_test

import (
	"context"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/sqlite"
)

// seededEmbedder is an in-process embedder of dim dimensions whose vector
// is seeded by the text: the store benchmark measures the write path, not
// an embedder.
type seededEmbedder struct{ dim int }

func (e seededEmbedder) Model() string  { return fmt.Sprintf("seeded-%d", e.dim) }
func (e seededEmbedder) Dimension() int { return e.dim }

func (e seededEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		h := fnv.New64a()
		h.Write([]byte(t))
		r := rand.New(rand.NewPCG(h.Sum64(), 1))
		v := make([]float32, e.dim)
		for j := range v {
			v[j] = float32(r.NormFloat64())
		}
		out[i] = v
	}
	return out, nil
}

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
			m, err := db.Memory(sqlite.MemoryOptions{AgentID: "bench", Embedder: seededEmbedder{1536}})
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

// BenchmarkStoreMemoriesLibrary stores b.N distinct memories through the
// library's StoreMemories in batches of 100 from 4 goroutines, as
// BenchmarkServeBatch's 4 clients send them, at 384 and 1,536 dimensions,
// with an in-process embedder that hands out fixed vectors: memories/s is
// the write path of a batch (concurrent batches share commits).
//
//	go test -run '^$' -bench StoreMemoriesLibrary -benchtime 50000x ./sqlite/
func BenchmarkStoreMemoriesLibrary(b *testing.B) {
	for _, dim := range []int{384, 1536} {
		b.Run(fmt.Sprintf("dim=%d/clients=4", dim), func(b *testing.B) {
			ctx := context.Background()
			db, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "bench.db"), sqlite.Options{Dimension: dim})
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			m, err := db.Memory(sqlite.MemoryOptions{AgentID: "bench", Embedder: newPooledEmbedder(dim)})
			if err != nil {
				b.Fatal(err)
			}
			const batch, clients = 100, 4
			var next atomic.Int64
			var wg sync.WaitGroup
			b.ResetTimer()
			for range clients {
				wg.Add(1)
				go func() {
					defer wg.Done()
					items := make([]hippo.StoreInput, 0, batch)
					for {
						i := int(next.Add(batch)) - batch
						if i >= b.N {
							return
						}
						items = items[:0]
						for j := i; j < min(i+batch, b.N); j++ {
							items = append(items, hippo.StoreInput{Content: fmt.Sprintf("Note %d: the deploy of service %d moved to slot %d", j, j%50, j%7)})
						}
						res, err := m.StoreMemories(ctx, items)
						if err != nil || res.Stored != len(items) {
							b.Errorf("batch at %d: %+v, %v", i, res, err)
							return
						}
					}
				}()
			}
			wg.Wait()
			b.StopTimer()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "memories/s")
		})
	}
}

// pooledEmbedder hands out one of 1,024 vectors made in advance, chosen by
// the text's hash: an embedder that costs nothing.
type pooledEmbedder struct {
	dim  int
	vecs [][]float32
}

func newPooledEmbedder(dim int) pooledEmbedder {
	e := pooledEmbedder{dim: dim}
	for i := range 1024 {
		v, _ := seededEmbedder{dim}.Embed(context.Background(), []string{fmt.Sprint(i)})
		e.vecs = append(e.vecs, v[0])
	}
	return e
}

func (e pooledEmbedder) Model() string  { return fmt.Sprintf("fixed-%d", e.dim) }
func (e pooledEmbedder) Dimension() int { return e.dim }

func (e pooledEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		h := fnv.New32a()
		h.Write([]byte(t))
		out[i] = e.vecs[h.Sum32()%uint32(len(e.vecs))]
	}
	return out, nil
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
			m, err := db.Memory(sqlite.MemoryOptions{AgentID: "bench", Embedder: newPooledEmbedder(384)})
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
