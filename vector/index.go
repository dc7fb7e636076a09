package vector

import (
	"math"
	"runtime"
	"slices"
	"sync"
	"unsafe"
)

// Index holds vectors of one dimension contiguously, normalised to unit
// length, with an int8 code per component for a fast first pass, and a
// caller-defined metadata value M per row. It is not safe for concurrent
// mutation; Search may run concurrently with other Searches.
type Index[M any] struct {
	dim    int
	vecs   []float32 // row i at [i*dim : (i+1)*dim]
	codes  []int8    // same layout
	scales []float32 // code scale: component ≈ code × scale
	ids    []string
	meta   []M
	pos    map[string]int

	priorOf func(*M) float32 // nil: no priors
	prior   []float32        // by row: priorOf(meta), for Bound
}

// NewIndex returns an empty index of dim-dimensional vectors.
func NewIndex[M any](dim int) *Index[M] {
	return &Index[M]{dim: dim, pos: map[string]int{}}
}

// SetPrior makes the index keep f(meta) beside each row, its prior: the
// part of a row's score that does not depend on the query, or a bound of
// it, which lets SearchBounded skip rows without scoring them. f must be
// cheap and depend on the metadata alone.
func (x *Index[M]) SetPrior(f func(*M) float32) {
	x.priorOf = f
	x.prior = x.prior[:0]
	if f == nil {
		return
	}
	for i := range x.meta {
		x.prior = append(x.prior, f(&x.meta[i]))
	}
}

// Dim is the vector length.
func (x *Index[M]) Dim() int { return x.dim }

// Len is the number of rows.
func (x *Index[M]) Len() int { return len(x.ids) }

// Bytes is the memory held by vectors, codes, scales and priors.
func (x *Index[M]) Bytes() int {
	return cap(x.vecs)*4 + cap(x.codes) + cap(x.scales)*4 + cap(x.prior)*4
}

// Grow reserves room for n more rows, so that loading a large index does
// not copy it over and over as it grows.
func (x *Index[M]) Grow(n int) {
	if n <= 0 {
		return
	}
	x.vecs = slices.Grow(x.vecs, n*x.dim)
	x.codes = slices.Grow(x.codes, n*x.dim)
	x.scales = slices.Grow(x.scales, n)
	if x.priorOf != nil {
		x.prior = slices.Grow(x.prior, n)
	}
	x.ids = slices.Grow(x.ids, n)
	x.meta = slices.Grow(x.meta, n)
}

// Meta returns the metadata of id.
func (x *Index[M]) Meta(id string) (M, bool) {
	i, ok := x.pos[id]
	if !ok {
		var zero M
		return zero, false
	}
	return x.meta[i], true
}

// Upsert inserts or replaces the row id. v is copied and normalised; it
// must have Dim components.
func (x *Index[M]) Upsert(id string, v []float32, m M) {
	i, ok := x.pos[id]
	if !ok {
		i = len(x.ids)
		x.pos[id] = i
		x.ids = append(x.ids, id)
		x.meta = append(x.meta, m)
		x.scales = append(x.scales, 0)
		if x.priorOf != nil {
			x.prior = append(x.prior, 0)
		}
		x.vecs = slices.Grow(x.vecs, x.dim)[:len(x.vecs)+x.dim]
		x.codes = slices.Grow(x.codes, x.dim)[:len(x.codes)+x.dim]
	}
	x.setMeta(i, m)
	row := x.vecs[i*x.dim : (i+1)*x.dim]
	copy(row, v)
	Normalize(row)
	x.scales[i] = Quantize(x.codes[i*x.dim:(i+1)*x.dim], row)
}

// SetMeta replaces the metadata of id, reporting whether it exists.
func (x *Index[M]) SetMeta(id string, m M) bool {
	i, ok := x.pos[id]
	if ok {
		x.setMeta(i, m)
	}
	return ok
}

func (x *Index[M]) setMeta(i int, m M) {
	x.meta[i] = m
	if x.priorOf != nil {
		x.prior[i] = x.priorOf(&m)
	}
}

