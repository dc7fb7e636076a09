package engine

import (
	"context"
	"slices"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/vector"
)

// A text remember_facts kept still states the values its facts had when
// it was said. Once one of those facts is superseded ("User's office is
// in Kilimani" over "User's office is in Westlands"), the text is out of
// date on that point, but it stays current: it may say more than its
// facts did. Recall then ranks the fact that superseded it (or a chunk of
// that fact's group) just above the text whenever both are about the
// query, so that a correction is never shown below the value it corrects.

// correctionsFirst reorders hits, ranked by score, so that each kept text
// whose facts were superseded (or the fact standing for it) comes after
// the current facts that superseded them: a correction in hits below the
// text, or the chunk standing for the correction's own text, moves just
// above it, and a correction not in hits is read and put there when the
// recall's filters and floors let it through. hits keeps its length (what
// falls off the end is the lowest ranked). Moved or added hits name the
// text's hit in Corrects. Call with ai.mu held.
func correctionsFirst(ctx context.Context, cfg hippo.Config, ai *Index, st RecallStore, q []float32, sc *recallScan, hits []hit) ([]hit, error) {
	var stale []string // superseded facts of the texts in hits
	for _, h := range hits {
		if standsForText(ai, h) {
			stale = append(stale, ai.outdated[h.Meta.Group]...)
		}
	}
	if len(stale) == 0 {
		return hits, nil
	}
	current, err := currentFacts(ctx, ai, st, stale)
	if err != nil || len(current) == 0 {
		return hits, err
	}
	fixes, err := correctionHits(ctx, cfg, ai, q, sc, current)
	if err != nil {
		return hits, err
	}
	want := len(hits)
	for i := 0; i < len(hits); i++ {
		h := hits[i]
		if !standsForText(ai, h) {
			continue
		}
		for _, old := range ai.outdated[h.Meta.Group] {
			cur, ok := current[old]
			m, known := ai.idx.Meta(cur)
			if !ok || !known || m.Group == h.Meta.Group {
				continue // none, or the text states the new value too
			}
			// The correction itself, or the chunk standing for its group.
			j := slices.IndexFunc(hits, func(o hit) bool { return o.ID == cur || (m.Group != 0 && o.Meta.Group == m.Group) })
			fix, relevant := fixes[cur]
			switch {
			case j >= 0 && (j < i || hits[j].Weak || !(hits[j].Relevance > 0)):
				continue // already above the text, or not about the query
			case j > i:
				fix = hits[j]
				hits = slices.Delete(hits, j, j+1)
			case !relevant:
				continue // not about the query
			}
			fix.Corrects = h.ID
			hits = slices.Insert(hits, i, fix)
			i++ // the text moved down one
		}
	}
	return hits[:min(len(hits), want)], nil
}

// standsForText reports whether h, a result, stands for a text
// remember_facts kept: the text itself, or one of its facts, which recall
// returns in its place (groupFilter). Call with ai.mu held.
func standsForText(ai *Index, h hit) bool {
	return !h.Weak && h.Meta.Group != 0 && (h.Meta.Kind == hippo.KindMemory || ai.hasText(h.Meta.Group))
}

// currentFacts maps each of the superseded facts ids to the fact that
// superseded it, read from the store, when that fact is current: a
// correction is the fact that replaced the value directly. A fact whose
// successor was superseded in turn maps to nothing: a value replaced again
// and again is churn (the offline extractor's garbled facts of chat turns
// supersede each other so), and the text is then far out of date anyway.
func currentFacts(ctx context.Context, ai *Index, st RecallStore, ids []string) (map[string]string, error) {
	chunks, err := st.Peek(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for id, c := range chunks {
		if m, ok := ai.idx.Meta(c.SupersededBy); ok && m.SupersededAt == 0 {
			out[id] = c.SupersededBy
		}
	}
	return out, nil
}

// correctionHits are the hits of the current facts (by ID) that a recall
// with sc may return: in the index, current, allowed by its filters and
// strength floor, and relevant to the query q by its own relevance floor.
func correctionHits(ctx context.Context, cfg hippo.Config, ai *Index, q []float32, sc *recallScan, current map[string]string) (map[string]hit, error) {
	var ids []string
	metas := map[string]Meta{}
	for _, id := range current {
		m, ok := ai.idx.Meta(id)
		if _, seen := metas[id]; seen || !ok || m.SupersededAt != 0 || m.Suspicious || !sc.Filter.allows(&m) || m.Strength(sc.Clock) < sc.Floor {
			continue
		}
		metas[id] = m
		ids = append(ids, id)
	}
	out := map[string]hit{}
	err := ai.idx.Vectors(ctx, ids, func(i int, v []float32) {
		m := metas[ids[i]]
		cos := vector.Cosine(q, v)
		b := sc.BM25[m.RowID]
		rel := cfg.SizedRelevance(cos, b, int(m.Size), sc.Alpha)
		if rel <= 0 || rel < sc.MinRel {
			return
		}
		out[ids[i]] = hit{ID: ids[i], Meta: m, Cosine: cos, BM25: b, Relevance: rel,
			Score: cfg.Score(rel, m.Strength(sc.Clock), m.Recency(cfg, sc.Now))}
	})
	return out, err
}
