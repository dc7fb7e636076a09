package vector

import (
	"container/heap"
	"math"
	"runtime"
	"sort"
	"sync"
)

// Window serves score fusions that min-max normalise the cosine per query
// over the query's n nearest rows: in one pass over the index it returns
// those rows, which give the normalisation its bounds, and the k rows that
// score best by a score that leaves the cosine out, which are the best of
// every other row, whose normalised cosine is 0.
//
// near holds the n eligible rows of highest exact cosine with q, best
// first, ties broken by ID; fewer when fewer rows are eligible. When all n
// share one cosine, every eligible row with that cosine is added, so that
// a row outside near always has a cosine below near's last or, when near's
// cosines are all equal, below near's first. eligible is called only for
// rows that could enter near, at most once each from the pass.
//
// best holds the k rows of highest score(m, bar), best first, ties broken
// by ID, each with its exact cosine. score is called exactly once for
// every row, concurrently from several goroutines; it reports ok false
// for a row that is not eligible, and may report it for a row whose score
// cannot reach bar (bar is -Inf until k rows are held).
//
// Unlike Search, near is exact, not subject to an oversampling margin: the
// int8 first pass only skips rows whose cosine it proves too low. With q̃
// and ṽ the dequantised codes of the unit vectors q and v, the first-pass
// product q̃·ṽ differs from q·v by q̃·(ṽ−v) + (q̃−q)·v; each component of
// ṽ−v is at most half v's code scale, and v has unit length, so the error
// is at most scale(v)/2·‖q̃‖₁ + ‖q̃−q‖₂, plus float32 rounding. A row whose
// first-pass cosine plus that bound is below the n-th best exact cosine
// found so far cannot enter near; every other row is checked exactly.
func (x *Index[M]) Window(q []float32, n int, eligible func(m *M) bool, k int, score func(m *M, bar float64) (float64, bool)) (near, best []Hit[M]) {
	rows := len(x.ids)
	if rows == 0 || len(q) != x.dim || (n <= 0 && k <= 0) {
		return nil, nil
	}
	d := x.dim
	qq := x.quantQuery(q)
	qv := qq.qv

	shards := min(runtime.GOMAXPROCS(0), max(1, rows/minShard))
	per := (rows + shards - 1) / shards
	nears := make([]rowHeap, shards)
	bests := make([]rowHeap, shards)
	var wg sync.WaitGroup
	for s := range shards {
		lo, hi := s*per, min((s+1)*per, rows)
		wg.Add(1)
		go func(nh, bh *rowHeap) {
			defer wg.Done()
			nh.ids, bh.ids = x.ids, x.ids
			for i := lo; i < hi; i++ {
				m := &x.meta[i]
				if n > 0 {
					full := len(nh.rows) == n
					if !full || x.upper(&qq, i) >= nh.rows[0].score {
						c := float64(Dot(qv, x.vecs[i*d:(i+1)*d]))
						if (!full || nh.beats(c, i)) && eligible(m) {
							nh.offer(c, i, n)
						}
					}
				}
				if k > 0 {
					bar := math.Inf(-1)
					if len(bh.rows) == k {
						bar = bh.rows[0].score
					}
					if sc, ok := score(m, bar); ok && (len(bh.rows) < k || bh.beats(sc, i)) {
						bh.offer(sc, i, k)
					}
				}
			}
		}(&nears[s], &bests[s])
	}
	wg.Wait()

	nearRows := x.merge(nears, n)
	if len(nearRows) == n && n > 0 && nearRows[0].score == nearRows[n-1].score {
		// Every row of the window ties: so may rows past it.
		top := nearRows[0].score
		in := make(map[int32]bool, n)
		for _, r := range nearRows {
			in[r.row] = true
		}
		for i := range rows {
			if in[int32(i)] || x.upper(&qq, i) < top {
				continue
			}
			if c := float64(Dot(qv, x.vecs[i*d:(i+1)*d])); c >= top && eligible(&x.meta[i]) {
				nearRows = append(nearRows, scoredRow{c, int32(i)})
			}
		}
		x.sortRows(nearRows)
	}
	near = make([]Hit[M], len(nearRows))
	for j, r := range nearRows {
		near[j] = Hit[M]{ID: x.ids[r.row], Meta: x.meta[r.row], Cosine: r.score}
	}
	bestRows := x.merge(bests, k)
	best = make([]Hit[M], len(bestRows))
	for j, r := range bestRows {
		i := int(r.row)
		best[j] = Hit[M]{ID: x.ids[i], Meta: x.meta[i], Cosine: float64(Dot(qv, x.vecs[i*d:(i+1)*d])), Score: r.score}
	}
	return near, best
}

