package engine

import (
	"math"
	"testing"
)

// TestBM25Count checks that BM25Count reads back the count BM25Part was
// given, as SQLite's agentBM25 reads term frequencies back from bm25().
func TestBM25Count(t *testing.T) {
	for _, tf := range []float64{1, 2, 3, 7, 40} {
		for _, length := range []float64{1, 12, 80, 900} {
			for _, avg := range []float64{5, 30, 200} {
				if got := BM25Count(BM25Part(tf, length, avg), length, avg); math.Abs(got-tf) > 1e-9*tf {
					t.Errorf("BM25Count(BM25Part(%v, %v, %v)) = %v", tf, length, avg, got)
				}
			}
		}
	}
}

func TestBM25(t *testing.T) {
	for _, tt := range []struct {
		name string
		got  float64
		want float64
	}{
		// One word once in a row of average length scores its IDF.
		{"part at the mean", BM25Part(1, 10, 10), 1},
		// Twice as often, (2·2.2) / (2 + 1.2) = 1.375.
		{"part, tf 2", BM25Part(2, 10, 10), 1.375},
		// Twice the mean length: 2.2 / (1 + 1.2·1.75) = 0.7097.
		{"part, twice as long", BM25Part(1, 20, 10), 2.2 / (1 + 1.2*1.75)},
		{"IDF of 1 in 100", BM25IDF(100, 1), math.Log(99.5 / 1.5)},
		{"IDF of half the rows", BM25IDF(100, 50), math.Log(50.5 / 50.5)},
		{"IDF of most rows", BM25IDF(100, 80), 1e-6},
		{"best of none", BestScore(nil), 0},
		{"best", BestScore(map[int64]float64{1: 0.5, 2: 2.5, 3: 1}), 2.5},
	} {
		want := tt.want
		if want == 0 && tt.name == "IDF of half the rows" {
			want = 1e-6 // ln 1 = 0 is not positive
		}
		if math.Abs(tt.got-want) > 1e-12 {
			t.Errorf("%s = %v, want %v", tt.name, tt.got, want)
		}
	}
}

func TestAgentStats(t *testing.T) {
	var c AgentStats[float64]
	if _, ok := c.Get("a", 10); ok {
		t.Error("Get of an agent never put")
	}
	c.Put("a", 1000, 12.5)
	for _, tt := range []struct {
		rows int
		ok   bool
	}{{1000, true}, {1010, true}, {990, true}, {1011, false}, {989, false}} {
		if v, ok := c.Get("a", tt.rows); ok != tt.ok || ok && v != 12.5 {
			t.Errorf("Get(a, %d) = %v, %v; want %v", tt.rows, v, ok, tt.ok)
		}
	}
	c.Put("b", 5, 3) // a small agent: any new row reads it again
	if _, ok := c.Get("b", 6); ok {
		t.Error("Get(b, 6) stands after Put(b, 5)")
	}
	if _, ok := c.Get("c", 1000); ok {
		t.Error("Get of another agent")
	}
}
