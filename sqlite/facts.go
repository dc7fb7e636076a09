package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/engine"
	"github.com/hippo-mem/hippo/vector"
)

// RememberFacts implements hippo.MemoryService: one extraction call, one
// embedding request for all facts, at most one classification call, and
// every change applied in one transaction.
func (m *Memory) RememberFacts(ctx context.Context, text string) (*hippo.RememberResult, error) {
	ctx, spent := hippo.WithUsageSink(ctx) // the LLM calls' tokens, into the result
	res, err := m.rememberFacts(ctx, text)
	if res != nil {
		res.LLMCalls = spent()
	}
	return res, err
}

func (m *Memory) rememberFacts(ctx context.Context, text string) (*hippo.RememberResult, error) {
	if err := m.touch(ctx); err != nil {
		return nil, err
	}
	cfg := m.cfg
	if err := hippo.ValidateText("text", text, cfg.MaxFactText); err != nil {
		return nil, err
	}
	if m.opts.Extractor == nil {
		return nil, hippo.Errorf(hippo.EINVALID, "no fact extractor configured")
	}
	if m.opts.Embedder == nil {
		return nil, hippo.Errorf(hippo.EINVALID, "no embedder configured")
	}
	extracted, err := m.opts.Extractor.ExtractFacts(ctx, text)
	if err != nil {
		return nil, fmt.Errorf("extract facts: %w", err)
	}
	facts := engine.CleanFacts(cfg, extracted)
	if len(facts) == 0 {
		reason := m.noFactsReason(text, len(extracted))
		return &hippo.RememberResult{Summary: hippo.NoFactsSummary(reason), Facts: []hippo.FactOutcome{}, Reason: reason}, nil
	}
	contents, formerAt := engine.FactTexts(facts)
	vecs, err := hippo.Embed(ctx, m.opts.Embedder, contents, 0)
	if err != nil {
		return nil, err
	}
	ai, err := m.db.syncIndexFor(ctx, m.opts.AgentID, &ModelLock{Model: m.opts.Embedder.Model(), Dimension: len(vecs[0])})
	if err != nil {
		return nil, err
	}
	plans, snapshot, err := engine.PlanFacts(ctx, cfg, ai, m.opts.Scope, facts, vecs, formerAt)
	if err != nil {
		return nil, err
	}
	if err := m.fillContents(ctx, plans); err != nil {
		return nil, err
	}
	if pairs := engine.FactPairs(cfg, plans); len(pairs) > 0 && m.opts.Classifier != nil {
		// One classification call for every ambiguous pair.
		verdicts, err := m.opts.Classifier.ClassifyFacts(ctx, pairs)
		if err != nil {
			return nil, fmt.Errorf("classify facts: %w", err)
		}
		engine.ApplyVerdicts(plans, verdicts)
	}
	return m.applyFacts(ctx, plans, snapshot)
}

// noFactsReason says why a call stored no fact: the extractor's own reason
// when it gives one, else what is known.
func (m *Memory) noFactsReason(text string, extracted int) string {
	if extracted > 0 {
		return fmt.Sprintf("every extracted fact was empty or longer than %d characters", m.cfg.MaxContent)
	}
	if x, ok := m.opts.Extractor.(hippo.NoFactsExplainer); ok {
		if r := x.NoFactsReason(text); r != "" {
			return r
		}
	}
	return "the extractor found no statement of a fact in the text"
}

