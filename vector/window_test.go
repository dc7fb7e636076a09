package vector

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"sync/atomic"
	"testing"
)

// bruteWindow is Window's reference: every row's exact cosine (the same
// float32 sum Window uses), sorted.
func bruteWindow(x *testIndex[testMeta], q []float32, n int, eligible func(*testMeta) bool, k int, score func(*testMeta) (float64, bool)) (near, best []Hit[testMeta]) {
	qv := Normalize(append([]float32(nil), q...))
	var all, scored []Hit[testMeta]
	for _, id := range x.IDs() {
		m, _ := x.Meta(id)
		v := x.vector(id)
		h := Hit[testMeta]{ID: id, Meta: m, Cosine: float64(Dot(qv, v))}
		if eligible(&m) {
			all = append(all, h)
		}
		if s, ok := score(&m); ok {
			h.Score = s
			scored = append(scored, h)
		}
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].Cosine != all[j].Cosine {
			return all[i].Cosine > all[j].Cosine
		}
		return all[i].ID < all[j].ID
	})
	near = all[:min(n, len(all))]
	if len(near) == n && n > 0 && near[0].Cosine == near[n-1].Cosine {
		for _, h := range all[n:] {
			if h.Cosine == near[0].Cosine {
				near = append(near, h)
			}
		}
	}
	sort.Slice(scored, func(i, j int) bool {
		if scored[i].Score != scored[j].Score {
			return scored[i].Score > scored[j].Score
		}
		return scored[i].ID < scored[j].ID
	})
	return near, scored[:min(k, len(scored))]
}

func TestWindowMatchesBruteForce(t *testing.T) {
	tests := []struct {
		name       string
		rows, dim  int
		centres    int  // 0: random directions
		duplicates int  // rows sharing one vector
		filtered   bool // half the rows ineligible
		n, k       int
	}{
		{"random 384", 5000, 384, 0, 0, false, 50, 10},
		{"clustered 100", 20000, 100, 50, 0, false, 50, 10},
		{"clustered 100 filtered", 10000, 100, 20, 0, true, 50, 60},
		{"clustered 1536 filtered", 3000, 1536, 10, 0, true, 50, 10},
		{"duplicates at the edge", 3000, 64, 5, 30, false, 50, 10},
		{"duplicates fill the window", 3000, 64, 5, 200, true, 50, 10},
		{"fewer rows than the window", 30, 32, 3, 0, true, 50, 10},
		{"no best", 2000, 64, 5, 0, false, 50, 0},
		{"no window", 2000, 64, 5, 0, false, 0, 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(tt.rows), uint64(tt.dim)))
			var rows [][]float32
			if tt.centres == 0 {
				for range tt.rows {
					rows = append(rows, randomUnit(r, tt.dim))
				}
			} else {
				rows = clustered(r, tt.rows, tt.dim, tt.centres)
			}
			x := newTestIndex[testMeta](tt.dim)
			for i, v := range rows {
				if i < tt.duplicates {
					v = rows[0]
				}
				// Few boost levels: many ties in best.
				x.Upsert(fmt.Sprintf("r%05d", r.IntN(1_000_000)), v, testMeta{kind: byte(i % 2), boost: float64(r.IntN(8)) / 8})
			}
			eligible := func(m *testMeta) bool { return !tt.filtered || m.kind == 1 }
			var calls atomic.Int64
			score := func(m *testMeta, bar float64) (float64, bool) {
				calls.Add(1)
				if !eligible(m) || m.boost < bar {
					return 0, false
				}
				return m.boost, true
			}
			plain := func(m *testMeta) (float64, bool) { return m.boost, eligible(m) }
			for qi := range 20 {
				q := make([]float32, tt.dim)
				base := rows[r.IntN(len(rows))]
				if qi == 0 {
					base = rows[0] // the duplicates' own direction
				}
				for j := range q {
					q[j] = base[j] + 0.02*float32(r.NormFloat64())
				}
				calls.Store(0)
				near, best := x.window(q, tt.n, eligible, tt.k, score)
				wantNear, wantBest := bruteWindow(x, q, tt.n, eligible, tt.k, plain)
				if !slices.Equal(near, wantNear) {
					t.Fatalf("query %d: near\n%v\nwant\n%v", qi, hitIDs(near), hitIDs(wantNear))
				}
				if !slices.Equal(best, wantBest) {
					t.Fatalf("query %d: best\n%v\nwant\n%v", qi, hitIDs(best), hitIDs(wantBest))
				}
				if got := calls.Load(); tt.k > 0 && got != int64(x.Len()) {
					t.Fatalf("score called %d times for %d rows", got, x.Len())
				}
			}
		})
	}
}

