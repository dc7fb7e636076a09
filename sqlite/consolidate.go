package sqlite

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/engine"
)

// ConsolidateOptions is hippo.ConsolidateOptions.
type ConsolidateOptions = hippo.ConsolidateOptions

// ConsolidateResult is hippo.ConsolidateResult.
type ConsolidateResult = hippo.ConsolidateResult

// FadedChunk is hippo.FadedChunk.
type FadedChunk = hippo.FadedChunk

// MergedMemory is hippo.MergedMemory.
type MergedMemory = hippo.MergedMemory

// Consolidate is an explicit maintenance pass, never a background job: it
// deletes the agent's live chunks whose effective strength has been under
// the floor for longer than the grace period, and merges near-duplicate
// memories into the stronger of each pair (encounters and accesses added,
// intensity averaged by encounters). Merging compares every memory with
// every other: O(n²) over the in-memory index.
func (m *agentStore) Consolidate(ctx context.Context, opts ConsolidateOptions) (*ConsolidateResult, error) {
	cfg := m.cfg
	grace := opts.Grace
	if grace == 0 {
		grace = 30 * 24 * time.Hour
	}
	if grace < 0 {
		return nil, hippo.Invalidf("grace", "must not be negative")
	}
	thr := opts.MergeThreshold
	if thr == 0 {
		thr = math.Max(0.97, cfg.DuplicateThreshold)
	}
	if thr < 0.5 {
		return nil, hippo.Invalidf("merge_threshold", "must be at least 0.5, got %v", thr)
	}
	ai, err := m.db.syncIndex(ctx, m.opts.AgentID)
	if err != nil {
		return nil, err
	}
	now := m.db.now()
	ai.Mu.RLock()
	faded := engine.FindFaded(cfg, ai, m.db.activeClock, now, grace)
	gone := map[string]bool{}
	for _, f := range faded {
		gone[f.ID] = true
	}
	merges, err := engine.FindMerges(ctx, ai, ai.Clock(m.db.activeClock, now.UnixMilli()), thr, gone)
	ai.Mu.RUnlock()
	if err != nil {
		return nil, err
	}
	return m.applyConsolidation(ctx, &ConsolidateResult{DryRun: opts.DryRun, Faded: faded, Merged: []MergedMemory{}}, merges)
}

// applyConsolidation deletes the faded chunks and applies the merges, in
// one write transaction; in a dry run it only fills in res. A faded chunk
// deleted meanwhile is left out.
func (m *agentStore) applyConsolidation(ctx context.Context, res *ConsolidateResult, merges []engine.Merge) (*ConsolidateResult, error) {
	tx, err := m.db.write.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	// A faded fact that superseded others is kept: deleting it would bring
	// back the older value it replaced.
	kept := res.Faded[:0]
	var fadedIDs []string
	for _, f := range res.Faded {
		c, err := getChunk(ctx, tx, m.opts.AgentID, f.ID)
		if hippo.ErrorCode(err) == hippo.ENOTFOUND {
			continue
		} else if err != nil {
			return nil, err
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM chunks WHERE superseded_by = ?`, f.ID).Scan(&n); err != nil {
			return nil, err
		}
		if n > 0 {
			continue
		}
		f.Content = c.Content
		kept = append(kept, f)
		fadedIDs = append(fadedIDs, f.ID)
	}
	res.Faded = kept
	for _, p := range merges {
		keep, err := getChunk(ctx, tx, m.opts.AgentID, p.Keep)
		if err != nil {
			return nil, err
		}
		drop, err := getChunk(ctx, tx, m.opts.AgentID, p.Drop)
		if err != nil {
			return nil, err
		}
		res.Merged = append(res.Merged, MergedMemory{KeptID: keep.ID, RemovedID: drop.ID, Removed: drop.Content, Similarity: p.Similarity})
		if res.DryRun {
			continue
		}
		keep.Merge(drop)
		if err := saveStrength(ctx, tx, keep); err != nil {
			return nil, fmt.Errorf("merge into %s: %w", keep.ID, err)
		}
		fadedIDs = append(fadedIDs, drop.ID)
	}
	if res.DryRun {
		return res, nil
	}
	if _, _, err := deleteChunksTx(ctx, tx, m.opts.AgentID, fadedIDs); err != nil {
		return nil, err
	}
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	m.db.checkpoint(ctx)
	return res, nil
}
