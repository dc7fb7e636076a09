package engine

import (
	"context"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/vector"
)

// findFaded lists the live chunks of the index whose strength has been
// under the floor for at least grace at now: the first step of a
// consolidation. Under the active clock (active), only active hours count
// towards the crossing; the grace period is wall time after it. The
// results have no content. Call with ai.mu held.
func findFaded(cfg hippo.Config, ai *Index, active bool, now time.Time, grace time.Duration) []hippo.FadedChunk {
	out := []hippo.FadedChunk{}
	if ai.idx == nil {
		return out
	}
	clock := ai.decayClock(active, now.UnixMilli())
	live := ai.newFilter("", nil)
	for _, id := range ai.idx.IDs() {
		c, _ := ai.idx.Meta(id)
		if c.Part != 0 || !live.allows(&c) {
			continue
		}
		// Strength crosses the floor once intensity·e^(-rate·h) < floor.
		crossH, crosses := cfg.FadeHours(float64(c.Intensity), float64(c.DecayRate))
		if !crosses || clock(c.LastAccess) < crossH {
			continue // never crosses, or not yet
		}
		crossed := time.UnixMilli(c.LastAccess).Add(time.Duration(crossH * float64(time.Hour)))
		if active {
			crossed = hippo.ActiveCrossing(ai.active, c.LastAccess, crossH)
		}
		if now.Sub(crossed) >= grace {
			out = append(out, hippo.FadedChunk{ID: id, Kind: c.Kind, Strength: c.Strength(clock), UnderSince: crossed.UTC()})
		}
	}
	return out
}

// merge is a pair of near-duplicate memories: Drop folds into Keep.
type merge struct {
	Keep, Drop string
	Similarity float64
}

// findMerges pairs each live memory of the index with its nearest live
// memory of the same scope when their cosine reaches thr, the stronger by
// clock kept (the lower ID on a tie), skipping chunks in gone and those
// already paired: the second step of a consolidation. Merges are sorted
// by the dropped ID. It compares every memory with every other, reading
// their vectors from the store a batch at a time. Call with ai.mu held.
func findMerges(ctx context.Context, ai *Index, clock hippo.DecayClock, thr float64, gone map[string]bool) ([]merge, error) {
	if ai.idx == nil || thr >= 1 {
		return nil, nil
	}
	live := ai.newFilter("", nil)
	var ids []string
	for _, id := range ai.idx.IDs() {
		if c, _ := ai.idx.Meta(id); !gone[id] && c.Part == 0 && c.Kind == hippo.KindMemory && live.allows(&c) {
			ids = append(ids, id)
		}
	}
	const batch = 256
	var out []merge
	vecs := make([][]float32, batch)
	for start := 0; start < len(ids); start += batch {
		part := ids[start:min(start+batch, len(ids))]
		clear(vecs)
		if err := ai.idx.Vectors(ctx, part, func(i int, v []float32) { vecs[i] = append([]float32(nil), v...) }); err != nil {
			return nil, err
		}
		for i, id := range part {
			c, _ := ai.idx.Meta(id)
			if gone[id] || vecs[i] == nil {
				continue
			}
			hits, err := ai.idx.Search(ctx, vecs[i], 2, func(o *Meta, cos, _ float64, _ bool) (float64, bool) {
				return cos, o.Kind == hippo.KindMemory && o.Scope == c.Scope && o.SupersededAt == 0
			})
			if err != nil {
				return nil, err
			}
			if m, ok := pairWith(id, &c, hits, clock, thr, gone); ok {
				gone[m.Drop] = true
				out = append(out, m)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Drop < out[j].Drop })
	return out, nil
}

// pairWith is the merge of chunk id (meta c) with the first of its
// nearest hits that is another chunk, not gone and at least thr similar.
func pairWith(id string, c *Meta, hits []vector.Hit[Meta], clock hippo.DecayClock, thr float64, gone map[string]bool) (merge, bool) {
	for _, h := range hits {
		if h.ID == id || gone[h.ID] || h.Cosine < thr {
			continue
		}
		keep, drop := id, h.ID
		if hs, cs := h.Meta.Strength(clock), c.Strength(clock); hs > cs || (hs == cs && h.ID < id) {
			keep, drop = h.ID, id
		}
		return merge{Keep: keep, Drop: drop, Similarity: h.Cosine}, true
	}
	return merge{}, false
}

// Consolidate implements hippo.AgentMemory, an explicit maintenance pass,
// never a background job: it deletes the agent's live chunks whose
// effective strength has been under the floor for longer than the grace
// period, and merges near-duplicate memories into the stronger of each
// pair (encounters and accesses added, intensity averaged by encounters).
// Merging compares every memory with every other: O(n²) over the
// in-memory index.
func (m *Memory) Consolidate(ctx context.Context, opts hippo.ConsolidateOptions) (*hippo.ConsolidateResult, error) {
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
	ai, err := m.index(ctx, nil)
	if err != nil {
		return nil, err
	}
	now := m.clock.Now()
	active := m.clock.Active()
	ai.mu.RLock()
	faded := findFaded(cfg, ai, active, now, grace)
	gone := map[string]bool{}
	for _, f := range faded {
		gone[f.ID] = true
	}
	merges, err := findMerges(ctx, ai, ai.decayClock(active, now.UnixMilli()), thr, gone)
	ai.mu.RUnlock()
	if err != nil {
		return nil, err
	}
	res := &hippo.ConsolidateResult{DryRun: opts.DryRun, Faded: faded, Merged: []hippo.MergedMemory{}}
	if err := m.s.Update(ctx, func(tx Tx) error { return applyConsolidation(ctx, tx, m.opts.AgentID, res, merges) }); err != nil {
		return nil, err
	}
	if !res.DryRun {
		m.s.AfterBulkWrite(ctx)
	}
	return res, nil
}

// applyConsolidation deletes the faded chunks and applies the merges, in
// one write transaction; in a dry run it only fills in res. A faded chunk
// deleted meanwhile is left out.
func applyConsolidation(ctx context.Context, tx Tx, agentID string, res *hippo.ConsolidateResult, merges []merge) error {
	// A faded fact that superseded others is kept: deleting it would bring
	// back the older value it replaced.
	kept := res.Faded[:0]
	var fadedIDs []string
	for _, f := range res.Faded {
		c, err := tx.Chunk(ctx, f.ID)
		if hippo.ErrorCode(err) == hippo.ENOTFOUND {
			continue
		} else if err != nil {
			return err
		}
		superseding, err := tx.Supersedes(ctx, f.ID)
		if err != nil {
			return err
		}
		if superseding {
			continue
		}
		f.Content = c.Content
		kept = append(kept, f)
		fadedIDs = append(fadedIDs, f.ID)
	}
	res.Faded = kept
	for _, p := range merges {
		keep, err := tx.Chunk(ctx, p.Keep)
		if err != nil {
			return err
		}
		drop, err := tx.Chunk(ctx, p.Drop)
		if err != nil {
			return err
		}
		res.Merged = append(res.Merged, hippo.MergedMemory{KeptID: keep.ID, RemovedID: drop.ID, Removed: drop.Content, Similarity: p.Similarity})
		if res.DryRun {
			continue
		}
		keep.Merge(drop)
		if err := tx.SaveStrength(ctx, keep); err != nil {
			return fmt.Errorf("merge into %s: %w", keep.ID, err)
		}
		fadedIDs = append(fadedIDs, drop.ID)
	}
	if res.DryRun {
		return nil
	}
	_, _, err := deleteChunks(ctx, tx, agentID, fadedIDs)
	return err
}
