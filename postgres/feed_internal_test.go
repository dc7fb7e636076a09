package postgres

import "testing"

// TestPosition checks the feed position's packing of epoch and version,
// and that a later epoch is past every position of an earlier one.
func TestPosition(t *testing.T) {
	for _, tc := range []struct{ epoch, version int64 }{
		{0, 0}, {0, 1}, {1, 0}, {3, 12345}, {7, 1<<epochShift - 1}, {1 << 20, 42},
	} {
		p := position(tc.epoch, tc.version)
		if epochOf(p) != tc.epoch || versionOf(p) != tc.version {
			t.Errorf("position(%d, %d) = %d reads back as (%d, %d)", tc.epoch, tc.version, p, epochOf(p), versionOf(p))
		}
		if next := position(tc.epoch+1, 0); next <= p {
			t.Errorf("position(%d, 0) = %d is not past position(%d, %d) = %d", tc.epoch+1, next, tc.epoch, tc.version, p)
		}
	}
}

// TestBM25 checks the BM25 term score: rarer terms, more occurrences and
// shorter rows score higher; a term in most rows scores next to nothing.
func TestBM25(t *testing.T) {
	for _, tc := range []struct {
		name          string
		higher, lower [5]float64 // tf, dl, avgdl, n, df
	}{
		{"rarer term", [5]float64{1, 10, 10, 1000, 5}, [5]float64{1, 10, 10, 1000, 50}},
		{"more occurrences", [5]float64{3, 10, 10, 1000, 5}, [5]float64{1, 10, 10, 1000, 5}},
		{"shorter row", [5]float64{1, 5, 10, 1000, 5}, [5]float64{1, 20, 10, 1000, 5}},
		{"term in most rows", [5]float64{1, 10, 10, 1000, 400}, [5]float64{1, 10, 10, 1000, 900}},
	} {
		score := func(a [5]float64) float64 { return bm25(a[0], a[1], a[2], int64(a[3]), int64(a[4])) }
		if h, l := score(tc.higher), score(tc.lower); h <= l || l <= 0 {
			t.Errorf("%s: %v ≤ %v, want higher and both positive", tc.name, h, l)
		}
	}
	// FTS5's value for one occurrence in a row of average length, 1 row of
	// 100 holding the term: log(99.5/1.5) × 2.2 / 2.2.
	if got, want := bm25(1, 10, 10, 100, 1), 4.194692536; got < want-1e-6 || got > want+1e-6 {
		t.Errorf("bm25(1, 10, 10, 100, 1) = %v, want %v", got, want)
	}
}
