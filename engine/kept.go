package engine

// The text given to remember_facts is kept as a memory of its own: the
// source its facts link to (Provenance.InputHash is its ContentHash), so
// that nothing said is lost when extraction misses it. Recall returns one
// of a text and its facts (groupFilter); forgetting a fact forgets its
// text (forgetSources). A text stays current when its facts are
// superseded: it may say more than they did, and the offline classifier's
// supersessions are not sure enough to hide it (eval/README.md).

import (
	"context"
	"fmt"
	"time"

	"github.com/hippo-mem/hippo"
)

// keeps says whether Remember keeps in.Text as a memory of its own.
// A queued text was kept when it was queued.
func (m *Memory) keeps(in hippo.RememberInput) bool {
	return in.Text != "" && !m.opts.DiscardText && m.pending == 0
}

// keepOnly keeps in.Text as a memory when no fact came of it; nil when
// the text is not kept.
func (m *Memory) keepOnly(ctx context.Context, in hippo.RememberInput) (*hippo.KeptMessage, error) {
	if !m.keeps(in) {
		return nil, nil
	}
	vecs, err := hippo.Embed(ctx, m.opts.Embedder, []string{in.Text}, 0)
	if err != nil {
		return nil, err
	}
	var kept *hippo.KeptMessage
	err = m.s.Update(ctx, func(tx Tx) error {
		if err := tx.LockModel(ctx, m.opts.Embedder.Model(), len(vecs[0])); err != nil {
			return err
		}
		var err error
		kept, err = m.keepMessage(ctx, tx, in, vecs[0], m.clock.Now())
		return err
	})
	if err != nil {
		return nil, err
	}
	return kept, nil
}

// keepMessage writes in.Text as a memory of the scope, or strengthens the
// same text stored before, through tx: the source of the facts learned
// from it (their Provenance.InputHash is its ContentHash), searchable
// whatever extraction yielded.
func (m *Memory) keepMessage(ctx context.Context, tx Tx, in hippo.RememberInput, vec []float32, now time.Time) (*hippo.KeptMessage, error) {
	hash := hippo.ContentHash(in.Text)
	existing, err := tx.SameMemory(ctx, m.opts.Scope, hash)
	if err != nil {
		return nil, fmt.Errorf("look up message: %w", err)
	}
	if existing != nil {
		existing.Strengthen(m.cfg.DefaultIntensity, now, true)
		if err := tx.SaveStrength(ctx, existing); err != nil {
			return nil, fmt.Errorf("strengthen message: %w", err)
		}
		return &hippo.KeptMessage{ID: existing.ID}, nil
	}
	c := &hippo.Chunk{
		AgentID: m.opts.AgentID, Scope: m.opts.Scope, Kind: hippo.KindMemory,
		Content: in.Text, ContentHash: hash, Embedding: vec,
		RunningIntensity: m.cfg.DefaultIntensity, EncounterCount: 1, LastAccessedAt: now, CreatedAt: now,
		Provenance: m.provenance(hippo.OriginRememberFacts, in.Source, hash),
	}
	flagChunk(c)
	if err := insert(ctx, tx, c); err != nil {
		return nil, err
	}
	return &hippo.KeptMessage{ID: c.ID, New: true}, nil
}
