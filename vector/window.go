package vector

import (
	"container/heap"
	"context"
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
// Unlike Search, whose error allowance is statistical, near is exact: the
// int8 first pass keeps the eligible rows whose cosine plus its proven
// error (bound) reaches the n-th best cosine minus its error, a floor under
// the n-th best exact cosine; only they, with the k rows of best, are read
// through the Loader and ranked exactly.
func (x *Index[M]) Window(ctx context.Context, q []float32, n int, eligible func(m *M) bool, k int, score func(m *M, bar float64) (float64, bool)) (near, best []Hit[M], err error) {
	if len(x.ids) == 0 || len(q) != x.dim || (n <= 0 && k <= 0) {
		return nil, nil, nil
	}
	qq := x.quantQuery(q)
	floors, cands, bests := x.windowPass(&qq, n, eligible, k, score)
	read := nearCandidates(floors, cands, n)
	nearEnd := len(read)
	bestRows := x.merge(bests, k)
	for _, r := range bestRows {
		read = append(read, r.row)
	}
	cos, found, err := x.exact(ctx, qq.qv, read)
	if err != nil {
		return nil, nil, err
	}
	near = x.nearHits(read[:nearEnd], cos, found, n)
	best = make([]Hit[M], 0, len(bestRows))
	for j, r := range bestRows {
		if found[nearEnd+j] {
			i := int(r.row)
			best = append(best, Hit[M]{ID: x.ids[i], Meta: x.meta[i], Cosine: cos[nearEnd+j], Score: r.score})
		}
	}
	return near, best, nil
}

// windowCand is a row that may be among a window's n nearest, with the
// upper bound of its cosine.
type windowCand struct {
	row   int32
	upper float64
}

// windowPass is Window's first pass, in parallel shards. Each shard
// returns the n best lower bounds of its eligible rows' cosines (floors),
// the rows whose upper bound reached the shard's n-th lower bound when
// they were read (cands), and its k best rows by score (bests).
func (x *Index[M]) windowPass(qq *quantQuery, n int, eligible func(m *M) bool, k int, score func(m *M, bar float64) (float64, bool)) ([]*TopK[int32], [][]windowCand, []rowHeap) {
	rows := len(x.ids)
	shards := min(runtime.GOMAXPROCS(0), max(1, rows/minShard))
	per := (rows + shards - 1) / shards
	floors := make([]*TopK[int32], shards)
	cands := make([][]windowCand, shards)
	bests := make([]rowHeap, shards)
	var wg sync.WaitGroup
	for s := range shards {
		lo, hi := s*per, min((s+1)*per, rows)
		floors[s] = NewTopK[int32](n)
		wg.Add(1)
		go func(fl *TopK[int32], cs *[]windowCand, bh *rowHeap) {
			defer wg.Done()
			bh.ids = x.ids
			for i := lo; i < hi; i++ {
				m := &x.meta[i]
				if n > 0 {
					c, e := x.approx(qq, i), x.bound(qq, i)
					if (fl.Len() < n || c+e >= fl.h[0].Score) && eligible(m) {
						fl.Push(int32(i), c-e)
						*cs = append(*cs, windowCand{int32(i), c + e})
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
		}(floors[s], &cands[s], &bests[s])
	}
	wg.Wait()
	return floors, cands, bests
}

// nearCandidates returns the rows of cands that may be among the n
// nearest: those whose upper bound reaches the n-th best lower bound over
// all shards.
func nearCandidates(floors []*TopK[int32], cands [][]windowCand, n int) []int32 {
	var lows []float64
	for _, fl := range floors {
		for _, s := range fl.h {
			lows = append(lows, s.Score)
		}
	}
	floor := math.Inf(-1)
	if n > 0 && len(lows) >= n {
		sort.Float64s(lows)
		floor = lows[len(lows)-n]
	}
	var read []int32
	for _, cs := range cands {
		for _, c := range cs {
			if c.upper >= floor {
				read = append(read, c.row)
			}
		}
	}
	return read
}

// nearHits returns the n rows of read nearest by their exact cosines cos
// (found false: the row was not loaded), best first, with every row tied
// with them when all n tie.
func (x *Index[M]) nearHits(read []int32, cos []float64, found []bool, n int) []Hit[M] {
	var nearRows []scoredRow
	for j, r := range read {
		if found[j] {
			nearRows = append(nearRows, scoredRow{cos[j], r})
		}
	}
	x.sortRows(nearRows)
	if len(nearRows) > n {
		// When all n tie, so do the rows past them with the same cosine.
		end := n
		if nearRows[0].score == nearRows[n-1].score {
			for end < len(nearRows) && nearRows[end].score == nearRows[0].score {
				end++
			}
		}
		nearRows = nearRows[:end]
	}
	near := make([]Hit[M], len(nearRows))
	for j, r := range nearRows {
		near[j] = Hit[M]{ID: x.ids[r.row], Meta: x.meta[r.row], Cosine: r.score}
	}
	return near
}

// quantQuery is a query's unit vector and int8 codes, with the parts of
// the first pass's error bound.
type quantQuery struct {
	qv     []float32
	qc     []int8
	qs     float32
	halfL1 float64 // ‖q̃‖₁/2
	slack  float64 // ‖q̃−q‖₂ and float32 rounding
	q2     float64 // ‖q̃‖₂²
	e2     float64 // ‖q̃−q‖₂²
	round  float64 // float32 rounding
}

func (x *Index[M]) quantQuery(q []float32) quantQuery {
	qq := quantQuery{qv: Normalize(append([]float32(nil), q...)), qc: make([]int8, x.dim)}
	qq.qs = Quantize(qq.qc, qq.qv)
	var l1, e2, q2 float64
	for j, c := range qq.qc {
		l1 += math.Abs(float64(c))
		d := float64(qq.qs) * float64(c)
		q2 += d * d
		e := d - float64(qq.qv[j])
		e2 += e * e
	}
	qq.halfL1 = float64(qq.qs) * l1 / 2
	qq.q2, qq.e2 = q2, e2
	// The exact cosine is a float32 sum of dim products of at most 1 in
	// all; the stored vectors' lengths are 1 within float32 rounding.
	qq.round = float64(x.dim)*2.5e-7 + 1e-6
	qq.slack = math.Sqrt(e2)*1.001 + qq.round
	return qq
}

// approx is row i's first-pass cosine with qq.
func (x *Index[M]) approx(qq *quantQuery, i int) float64 {
	d := x.dim
	return float64(qq.qs*x.scales[i]) * float64(dotInt8(qq.qc, x.codes[i*d:(i+1)*d]))
}

// bound is the proven bound of row i's first-pass error. With q̃ and ṽ
// the dequantised codes of the unit vectors q and v, the first-pass
// product q̃·ṽ differs from q·v by q̃·(ṽ−v) + (q̃−q)·v; each component of
// ṽ−v is at most half v's code scale, and v has unit length, so the error
// is at most scale(v)/2·‖q̃‖₁ + ‖q̃−q‖₂, plus float32 rounding.
func (x *Index[M]) bound(qq *quantQuery, i int) float64 {
	return float64(x.scales[i])*qq.halfL1 + qq.slack
}

// upper bounds row i's exact cosine with qq.
func (x *Index[M]) upper(qq *quantQuery, i int) float64 {
	return x.approx(qq, i) + x.bound(qq, i)
}

// errEst is the error Search allows row i's first-pass cosine: the proven
// bound, or six standard deviations of the error when that is less. The
// error is q̃·(ṽ−v) + (q̃−q)·v, two sums of dim products. Taking the
// rounding errors ṽ−v and q̃−q as fixed and the other vector's direction
// as random, their deviations are ‖ṽ−v‖·‖q̃‖/√dim and ‖q̃−q‖/√dim. They
// are added, not their variances: when the query is a stored vector
// (duplicate checks, consolidation) the two errors are the same. The
// proven bound assumes every rounding error at its extreme and of one
// sign, which for a vector of more than a dozen comparable components is
// far larger.
func (x *Index[M]) errEst(qq *quantQuery, i int) float64 {
	sd := (float64(x.resids[i])*math.Sqrt(qq.q2) + math.Sqrt(qq.e2)) / math.Sqrt(float64(x.dim))
	return min(x.bound(qq, i), 6*sd+qq.round)
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
