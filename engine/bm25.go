package engine

import (
	"math"
	"sync"
	"time"
)

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

// AgentStats caches, per agent, a statistic of its rows that costs a pass
// over them and moves slowly (an agent's full-text row count and mean
// length, Config.AgentTextStatistics): a value stands until the agent's
// row count in its index has moved by more than a hundredth since it was
// read, or for AgentStatsTTL (edits keep the count). At most
// maxAgentStats agents are kept. The zero value is ready to use.
type AgentStats[T any] struct {
	mu sync.Mutex
	m  map[string]agentStat[T]
}

type agentStat[T any] struct {
	v    T
	rows int
	at   time.Time
}

const (
	AgentStatsTTL = 10 * time.Minute
	maxAgentStats = 4096
)

// Get is agentID's value if it still stands now that its index holds
// rows.
func (c *AgentStats[T]) Get(agentID string, rows int) (T, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.m[agentID]
	if !ok || time.Since(s.at) >= AgentStatsTTL || max(rows-s.rows, s.rows-rows) > s.rows/100 {
		var zero T
		return zero, false
	}
	return s.v, true
}

// Put records agentID's value v, read while its index held rows. The
// value is read outside the cache's lock, so that a long pass over one
// agent's rows does not hold up another's recall.
func (c *AgentStats[T]) Put(agentID string, rows int, v T) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxAgentStats {
		c.m = map[string]agentStat[T]{}
	}
	c.m[agentID] = agentStat[T]{v, rows, time.Now()}
}