// quantQuery is a query's unit vector and int8 codes, with the parts of
// the first pass's error bound.
type quantQuery struct {
	qv     []float32
	qc     []int8
	qs     float32
	halfL1 float64 // ‖q̃‖₁/2
	slack  float64 // ‖q̃−q‖₂ and float32 rounding
}

func (x *Index[M]) quantQuery(q []float32) quantQuery {
	qq := quantQuery{qv: Normalize(append([]float32(nil), q...)), qc: make([]int8, x.dim)}
	qq.qs = Quantize(qq.qc, qq.qv)
	var l1, e2 float64
	for j, c := range qq.qc {
		l1 += math.Abs(float64(c))
		e := float64(qq.qs)*float64(c) - float64(qq.qv[j])
		e2 += e * e
	}
	qq.halfL1 = float64(qq.qs) * l1 / 2
	// The exact cosine is a float32 sum of dim products of at most 1 in
	// all; the stored vectors' lengths are 1 within float32 rounding.
	qq.slack = math.Sqrt(e2)*1.001 + float64(x.dim)*2.5e-7 + 1e-6
	return qq
}

// approx is row i's first-pass cosine with qq.
func (x *Index[M]) approx(qq *quantQuery, i int) float64 {
	d := x.dim
	return float64(qq.qs*x.scales[i]) * float64(dotInt8(qq.qc, x.codes[i*d:(i+1)*d]))
}

// upper bounds row i's exact cosine with qq.
func (x *Index[M]) upper(qq *quantQuery, i int) float64 {
	return x.approx(qq, i) + float64(x.scales[i])*qq.halfL1 + qq.slack
}

// merge returns the best n rows of the shards' heaps, best first.
func (x *Index[M]) merge(hs []rowHeap, n int) []scoredRow {
	var all []scoredRow
	for _, h := range hs {
		all = append(all, h.rows...)
	}
	x.sortRows(all)
	return all[:min(len(all), max(n, 0))]
}

// sortRows sorts rows best first: higher score, then lower ID.
func (x *Index[M]) sortRows(rows []scoredRow) {
	sort.Slice(rows, func(a, b int) bool {
		if rows[a].score != rows[b].score {
			return rows[a].score > rows[b].score
		}
		return x.ids[rows[a].row] < x.ids[rows[b].row]
	})
}

// scoredRow is a row of the index with a score.
type scoredRow struct {
	score float64
	row   int32
}

// rowHeap keeps the best rows offered, the worst at the root: lower score,
// then higher ID, is worse.
type rowHeap struct {
	rows []scoredRow
	ids  []string
}

// beats reports whether row i scoring s is better than the root.
func (h *rowHeap) beats(s float64, i int) bool {
	r := h.rows[0]
	return s > r.score || s == r.score && h.ids[i] < h.ids[r.row]
}

// offer adds row i scoring s, dropping the root when more than n are
// held. The caller has checked that it beats the root of a full heap.
func (h *rowHeap) offer(s float64, i, n int) {
	if len(h.rows) < n {
		heap.Push(h, scoredRow{s, int32(i)})
		return
	}
	h.rows[0] = scoredRow{s, int32(i)}
	heap.Fix(h, 0)
}

func (h *rowHeap) Len() int { return len(h.rows) }
func (h *rowHeap) Less(a, b int) bool {
	ra, rb := h.rows[a], h.rows[b]
	if ra.score != rb.score {
		return ra.score < rb.score
	}
	return h.ids[ra.row] > h.ids[rb.row]
}
func (h *rowHeap) Swap(a, b int) { h.rows[a], h.rows[b] = h.rows[b], h.rows[a] }
func (h *rowHeap) Push(v any)    { h.rows = append(h.rows, v.(scoredRow)) }
func (h *rowHeap) Pop() any {
	v := h.rows[len(h.rows)-1]
	h.rows = h.rows[:len(h.rows)-1]
	return v
}
