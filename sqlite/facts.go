package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/vector"
)

// factRef names a candidate: a stored fact, or a fact decided earlier in
// the same call (intra-batch visibility).
type factRef struct {
	chunkID string // set for stored facts
	batch   int    // index into the call's facts otherwise
}

type factEntry struct {
	ref       factRef
	content   string
	vec       []float32 // unit length
	intensity float64
}

type factMatch struct {
	entry      *factEntry
	similarity float64
}

// factPlan is the decision for one extracted fact before it is applied.
type factPlan struct {
	fact    hippo.Fact
	vec     []float32
	action  hippo.Action
	target  *factMatch  // duplicate or superseded candidate
	top     []factMatch // nearest candidates, best first
	inBand  []factMatch // ambiguous candidates, best first
	pairIdx []int       // their indexes in the classification request
}

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
	facts := cleanFacts(cfg, extracted)
	if len(facts) == 0 {
		return &hippo.RememberResult{Summary: "No facts extracted.", Facts: []hippo.FactOutcome{}}, nil
	}
	contents := make([]string, len(facts))
	for i, f := range facts {
		contents[i] = f.Content
	}
	vecs, err := m.embed(ctx, contents)
	if err != nil {
		return nil, err
	}
	ai, err := m.db.queryIndex(ctx, m.opts.AgentID, &queryLock{model: m.opts.Embedder.Model(), dim: len(vecs[0])})
	if err != nil {
		return nil, err
	}

	// Decide each fact against stored facts (through the index) and the
	// facts before it in this call.
	plans := make([]*factPlan, len(facts))
	var batch []*factEntry
	ai.mu.RLock()
	snapshot := ai.seq
	f := ai.newFilter(hippo.KindFact, []string{m.opts.Scope})
	for i, fact := range facts {
		v := vector.Normalize(append([]float32(nil), vecs[i]...))
		top := nearest(batch, v, cfg.Candidates)
		if ai.idx != nil {
			hits, err := ai.idx.Search(ctx, v, cfg.Candidates, func(c *chunkMeta, cos, _ float64, _ bool) (float64, bool) {
				return cos, f.allows(c)
			})
			if err != nil {
				ai.mu.RUnlock()
				return nil, err
			}
			for _, h := range hits {
				top = append(top, factMatch{entry: &factEntry{ref: factRef{chunkID: h.ID}, intensity: float64(h.Meta.intensity)}, similarity: h.Cosine})
			}
		}
		sort.SliceStable(top, func(a, b int) bool { return top[a].similarity > top[b].similarity })
		plans[i] = &factPlan{fact: fact, vec: v, action: hippo.ActionNew, top: top[:min(len(top), cfg.Candidates)]}
		batch = append(batch, &factEntry{ref: factRef{batch: i}, content: fact.Content, vec: v, intensity: fact.Intensity})
	}
	ai.mu.RUnlock()
	if err := m.fillContents(ctx, plans); err != nil {
		return nil, err
	}
	var pairs []hippo.FactPair
	for _, p := range plans {
		top := p.top
		switch {
		case len(top) == 0 || top[0].similarity < cfg.NewThreshold:
			// New: nothing close.
		case top[0].similarity > cfg.DuplicateThreshold:
			p.action, p.target = hippo.ActionDuplicate, &top[0]
		default:
			for _, c := range top {
				if c.similarity >= cfg.NewThreshold && c.similarity <= cfg.DuplicateThreshold {
					p.inBand = append(p.inBand, c)
					p.pairIdx = append(p.pairIdx, len(pairs))
					pairs = append(pairs, hippo.FactPair{New: p.fact.Content, Existing: c.entry.content})
				}
			}
			p.action = hippo.ActionDistinct
		}
	}

	// One classification call for every ambiguous pair. The first
	// candidate, in similarity order, that is not DISTINCT decides.
	if len(pairs) > 0 && m.opts.Classifier != nil {
		verdicts, err := m.opts.Classifier.ClassifyFacts(ctx, pairs)
		if err != nil {
			return nil, fmt.Errorf("classify facts: %w", err)
		}
		for _, p := range plans {
			for k, idx := range p.pairIdx {
				if idx >= len(verdicts) {
					break
				}
				switch verdicts[idx] {
				case hippo.Duplicate:
					p.action, p.target = hippo.ActionDuplicate, &p.inBand[k]
				case hippo.Supersedes:
					p.action, p.target = hippo.ActionSupersedes, &p.inBand[k]
				default:
					continue
				}
				break
			}
		}
	}
	return m.applyFacts(ctx, plans, snapshot)
}

// cleanFacts trims, clamps and bounds what the extractor returned.
func cleanFacts(cfg hippo.Config, in []hippo.Fact) []hippo.Fact {
	out := make([]hippo.Fact, 0, len(in))
	for _, f := range in {
		f.Content = strings.TrimSpace(f.Content)
		if hippo.ValidateText("fact", f.Content, cfg.MaxContent) != nil {
			continue
		}
		f.Intensity = cfg.ClampIntensity(f.Intensity)
		out = append(out, f)
	}
	return out
}

