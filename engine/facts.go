package engine

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/vector"
)

// factRef names a candidate: a stored fact, or a fact decided earlier in
// the same call (intra-batch visibility).
type factRef struct {
	ChunkID string // set for stored facts
	Batch   int    // index into the call's facts otherwise
}

// factEntry is a candidate fact: its content, unit vector and intensity.
type factEntry struct {
	Ref       factRef
	Content   string
	Vec       []float32 // unit length
	Intensity float64
}

// factMatch is a candidate with its similarity to a new fact.
type factMatch struct {
	Entry      *factEntry
	Similarity float64
}

// factPlan is the decision for one extracted fact before it is applied.
type factPlan struct {
	Fact    hippo.Fact
	Vec     []float32
	Action  hippo.Action
	Target  *factMatch  // duplicate or superseded candidate
	Top     []factMatch // nearest candidates, best first
	inBand  []factMatch // ambiguous candidates, best first
	pairIdx []int       // their indexes in the classification request
	Former  *formerPlan // the fact this one replaces (Fact.Replaces)
}

// formerPlan is the fact an extracted fact says it replaces: "User prefers
// VS Code" for "User uses Neovim" said as "I used to prefer VS Code, but
// now I use Neovim". A known fact that says the same (target) is
// superseded; with none, the former fact is stored as already superseded,
// so the history keeps it and only the new fact is current.
type formerPlan struct {
	Content string
	Vec     []float32
	Target  *factMatch  // the known fact saying the same, if any
	Top     []factMatch // nearest candidates, best first
	inBand  []factMatch
	pairIdx []int
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

// givenFacts are the facts a caller gave (hippo.RememberInput.Facts,
// validated) as the extractor's: trimmed, with the default intensity when
// none was given.
func givenFacts(cfg hippo.Config, in []hippo.GivenFact) []hippo.Fact {
	out := make([]hippo.Fact, len(in))
	for i, f := range in {
		out[i] = hippo.Fact{Content: strings.TrimSpace(f.Fact), Intensity: cfg.DefaultIntensity, Replaces: strings.TrimSpace(f.Replaces)}
		if f.Intensity != nil {
			out[i].Intensity = cfg.ClampIntensity(*f.Intensity)
		}
	}
	return out
}

// nearest returns the k entries most similar to the unit vector v.
func nearest(pool []*factEntry, v []float32, k int) []factMatch {
	top := vector.NewTopK[*factEntry](k)
	for _, e := range pool {
		if len(e.Vec) == len(v) {
			top.Push(e, float64(vector.Dot(v, e.Vec)))
		}
	}
	sorted := top.Sorted()
	out := make([]factMatch, len(sorted))
	for i, s := range sorted {
		out[i] = factMatch{Entry: s.Item, Similarity: s.Score}
	}
	return out
}

// factTexts are the texts of one embedding request for facts: the facts,
// then the facts they replace; formerAt[i] is the index of fact i's former
// fact among them, or -1.
func factTexts(facts []hippo.Fact) (texts []string, formerAt []int) {
	texts = make([]string, len(facts), 2*len(facts))
	formerAt = make([]int, len(facts))
	for i, f := range facts {
		texts[i] = f.Content
	}
	for i, f := range facts {
		formerAt[i] = -1
		if f.Replaces != "" {
			formerAt[i] = len(texts)
			texts = append(texts, f.Replaces)
		}
	}
	return texts, formerAt
}

// planFacts finds each fact's nearest live facts in scope, through the
// index and among the facts before it in the same call (vecs as
// factTexts ordered them), and returns the plans, all new for now, with
// the change-feed position they saw: facts written after it are checked
// again when the plans are applied. The candidates from the index have no
// content yet.
func planFacts(ctx context.Context, cfg hippo.Config, ai *Index, scope string, facts []hippo.Fact, vecs [][]float32, formerAt []int) ([]*factPlan, int64, error) {
	// Decide each fact against stored facts (through the index) and the
	// facts before it in this call.
	plans := make([]*factPlan, len(facts))
	var batch []*factEntry
	ai.mu.RLock()
	snapshot := ai.seq
	f := ai.newFilter(hippo.KindFact, []string{scope})
	candidates := func(v []float32) ([]factMatch, error) {
		top := nearest(batch, v, cfg.Candidates)
		if ai.idx != nil {
			hits, err := ai.idx.Search(ctx, v, cfg.Candidates, func(c *Meta, cos, _ float64, _ bool) (float64, bool) {
				return cos, f.allows(c)
			})
			if err != nil {
				return nil, err
			}
			for _, h := range hits {
				top = append(top, factMatch{Entry: &factEntry{Ref: factRef{ChunkID: h.ID}, Intensity: float64(h.Meta.Intensity)}, Similarity: h.Cosine})
			}
		}
		sort.SliceStable(top, func(a, b int) bool { return top[a].Similarity > top[b].Similarity })
		return top[:min(len(top), cfg.Candidates)], nil
	}
	for i, fact := range facts {
		v := vector.Normalize(append([]float32(nil), vecs[i]...))
		top, err := candidates(v)
		if err != nil {
			ai.mu.RUnlock()
			return nil, 0, err
		}
		plans[i] = &factPlan{Fact: fact, Vec: v, Action: hippo.ActionNew, Top: top}
		if k := formerAt[i]; k >= 0 {
			fv := vector.Normalize(append([]float32(nil), vecs[k]...))
			ftop, err := candidates(fv)
			if err != nil {
				ai.mu.RUnlock()
				return nil, 0, err
			}
			plans[i].Former = &formerPlan{Content: fact.Replaces, Vec: fv, Top: ftop}
		}
		batch = append(batch, &factEntry{Ref: factRef{Batch: i}, Content: fact.Content, Vec: v, Intensity: fact.Intensity})
	}
	ai.mu.RUnlock()
	return plans, snapshot, nil
}

// factPairs decides what the similarities alone decide (above the
// duplicate threshold a duplicate, below the new threshold new, a former
// fact matching a known one) and returns the ambiguous pairs, in between,
// for one classification call.
func factPairs(cfg hippo.Config, plans []*factPlan) []hippo.FactPair {
	var pairs []hippo.FactPair
	for _, p := range plans {
		// The former fact matches a known fact that says the same: above
		// the duplicate threshold, or a DUPLICATE verdict in the band.
		if fp := p.Former; fp != nil && len(fp.Top) > 0 && fp.Top[0].Similarity >= cfg.NewThreshold {
			if fp.Top[0].Similarity > cfg.DuplicateThreshold {
				fp.Target = &fp.Top[0]
			} else {
				for _, c := range fp.Top {
					if c.Similarity >= cfg.NewThreshold && c.Similarity <= cfg.DuplicateThreshold {
						fp.inBand = append(fp.inBand, c)
						fp.pairIdx = append(fp.pairIdx, len(pairs))
						pairs = append(pairs, hippo.FactPair{New: fp.Content, Existing: c.Entry.Content})
					}
				}
			}
		}
		top := p.Top
		switch {
		case len(top) == 0 || top[0].Similarity < cfg.NewThreshold:
			// New: nothing close.
		case top[0].Similarity > cfg.DuplicateThreshold:
			p.Action, p.Target = hippo.ActionDuplicate, &top[0]
		default:
			for _, c := range top {
				if c.Similarity >= cfg.NewThreshold && c.Similarity <= cfg.DuplicateThreshold {
					p.inBand = append(p.inBand, c)
					p.pairIdx = append(p.pairIdx, len(pairs))
					pairs = append(pairs, hippo.FactPair{New: p.Fact.Content, Existing: c.Entry.Content})
				}
			}
			p.Action = hippo.ActionDistinct
		}
	}

	return pairs
}

// applyVerdicts applies the classifier's verdicts on factPairs' pairs: for
// each plan, the first candidate in similarity order that is not DISTINCT
// decides. A fact never supersedes another of the same call: the facts of
// one text all hold as of that text ("moved out of the shared flat" does
// not replace "lives in his own place in Khalda" said with it), so such a
// verdict counts as DISTINCT; a DUPLICATE of one still merges them.
func applyVerdicts(plans []*factPlan, verdicts []hippo.Verdict) {
	for _, p := range plans {
		if fp := p.Former; fp != nil {
			for k, idx := range fp.pairIdx {
				if idx < len(verdicts) && verdicts[idx] == hippo.Duplicate {
					fp.Target = &fp.inBand[k]
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
				p.Action, p.Target = hippo.ActionDuplicate, &p.inBand[k]
			case hippo.Supersedes:
				if p.inBand[k].Entry.Ref.ChunkID == "" {
					continue // a fact of the same call: both hold as of one text
				}
				p.Action, p.Target = hippo.ActionSupersedes, &p.inBand[k]
			default:
				continue
			}
			break
		}
	}
}

// FactWriter is what applying facts needs of a store's write transaction
// on one agent's chunks.
type FactWriter interface {
	ChunkWriter
	// FactRows reads the agent's live facts in scope written after the
	// change-feed position since ("load since"): rows of (id, content,
	// embedding, running_intensity).
	FactRows(ctx context.Context, scope string, since int64) (Rows, error)
	// IsLive reports whether the agent's chunk id exists and is current.
	IsLive(ctx context.Context, id string) (bool, error)
	// Insert inserts c, which has its ID: ECONFLICT, with nothing written
	// and the transaction still usable, when the ID or, for a memory, its
	// content in its scope is taken (putMemory relies on it).
	Insert(ctx context.Context, c *hippo.Chunk) error
	// Supersede marks the agent's chunk id as superseded by by at at,
	// unless it is gone or superseded already (ok false), and returns its
	// content.
	Supersede(ctx context.Context, id, by string, at time.Time) (content string, ok bool, err error)
}

// insert gives c a new ID when it has none and inserts it through w.
func insert(ctx context.Context, w FactWriter, c *hippo.Chunk) error {
	if c.ID == "" {
		c.ID = NewChunkID(c.CreatedAt)
	}
	return w.Insert(ctx, c)
}

// applyFacts writes the plans through w, a store's write transaction
// holding the agent's write lock, at now, into scope. Facts stored by
// others since the plans were made (after position snapshot) are checked
// again here, so two concurrent calls stating the same fact store it
// once. stamp, when not nil, is applied to every chunk before it is
// inserted (its provenance and trust flag).
func applyFacts(ctx context.Context, cfg hippo.Config, w FactWriter, agent, scope string, plans []*factPlan, snapshot int64, now time.Time, stamp func(*hippo.Chunk)) (*hippo.RememberResult, error) {
	if stamp == nil {
		stamp = func(*hippo.Chunk) {}
	}
	fresh, err := freshFacts(ctx, w, scope, snapshot)
	if err != nil {
		return nil, err
	}

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
				live, err := w.IsLive(ctx, targetID)
				if err != nil {
					return nil, err
				}
				if !live {
					p.Action, targetID = hippo.ActionNew, ""
				}
			}
		}
		if p.Action == hippo.ActionNew || p.Action == hippo.ActionDistinct {
			if best := nearest(fresh, p.Vec, 1); len(best) > 0 && best[0].Similarity > cfg.DuplicateThreshold {
				p.Action, targetID = hippo.ActionDuplicate, best[0].Entry.Ref.ChunkID
				out.Similarity = best[0].Similarity
			}
		}
		out.Action = p.Action

		switch p.Action {
		case hippo.ActionDuplicate:
			if err := strengthenFact(ctx, w, targetID, p.Fact.Intensity, now, &out); err != nil {
				return nil, err
			}
			resolved[i] = out.ChunkID
		default:
			c := &hippo.Chunk{
				AgentID: agent, Scope: scope, Kind: hippo.KindFact,
				Content: p.Fact.Content, ContentHash: hippo.ContentHash(p.Fact.Content), Embedding: p.Vec,
				RunningIntensity: p.Fact.Intensity, EncounterCount: 1, LastAccessedAt: now, CreatedAt: now,
			}
			stamp(c)
			if err := insert(ctx, w, c); err != nil {
				return nil, err
			}
			out.ChunkID, resolved[i] = c.ID, c.ID
			out.Suspicious, out.SuspiciousReason = c.Suspicious, c.SuspiciousReason
			if p.Action == hippo.ActionSupersedes {
				old, ok, err := w.Supersede(ctx, targetID, c.ID, now)
				switch {
				case err != nil:
					return nil, fmt.Errorf("supersede fact %s: %w", targetID, err)
				case !ok:
					out.Action = hippo.ActionDistinct // already gone or superseded
				default:
					out.SupersededID, out.SupersededContent = targetID, old
				}
			}
		}
		if p.Former != nil {
			if err := applyFormer(ctx, cfg, w, agent, scope, p.Former, resolved, i, now, &out, stamp); err != nil {
				return nil, err
			}
		}
		outcomes = append(outcomes, out)
	}
	return &hippo.RememberResult{Summary: hippo.Summarize(outcomes), Facts: outcomes}, nil
}

