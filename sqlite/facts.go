package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/engine"
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
	former  *formerPlan // the fact this one replaces (Fact.Replaces)
}

// formerPlan is the fact an extracted fact says it replaces: "User prefers
// VS Code" for "User uses Neovim" said as "I used to prefer VS Code, but
// now I use Neovim". A known fact that says the same (target) is
// superseded; with none, the former fact is stored as already superseded,
// so the history keeps it and only the new fact is current.
type formerPlan struct {
	content string
	vec     []float32
	target  *factMatch  // the known fact saying the same, if any
	top     []factMatch // nearest candidates, best first
	inBand  []factMatch
	pairIdx []int
}

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
	facts := cleanFacts(cfg, extracted)
	if len(facts) == 0 {
		reason := m.noFactsReason(text, len(extracted))
		return &hippo.RememberResult{Summary: hippo.NoFactsSummary(reason), Facts: []hippo.FactOutcome{}, Reason: reason}, nil
	}
	// One embedding request: the facts, then the facts they replace.
	contents := make([]string, len(facts), 2*len(facts))
	formerAt := make([]int, len(facts)) // index in contents of fact i's former fact, or -1
	for i, f := range facts {
		contents[i] = f.Content
	}
	for i, f := range facts {
		formerAt[i] = -1
		if f.Replaces != "" {
			formerAt[i] = len(contents)
			contents = append(contents, f.Replaces)
		}
	}
	vecs, err := hippo.Embed(ctx, m.opts.Embedder, contents, 0)
	if err != nil {
		return nil, err
	}
	ai, err := m.db.syncIndexFor(ctx, m.opts.AgentID, &queryLock{model: m.opts.Embedder.Model(), dim: len(vecs[0])})
	if err != nil {
		return nil, err
	}

	// Decide each fact against stored facts (through the index) and the
	// facts before it in this call.
	plans := make([]*factPlan, len(facts))
	var batch []*factEntry
	ai.Mu.RLock()
	snapshot := ai.Seq
	f := ai.NewFilter(hippo.KindFact, []string{m.opts.Scope})
	candidates := func(v []float32) ([]factMatch, error) {
		top := nearest(batch, v, cfg.Candidates)
		if ai.Idx != nil {
			hits, err := ai.Idx.Search(ctx, v, cfg.Candidates, func(c *engine.Meta, cos, _ float64, _ bool) (float64, bool) {
				return cos, f.Allows(c)
			})
			if err != nil {
				return nil, err
			}
			for _, h := range hits {
				top = append(top, factMatch{entry: &factEntry{ref: factRef{chunkID: h.ID}, intensity: float64(h.Meta.Intensity)}, similarity: h.Cosine})
			}
		}
		sort.SliceStable(top, func(a, b int) bool { return top[a].similarity > top[b].similarity })
		return top[:min(len(top), cfg.Candidates)], nil
	}
	for i, fact := range facts {
		v := vector.Normalize(append([]float32(nil), vecs[i]...))
		top, err := candidates(v)
		if err != nil {
			ai.Mu.RUnlock()
			return nil, err
		}
		plans[i] = &factPlan{fact: fact, vec: v, action: hippo.ActionNew, top: top}
		if k := formerAt[i]; k >= 0 {
			fv := vector.Normalize(append([]float32(nil), vecs[k]...))
			ftop, err := candidates(fv)
			if err != nil {
				ai.Mu.RUnlock()
				return nil, err
			}
			plans[i].former = &formerPlan{content: fact.Replaces, vec: fv, top: ftop}
		}
		batch = append(batch, &factEntry{ref: factRef{batch: i}, content: fact.Content, vec: v, intensity: fact.Intensity})
	}
	ai.Mu.RUnlock()
	if err := m.fillContents(ctx, plans); err != nil {
		return nil, err
	}
	var pairs []hippo.FactPair
	for _, p := range plans {
		// The former fact matches a known fact that says the same: above
		// the duplicate threshold, or a DUPLICATE verdict in the band.
		if fp := p.former; fp != nil && len(fp.top) > 0 && fp.top[0].similarity >= cfg.NewThreshold {
			if fp.top[0].similarity > cfg.DuplicateThreshold {
				fp.target = &fp.top[0]
			} else {
				for _, c := range fp.top {
					if c.similarity >= cfg.NewThreshold && c.similarity <= cfg.DuplicateThreshold {
						fp.inBand = append(fp.inBand, c)
						fp.pairIdx = append(fp.pairIdx, len(pairs))
						pairs = append(pairs, hippo.FactPair{New: fp.content, Existing: c.entry.content})
					}
				}
			}
		}
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
			if fp := p.former; fp != nil {
				for k, idx := range fp.pairIdx {
					if idx < len(verdicts) && verdicts[idx] == hippo.Duplicate {
						fp.target = &fp.inBand[k]
						break
					}
				}
			}
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
		if f.Replaces = strings.TrimSpace(f.Replaces); hippo.ValidateText("fact", f.Replaces, cfg.MaxContent) != nil ||
			strings.EqualFold(f.Replaces, f.Content) {
			f.Replaces = "" // nothing usable, or the fact itself
		}
		out = append(out, f)
	}
	return out
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
func (m *Memory) fillContents(ctx context.Context, plans []*factPlan) error {
	byID := map[string][]*factEntry{}
	var ids []any
	for _, p := range plans {
		top := p.top
		if p.former != nil {
			top = append(append([]factMatch{}, top...), p.former.top...)
		}
		for _, c := range top {
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
			c.Strengthen(p.fact.Intensity, now, true)
			out.NewIntensity = c.RunningIntensity
			if err := saveStrength(ctx, tx, c); err != nil {
				return nil, fmt.Errorf("strengthen fact: %w", err)
			}
			resolved[i] = c.ID
		default:
			c := &hippo.Chunk{
				ID: newChunkID(now), AgentID: m.opts.AgentID, Scope: m.opts.Scope, Kind: hippo.KindFact,
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
		if p.former != nil {
			if err := m.applyFormer(ctx, tx, p.former, resolved, i, now, &out); err != nil {
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
func (m *Memory) applyFormer(ctx context.Context, tx *sql.Tx, fp *formerPlan, resolved []string, i int, now time.Time, out *hippo.FactOutcome) error {
	newID := resolved[i]
	if fp.target != nil {
		oldID := fp.target.entry.ref.chunkID
		if oldID == "" {
			oldID = resolved[fp.target.entry.ref.batch]
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
			Content: fp.content, ContentHash: ContentHash(fp.content), Embedding: fp.vec,
			RunningIntensity: m.cfg.DefaultIntensity, EncounterCount: 1, LastAccessedAt: now, CreatedAt: now,
			SupersededBy: newID, SupersededAt: &at,
		}
		if err := insertChunk(ctx, tx, c); err != nil {
			return err
		}
		out.FormerID, out.FormerContent, out.FormerRecorded = c.ID, fp.content, true
	}
	if out.Action == hippo.ActionNew || out.Action == hippo.ActionDistinct {
		out.Action = hippo.ActionSupersedes
		out.SupersededID, out.SupersededContent = out.FormerID, out.FormerContent
	}
	return nil
}