// Remove deletes the row id, moving the last row into its place.
func (x *Index[M]) Remove(id string) {
	i, ok := x.pos[id]
	if !ok {
		return
	}
	last := len(x.ids) - 1
	if i != last {
		x.ids[i], x.meta[i], x.scales[i] = x.ids[last], x.meta[last], x.scales[last]
		if x.priorOf != nil {
			x.prior[i] = x.prior[last]
		}
		copy(x.vecs[i*x.dim:(i+1)*x.dim], x.vecs[last*x.dim:])
		copy(x.codes[i*x.dim:(i+1)*x.dim], x.codes[last*x.dim:])
		x.pos[x.ids[i]] = i
	}
	var zero M
	x.meta[last] = zero
	x.ids, x.meta, x.scales = x.ids[:last], x.meta[:last], x.scales[:last]
	if x.priorOf != nil {
		x.prior = x.prior[:last]
	}
	x.vecs, x.codes = x.vecs[:last*x.dim], x.codes[:last*x.dim]
	delete(x.pos, id)
}

// Quantize writes v's int8 codes into dst and returns the scale.
func Quantize(dst []int8, v []float32) float32 {
	var maxAbs float32
	for _, f := range v {
		if a := float32(math.Abs(float64(f))); a > maxAbs {
			maxAbs = a
		}
	}
	if maxAbs == 0 {
		clear(dst)
		return 0
	}
	scale := maxAbs / 127
	inv := 1 / scale
	for i, f := range v {
		dst[i] = int8(math.Round(float64(f * inv)))
	}
	return scale
}

// Hit is a search result: the row's ID, metadata, exact cosine and score.
type Hit[M any] struct {
	ID     string
	Meta   M
	Cosine float64
	Score  float64
}

// ScoreFunc scores a row given its cosine with the query, or reports that
// the row is filtered out. Each row is scored once in the first pass with
// an approximate cosine (exact false), and the best candidates again with
// the exact one. A row that cannot score above bar will not be kept, so
// the function may reject it without finishing its score. It must be safe
// for concurrent use.
type ScoreFunc[M any] func(m *M, cosine, bar float64, exact bool) (score float64, ok bool)

// minShard is the fewest rows worth a goroutine of their own.
const minShard = 4096

// Bound is a ceiling on scores: no row scores above
// Sim·max(0, cosine) + Prior·prior + Const, prior being the row's value
// from SetPrior. SearchBounded skips the rows whose ceiling cannot beat
// the candidates it holds, without calling the ScoreFunc. The zero Bound
// skips nothing.
type Bound struct {
	Sim, Prior, Const float64
}

// Search returns the k best rows by score, best first. A first pass scores
// every row with its int8 codes, in parallel; the best 4k+32 candidates are
// then rescored with exact float32 cosines, so the result is the exact
// top k unless quantisation error exceeds the oversampling margin.
func (x *Index[M]) Search(q []float32, k int, score ScoreFunc[M]) []Hit[M] {
	return x.SearchBounded(q, k, Bound{}, score)
}

// scanBlock is how many rows the first pass scores per kernel call.
const scanBlock = 256

