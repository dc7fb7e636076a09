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
	ai, err := m.db.syncIndexFor(ctx, m.opts.AgentID, &queryLock{model: m.opts.Embedder.Model(), dim: len(vecs[0])})
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

// freshFacts loads the live facts of the agent in the write scope that
// were written after the change-log position seq.
func (m *Memory) freshFacts(ctx context.Context, tx *sql.Tx, seq int64) ([]*engine.FactEntry, error) {
	rows, err := tx.QueryContext(ctx, `SELECT id, content, embedding, running_intensity FROM chunks
		WHERE agent_id = ? AND scope = ? AND kind = 'fact' AND superseded_by IS NULL
		AND id IN (SELECT chunk_id FROM hippo_changes WHERE agent_id = ? AND seq > ?)`,
		m.opts.AgentID, m.opts.Scope, m.opts.AgentID, seq)
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

// isLive reports whether a chunk of the agent exists and is not superseded.
func (m *Memory) isLive(ctx context.Context, tx *sql.Tx, id string) (bool, error) {
	var live bool
	err := tx.QueryRowContext(ctx, `SELECT superseded_by IS NULL FROM chunks WHERE id = ? AND agent_id = ?`, id, m.opts.AgentID).Scan(&live)
	if err == sql.ErrNoRows {
		return false, nil
	}
	return live, err
}

// applyFacts writes every plan in one write transaction. Facts stored by
// others since the plans were made are checked again here, under the write
// lock, so two concurrent calls stating the same fact store it once.
func (m *Memory) applyFacts(ctx context.Context, plans []*engine.FactPlan, snapshot int64) (*hippo.RememberResult, error) {
	cfg := m.cfg
	tx, err := m.db.write.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	if err := m.db.lockModelTx(ctx, tx, m.opts.Embedder.Model(), len(plans[0].Vec)); err != nil {
		return nil, err
	}
	fresh, err := m.freshFacts(ctx, tx, snapshot)
	if err != nil {
		return nil, err
	}

	now := m.db.now()
	resolved := make([]string, len(plans)) // chunk each fact ended up as
	outcomes := make([]hippo.FactOutcome, 0, len(plans))
	for i, p := range plans {
		out := hippo.FactOutcome{Action: p.Action, Content: p.Fact.Content, Intensity: p.Fact.Intensity}
		targetID := ""
		if p.Target != nil {
			if r := p.Target.Entry.Ref; r.ChunkID != "" {
				targetID = r.ChunkID
			} else {
				targetID = resolved[r.Batch]
			}
			out.Similarity = p.Target.Similarity
			// The target may have been forgotten or superseded meanwhile.
			if p.Target.Entry.Ref.ChunkID != "" {
				live, err := m.isLive(ctx, tx, targetID)
				if err != nil {
					return nil, err
				}
				if !live {
					p.Action, targetID = hippo.ActionNew, ""
				}
			}
		}
		if p.Action == hippo.ActionNew || p.Action == hippo.ActionDistinct {
			if best := engine.Nearest(fresh, p.Vec, 1); len(best) > 0 && best[0].Similarity > cfg.DuplicateThreshold {
				p.Action, targetID = hippo.ActionDuplicate, best[0].Entry.Ref.ChunkID
				out.Similarity = best[0].Similarity
			}
		}
		out.Action = p.Action

		switch p.Action {
		case hippo.ActionDuplicate:
			c, err := getChunk(ctx, tx, m.opts.AgentID, targetID)
			if err != nil {
				return nil, err
			}
			out.ChunkID, out.ExistingContent, out.OldIntensity = c.ID, c.Content, c.RunningIntensity
			c.Strengthen(p.Fact.Intensity, now, true)
			out.NewIntensity = c.RunningIntensity
			if err := saveStrength(ctx, tx, c); err != nil {
				return nil, fmt.Errorf("strengthen fact: %w", err)
			}
			resolved[i] = c.ID
		default:
			c := &hippo.Chunk{
				ID: newChunkID(now), AgentID: m.opts.AgentID, Scope: m.opts.Scope, Kind: hippo.KindFact,
				Content: p.Fact.Content, ContentHash: ContentHash(p.Fact.Content), Embedding: p.Vec,
				RunningIntensity: p.Fact.Intensity, EncounterCount: 1, LastAccessedAt: now, CreatedAt: now,
			}
			if err := insertChunk(ctx, tx, c); err != nil {
				return nil, err
			}
			out.ChunkID, resolved[i] = c.ID, c.ID
			if p.Action == hippo.ActionSupersedes {
				var old string
				err := tx.QueryRowContext(ctx, `UPDATE chunks SET superseded_by = ?, superseded_at = ?
					WHERE id = ? AND superseded_by IS NULL RETURNING content`,
					c.ID, formatTime(now), targetID).Scan(&old)
				switch {
				case err == sql.ErrNoRows:
					out.Action = hippo.ActionDistinct // already gone or superseded
				case err != nil:
					return nil, fmt.Errorf("supersede fact %s: %w", targetID, err)
				default:
					out.SupersededID, out.SupersededContent = targetID, old
				}
			}
		}
		if p.Former != nil {
			if err := m.applyFormer(ctx, tx, p.Former, resolved, i, now, &out); err != nil {
				return nil, err
			}
		}
		outcomes = append(outcomes, out)
	}
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	return &hippo.RememberResult{Summary: hippo.Summarize(outcomes), Facts: outcomes}, nil
}

// applyFormer ends the former fact of plan i, now resolved as chunk
// resolved[i]: the known fact that says the same is superseded by it
// (unless the plan superseded it already, or it is no longer current);
// with none, the former fact is stored as already superseded, so the
// history keeps what the text said was true before.
func (m *Memory) applyFormer(ctx context.Context, tx *sql.Tx, fp *engine.FormerPlan, resolved []string, i int, now time.Time, out *hippo.FactOutcome) error {
	newID := resolved[i]
	if fp.Target != nil {
		oldID := fp.Target.Entry.Ref.ChunkID
		if oldID == "" {
			oldID = resolved[fp.Target.Entry.Ref.Batch]
		}
		switch oldID {
		case newID:
			return nil // the fact is its own former self
		case out.SupersededID:
			out.FormerID, out.FormerContent = oldID, out.SupersededContent
			return nil
		}
		var content string
		err := tx.QueryRowContext(ctx, `UPDATE chunks SET superseded_by = ?, superseded_at = ?
			WHERE id = ? AND agent_id = ? AND superseded_by IS NULL RETURNING content`,
			newID, formatTime(now), oldID, m.opts.AgentID).Scan(&content)
		switch {
		case err == sql.ErrNoRows:
			return nil // forgotten or superseded meanwhile: no longer current anyway
		case err != nil:
			return fmt.Errorf("supersede former fact %s: %w", oldID, err)
		}
		out.FormerID, out.FormerContent = oldID, content
	} else {
		at := now
		c := &hippo.Chunk{
			ID: newChunkID(now), AgentID: m.opts.AgentID, Scope: m.opts.Scope, Kind: hippo.KindFact,
			Content: fp.Content, ContentHash: ContentHash(fp.Content), Embedding: fp.Vec,
			RunningIntensity: m.cfg.DefaultIntensity, EncounterCount: 1, LastAccessedAt: now, CreatedAt: now,
			SupersededBy: newID, SupersededAt: &at,
		}
		if err := insertChunk(ctx, tx, c); err != nil {
			return err
		}
		out.FormerID, out.FormerContent, out.FormerRecorded = c.ID, fp.Content, true
	}
	if out.Action == hippo.ActionNew || out.Action == hippo.ActionDistinct {
		out.Action = hippo.ActionSupersedes
		out.SupersededID, out.SupersededContent = out.FormerID, out.FormerContent
	}
	return nil
}
