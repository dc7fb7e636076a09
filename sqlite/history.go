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
	return engine.History(ctx, agentTx{tx, m.opts.AgentID}, id)
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
