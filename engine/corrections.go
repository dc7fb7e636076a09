package engine

import (
	"context"
	"slices"

	"github.com/hippo-mem/hippo"
)

// A text remember_facts kept still states the values its facts had when
// it was said. Once one of those facts is superseded ("User's office is
// in Kilimani" over "User's office is in Westlands"), the text is out of
// date on that point, but it stays current: it may say more than its
// facts did. Recall then ranks the fact that superseded it (or a chunk of
// that fact's group) just above the text whenever both are among the
// results, so that a correction is not shown below the value it corrects.

// correctionsFirst reorders hits, ranked by score, so that each kept text
// whose facts were superseded (or the fact standing for it) comes after
// the current facts that superseded them: a correction among hits below
// the text, or the chunk standing for the correction's own text, moves
// just above it and names the text's hit in Corrects. The results stay
// the same, only their order changes: reading a correction in from
// beyond them put the offline extractor's garbled supersessions into
// results (LongMemEval through remember_facts lost 0.012 of R@10). Call
// with ai.mu held.
func correctionsFirst(ctx context.Context, ai *Index, st RecallStore, hits []hit) ([]hit, error) {
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
			// The correction itself, or the chunk standing for its group,
			// when it is about the query and ranks below the text.
			j := slices.IndexFunc(hits, func(o hit) bool { return o.ID == cur || (m.Group != 0 && o.Meta.Group == m.Group) })
			if j <= i || hits[j].Weak || !(hits[j].Relevance > 0) {
				continue
			}
			fix := hits[j]
			fix.Corrects = h.ID
			hits = slices.Delete(hits, j, j+1)
			hits = slices.Insert(hits, i, fix)
			i++ // the text moved down one
		}
	}
	return hits, nil
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