// fillContents reads the content of the stored candidates of each plan.
func (m *Memory) fillContents(ctx context.Context, plans []*engine.FactPlan) error {
	byID := map[string][]*engine.FactEntry{}
	var ids []any
	for _, p := range plans {
		top := p.Top
		if p.Former != nil {
			top = append(append([]engine.FactMatch{}, top...), p.Former.Top...)
		}
		for _, c := range top {
			if id := c.Entry.Ref.ChunkID; id != "" {
				if byID[id] == nil {
					ids = append(ids, id)
				}
				byID[id] = append(byID[id], c.Entry)
			}
		}
	}
	if len(ids) == 0 {
		return nil
	}
	rows, err := m.db.read.QueryContext(ctx, `SELECT id, content FROM chunks WHERE id IN (`+placeholders(len(ids))+`)`, ids...)
	if err != nil {
		return fmt.Errorf("load candidate facts: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, content string
		if err := rows.Scan(&id, &content); err != nil {
			return err
		}
		for _, e := range byID[id] {
			e.Content = content
		}
	}
	return rows.Err()
}

// factsSinceQuery reads the live facts of an agent in a scope changed
// after a change-log position. The "+" keep the planner on the primary key
// for the few changed IDs: the agent's (agent_id, kind) index would visit
// every fact of the agent.
const factsSinceQuery = `SELECT id, content, embedding, running_intensity FROM chunks
	WHERE id IN (SELECT chunk_id FROM hippo_changes WHERE agent_id = ? AND seq > ?)
	AND +agent_id = ? AND scope = ? AND +kind = 'fact' AND +superseded_by IS NULL`

// FactsSince implements engine.FactWriter: the change log joined to the
// live facts.
func (t agentTx) FactsSince(ctx context.Context, scope string, seq int64) ([]*engine.FactEntry, error) {
	rows, err := t.tx.QueryContext(ctx, factsSinceQuery, t.agent, seq, t.agent, scope)
	if err != nil {
		return nil, fmt.Errorf("load new facts: %w", err)
	}
	defer rows.Close()
	var entries []*engine.FactEntry
	for rows.Next() {
		var (
			e    engine.FactEntry
			blob []byte
		)
		if err := rows.Scan(&e.Ref.ChunkID, &e.Content, &blob, &e.Intensity); err != nil {
			return nil, fmt.Errorf("load new facts: %w", err)
		}
		if e.Vec, err = vector.Decode(nil, blob); err != nil {
			return nil, err
		}
		vector.Normalize(e.Vec)
		entries = append(entries, &e)
	}
	return entries, rows.Err()
}

// IsLive implements engine.FactWriter.
func (t agentTx) IsLive(ctx context.Context, id string) (bool, error) {
	var live bool
	err := t.tx.QueryRowContext(ctx, `SELECT superseded_by IS NULL FROM chunks WHERE id = ? AND agent_id = ?`, id, t.agent).Scan(&live)
	if err == sql.ErrNoRows {
		return false, nil
	}
	return live, err
}

// applyFacts writes every plan (engine.ApplyFacts) in one write
// transaction, under the write lock and the model lock.
func (m *Memory) applyFacts(ctx context.Context, plans []*engine.FactPlan, snapshot int64) (*hippo.RememberResult, error) {
	tx, err := m.db.write.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	if err := m.db.lockModelTx(ctx, tx, m.opts.Embedder.Model(), len(plans[0].Vec)); err != nil {
		return nil, err
	}
	res, err := engine.ApplyFacts(ctx, m.cfg, agentTx{tx, m.opts.AgentID}, m.opts.AgentID, m.opts.Scope, plans, snapshot, m.db.now())
	if err != nil {
		return nil, err
	}
	return res, tx.Commit()
}

// Insert implements engine.FactWriter.
func (t agentTx) Insert(ctx context.Context, c *hippo.Chunk) error {
	if c.ID == "" {
		c.ID = newChunkID(c.CreatedAt)
	}
	return insertChunk(ctx, t.tx, c)
}

// Supersede implements engine.FactWriter.
func (t agentTx) Supersede(ctx context.Context, id, by string, at time.Time) (string, bool, error) {
	var content string
	err := t.tx.QueryRowContext(ctx, `UPDATE chunks SET superseded_by = ?, superseded_at = ?
		WHERE id = ? AND agent_id = ? AND superseded_by IS NULL RETURNING content`,
		by, formatTime(at), id, t.agent).Scan(&content)
	if err == sql.ErrNoRows {
		return "", false, nil
	}
	return content, err == nil, err
}
