package engine

import (
	"context"
	"fmt"
	"slices"
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
		if cos >= threshold && c.Part == 0 && f.allows(c) { // a chunk as a whole, not by one sentence
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

// Forget implements hippo.MemoryService: every live chunk in the recall
// scopes whose similarity to the description reaches the threshold is
// deleted outright, faded ones included. Superseded chunks are not matched:
// they come back when what superseded them is forgotten.
func (m *Memory) Forget(ctx context.Context, in hippo.ForgetInput) (*hippo.ForgetResult, error) {
	if err := m.touch(ctx); err != nil {
		return nil, err
	}
	cfg := m.cfg
	if err := hippo.ValidateText("description", in.Description, cfg.MaxContent); err != nil {
		return nil, err
	}
	threshold := in.Threshold
	if threshold == 0 {
		threshold = cfg.ForgetThreshold
	}
	if !(threshold > 0 && threshold <= 1) {
		return nil, hippo.Invalidf("threshold", "must be in (0, 1], got %v", in.Threshold)
	}
	qs, ai, err := m.embedQuery(ctx, in.Description)
	if err != nil {
		return nil, err
	}
	ai.mu.RLock()
	matches, err := findForget(ctx, ai, qs[0], threshold, m.opts.RecallScopes)
	ai.mu.RUnlock()
	if err != nil {
		return nil, err
	}
	res := &hippo.ForgetResult{Deleted: []hippo.Forgotten{}}
	if len(matches) == 0 {
		return res, nil
	}
	// A dry run reads; a forget reads and deletes in one write
	// transaction.
	forget := func(tx Tx) error { return m.forgetMatches(ctx, tx, matches, in.DryRun, res) }
	if in.DryRun {
		if err := m.s.View(ctx, forget); err != nil {
			return nil, err
		}
		return res, nil
	}
	if err := m.s.Update(ctx, forget); err != nil {
		return nil, err
	}
	m.s.AfterBulkWrite(ctx)
	return res, nil
}

// forgetMatches deletes the chunks matched by a forget that are still
// current, with the texts they came from (forgetSources), and lists them
// in res; a dry run only lists them. Matches are read back in batches,
// without their vectors.
func (m *Memory) forgetMatches(ctx context.Context, tx Tx, matches []similar, dryRun bool, res *hippo.ForgetResult) error {
	byID := make(map[string]*hippo.Chunk, len(matches))
	const batch = 500
	for start := 0; start < len(matches); start += batch {
		part := matches[start:min(start+batch, len(matches))]
		ids := make([]string, len(part))
		for i, c := range part {
			ids[i] = c.ID
		}
		cs, err := tx.Recalled(ctx, ids)
		if err != nil {
			return err
		}
		for _, c := range cs {
			byID[c.ID] = c
		}
	}
	ids := make([]string, 0, len(matches))
	for _, c := range matches {
		ch, ok := byID[c.ID]
		if !ok || ch.SupersededBy != "" {
			continue // deleted or superseded since the search
		}
		res.Deleted = append(res.Deleted, hippo.Forgotten{ID: ch.ID, Kind: ch.Kind, Content: ch.Content, Similarity: c.Similarity})
		ids = append(ids, ch.ID)
	}
	texts, err := forgetSources(ctx, tx, byID, res)
	if err != nil || dryRun {
		return err
	}
	for _, f := range res.Deleted[len(ids):] {
		ids = append(ids, f.ID)
	}
	if _, res.Resurrected, err = deleteChunks(ctx, tx, m.opts.AgentID, ids); err != nil {
		return err
	}
	for _, h := range texts {
		if err := tx.DropInput(ctx, h); err != nil {
			return err
		}
		if err := tx.DropPending(ctx, h); err != nil { // not to be learned after all
			return err
		}
	}
	return nil
}

// forgetSources adds to res.Deleted the texts kept by remember_facts that
// a forgotten fact was learned from (the text says it too), and returns
// the hashes of every forgotten text that facts may name as their input,
// for Tx.DropInput: a forgotten text leaves no copy behind.
func forgetSources(ctx context.Context, tx Tx, byID map[string]*hippo.Chunk, res *hippo.ForgetResult) ([]string, error) {
	seen := make(map[string]bool, len(res.Deleted))
	for _, f := range res.Deleted {
		seen[f.ID] = true
	}
	var texts []string
	looked := map[string]bool{} // texts looked up, by scope and hash
	for _, f := range res.Deleted[:len(res.Deleted):len(res.Deleted)] {
		ch := byID[f.ID]
		if ch.Kind != hippo.KindFact {
			texts = append(texts, ch.ContentHash)
			continue
		}
		p := ch.Provenance
		if p == nil || p.InputHash == "" || looked[ch.Scope+"\x00"+p.InputHash] {
			continue // a sibling fact's text is already in hand
		}
		looked[ch.Scope+"\x00"+p.InputHash] = true
		texts = append(texts, p.InputHash)
		msg, err := tx.SameMemory(ctx, ch.Scope, p.InputHash)
		if err != nil {
			return nil, fmt.Errorf("look up message: %w", err)
		}
		if msg != nil && !seen[msg.ID] {
			seen[msg.ID] = true
			res.Deleted = append(res.Deleted, hippo.Forgotten{ID: msg.ID, Kind: msg.Kind, Content: msg.Content, Via: ch.ID})
		}
	}
	slices.Sort(texts)
	return slices.Compact(texts), nil
}
