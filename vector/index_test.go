package vector

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"sync/atomic"
	"testing"
)

type testMeta struct {
	kind  byte
	boost float64
}

func randomUnit(r *rand.Rand, dim int) []float32 {
	v := make([]float32, dim)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	return Normalize(v)
}

// clustered returns n vectors around a few centres, so many rows are
// near-ties: the hard case for a quantised first pass.
func clustered(r *rand.Rand, n, dim, centres int) [][]float32 {
	cs := make([][]float32, centres)
	for i := range cs {
		cs[i] = randomUnit(r, dim)
	}
	out := make([][]float32, n)
	for i := range out {
		c := cs[r.IntN(centres)]
		v := make([]float32, dim)
		for j := range v {
			v[j] = c[j] + 0.35*float32(r.NormFloat64())/float32(dim)*20
		}
		out[i] = Normalize(v)
	}
	return out
}

// exactTop is the brute-force reference: exact cosine, same score.
func exactTop(x *testIndex[testMeta], rows [][]float32, ids []string, q []float32, k int, score ScoreFunc[testMeta]) []string {
	type cand struct {
		id string
		s  float64
	}
	var cs []cand
	qn := Normalize(append([]float32(nil), q...))
	for i, v := range rows {
		m, ok := x.Meta(ids[i])
		if !ok {
			continue
		}
		if s, ok := score(&m, Cosine(qn, v), math.Inf(-1), true); ok {
			cs = append(cs, cand{ids[i], s})
		}
	}
	sort.Slice(cs, func(i, j int) bool { return cs[i].s > cs[j].s })
	var out []string
	for i := 0; i < k && i < len(cs); i++ {
		out = append(out, cs[i].id)
	}
	return out
}

func TestIndexSearchMatchesExact(t *testing.T) {
	tests := []struct {
		name     string
		n, dim   int
		centres  int
		filtered bool
	}{
		{"random 384", 5000, 384, 0, false},
		{"clustered 384", 8000, 384, 20, false},
		{"clustered 1536 filtered", 3000, 1536, 10, true},
		{"clustered 100", 10000, 100, 50, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(tt.n), uint64(tt.dim)))
			var rows [][]float32
			if tt.centres == 0 {
				for range tt.n {
					rows = append(rows, randomUnit(r, tt.dim))
				}
			} else {
				rows = clustered(r, tt.n, tt.dim, tt.centres)
			}
			x := newTestIndex[testMeta](tt.dim)
			x.SetPrior(func(m *testMeta) float32 { return float32(m.boost) })
			ids := make([]string, tt.n)
			for i, v := range rows {
				ids[i] = fmt.Sprintf("r%d", i)
				x.Upsert(ids[i], v, testMeta{kind: byte(i % 2), boost: r.Float64()})
			}
			score := func(m *testMeta, c, _ float64, _ bool) (float64, bool) {
				if tt.filtered && m.kind != 1 {
					return 0, false
				}
				return 0.6*c + 0.3*m.boost, true
			}
			const k, queries = 10, 40
			found, total, boundedFound := 0, 0, 0
			for qi := range queries {
				base := rows[r.IntN(len(rows))]
				q := make([]float32, tt.dim)
				for j := range q {
					q[j] = base[j] + 0.02*float32(r.NormFloat64())
				}
				want := exactTop(x, rows, ids, q, k, score)
				got := x.search(q, k, score)
				gotIDs := map[string]bool{}
				for _, h := range got {
					gotIDs[h.ID] = true
				}
				// The bound may skip rows only when they cannot make the
				// top: the ceiling is 0.6·max(0, c) + 0.3·boost + 0.
				bounded := map[string]bool{}
				for _, h := range x.searchBounded(q, k, Bound{Sim: 0.6, Prior: 0.3}, score) {
					bounded[h.ID] = true
				}
				for _, id := range want {
					if gotIDs[id] {
						found++
					}
					if bounded[id] {
						boundedFound++
					}
				}
				total += len(want)
				if qi == 0 && len(got) != k {
					t.Fatalf("got %d hits, want %d", len(got), k)
				}
			}
			recall := float64(found) / float64(total)
			t.Logf("recall@%d against exact: %.4f", k, recall)
			if recall < 1.0 {
				t.Errorf("recall@%d = %.4f, want 1.0 on this set", k, recall)
			}
			if boundedFound != found {
				t.Errorf("bounded search found %d of the exact top %d, unbounded %d", boundedFound, total, found)
			}
		})
	}
}

