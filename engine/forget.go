package engine

import (
	"context"
	"sort"

	"github.com/hippo-mem/hippo"
)

// similar is a chunk with its cosine to a query vector.
type similar struct {
	ID         string
	Similarity float64
}

// findForget lists the live chunks in scopes (nil: all) whose cosine to
// q reaches threshold, most similar first: what Forget deletes. Call
// with ai.mu held.
func findForget(ctx context.Context, ai *Index, q []float32, threshold float64, scopes []string) ([]similar, error) {
	if ai.idx == nil {
		return nil, nil
	}
	var out []similar
	f := ai.newFilter("", scopes)
	err := ai.idx.Range(ctx, q, threshold, func(id string, c *Meta, cos float64) {
		if cos >= threshold && f.allows(c) {
			out = append(out, similar{id, cos})
		}
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Similarity > out[j].Similarity })
	return out, nil
}

// bestFact is the ID of the fact, current or superseded, in scopes (nil:
// all) most relevant to a query, by recall's relevance at
// cfg.HybridAlpha (hippo.Config.SizedRelevance of q's cosine and the
// query's BM25 scores by row, bm), or "" when there is none or its
// relevance is 0 or under cfg.MinRelevance: a fact no closer to the query
// than unrelated text is no answer. Call with ai.mu held.
func bestFact(ctx context.Context, cfg hippo.Config, ai *Index, q []float32, bm map[int64]float64, scopes []string) (string, error) {
	if ai.idx == nil {
		return "", nil
	}
	alpha := cfg.HybridAlpha
	f := ai.newFilter(hippo.KindFact, scopes)
	f.AllSuperseded = true
	hits, err := ai.idx.Search(ctx, q, 1, func(c *Meta, cos, _ float64, _ bool) (float64, bool) {
		return cfg.SizedRelevance(cos, bm[c.RowID], int(c.Size), alpha), f.allows(c)
	})
	if err != nil || len(hits) == 0 {
		return "", err
	}
	if r := hits[0].Score; !(r > 0) || r < cfg.MinRelevance {
		return "", nil
	}
	return hits[0].ID, nil
}
