package vector

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
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
func exactTop(x *Index[testMeta], rows [][]float32, ids []string, q []float32, k int, score ScoreFunc[testMeta]) []string {
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
			x := NewIndex[testMeta](tt.dim)
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
				got := x.Search(q, k, score)
				gotIDs := map[string]bool{}
				for _, h := range got {
					gotIDs[h.ID] = true
				}
				// The bound may skip rows only when they cannot make the
				// top: the ceiling is 0.6·max(0, c) + 0.3·boost + 0.
				bounded := map[string]bool{}
				for _, h := range x.SearchBounded(q, k, Bound{Sim: 0.6, Prior: 0.3}, score) {
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
	x := NewIndex[int](4)
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
	hits := x.Search([]float32{0, 0, 1, 0}, 1, all)
	if len(hits) != 1 || hits[0].ID != "c" || hits[0].Meta != 3 || hits[0].Cosine < 0.999 {
		t.Errorf("search for c = %+v", hits)
	}
	hits = x.Search([]float32{0, 0, 0, 1}, 5, all)
	if len(hits) != 2 || hits[0].ID != "b" || hits[0].Meta != 20 {
		t.Errorf("search for b = %+v", hits)
	}
	if m, ok := x.Meta("a"); ok {
		t.Errorf("removed row still has meta %v", m)
	}
	if !x.SetMeta("c", 30) || x.SetMeta("a", 1) {
		t.Error("SetMeta reports wrong existence")
	}
	if len(x.Search([]float32{1, 2}, 1, all)) != 0 {
		t.Error("wrong-dimension query returned hits")
	}
}

func TestIndexRange(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	const dim = 256
	x := NewIndex[int](dim)
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
	x.Range(q, threshold, 0.05, func(id string, m *int, c float64) {
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
			x := NewIndex[testMeta](c.dim)
			for i := range c.n {
				x.Upsert(fmt.Sprint(i), randomUnit(r, c.dim), testMeta{})
			}
			q := randomUnit(r, c.dim)
			score := func(m *testMeta, cos, _ float64, _ bool) (float64, bool) { return cos, true }
			b.SetBytes(int64(c.n * c.dim))
			for b.Loop() {
				x.Search(q, 10, score)
			}
		})
	}
}