func TestIndexUpsertRemove(t *testing.T) {
	x := newTestIndex[int](4)
	x.Upsert("a", []float32{1, 0, 0, 0}, 1)
	x.Upsert("b", []float32{0, 2, 0, 0}, 2)
	x.Upsert("c", []float32{0, 0, 3, 0}, 3)
	x.Upsert("b", []float32{0, 0, 0, 5}, 20) // replace in place
	if x.Len() != 3 {
		t.Fatalf("len = %d", x.Len())
	}
	x.Remove("a") // "c" moves into row 0
	x.Remove("zzz")
	if x.Len() != 2 {
		t.Fatalf("len after remove = %d", x.Len())
	}
	all := func(m *int, c, _ float64, _ bool) (float64, bool) { return c, true }
	hits := x.search([]float32{0, 0, 1, 0}, 1, all)
	if len(hits) != 1 || hits[0].ID != "c" || hits[0].Meta != 3 || hits[0].Cosine < 0.999 {
		t.Errorf("search for c = %+v", hits)
	}
	hits = x.search([]float32{0, 0, 0, 1}, 5, all)
	if len(hits) != 2 || hits[0].ID != "b" || hits[0].Meta != 20 {
		t.Errorf("search for b = %+v", hits)
	}
	if m, ok := x.Meta("a"); ok {
		t.Errorf("removed row still has meta %v", m)
	}
	if !x.SetMeta("c", 30) || x.SetMeta("a", 1) {
		t.Error("SetMeta reports wrong existence")
	}
	if len(x.search([]float32{1, 2}, 1, all)) != 0 {
		t.Error("wrong-dimension query returned hits")
	}
	rows := map[string]int{}
	x.EachRow(func(id string, m *int) { rows[id] = *m })
	if len(rows) != 2 || rows["b"] != 20 || rows["c"] != 30 {
		t.Errorf("EachRow saw %v, want b 20 and c 30", rows)
	}
}

func TestIndexRange(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	const dim = 256
	x := newTestIndex[int](dim)
	rows := clustered(r, 3000, dim, 5)
	for i, v := range rows {
		x.Upsert(fmt.Sprint(i), v, i)
	}
	q := rows[7]
	const threshold = 0.7
	want := map[string]bool{}
	for i, v := range rows {
		if Cosine(q, v) >= threshold {
			want[fmt.Sprint(i)] = true
		}
	}
	got := map[string]bool{}
	x.rng(q, threshold, func(id string, m *int, c float64) {
		if c >= threshold {
			got[id] = true
		}
	})
	if len(got) != len(want) || len(want) == 0 {
		t.Fatalf("range found %d, exact %d", len(got), len(want))
	}
	for id := range want {
		if !got[id] {
			t.Errorf("missing %s", id)
		}
	}
}

func BenchmarkIndexSearch(b *testing.B) {
	for _, c := range []struct{ n, dim int }{{10_000, 1536}, {50_000, 1536}, {50_000, 384}} {
		b.Run(fmt.Sprintf("n=%d/dim=%d", c.n, c.dim), func(b *testing.B) {
			r := rand.New(rand.NewPCG(1, 1))
			x := newTestIndex[testMeta](c.dim)
			for i := range c.n {
				x.Upsert(fmt.Sprint(i), randomUnit(r, c.dim), testMeta{})
			}
			q := randomUnit(r, c.dim)
			score := func(m *testMeta, cos, _ float64, _ bool) (float64, bool) { return cos, true }
			b.SetBytes(int64(c.n * c.dim))
			for b.Loop() {
				x.search(q, 10, score)
			}
		})
	}
}

// testIndex is an Index with its Loader's store: the vectors upserted, by
// ID, counting the rows read. Its lower-case methods are the Index's
// without context or error (the store never fails).
type testIndex[M any] struct {
	*Index[M]
	vecs  map[string][]float32
	reads atomic.Int64
}

func newTestIndex[M any](dim int) *testIndex[M] {
	t := &testIndex[M]{vecs: map[string][]float32{}}
	t.Index = NewIndex[M](dim, func(_ context.Context, ids []string, fn func(int, []float32)) error {
		for i, id := range ids {
			if v, ok := t.vecs[id]; ok {
				t.reads.Add(1)
				fn(i, v)
			}
		}
		return nil
	})
	return t
}

func (t *testIndex[M]) Upsert(id string, v []float32, m M) {
	t.Index.Upsert(id, v, m)
	t.vecs[id] = append([]float32(nil), v...)
}

func (t *testIndex[M]) Remove(id string) {
	t.Index.Remove(id)
	delete(t.vecs, id)
}

// vector is id's stored vector, normalised.
func (t *testIndex[M]) vector(id string) []float32 {
	return Normalize(append([]float32(nil), t.vecs[id]...))
}

func (t *testIndex[M]) search(q []float32, k int, score ScoreFunc[M]) []Hit[M] {
	return must(t.Index.Search(context.Background(), q, k, score))
}

