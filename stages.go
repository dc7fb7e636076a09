package hippo

import "time"

// Recall stages, as StageFunc names them (MemoryOptions.Stages).
const (
	// StageEmbed embeds the query.
	StageEmbed = "embed"
	// StageSync brings the agent's index up to date from the store's
	// change feed (or loads it).
	StageSync = "sync"
	// StageText reads the BM25 scores of the chunks matching the query's
	// words (hybrid recall only).
	StageText = "text"
	// StageScan scans the index: each row's cosine, fused with its BM25
	// score, and its strength and recency make its score; the top k are
	// kept. Fusion happens row by row inside the scan, so it is timed
	// with it.
	StageScan = "scan"
	// StageBoost writes the boost of the chunks returned and reads them.
	StageBoost = "boost"
)

// StageFunc is told how long each stage of an operation took.
type StageFunc func(stage string, d time.Duration)

// Done tells f, if set, that stage ran from start until now, and returns
// now: the start of the next stage. A nil f returns start.
func (f StageFunc) Done(stage string, start time.Time) time.Time {
	if f == nil {
		return start
	}
	now := time.Now()
	f(stage, now.Sub(start))
	return now
}