// freshFacts are the facts of scope written since snapshot (by another
// writer, after the plans were made), for the duplicate check.
func freshFacts(ctx context.Context, w FactWriter, scope string, snapshot int64) ([]*factEntry, error) {
	var fresh []*factEntry
	rows, err := w.FactRows(ctx, scope, snapshot)
	err = ReadRows(rows, err, func() error {
		var (
			e    = factEntry{}
			blob []byte
		)
		if err := rows.Scan(&e.Ref.ChunkID, &e.Content, &blob, &e.Intensity); err != nil {
			return err
		}
		v, err := vector.Decode(nil, blob)
		if err != nil {
			return err
		}
		e.Vec = vector.Normalize(v)
		fresh = append(fresh, &e)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("load new facts: %w", err)
	}
	return fresh, nil
}

// strengthenFact strengthens the fact id, a duplicate of one stated at
// intensity, and records it in out.
func strengthenFact(ctx context.Context, w FactWriter, id string, intensity float64, now time.Time, out *hippo.FactOutcome) error {
	c, err := w.Chunk(ctx, id)
	if err != nil {
		return err
	}
	out.ChunkID, out.ExistingContent, out.OldIntensity = c.ID, c.Content, c.RunningIntensity
	out.Suspicious, out.SuspiciousReason = c.Suspicious, c.SuspiciousReason
	c.Strengthen(intensity, now, true)
	out.NewIntensity = c.RunningIntensity
	if err := w.SaveStrength(ctx, c); err != nil {
		return fmt.Errorf("strengthen fact: %w", err)
	}
	return nil
}

// applyFormer ends the former fact of plan i, now resolved as chunk
// resolved[i]: the known fact that says the same is superseded by it
// (unless the plan superseded it already, or it is no longer current);
// with none, the former fact is stored as already superseded, so the
// history keeps what the text said was true before.
func applyFormer(ctx context.Context, cfg hippo.Config, w FactWriter, agent, scope string, fp *formerPlan, resolved []string, i int, now time.Time, out *hippo.FactOutcome, stamp func(*hippo.Chunk)) error {
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
		content, ok, err := w.Supersede(ctx, oldID, newID, now)
		switch {
		case err != nil:
			return fmt.Errorf("supersede former fact %s: %w", oldID, err)
		case !ok:
			return nil // forgotten or superseded meanwhile: no longer current anyway
		}
		out.FormerID, out.FormerContent = oldID, content
	} else {
		at := now
		c := &hippo.Chunk{
			AgentID: agent, Scope: scope, Kind: hippo.KindFact,
			Content: fp.Content, ContentHash: hippo.ContentHash(fp.Content), Embedding: fp.Vec,
			RunningIntensity: cfg.DefaultIntensity, EncounterCount: 1, LastAccessedAt: now, CreatedAt: now,
			SupersededBy: newID, SupersededAt: &at,
		}
		stamp(c)
		if err := insert(ctx, w, c); err != nil {
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