// fillContents reads the content of the stored candidates of each plan.
func (m *Memory) fillContents(ctx context.Context, plans []*factPlan) error {
	byID := map[string][]*factEntry{}
	var ids []any
	for _, p := range plans {
		for _, c := range p.top {
			if id := c.entry.ref.chunkID; id != "" {
				if byID[id] == nil {
					ids = append(ids, id)
				}
				byID[id] = append(byID[id], c.entry)
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
			e.content = content
		}
	}
	return rows.Err()
}

// freshFacts loads the live facts of the agent in the write scope that
// were written after the change-log position seq.
func (m *Memory) freshFacts(ctx context.Context, tx *sql.Tx, seq int64) ([]*factEntry, error) {
	rows, err := tx.QueryContext(ctx, `SELECT id, content, embedding, running_intensity FROM chunks
		WHERE agent_id = ? AND scope = ? AND kind = 'fact' AND superseded_by IS NULL
		AND id IN (SELECT chunk_id FROM hippo_changes WHERE agent_id = ? AND seq > ?)`,
		m.opts.AgentID, m.opts.Scope, m.opts.AgentID, seq)
	if err != nil {
		return nil, fmt.Errorf("load new facts: %w", err)
	}
	defer rows.Close()
	var entries []*factEntry
	for rows.Next() {
		var (
			e    factEntry
			blob []byte
		)
		if err := rows.Scan(&e.ref.chunkID, &e.content, &blob, &e.intensity); err != nil {
			return nil, fmt.Errorf("load new facts: %w", err)
		}
		if e.vec, err = vector.Decode(nil, blob); err != nil {
			return nil, err
		}
		vector.Normalize(e.vec)
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

// nearest returns the k entries most similar to the unit vector v.
func nearest(pool []*factEntry, v []float32, k int) []factMatch {
	top := vector.NewTopK[*factEntry](k)
	for _, e := range pool {
		if len(e.vec) == len(v) {
			top.Push(e, float64(vector.Dot(v, e.vec)))
		}
	}
	sorted := top.Sorted()
	out := make([]factMatch, len(sorted))
	for i, s := range sorted {
		out[i] = factMatch{entry: s.Item, similarity: s.Score}
	}
	return out
}

// applyFacts writes every plan in one write transaction. Facts stored by
// others since the plans were made are checked again here, under the write
// lock, so two concurrent calls stating the same fact store it once.
func (m *Memory) applyFacts(ctx context.Context, plans []*factPlan, snapshot int64) (*hippo.RememberResult, error) {
	cfg := m.cfg
	tx, err := m.db.write.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	if err := m.db.lockModelTx(ctx, tx, m.opts.Embedder.Model(), len(plans[0].vec)); err != nil {
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
		out := hippo.FactOutcome{Action: p.action, Content: p.fact.Content, Intensity: p.fact.Intensity}
		targetID := ""
		if p.target != nil {
			if r := p.target.entry.ref; r.chunkID != "" {
				targetID = r.chunkID
			} else {
				targetID = resolved[r.batch]
			}
			out.Similarity = p.target.similarity
			// The target may have been forgotten or superseded meanwhile.
			if p.target.entry.ref.chunkID != "" {
				live, err := m.isLive(ctx, tx, targetID)
				if err != nil {
					return nil, err
				}
				if !live {
					p.action, targetID = hippo.ActionNew, ""
				}
			}
		}
		if p.action == hippo.ActionNew || p.action == hippo.ActionDistinct {
			if best := nearest(fresh, p.vec, 1); len(best) > 0 && best[0].similarity > cfg.DuplicateThreshold {
				p.action, targetID = hippo.ActionDuplicate, best[0].entry.ref.chunkID
				out.Similarity = best[0].similarity
			}
		}
		out.Action = p.action

		switch p.action {
		case hippo.ActionDuplicate:
			c, err := getChunk(ctx, tx, m.opts.AgentID, targetID)
			if err != nil {
				return nil, err
			}
			out.ChunkID, out.ExistingContent, out.OldIntensity = c.ID, c.Content, c.RunningIntensity
			out.NewIntensity = hippo.MovingAverage(c.RunningIntensity, c.EncounterCount, p.fact.Intensity)
			if _, err := tx.ExecContext(ctx, `UPDATE chunks SET running_intensity = ?,
				encounter_count = encounter_count + 1, access_count = access_count + 1,
				last_accessed_at = ? WHERE id = ?`, out.NewIntensity, formatTime(now), c.ID); err != nil {
				return nil, fmt.Errorf("strengthen fact: %w", err)
			}
			resolved[i] = c.ID
		default:
			c := &hippo.Chunk{
				ID: NewID(now), AgentID: m.opts.AgentID, Scope: m.opts.Scope, Kind: hippo.KindFact,
				Content: p.fact.Content, ContentHash: ContentHash(p.fact.Content), Embedding: p.vec,
				RunningIntensity: p.fact.Intensity, EncounterCount: 1, LastAccessedAt: now, CreatedAt: now,
			}
			if err := insertChunk(ctx, tx, c); err != nil {
				return nil, err
			}
			out.ChunkID, resolved[i] = c.ID, c.ID
			if p.action == hippo.ActionSupersedes {
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
		outcomes = append(outcomes, out)
	}
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	return &hippo.RememberResult{Summary: hippo.Summarize(outcomes), Facts: outcomes}, nil
}