// SearchBounded is Search that skips rows by b (which needs SetPrior
// unless b.Prior is 0) in the first pass.
func (x *Index[M]) SearchBounded(q []float32, k int, b Bound, score ScoreFunc[M]) []Hit[M] {
	n := len(x.ids)
	if k <= 0 || n == 0 || len(q) != x.dim {
		return nil
	}
	qq := x.quantQuery(q)
	qv, qs := qq.qv, qq.qs
	q16 := make([]int16, x.dim)
	for i, c := range qq.qc {
		q16[i] = int16(c)
	}
	bounded := b.Sim > 0 && (b.Prior == 0 || x.priorOf != nil)
	if !bounded {
		b = Bound{}
	}

	pool := 4*k + 32
	if pool > n {
		pool = n
	}
	shards := min(runtime.GOMAXPROCS(0), max(1, n/minShard))
	per := (n + shards - 1) / shards
	tops := make([]*TopK[int32], shards)
	var wg sync.WaitGroup
	for s := range shards {
		lo, hi := s*per, min((s+1)*per, n)
		tops[s] = NewTopK[int32](pool)
		wg.Add(1)
		go func(top *TopK[int32]) {
			defer wg.Done()
			d := x.dim
			bar := math.Inf(-1)
			dots := make([]int32, scanBlock)
			for start := lo; start < hi; start += scanBlock {
				block := dots[:min(scanBlock, hi-start)]
				dotInt8Batch(q16, x.codes[start*d:(start+len(block))*d], block)
				for j, dp := range block {
					i := start + j
					c := float64(qs*x.scales[i]) * float64(dp)
					if bounded {
						ceil := b.Sim*max(0, c) + b.Const
						if b.Prior != 0 {
							ceil += b.Prior * float64(x.prior[i])
						}
						if ceil <= bar {
							continue
						}
					}
					if sc, ok := score(&x.meta[i], c, bar, false); ok && sc > bar {
						top.Push(int32(i), sc)
						if top.Len() == pool {
							bar = top.h[0].Score
						}
					}
				}
			}
		}(tops[s])
	}
	wg.Wait()

	final := NewTopK[Hit[M]](k)
	for _, top := range tops {
		for _, s := range top.h {
			i := int(s.Item)
			c := float64(Dot(qv, x.vecs[i*x.dim:(i+1)*x.dim]))
			if sc, ok := score(&x.meta[i], c, math.Inf(-1), true); ok {
				final.Push(Hit[M]{ID: x.ids[i], Meta: x.meta[i], Cosine: c}, sc)
			}
		}
	}
	out := final.Sorted()
	hits := make([]Hit[M], len(out))
	for i, s := range out {
		hits[i] = s.Item
		hits[i].Score = s.Score
	}
	return hits
}

// Range calls fn with the exact cosine of every row whose approximate
// cosine is at least threshold-margin, for threshold matching (forget). margin
// covers quantisation error; fn sees exact values and decides.
func (x *Index[M]) Range(q []float32, threshold, margin float64, fn func(id string, m *M, cosine float64)) {
	if len(q) != x.dim {
		return
	}
	qq := x.quantQuery(q)
	d := x.dim
	for i := range x.ids {
		if x.approx(&qq, i) < threshold-margin {
			continue
		}
		fn(x.ids[i], &x.meta[i], float64(Dot(qq.qv, x.vecs[i*d:(i+1)*d])))
	}
}

// Sum reads every vector component once, in parallel, and returns their
// sum: the floor of any scan over the float32 vectors, for benchmarks.
func (x *Index[M]) Sum() float64 {
	shards := runtime.GOMAXPROCS(0)
	per := (len(x.vecs) + shards - 1) / shards
	sums := make([]float64, shards)
	var wg sync.WaitGroup
	for s := range shards {
		lo, hi := min(s*per, len(x.vecs)), min((s+1)*per, len(x.vecs))
		wg.Add(1)
		go func() {
			defer wg.Done()
			var a0, a1, a2, a3 float32
			v := x.vecs[lo:hi]
			i := 0
			for ; i+4 <= len(v); i += 4 {
				a0 += v[i]
				a1 += v[i+1]
				a2 += v[i+2]
				a3 += v[i+3]
			}
			for ; i < len(v); i++ {
				a0 += v[i]
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

// MetaBytes is the memory held by IDs, metadata and the ID map, roughly.
func (x *Index[M]) MetaBytes() int {
	var m M
	n := cap(x.meta)*int(unsafe.Sizeof(m)) + cap(x.ids)*16
	for _, id := range x.ids {
		n += len(id) + 48 // string bytes plus a map entry
	}
	return n
}

// Vector returns the stored unit vector of id (not a copy: do not modify).
func (x *Index[M]) Vector(id string) ([]float32, bool) {
	i, ok := x.pos[id]
	if !ok {
		return nil, false
	}
	return x.vecs[i*x.dim : (i+1)*x.dim], true
}

// IDs returns the row IDs, in index order.
func (x *Index[M]) IDs() []string { return append([]string(nil), x.ids...) }