func hitIDs[M any](hs []Hit[M]) []string {
	var out []string
	for _, h := range hs {
		out = append(out, fmt.Sprintf("%s %.6f %.3f", h.ID, h.Cosine, h.Score))
	}
	return out
}

// TestWindowBound checks the first-pass error bound Window prunes with on
// vectors that stress int8 codes: random, spiky (one large component) and
// sparse.
func TestWindowBound(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	for _, dim := range []int{8, 100, 384, 1536} {
		x := newTestIndex[int](dim)
		var qs [][]float32
		for i := range 3000 {
			v := randomUnit(r, dim)
			switch i % 3 {
			case 1:
				v[r.IntN(dim)] += 5
			case 2:
				for j := range v {
					if r.IntN(4) != 0 {
						v[j] = 0
					}
				}
				v[r.IntN(dim)] = 1
			}
			x.Upsert(fmt.Sprint(i), v, i)
			if i%100 == 0 {
				qs = append(qs, v)
			}
		}
		worst, worstEst := 0.0, 0.0
		for _, q := range qs {
			qq := x.quantQuery(q)
			for i := range x.Len() {
				approx := x.approx(&qq, i)
				exact := float64(Dot(qq.qv, x.vector(fmt.Sprint(i))))
				bound := x.upper(&qq, i) - approx
				err := math.Abs(approx - exact)
				if err > bound {
					t.Fatalf("dim %d row %d: error %g above bound %g", dim, i, err, bound)
				}
				if est := x.errEst(&qq, i); err > est || est > bound*(1+1e-9) {
					t.Fatalf("dim %d row %d: error %g, Search's estimate %g, bound %g", dim, i, err, est, bound)
				} else {
					worst, worstEst = max(worst, err/bound), max(worstEst, err/est)
				}
			}
		}
		t.Logf("dim %d: worst error %.6f of the bound, %.6f of the estimate", dim, worst, worstEst)
	}
}

func TestWindowEdgeCases(t *testing.T) {
	x := newTestIndex[testMeta](4)
	all := func(*testMeta) bool { return true }
	score := func(m *testMeta, _ float64) (float64, bool) { return m.boost, true }
	if near, best := x.window([]float32{1, 0, 0, 0}, 5, all, 5, score); near != nil || best != nil {
		t.Errorf("empty index: %v %v", near, best)
	}
	x.Upsert("a", []float32{1, 0, 0, 0}, testMeta{boost: 0.5})
	x.Upsert("b", []float32{0, 1, 0, 0}, testMeta{boost: 0.9})
	if near, best := x.window([]float32{1, 0}, 5, all, 5, score); near != nil || best != nil {
		t.Errorf("wrong dimension: %v %v", near, best)
	}
	near, best := x.window([]float32{2, 1, 0, 0}, 5, all, 1, score)
	if len(near) != 2 || near[0].ID != "a" || near[1].ID != "b" || math.Abs(near[0].Cosine-2/math.Sqrt(5)) > 1e-6 {
		t.Errorf("near = %+v", near)
	}
	if len(best) != 1 || best[0].ID != "b" || best[0].Score != 0.9 || math.Abs(best[0].Cosine-1/math.Sqrt(5)) > 1e-6 {
		t.Errorf("best = %+v", best)
	}
	none := func(*testMeta) bool { return false }
	if near, _ := x.window([]float32{1, 0, 0, 0}, 5, none, 0, score); len(near) != 0 {
		t.Errorf("nothing eligible: near = %+v", near)
	}
}

func BenchmarkIndexWindow(b *testing.B) {
	for _, c := range []struct{ n, dim int }{{50_000, 100}, {50_000, 384}} {
		b.Run(fmt.Sprintf("n=%d/dim=%d", c.n, c.dim), func(b *testing.B) {
			r := rand.New(rand.NewPCG(1, 1))
			x := newTestIndex[testMeta](c.dim)
			for i, v := range clustered(r, c.n, c.dim, 50) {
				x.Upsert(fmt.Sprint(i), v, testMeta{boost: r.Float64()})
			}
			q := randomUnit(r, c.dim)
			all := func(*testMeta) bool { return true }
			score := func(m *testMeta, bar float64) (float64, bool) { return m.boost, m.boost >= bar }
			search := func(m *testMeta, cos, _ float64, _ bool) (float64, bool) { return cos, true }
			b.Run("window", func(b *testing.B) {
				for b.Loop() {
					x.window(q, 50, all, 10, score)
				}
			})
			b.Run("search", func(b *testing.B) {
				for b.Loop() {
					x.search(q, 10, search)
				}
			})
		})
	}
}
