package engine

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/trust"
	"github.com/hippo-mem/hippo/vector"
)

// maxContextItem bounds one situation of an UpdateInput's Context.
const maxContextItem = 1000

// UpdateMemory implements hippo.MemoryService (update_memory): the chunk
// is read, the new content embedded, and every change written in one
// write transaction, so that nothing changes on any error. Unknown IDs and
// other agents' chunks are ENOTFOUND alike; a superseded fact is
// ECONFLICT, naming the version to edit instead.
func (m *Memory) UpdateMemory(ctx context.Context, in hippo.UpdateInput) (*hippo.UpdateResult, error) {
	if err := m.touch(ctx); err != nil {
		return nil, err
	}
	vote, set, err := m.checkUpdate(in)
	if err != nil {
		return nil, err
	}
	var cur *hippo.Chunk
	if err := m.s.View(ctx, func(tx Tx) error {
		cur, err = liveChunk(ctx, tx, in.ID)
		return err
	}); err != nil {
		return nil, err
	}
	// The embedding and the trust check are paid for outside the write
	// lock, as StoreMemory's.
	var (
		vec, parts []float32
		flag       string
	)
	if in.Content != nil && *in.Content != cur.Content {
		if vec, parts, err = m.embedContent(ctx, cur, *in.Content); err != nil {
			return nil, err
		}
		flag = trust.Check(*in.Content).Reason()
	}
	var res *hippo.UpdateResult
	err = m.s.Update(ctx, func(tx Tx) error {
		c, err := liveChunk(ctx, tx, in.ID)
		if err != nil {
			return err
		}
		u := &update{tx: tx, m: m, c: c, in: in, vote: vote, set: set, now: m.clock.Now(), flag: flag, parts: parts,
			res: &hippo.UpdateResult{Reinforce: vote, Changed: []string{}}}
		if in.Content != nil && *in.Content != c.Content {
			if vec == nil { // another edit changed it since it was read: no vector for this text
				return hippo.Errorf(hippo.ECONFLICT, "chunk %s changed during the edit; try again", c.ID)
			}
			err = u.content(ctx, *in.Content, vec)
		} else {
			err = u.inPlace(ctx)
		}
		res = u.res
		return err
	})
	if err != nil {
		return nil, err
	}
	if res.PreviousContent != "" {
		m.s.AfterBulkWrite(ctx) // the old text is rewritten or deleted
	}
	return res, nil
}

// checkUpdate checks in and returns its vote and the metadata keys to set
// (nil values remove them).
func (m *Memory) checkUpdate(in hippo.UpdateInput) (hippo.Reinforcement, map[string]any, error) {
	vote, err := hippo.ParseReinforcement(string(in.Reinforce))
	if err != nil {
		return "", nil, err
	}
	if strings.TrimSpace(in.ID) == "" {
		return "", nil, hippo.Invalidf("id", "is required")
	}
	if in.Content == nil && in.Tags == nil && in.Category == nil && in.Context == nil && in.Intensity == nil {
		return "", nil, hippo.Invalidf("content", "or tags, category, context or intensity must be given: there is nothing to change (to only vote, use reinforce_memory)")
	}
	if in.Content != nil {
		if err := hippo.ValidateText("content", *in.Content, m.cfg.MaxContent); err != nil {
			return "", nil, err
		}
	}
	if in.Intensity != nil && !(*in.Intensity >= 0 && *in.Intensity <= 1) {
		return "", nil, hippo.Invalidf("intensity", "must be between 0 and 1, got %v", *in.Intensity)
	}
	set := map[string]any{}
	list := func(field string, items *[]string, max int) error {
		if items == nil {
			return nil
		}
		if len(*items) == 0 {
			set[field] = nil
			return nil
		}
		if len(*items) > 100 {
			return hippo.Invalidf(field, "may list at most 100 items, got %d", len(*items))
		}
		for _, s := range *items {
			if err := hippo.ValidateText(field, s, max); err != nil {
				return err
			}
		}
		set[field] = append([]string{}, *items...)
		return nil
	}
	if err := list("tags", in.Tags, hippo.MaxIDLength); err != nil {
		return "", nil, err
	}
	if err := list("context", in.Context, maxContextItem); err != nil {
		return "", nil, err
	}
	if in.Category != nil {
		set["category"] = nil
		if *in.Category != "" {
			if err := hippo.ValidateText("category", *in.Category, hippo.MaxIDLength); err != nil {
				return "", nil, err
			}
			set["category"] = *in.Category
		}
	}
	return vote, set, nil
}

