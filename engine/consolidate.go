package engine

import (
	"context"
	"sort"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/vector"
)

// FindFaded lists the live chunks of the index whose strength has been
// under the floor for at least grace at now: the first step of a
// consolidation. Under the active clock (active), only active hours count
// towards the crossing; the grace period is wall time after it. The
// results have no content. Call with ai.Mu held.
func FindFaded(cfg hippo.Config, ai *Index, active bool, now time.Time, grace time.Duration) []hippo.FadedChunk {
	out := []hippo.FadedChunk{}
	if ai.Idx == nil {
		return out
	}
	clock := ai.Clock(active, now.UnixMilli())
	live := ai.NewFilter("", nil)
	for _, id := range ai.Idx.IDs() {
		c, _ := ai.Idx.Meta(id)
		if !live.Allows(&c) {
			continue
		}
		// Strength crosses the floor once intensity·e^(-rate·h) < floor.
		crossH, crosses := cfg.FadeHours(float64(c.Intensity), float64(c.DecayRate))
		if !crosses || clock(c.LastAccess) < crossH {
			continue // never crosses, or not yet
		}
		crossed := time.UnixMilli(c.LastAccess).Add(time.Duration(crossH * float64(time.Hour)))
		if active {
			crossed = hippo.ActiveCrossing(ai.Active, c.LastAccess, crossH)
		}
		if now.Sub(crossed) >= grace {
			out = append(out, hippo.FadedChunk{ID: id, Kind: c.Kind, Strength: c.Strength(clock), UnderSince: crossed.UTC()})
		}
	}
	return out
}

// Merge is a pair of near-duplicate memories: Drop folds into Keep.
type Merge struct {
	Keep, Drop string
	Similarity float64
}

// FindMerges pairs each live memory of the index with its nearest live
// memory of the same scope when their cosine reaches thr, the stronger by
// clock kept (the lower ID on a tie), skipping chunks in gone and those
// already paired: the second step of a consolidation. Merges are sorted
// by the dropped ID. It compares every memory with every other, reading
// their vectors from the store a batch at a time. Call with ai.Mu held.
func FindMerges(ctx context.Context, ai *Index, clock hippo.DecayClock, thr float64, gone map[string]bool) ([]Merge, error) {
	if ai.Idx == nil || thr >= 1 {
		return nil, nil
	}
	live := ai.NewFilter("", nil)
	var ids []string
	for _, id := range ai.Idx.IDs() {
		if c, _ := ai.Idx.Meta(id); !gone[id] && c.Kind == hippo.KindMemory && live.Allows(&c) {
			ids = append(ids, id)
		}
	}
	const batch = 256
	var out []Merge
	vecs := make([][]float32, batch)
	for start := 0; start < len(ids); start += batch {
		part := ids[start:min(start+batch, len(ids))]
		clear(vecs)
		if err := ai.Idx.Vectors(ctx, part, func(i int, v []float32) { vecs[i] = append([]float32(nil), v...) }); err != nil {
			return nil, err
		}
		for i, id := range part {
			c, _ := ai.Idx.Meta(id)
			if gone[id] || vecs[i] == nil {
				continue
			}
			hits, err := ai.Idx.Search(ctx, vecs[i], 2, func(o *Meta, cos, _ float64, _ bool) (float64, bool) {
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
func pairWith(id string, c *Meta, hits []vector.Hit[Meta], clock hippo.DecayClock, thr float64, gone map[string]bool) (Merge, bool) {
	for _, h := range hits {
		if h.ID == id || gone[h.ID] || h.Cosine < thr {
			continue
		}
		keep, drop := id, h.ID
		if hs, cs := h.Meta.Strength(clock), c.Strength(clock); hs > cs || (hs == cs && h.ID < id) {
			keep, drop = h.ID, id
		}
		return Merge{Keep: keep, Drop: drop, Similarity: h.Cosine}, true
	}
	return Merge{}, false
}
