package hippo

import "time"

// ConsolidateOptions configures Consolidate.
type ConsolidateOptions struct {
	// AgentID limits the pass to one agent; required.
	AgentID string
	// Grace is how long a chunk must have been under the strength floor
	// before it is deleted; 0 means 30 days.
	Grace time.Duration
	// MergeThreshold is the cosine above which two memories of the same
	// scope are merged into the stronger one; 0 means 0.97 (or the
	// embedder's duplicate threshold when higher); 1 or more disables
	// merging.
	MergeThreshold float64
	// DryRun reports what would be done and changes nothing.
	DryRun bool
}

// ConsolidateResult reports a consolidation pass.
type ConsolidateResult struct {
	DryRun bool           `json:"dry_run"`
	Faded  []FadedChunk   `json:"faded"`
	Merged []MergedMemory `json:"merged"`
}

// FadedChunk is a chunk deleted for having stayed under the floor.
type FadedChunk struct {
	ID         string    `json:"id"`
	Kind       Kind      `json:"kind"`
	Content    string    `json:"content"`
	Strength   float64   `json:"strength"`
	UnderSince time.Time `json:"under_floor_since"`
}

// MergedMemory is a memory folded into a near-duplicate.
type MergedMemory struct {
	KeptID     string  `json:"kept_id"`
	RemovedID  string  `json:"removed_id"`
	Removed    string  `json:"removed_content"`
	Similarity float64 `json:"similarity"`
}
