package vector

import (
	"context"
	"math"
	"runtime"
	"slices"
	"sort"
	"sync"
	"unsafe"
)

// Index holds int8 codes of vectors of one dimension, normalised to unit
// length, for a fast first pass, and a caller-defined metadata value M per
// row. The float32 vectors themselves are not kept: the rows a search
// must rank exactly are read through the index's Loader, so the index
// takes about a quarter of the vectors' size. It is not safe for
// concurrent mutation; searches may run concurrently with each other.
type Index[M any] struct {
	dim    int
	codes  []int8    // row i at [i*dim : (i+1)*dim]
	scales []float32 // code scale: component ≈ code × scale
	resids []float32 // ‖codes × scale − unit vector‖₂, for errEst
	ids    []string
	meta   []M
	pos    map[string]int
	load   Loader
	unit   []float32 // Upsert's scratch vector

	priorOf func(*M) float32 // nil: no priors
	prior   []float32        // by row: priorOf(meta), for Bound
}

// Loader reads the stored float32 vectors of the rows ids (distinct), calling fn with
// each one's position in ids and its vector (any length; fn copies what
// it keeps). A row it cannot find is skipped: it was deleted since it was
// indexed, and searches leave it out.
type Loader func(ctx context.Context, ids []string, fn func(i int, v []float32)) error