func (t *testIndex[M]) searchBounded(q []float32, k int, b Bound, score ScoreFunc[M]) []Hit[M] {
	return must(t.Index.SearchBounded(context.Background(), q, k, b, score))
}

func (t *testIndex[M]) window(q []float32, n int, eligible func(m *M) bool, k int, score func(m *M, bar float64) (float64, bool)) (near, best []Hit[M]) {
	near, best, err := t.Index.Window(context.Background(), q, n, eligible, k, score)
	if err != nil {
		panic(err)
	}
	return near, best
}

func (t *testIndex[M]) rng(q []float32, threshold float64, fn func(id string, m *M, cosine float64)) {
	if err := t.Index.Range(context.Background(), q, threshold, fn); err != nil {
		panic(err)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestSearchReadsFew checks that Search reads only the candidates its
// first pass cannot rank, not its whole pool, and leaves out rows the
// store no longer has.
func TestSearchReadsFew(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	for _, dim := range []int{100, 384, 1536} {
		x := newTestIndex[testMeta](dim)
		const n = 20_000
		for i := range n {
			x.Upsert(fmt.Sprint(i), randomUnit(r, dim), testMeta{boost: r.Float64()})
		}
		score := func(m *testMeta, c, _ float64, _ bool) (float64, bool) { return 0.6*max(0, c) + 0.3*m.boost, true }
		const k, queries = 10, 20
		var reads int64
		for range queries {
			base := x.vector(fmt.Sprint(r.IntN(n)))
			q := make([]float32, dim)
			for j := range q {
				q[j] = base[j] + 0.03*float32(r.NormFloat64())
			}
			x.reads.Store(0)
			got := x.search(q, k, score)
			reads += x.reads.Load()
			if len(got) != k {
				t.Fatalf("dim %d: %d hits", dim, len(got))
			}
		}
		per := float64(reads) / queries
		t.Logf("dim %d: %.1f rows read per search of %d (pool %d)", dim, per, k, 4*k+32)
		if per > 2*k {
			t.Errorf("dim %d: %.1f rows read per search, want at most %d", dim, per, 2*k)
		}
	}

	// A row deleted from the store after it was indexed is left out.
	x := newTestIndex[int](4)
	x.Upsert("a", []float32{1, 0, 0, 0}, 1)
	x.Upsert("b", []float32{1, 0.1, 0, 0}, 2)
	delete(x.vecs, "a")
	all := func(m *int, c, _ float64, _ bool) (float64, bool) { return c, true }
	if hits := x.search([]float32{1, 0, 0, 0}, 2, all); len(hits) != 1 || hits[0].ID != "b" {
		t.Errorf("hits = %+v, want b alone", hits)
	}
}

func TestLoaderErrorReturned(t *testing.T) {
	boom := errors.New("disk gone")
	x := NewIndex[int](2, func(context.Context, []string, func(int, []float32)) error { return boom })
	x.Upsert("a", []float32{1, 0}, 1)
	all := func(m *int, c, _ float64, _ bool) (float64, bool) { return c, true }
	if _, err := x.Search(context.Background(), []float32{1, 0}, 1, all); !errors.Is(err, boom) {
		t.Errorf("Search: %v", err)
	}
	if err := x.Range(context.Background(), []float32{1, 0}, 0.5, func(string, *int, float64) {}); !errors.Is(err, boom) {
		t.Errorf("Range: %v", err)
	}
	eligible := func(*int) bool { return true }
	if _, _, err := x.Window(context.Background(), []float32{1, 0}, 1, eligible, 1, func(*int, float64) (float64, bool) { return 1, true }); !errors.Is(err, boom) {
		t.Errorf("Window: %v", err)
	}
	if err := x.Vectors(context.Background(), []string{"a"}, func(int, []float32) {}); !errors.Is(err, boom) {
		t.Errorf("Vectors: %v", err)
	}
}

func TestSumCodes(t *testing.T) {
	x := newTestIndex[int](16)
	if x.SumCodes() != 0 {
		t.Error("empty index has a nonzero checksum")
	}
	x.Upsert("a", []float32{1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 0)
	// One code of 127 in the first byte of the first word.
	if got := x.SumCodes(); got != 127 {
		t.Errorf("SumCodes = %d, want 127", got)
	}
}

func TestVectorsRepeatedIDs(t *testing.T) {
	x := newTestIndex[int](2)
	x.Upsert("a", []float32{3, 4}, 0)
	x.Upsert("b", []float32{0, 2}, 0)
	got := map[int][]float32{}
	err := x.Vectors(context.Background(), []string{"b", "a", "b", "gone"}, func(i int, v []float32) {
		got[i] = append([]float32(nil), v...)
	})
	if err != nil || len(got) != 3 || got[0][1] != 1 || got[1][0] != 0.6 || got[2][1] != 1 || x.reads.Load() != 2 {
		t.Errorf("Vectors = %v, %v (%d read)", got, err, x.reads.Load())
	}
}

// TestClosest checks the cheap second look: eligible rows only, best
// first, cosines within the first pass's error, and the nearest rows found (those clear of the
// first pass's error from the rest).
func TestClosest(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const dim = 64
	x := newTestIndex[testMeta](dim)
	var rows [][]float32
	for i := range 2000 {
		v := randomUnit(r, dim)
		rows = append(rows, v)
		x.Upsert(fmt.Sprint(i), v, testMeta{kind: byte(i % 2)})
	}
	odd := func(m *testMeta) bool { return m.kind == 1 }
	// A row itself is its own nearest.
	hits, err := x.Closest(context.Background(), rows[7], 1, odd)
	if err != nil || len(hits) != 1 || hits[0].ID != "7" || math.Abs(hits[0].Cosine-1) > 0.02 {
		t.Fatalf("closest to row 7: %+v, %v", hits, err)
	}
	q := randomUnit(r, dim)
	hits, err = x.Closest(context.Background(), q, 5, odd)
	if err != nil || len(hits) != 5 {
		t.Fatalf("5 closest: %d, %v", len(hits), err)
	}
	var exact []float64
	for i, v := range rows {
		if i%2 == 1 {
			exact = append(exact, Cosine(q, v))
		}
	}
	sort.Sort(sort.Reverse(sort.Float64Slice(exact)))
	for i, h := range hits {
		var id int
		fmt.Sscan(h.ID, &id)
		if id%2 != 1 {
			t.Errorf("hit %s is not eligible", h.ID)
		}
		if want := Cosine(q, rows[id]); math.Abs(h.Cosine-want) > 0.02 {
			t.Errorf("hit %s: cosine %v, want within 0.02 of the exact %v", h.ID, h.Cosine, want)
		}
		if h.Cosine < exact[4]-0.02 || i > 0 && h.Cosine > hits[i-1].Cosine+0.02 {
			t.Errorf("hit %d (%s) cosine %.4f: not among the nearest (5th exact %.4f) or out of order", i, h.ID, h.Cosine, exact[4])
		}
	}
	if hits, err := x.Closest(context.Background(), q, 3, func(*testMeta) bool { return false }); err != nil || len(hits) != 0 {
		t.Errorf("nothing eligible: %v, %v", hits, err)
	}
}

// TestSearchNear: the closest rows a bounded search keeps besides its
// results are those Closest finds in a pass of its own, and the search's
// results are SearchBounded's.
func TestSearchNear(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	const dim = 64
	x := newTestIndex[testMeta](dim)
	for i := range 3000 {
		x.Upsert(fmt.Sprint(i), randomUnit(r, dim), testMeta{kind: byte(i % 3)})
	}
	eligible := func(m *testMeta) bool { return m.kind != 0 }
	score := func(m *testMeta, cos, _ float64, _ bool) (float64, bool) { return cos, m.kind == 2 }
	for range 10 {
		q := randomUnit(r, dim)
		near := &Near[testMeta]{K: 7, Eligible: eligible}
		got, err := x.SearchNear(context.Background(), q, 5, Bound{}, score, near)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := x.SearchBounded(context.Background(), q, 5, Bound{}, score)
		closest, _ := x.Closest(context.Background(), q, 7, eligible)
		if !near.Done() || fmt.Sprint(near.Hits()) != fmt.Sprint(closest) || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("near %v\nwant %v\nresults %v\nwant %v", near.Hits(), closest, got, want)
		}
	}
	var none *Near[testMeta]
	if none.Done() || none.Hits() != nil {
		t.Errorf("a nil Near has hits")
	}
}

func TestIndexCosine(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, dim := range []int{64, 384, 1536} {
		x := NewIndex[int](dim, nil)
		rows := clustered(r, 50, dim, 3)
		for i, v := range rows {
			x.Upsert(fmt.Sprint(i), v, i)
		}
		worst := 0.0
		for i := range rows {
			for j := range rows {
				got, ok := x.Cosine(fmt.Sprint(i), fmt.Sprint(j))
				if !ok {
					t.Fatalf("dim %d: Cosine(%d, %d) not found", dim, i, j)
				}
				worst = max(worst, math.Abs(got-Cosine(rows[i], rows[j])))
			}
		}
		if worst > 0.01 {
			t.Errorf("dim %d: code cosine off the exact one by up to %.4f, want within 0.01", dim, worst)
		}
	}
	x := NewIndex[int](4, nil)
	x.Upsert("a", []float32{1, 0, 0, 0}, 0)
	if _, ok := x.Cosine("a", "b"); ok {
		t.Error("Cosine with a row not in the index reports ok")
	}
}
