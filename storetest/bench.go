package storetest

import (
	"context"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hippo-mem/hippo"
)

// BenchStoreMemories stores b.N distinct memories through the library's
// StoreMemories in batches of 100 from 4 goroutines, as BenchmarkServeBatch's
// 4 clients send them, at 384 and 1,536 dimensions, with an embedder that
// costs nothing (PooledEmbedder): memories/s is a store's write path for
// batches (concurrent batches share commits). open opens a new, empty store
// for vectors of dim dimensions, closed when b ends.
func BenchStoreMemories(b *testing.B, open func(b *testing.B, dim int) hippo.Store) {
	for _, dim := range []int{384, 1536} {
		b.Run(fmt.Sprintf("dim=%d/clients=4", dim), func(b *testing.B) {
			ctx := context.Background()
			m, err := open(b, dim).Service(hippo.MemoryOptions{AgentID: "bench", Embedder: NewPooledEmbedder(dim)})
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

// SeededEmbedder is an in-process embedder of Dim dimensions whose vector
// is seeded by the text: a store benchmark measures the write path, not an
// embedder.
type SeededEmbedder struct{ Dim int }

func (e SeededEmbedder) Model() string  { return fmt.Sprintf("seeded-%d", e.Dim) }
func (e SeededEmbedder) Dimension() int { return e.Dim }

func (e SeededEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		h := fnv.New64a()
		h.Write([]byte(t))
		r := rand.New(rand.NewPCG(h.Sum64(), 1))
		v := make([]float32, e.Dim)
		for j := range v {
			v[j] = float32(r.NormFloat64())
		}
		out[i] = v
	}
	return out, nil
}

// PooledEmbedder hands out one of 1,024 vectors made in advance, chosen by
// the text's hash: an embedder that costs nothing.
type PooledEmbedder struct {
	dim  int
	vecs [][]float32
}

// NewPooledEmbedder makes a PooledEmbedder of dim dimensions.
func NewPooledEmbedder(dim int) PooledEmbedder {
	e := PooledEmbedder{dim: dim}
	for i := range 1024 {
		v, _ := SeededEmbedder{Dim: dim}.Embed(context.Background(), []string{fmt.Sprint(i)})
		e.vecs = append(e.vecs, v[0])
	}
	return e
}

func (e PooledEmbedder) Model() string  { return fmt.Sprintf("fixed-%d", e.dim) }
func (e PooledEmbedder) Dimension() int { return e.dim }

func (e PooledEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		h := fnv.New32a()
		h.Write([]byte(t))
		out[i] = e.vecs[h.Sum32()%uint32(len(e.vecs))]
	}
	return out, nil
}