// NewIndex returns an empty index of dim-dimensional vectors, whose exact
// vectors load reads.
func NewIndex[M any](dim int, load Loader) *Index[M] {
	return &Index[M]{dim: dim, pos: map[string]int{}, load: load}
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

// Bytes is the memory held by codes, scales and priors.
func (x *Index[M]) Bytes() int {
	return cap(x.codes) + cap(x.scales)*4 + cap(x.resids)*4 + cap(x.prior)*4
}

// Grow reserves room for n more rows, so that loading a large index does
// not copy it over and over as it grows.
func (x *Index[M]) Grow(n int) {
	if n <= 0 {
		return
	}
	x.codes = slices.Grow(x.codes, n*x.dim)
	x.scales = slices.Grow(x.scales, n)
	x.resids = slices.Grow(x.resids, n)
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

// Upsert inserts or replaces the row id. v is not kept or modified; it
// must have Dim components.
func (x *Index[M]) Upsert(id string, v []float32, m M) {
	i, ok := x.pos[id]
	if !ok {
		i = len(x.ids)
		x.pos[id] = i
		x.ids = append(x.ids, id)
		x.meta = append(x.meta, m)
		x.scales = append(x.scales, 0)
		x.resids = append(x.resids, 0)
		if x.priorOf != nil {
			x.prior = append(x.prior, 0)
		}
		x.codes = slices.Grow(x.codes, x.dim)[:len(x.codes)+x.dim]
	}
	x.setMeta(i, m)
	x.unit = append(x.unit[:0], v...)
	Normalize(x.unit)
	codes := x.codes[i*x.dim : (i+1)*x.dim]
	scale := Quantize(codes, x.unit)
	var r2 float64
	for j, c := range codes {
		e := float64(scale)*float64(c) - float64(x.unit[j])
		r2 += e * e
	}
	x.scales[i], x.resids[i] = scale, float32(math.Sqrt(r2))
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

// Cosine is the first-pass cosine of rows a and b, from their int8 codes:
// within about 0.01 of the exact one for vectors of 64 dimensions or
// more. ok is false when either row is not in the index.
func (x *Index[M]) Cosine(a, b string) (cos float64, ok bool) {
	i, oka := x.pos[a]
	j, okb := x.pos[b]
	if !oka || !okb {
		return 0, false
	}
	d := x.dim
	return float64(x.scales[i]*x.scales[j]) * float64(dotInt8(x.codes[i*d:(i+1)*d], x.codes[j*d:(j+1)*d])), true
}

// Remove deletes the row id, moving the last row into its place.
func (x *Index[M]) Remove(id string) {
	i, ok := x.pos[id]
	if !ok {
		return
	}
	last := len(x.ids) - 1
	if i != last {
		x.ids[i], x.meta[i], x.scales[i], x.resids[i] = x.ids[last], x.meta[last], x.scales[last], x.resids[last]
		if x.priorOf != nil {
			x.prior[i] = x.prior[last]
		}
		copy(x.codes[i*x.dim:(i+1)*x.dim], x.codes[last*x.dim:])
		x.pos[x.ids[i]] = i
	}
	var zero M
	x.meta[last] = zero
	x.ids, x.meta, x.scales, x.resids = x.ids[:last], x.meta[:last], x.scales[:last], x.resids[:last]
	if x.priorOf != nil {
		x.prior = x.prior[:last]
	}
	x.codes = x.codes[:last*x.dim]
	delete(x.pos, id)
}

// exact returns the exact cosines of rows with qv, a unit vector, read
// through the Loader; ok[j] is false for a row the Loader no longer finds
// or finds with another dimension (the store changed since it was
// indexed). rows may repeat.
func (x *Index[M]) exact(ctx context.Context, qv []float32, rows []int32) (cos []float64, ok []bool, err error) {
	cos, ok = make([]float64, len(rows)), make([]bool, len(rows))
	ids := make([]string, len(rows))
	for j, r := range rows {
		ids[j] = x.ids[r]
	}
	err = x.Vectors(ctx, ids, func(j int, v []float32) {
		cos[j], ok[j] = float64(Dot(qv, v)), true
	})
	if err != nil {
		return nil, nil, err
	}
	return cos, ok, nil
}

// Vectors calls fn with the stored vector of each of ids that the index
// holds, normalised to unit length, read through the Loader: fn gets the
// ID's position in ids (each of them, when it repeats), and may keep v
// only until it returns.
func (x *Index[M]) Vectors(ctx context.Context, ids []string, fn func(i int, v []float32)) error {
	if len(ids) == 0 {
		return nil
	}
	at := make(map[string][]int, len(ids)) // ID → its places in ids
	distinct := make([]string, 0, len(ids))
	for i, id := range ids {
		if at[id] == nil {
			distinct = append(distinct, id)
		}
		at[id] = append(at[id], i)
	}
	unit := make([]float32, x.dim)
	return x.load(ctx, distinct, func(j int, v []float32) {
		if j < 0 || j >= len(distinct) || len(v) != x.dim {
			return
		}
		if _, ok := x.pos[distinct[j]]; !ok {
			return
		}
		copy(unit, v)
		Normalize(unit)
		for _, i := range at[distinct[j]] {
			fn(i, unit)
		}
	})
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
// an approximate cosine (exact false); the best candidates are scored
// again (exact true) at the ends of their cosine's error interval and then
// with the exact cosine. The score must not decrease as the cosine grows.
// In the first pass, a row that cannot score above bar will not be kept,
// so the function may reject it without finishing its score. It must be
// safe for concurrent use.
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
// every row with its int8 codes, in parallel, and keeps the best 4k+32.
// Of those, the rows whose score could still reach the k-th best within
// the first pass's error (errEst) are read through the Loader and scored
// with exact float32 cosines, so the result is the exact top k unless more
// than 4k+32 rows fall within that error of the k-th.
func (x *Index[M]) Search(ctx context.Context, q []float32, k int, score ScoreFunc[M]) ([]Hit[M], error) {
	return x.SearchBounded(ctx, q, k, Bound{}, score)
}

// scanBlock is how many rows the first pass scores per kernel call.
const scanBlock = 256

// SearchBounded is Search that skips rows by b (which needs SetPrior
// unless b.Prior is 0) in the first pass.
func (x *Index[M]) SearchBounded(ctx context.Context, q []float32, k int, b Bound, score ScoreFunc[M]) ([]Hit[M], error) {
	return x.SearchNear(ctx, q, k, b, score, nil)
}

// Near asks a search for the K rows closest to its query by the first
// pass's cosine, among those Eligible allows, besides its best by score:
// what a recall that finds too little falls back on, for a comparison a
// row instead of a second pass.
type Near[M any] struct {
	K        int
	Eligible func(m *M) bool
	tops     []*TopK[int32]
	x        *Index[M]
}

// Done reports whether a search filled n.
func (n *Near[M]) Done() bool { return n != nil && n.x != nil }

// Hits are the closest rows found, by cosine (approximate, within the
// first pass's error), closest first.
func (n *Near[M]) Hits() []Hit[M] {
	if !n.Done() {
		return nil
	}
	top := NewTopK[int32](n.K)
	for _, t := range n.tops {
		for _, s := range t.h {
			top.Push(s.Item, s.Score)
		}
	}
	best := top.Sorted()
	hits := make([]Hit[M], len(best))
	for j, s := range best {
		hits[j] = Hit[M]{ID: n.x.ids[s.Item], Meta: n.x.meta[s.Item], Cosine: s.Score, Score: s.Score}
	}
	return hits
}

// SearchNear is SearchBounded that also fills near, when not nil, in the
// same pass.
func (x *Index[M]) SearchNear(ctx context.Context, q []float32, k int, b Bound, score ScoreFunc[M], near *Near[M]) ([]Hit[M], error) {
	n := len(x.ids)
	if k <= 0 || n == 0 || len(q) != x.dim {
		return nil, nil
	}
	qq := x.quantQuery(q)
	p := firstPass[M]{x: x, qs: qq.qs, q16: make([]int16, x.dim), b: b, pool: min(4*k+32, n), score: score, near: near}
	for i, c := range qq.qc {
		p.q16[i] = int16(c)
	}
	p.bounded = b.Sim > 0 && (b.Prior == 0 || x.priorOf != nil)
	if !p.bounded {
		p.b = Bound{}
	}
	rows := x.undecided(&qq, p.run(), k, score)
	return x.rescore(ctx, &qq, rows, k, score)
}

// firstPass is the first pass of a search: every row scored with its int8
// codes, in parallel shards, each keeping its best pool rows.
type firstPass[M any] struct {
	x       *Index[M]
	q16     []int16 // the query's codes
	qs      float32 // their scale
	b       Bound
	bounded bool // b skips rows
	pool    int
	score   ScoreFunc[M] // nil: no rows by score (pool 0), only near
	near    *Near[M]
}

// run scans the index and returns each shard's best rows.
func (p *firstPass[M]) run() []*TopK[int32] {
	n := len(p.x.ids)
	shards := min(runtime.GOMAXPROCS(0), max(1, n/minShard))
	per := (n + shards - 1) / shards
	tops := make([]*TopK[int32], shards)
	var nears []*TopK[int32]
	if p.near != nil && p.near.K > 0 {
		nears = make([]*TopK[int32], shards)
		p.near.x, p.near.tops = p.x, nears
	}
	var wg sync.WaitGroup
	for s := range shards {
		tops[s] = NewTopK[int32](p.pool)
		var near *TopK[int32]
		if nears != nil {
			nears[s] = NewTopK[int32](p.near.K)
			near = nears[s]
		}
		wg.Go(func() { p.scan(tops[s], near, s*per, min((s+1)*per, n)) })
	}
	wg.Wait()
	return tops
}

// scan scores rows lo to hi into top, scanBlock rows per kernel call.
// Once top is full, a row that cannot beat its worst (bar) is skipped by
// its bound, or left for the ScoreFunc to reject. near, when not nil,
// keeps the closest eligible rows by cosine.
func (p *firstPass[M]) scan(top, near *TopK[int32], lo, hi int) {
	x, b, bounded, qs, q16, score := p.x, p.b, p.bounded, p.qs, p.q16, p.score
	d := x.dim
	bar := math.Inf(-1)
	dots := make([]int32, scanBlock)
	for start := lo; start < hi; start += scanBlock {
		block := dots[:min(scanBlock, hi-start)]
		dotInt8Batch(q16, x.codes[start*d:(start+len(block))*d], block)
		for j, dp := range block {
			i := start + j
			c := float64(qs*x.scales[i]) * float64(dp)
			if near != nil && (near.Len() < p.near.K || c > near.h[0].Score) && p.near.Eligible(&x.meta[i]) {
				near.Push(int32(i), c)
			}
			if score == nil {
				continue
			}
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
				if top.Len() == p.pool {
					bar = top.h[0].Score
				}
			}
		}
	}
}

// undecided returns the rows of the first pass's tops that may still be
// among the k best: the score is non-decreasing in the cosine, so a row's
// score lies between its scores at the first-pass cosine minus and plus
// the error, and a row whose upper score is below the k-th best lower
// score cannot be.
func (x *Index[M]) undecided(qq *quantQuery, tops []*TopK[int32], k int, score ScoreFunc[M]) []int32 {
	type cand struct {
		row    int32
		lo, hi float64
	}
	var cands []cand
	var los []float64
	for _, top := range tops {
		for _, s := range top.h {
			i := int(s.Item)
			c, e := x.approx(qq, i), x.errEst(qq, i)
			hi, ok := score(&x.meta[i], c+e, math.Inf(-1), true)
			if !ok {
				continue
			}
			lo, ok := score(&x.meta[i], c-e, math.Inf(-1), true)
			if !ok {
				lo = math.Inf(-1)
			}
			cands = append(cands, cand{s.Item, lo, hi})
			los = append(los, lo)
		}
	}
	kth := math.Inf(-1)
	if len(los) >= k {
		sort.Float64s(los)
		kth = los[len(los)-k]
	}
	var rows []int32
	for _, c := range cands {
		if c.hi >= kth {
			rows = append(rows, c.row)
		}
	}
	return rows
}

// rescore reads rows' vectors through the Loader and returns the k best
// by their exact cosines' scores, best first.
func (x *Index[M]) rescore(ctx context.Context, qq *quantQuery, rows []int32, k int, score ScoreFunc[M]) ([]Hit[M], error) {
	cos, found, err := x.exact(ctx, qq.qv, rows)
	if err != nil {
		return nil, err
	}
	final := NewTopK[Hit[M]](k)
	for j, r := range rows {
		i := int(r)
		if !found[j] {
			continue
		}
		if sc, ok := score(&x.meta[i], cos[j], math.Inf(-1), true); ok {
			final.Push(Hit[M]{ID: x.ids[i], Meta: x.meta[i], Cosine: cos[j]}, sc)
		}
	}
	out := final.Sorted()
	hits := make([]Hit[M], len(out))
	for i, s := range out {
		hits[i] = s.Item
		hits[i].Score = s.Score
	}
	return hits, nil
}

// Range calls fn with the exact cosine of every row whose cosine with q
// may reach threshold: every row whose first-pass cosine plus its proven
// error bound does, for threshold matching (forget). fn sees exact values
// and decides.
func (x *Index[M]) Range(ctx context.Context, q []float32, threshold float64, fn func(id string, m *M, cosine float64)) error {
	if len(q) != x.dim {
		return nil
	}
	qq := x.quantQuery(q)
	var rows []int32
	for i := range x.ids {
		if x.upper(&qq, i) >= threshold {
			rows = append(rows, int32(i))
		}
	}
	cos, found, err := x.exact(ctx, qq.qv, rows)
	if err != nil {
		return err
	}
	for j, r := range rows {
		if found[j] {
			fn(x.ids[r], &x.meta[r], cos[j])
		}
	}
	return nil
}

// SumCodes reads every int8 code once, in parallel, eight bytes at a
// time, and returns a checksum: the floor of the first pass, for
// benchmarks.
func (x *Index[M]) SumCodes() uint64 {
	words := len(x.codes) / 8
	if words == 0 {
		return 0
	}
	all := unsafe.Slice((*uint64)(unsafe.Pointer(&x.codes[0])), words)
	shards := runtime.GOMAXPROCS(0)
	per := (words + shards - 1) / shards
	sums := make([]uint64, shards)
	var wg sync.WaitGroup
	for s := range shards {
		w := all[min(s*per, words):min((s+1)*per, words)]
		wg.Add(1)
		go func() {
			defer wg.Done()
			var a0, a1, a2, a3 uint64
			i := 0
			for ; i+4 <= len(w); i += 4 {
				a0 += w[i]
				a1 += w[i+1]
				a2 += w[i+2]
				a3 += w[i+3]
			}
			for ; i < len(w); i++ {
				a0 += w[i]
			}
			sums[s] = a0 + a1 + a2 + a3
		}()
	}
	wg.Wait()
	var total uint64
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

// IDs returns the row IDs, in index order.
func (x *Index[M]) IDs() []string { return append([]string(nil), x.ids...) }

// EachRow calls fn with the ID and metadata of every row, in row order;
// fn must not change the index.
func (x *Index[M]) EachRow(fn func(id string, m *M)) {
	for i := range x.meta {
		fn(x.ids[i], &x.meta[i])
	}
}

// Closest returns the k rows with the highest cosine with q among those
// eligible accepts, best first, ranked by their first-pass (int8)
// cosines: only those k are read through the Loader for their exact
// cosines, which the hits carry. eligible is called concurrently, and
// only for rows that could enter the k. It is
// for a cheap second look (the
// nearest rows a scored search left out), not for exact ranking: rows
// within the first pass's error of each other may come in either order.
func (x *Index[M]) Closest(ctx context.Context, q []float32, k int, eligible func(m *M) bool) ([]Hit[M], error) {
	if k <= 0 || len(x.ids) == 0 || len(q) != x.dim {
		return nil, nil
	}
	qq := x.quantQuery(q)
	near := &Near[M]{K: k, Eligible: eligible}
	p := firstPass[M]{x: x, qs: qq.qs, q16: make([]int16, x.dim), near: near}
	for i, c := range qq.qc {
		p.q16[i] = int16(c)
	}
	p.run()
	return near.Hits(), ctx.Err()
}
