package engine

import "math"

// BM25 as SQLite's FTS5 computes it (its bm25() function), for the stores
// that compute it themselves: PostgreSQL from its postings, SQLite when an
// agent's own statistics replace the index's (Config.AgentTextStatistics).

// BM25's parameters, FTS5's.
const (
	BM25K1 = 1.2
	BM25B  = 0.75
)

// BM25IDF is FTS5's IDF of a word that hits of rows rows hold:
// ln((rows − hits + 0.5) / (hits + 0.5)), and 1e-6 where that is not
// positive (a word in half the rows or more), so that it never counts
// against a row.
func BM25IDF(rows, hits int64) float64 {
	idf := math.Log((float64(rows) - float64(hits) + 0.5) / (float64(hits) + 0.5))
	if idf <= 0 {
		return 1e-6
	}
	return idf
}

// BM25Part is BM25's term-frequency part of a word found tf times in a row
// of length tokens, where rows average avgLen: tf·(k1+1) / (tf + k1·(1 − b
// + b·length/avgLen)). A row's score is the sum of BM25IDF × BM25Part over
// the query's words.
func BM25Part(tf, length, avgLen float64) float64 {
	return tf * (BM25K1 + 1) / (tf + BM25K1*(1-BM25B+BM25B*length/avgLen))
}

// BM25Count is the tf whose BM25Part is part: BM25Part solved for tf.
func BM25Count(part, length, avgLen float64) float64 {
	k := BM25K1 * (1 - BM25B + BM25B*length/avgLen)
	return part * k / max(1e-12, BM25K1+1-part)
}

// BestScore is the highest of scores, 0 for none.
func BestScore(scores map[int64]float64) float64 {
	best := 0.0
	for _, s := range scores {
		best = max(best, s)
	}
	return best
}
