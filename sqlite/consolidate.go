package sqlite

import (
	"context"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/engine"
	"github.com/hippo-mem/hippo/vector"
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
func (m *Memory) Consolidate(ctx context.Context, opts ConsolidateOptions) (*ConsolidateResult, error) {
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
	nowMs := now.UnixMilli()
	res := &ConsolidateResult{DryRun: opts.DryRun, Faded: []FadedChunk{}, Merged: []MergedMemory{}}
	type pair struct {
		keep, drop string
		sim        float64
	}
	var fadedIDs []string
	var pairs []pair
	ai.Mu.RLock()
	clock := ai.Clock(m.db.activeClock, nowMs)
	if ai.Idx != nil {
		live := ai.NewFilter("", nil)
		for _, id := range ai.Idx.IDs() {
			c, _ := ai.Idx.Meta(id)
			if !live.Allows(&c) {
				continue
			}
			// Strength crosses the floor once intensity·e^(-rate·h) < floor.
			crossH, crosses := cfg.FadeHours(float64(c.Intensity), float64(c.DecayRate))
			if !crosses {
				continue // no decay: never crosses
			}
			// Under the active clock, only active hours count towards the
			// crossing; the grace period is wall time after it.
			if clock(c.LastAccess) < crossH {
				continue
			}
			crossed := time.UnixMilli(c.LastAccess).Add(time.Duration(crossH * float64(time.Hour)))
			if m.db.activeClock {
				crossed = hippo.ActiveCrossing(ai.Active, c.LastAccess, crossH)
			}
			if now.Sub(crossed) >= grace {
				fadedIDs = append(fadedIDs, id)
				res.Faded = append(res.Faded, FadedChunk{ID: id, Kind: c.Kind, Strength: c.Strength(clock), UnderSince: crossed.UTC()})
			}
		}
		gone := map[string]bool{}
		for _, id := range fadedIDs {
			gone[id] = true
		}
		var ids []string
		if thr < 1 {
			for _, id := range ai.Idx.IDs() {
				if c, _ := ai.Idx.Meta(id); !gone[id] && c.Kind == hippo.KindMemory && live.Allows(&c) {
					ids = append(ids, id)
				}
			}
		}
		// Each live memory's nearest neighbour, its vector read from the
		// store a batch at a time.
		const batch = 256
		vecs := make([][]float32, batch)
		for start := 0; start < len(ids) && err == nil; start += batch {
			part := ids[start:min(start+batch, len(ids))]
			clear(vecs)
			if err = ai.Idx.Vectors(ctx, part, func(i int, v []float32) { vecs[i] = append([]float32(nil), v...) }); err != nil {
				break
			}
			for i, id := range part {
				c, _ := ai.Idx.Meta(id)
				if gone[id] || vecs[i] == nil {
					continue
				}
				var hits []vector.Hit[engine.Meta]
				hits, err = ai.Idx.Search(ctx, vecs[i], 2, func(o *engine.Meta, cos, _ float64, _ bool) (float64, bool) {
					return cos, o.Kind == hippo.KindMemory && o.Scope == c.Scope && o.SupersededAt == 0
				})
				if err != nil {
					break
				}
				for _, h := range hits {
					if h.ID == id || gone[h.ID] || h.Cosine < thr {
						continue
					}
					keep, drop := id, h.ID
					if hs, cs := h.Meta.Strength(clock), c.Strength(clock); hs > cs || (hs == cs && h.ID < id) {
						keep, drop = h.ID, id
					}
					gone[drop] = true
					pairs = append(pairs, pair{keep, drop, h.Cosine})
					break
				}
			}
		}
	}
	ai.Mu.RUnlock()
	if err != nil {
		return nil, err
	}

	tx, err := m.db.write.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	// A faded fact that superseded others is kept: deleting it would bring
	// back the older value it replaced.
	kept := res.Faded[:0]
	fadedIDs = fadedIDs[:0]
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
	sort.Slice(pairs, func(i, j int) bool { return pairs[i].drop < pairs[j].drop })
	for _, p := range pairs {
		keep, err := getChunk(ctx, tx, m.opts.AgentID, p.keep)
		if err != nil {
			return nil, err
		}
		drop, err := getChunk(ctx, tx, m.opts.AgentID, p.drop)
		if err != nil {
			return nil, err
		}
		res.Merged = append(res.Merged, MergedMemory{KeptID: keep.ID, RemovedID: drop.ID, Removed: drop.Content, Similarity: p.sim})
		if opts.DryRun {
			continue
		}
		keep.Merge(drop)
		if err := saveStrength(ctx, tx, keep); err != nil {
			return nil, fmt.Errorf("merge into %s: %w", keep.ID, err)
		}
		fadedIDs = append(fadedIDs, drop.ID)
	}
	if opts.DryRun {
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
