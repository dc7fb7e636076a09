package sqlite

import (
	"context"
	"database/sql"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/engine"
)

// FactHistory returns the supersession chain of a fact, oldest first: the
// fact with ID id, or else the fact (current or superseded) most similar to
// query, none when no fact is relevant to it (see bestFact). Each entry
// says from when until when it was current.
func (m *Memory) FactHistory(ctx context.Context, query, id string) ([]hippo.HistoryEntry, error) {
	if err := m.touch(ctx); err != nil {
		return nil, err
	}
	if id == "" {
		if err := hippo.ValidateText("query", query, m.cfg.MaxFactText); err != nil {
			return nil, hippo.Invalidf("query", "or id is required")
		}
		var err error
		if id, err = m.bestFact(ctx, query); err != nil || id == "" {
			return []hippo.HistoryEntry{}, err
		}
	}
	tx, err := m.db.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	start, err := getChunk(ctx, tx, m.opts.AgentID, id)
	if err != nil {
		return nil, err
	}
	chain := []*hippo.Chunk{start}
	seen := map[string]bool{start.ID: true}
	for cur := start; ; { // back: what this fact superseded
		var prev string
		err := tx.QueryRowContext(ctx, `SELECT id FROM chunks WHERE superseded_by = ? AND agent_id = ?
			ORDER BY created_at DESC LIMIT 1`, cur.ID, m.opts.AgentID).Scan(&prev)
		if err == sql.ErrNoRows || seen[prev] {
			break
		} else if err != nil {
			return nil, err
		}
		if cur, err = getChunk(ctx, tx, m.opts.AgentID, prev); err != nil {
			return nil, err
		}
		seen[cur.ID] = true
		chain = append([]*hippo.Chunk{cur}, chain...)
	}
	for cur := start; cur.SupersededBy != "" && !seen[cur.SupersededBy]; { // forward
		if cur, err = getChunk(ctx, tx, m.opts.AgentID, cur.SupersededBy); err != nil {
			break // the successor is gone: the chain ends here
		}
		seen[cur.ID] = true
		chain = append(chain, cur)
	}
	out := make([]hippo.HistoryEntry, len(chain))
	for i, c := range chain {
		out[i] = hippo.HistoryEntry{ID: c.ID, Content: c.Content, ValidFrom: c.CreatedAt,
			ValidUntil: c.SupersededAt, Current: c.SupersededBy == ""}
		if c.SupersededBy != "" && c.SupersededAt == nil && i+1 < len(chain) {
			t := chain[i+1].CreatedAt
			out[i].ValidUntil = &t
		}
	}
	return out, nil
}

// bestFact is the ID of the fact, current or superseded, most relevant to
// query in the recall scopes, by recall's relevance (cosine and BM25 at
// Config.HybridAlpha, see hippo.Config.Relevance), or "" when there is none
// or its relevance is 0 or below Config.MinRelevance: a fact no closer to
// the query than unrelated text is no answer.
func (m *Memory) bestFact(ctx context.Context, query string) (string, error) {
	qs, ai, err := m.embedQuery(ctx, hippo.FactVoice(query)) // facts are in their voice
	if err != nil {
		return "", err
	}
	q := qs[0]
	ai.Mu.RLock()
	defer ai.Mu.RUnlock()
	if ai.Idx == nil {
		return "", nil
	}
	var bm map[int64]float64
	if m.cfg.HybridAlpha > 0 {
		if bm, _, err = m.bm25Scores(ctx, ai, hippo.RecallInput{Query: query}); err != nil {
			return "", err
		}
	}
	return engine.BestFact(ctx, m.cfg, ai, q, bm, m.opts.RecallScopes)
}
