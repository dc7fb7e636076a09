package engine

// The text given to remember_facts is kept as a memory of its own: the
// source its facts link to (Provenance.InputHash is its ContentHash), so
// that nothing said is lost when extraction misses it. Recall returns one
// of a text and its facts (groupFilter); forgetting a fact forgets its
// text (forgetSources). A text stays current when its facts are
// superseded: it may say more than they did, and the offline classifier's
// supersessions are not sure enough to hide it (eval/README.md). A kept
// text gets parts as a memory stored as given does: the offline
// extractor's facts cover too little of a message to stand for its
// sentences.

import (
	"context"
	"time"

	"github.com/hippo-mem/hippo"
)

// keeps says whether Remember keeps in.Text as a memory of its own.
// A queued text was kept when it was queued.
func (m *Memory) keeps(in hippo.RememberInput) bool {
	return in.Text != "" && !m.opts.DiscardText && m.pending == 0
}

// keepText, in one write transaction, keeps in.Text as a memory when the
// memory keeps texts, and runs also (when given) in the same transaction
// at the same time: alone when no fact came of the text, with its queuing
// for an async call. nil when the text is not kept.
func (m *Memory) keepText(ctx context.Context, in hippo.RememberInput, also func(tx Tx, now time.Time) error) (*hippo.KeptMessage, error) {
	keep := m.keeps(in)
	if !keep && also == nil {
		return nil, nil
	}
	var vec, parts []float32
	var after *followUp
	if keep {
		var err error
		if after, err = m.after(ctx, in.Text); err != nil {
			return nil, err
		}
		vecs, ps, err := m.embedParts(ctx, []string{in.Text}, []string{after.before()})
		if err != nil {
			return nil, err
		}
		vec, parts = vecs[0], ps[0]
	}
	var kept *hippo.KeptMessage
	err := m.s.Update(ctx, func(tx Tx) error {
		now := m.clock.Now()
		if vec != nil {
			if err := tx.LockModel(ctx, m.opts.Embedder.Model(), len(vec)); err != nil {
				return err
			}
			var err error
			if kept, err = m.keepMessage(ctx, tx, in, vec, parts, after, now); err != nil {
				return err
			}
		}
		if also != nil {
			return also(tx, now)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return kept, nil
}

// keepMessage writes in.Text as a memory of the scope, with its vector
// and parts (PartVectors; a follow-up of after, nil: none), or
// strengthens the same text stored before,
// through tx, which holds the model lock: the source of the facts learned
// from it (their Provenance.InputHash is its ContentHash), searchable
// whatever extraction yielded.
func (m *Memory) keepMessage(ctx context.Context, tx Tx, in hippo.RememberInput, vec, parts []float32, after *followUp, now time.Time) (*hippo.KeptMessage, error) {
	it := storing{in: hippo.StoreInput{Content: in.Text, Source: in.Source}, hash: hippo.ContentHash(in.Text), reading: m.cfg.DefaultIntensity}
	c := m.newMemory(it, vec, now)
	c.Parts = parts
	c.Provenance.Origin, c.Provenance.InputHash = hippo.OriginRememberFacts, it.hash
	res, err := m.putMemory(ctx, tx, it.hash, it.reading, c, after, now, false) // the caller holds the model lock
	if err != nil {
		return nil, err
	}
	return &hippo.KeptMessage{ID: res.Chunk.ID, New: !res.Duplicate}, nil
}

// previousText is the content of the agent's newest text kept by
// remember_facts in the memory's scope, other than text itself (an async
// call's text is kept before its facts are extracted): what a follow-up
// may refer to (hippo.FollowUpExtractor). "" when there is none, or when
// the memory keeps no texts.
func (m *Memory) previousText(ctx context.Context, text string) (string, error) {
	if m.opts.DiscardText {
		return "", nil
	}
	if _, ok := m.opts.Extractor.(hippo.FollowUpExtractor); !ok {
		if _, ok := m.opts.FallbackExtractor.(hippo.FollowUpExtractor); !ok {
			return "", nil
		}
	}
	c, err := m.newestMemory(ctx, text, true)
	if c == nil || err != nil {
		return "", err
	}
	return c.Content, nil
}