// liveChunk is the agent's chunk id, ECONFLICT when it is a superseded
// version.
func liveChunk(ctx context.Context, tx Tx, id string) (*hippo.Chunk, error) {
	c, err := tx.Chunk(ctx, id)
	if err != nil {
		return nil, err
	}
	if c.SupersededBy != "" {
		return nil, hippo.Errorf(hippo.ECONFLICT, "%s %s is a superseded version (superseded by %s): edit the current one", c.Kind, c.ID, c.SupersededBy)
	}
	return c, nil
}

// update is one UpdateMemory inside its write transaction.
type update struct {
	tx   Tx
	m    *Memory
	c    *hippo.Chunk // the chunk edited, as read under the write lock
	in   hippo.UpdateInput
	vote hippo.Reinforcement
	set  map[string]any
	now  time.Time
	res  *hippo.UpdateResult
	// flag is the new content's trust flag (trust.Check), "" for none.
	flag string
	// parts are the new content's parts (embedContent), nil for none.
	parts []float32
}

// inPlace changes the chunk's metadata and strength, its content staying.
func (u *update) inPlace(ctx context.Context) error {
	if err := u.metadata(ctx, u.c, nil); err != nil {
		return err
	}
	if err := u.strength(ctx, u.c, false); err != nil {
		return err
	}
	u.res.Chunk = u.c
	return nil
}

// content gives the chunk new content with its vector vec: merged into
// the chunk of its kind and scope that holds that content already, or, for
// a fact, a new version superseding the edited one (its provenance
// update_memory), or, for a memory, the content rewritten in place with
// the old one kept in its history (its provenance kept). Either way the
// new content's trust flag replaces the old one's.
func (u *update) content(ctx context.Context, content string, vec []float32) error {
	c := u.c
	if err := u.tx.LockModel(ctx, u.m.opts.Embedder.Model(), len(vec)); err != nil {
		return err
	}
	hash := hippo.ContentHash(content)
	same, err := u.tx.SameMemory(ctx, c.Scope, hash)
	if c.Kind == hippo.KindFact {
		same, err = u.tx.SameFact(ctx, c.Scope, hash)
	}
	if err != nil {
		return fmt.Errorf("look up content: %w", err)
	}
	u.res.PreviousContent = c.Content
	u.res.Changed = append(u.res.Changed, "content")
	switch {
	case same != nil && same.ID != c.ID:
		return u.merge(ctx, same)
	case c.Kind == hippo.KindMemory:
		if err := u.metadata(ctx, c, &hippo.MemoryVersion{Content: c.Content, Until: u.now}); err != nil {
			return err
		}
		if err := u.tx.SetContent(ctx, c.ID, content, hash, vec, u.parts); err != nil {
			return err
		}
		if err := u.tx.SetSuspicious(ctx, c.ID, u.flag); err != nil {
			return err
		}
		c.Content, c.ContentHash, c.Embedding = content, hash, vec
		c.Suspicious, c.SuspiciousReason = u.flag != "", u.flag
		if err := u.strength(ctx, c, false); err != nil {
			return err
		}
		u.res.Chunk = c
		return nil
	}
	// A fact: the new text is a new version, with the old one's strength
	// and metadata, and the old one superseded by it, as remember_facts
	// supersedes (applyFacts).
	meta, err := u.editedMetadata(c, nil)
	if err != nil {
		return err
	}
	next := &hippo.Chunk{
		AgentID: c.AgentID, Scope: c.Scope, Kind: hippo.KindFact, Content: content, ContentHash: hash,
		Embedding: vector.Normalize(append([]float32(nil), vec...)), Metadata: meta,
		RunningIntensity: c.RunningIntensity, EncounterCount: c.EncounterCount, AccessCount: c.AccessCount,
		LastAccessedAt: c.LastAccessedAt, CreatedAt: u.now,
		Suspicious: u.flag != "", SuspiciousReason: u.flag,
		Provenance: u.m.provenance(hippo.OriginUpdateMemory, "", ""),
	}
	u.apply(next)
	if err := insert(ctx, u.tx, next); err != nil {
		return err
	}
	if _, ok, err := u.tx.Supersede(ctx, c.ID, next.ID, u.now); err != nil {
		return fmt.Errorf("supersede fact %s: %w", c.ID, err)
	} else if !ok {
		return hippo.Errorf(hippo.ECONFLICT, "fact %s was superseded during the edit; try again", c.ID)
	}
	u.res.Chunk, u.res.PreviousID = next, c.ID
	return nil
}

// merge folds the edited chunk into into, which already holds the new
// content (Chunk.Merge, as consolidation merges): a memory edited into
// another memory's content is deleted, a fact edited into another fact's
// is superseded by it, so its history leads there.
func (u *update) merge(ctx context.Context, into *hippo.Chunk) error {
	c := u.c
	into.Merge(c)
	if c.Kind == hippo.KindFact {
		if _, ok, err := u.tx.Supersede(ctx, c.ID, into.ID, u.now); err != nil {
			return fmt.Errorf("supersede fact %s: %w", c.ID, err)
		} else if !ok {
			return hippo.Errorf(hippo.ECONFLICT, "fact %s was superseded during the edit; try again", c.ID)
		}
	} else if _, _, err := deleteChunks(ctx, u.tx, u.m.opts.AgentID, []string{c.ID}); err != nil {
		return err
	}
	if err := u.metadata(ctx, into, nil); err != nil {
		return err
	}
	if err := u.strength(ctx, into, true); err != nil {
		return err
	}
	u.res.Chunk, u.res.PreviousID, u.res.Merged = into, c.ID, true
	return nil
}

// editedMetadata is c's metadata with the update's keys set and prev, if
// any, in its history.
func (u *update) editedMetadata(c *hippo.Chunk, prev *hippo.MemoryVersion) ([]byte, error) {
	if len(u.set) == 0 && prev == nil {
		return c.Metadata, nil
	}
	meta, err := hippo.EditMetadata(c.Metadata, u.set, prev)
	if err != nil {
		return nil, err
	}
	if meta == "" {
		return nil, nil
	}
	return []byte(meta), nil
}

// metadata writes c's edited metadata, when anything in it changes.
func (u *update) metadata(ctx context.Context, c *hippo.Chunk, prev *hippo.MemoryVersion) error {
	if len(u.set) == 0 && prev == nil {
		return nil
	}
	meta, err := u.editedMetadata(c, prev)
	if err != nil {
		return err
	}
	if err := u.tx.SetMetadata(ctx, c.ID, string(meta)); err != nil {
		return fmt.Errorf("update metadata: %w", err)
	}
	c.Metadata = meta
	return nil
}

// apply applies the vote and the intensity to c in memory, and records
// in the result what changed besides the content.
func (u *update) apply(c *hippo.Chunk) {
	switch u.vote {
	case hippo.ReinforceUp:
		c.Strengthen(1, u.now, true)
	case hippo.ReinforceDown:
		c.Strengthen(0, u.now, false)
	}
	if u.in.Intensity != nil {
		c.RunningIntensity = *u.in.Intensity
		u.res.Changed = append(u.res.Changed, "intensity")
	}
	for _, k := range []string{"tags", "category", "context"} {
		if _, ok := u.set[k]; ok {
			u.res.Changed = append(u.res.Changed, k)
		}
	}
	c.RunningIntensity = math.Min(1, math.Max(0, c.RunningIntensity))
}

// strength applies the vote and the intensity to c and saves them, or
// saves c's strength anyway when force (a merge changed it).
func (u *update) strength(ctx context.Context, c *hippo.Chunk, force bool) error {
	u.apply(c)
	if !force && u.vote == hippo.ReinforceNone && u.in.Intensity == nil {
		return nil
	}
	if err := u.tx.SaveStrength(ctx, c); err != nil {
		return fmt.Errorf("update strength: %w", err)
	}
	return nil
}
