package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hippo-mem/hippo"
)

// ReembedStore is a store's side of a re-embedding: a shadow set of new
// vectors, filled batch by batch while the chunks keep the old ones, and
// one switch (see Reembed).
type ReembedStore interface {
	// ReembedPlan is what re-embedding to target would do (a dry run).
	ReembedPlan(ctx context.Context, target hippo.ModelLock) (*hippo.ReembedResult, error)
	// StartReembed records target as the shadow set's, keeping the
	// vectors of a stopped run to the same target and dropping another's.
	// It reports From, Chunks and Reused, or Unchanged when the store is
	// on target already.
	StartReembed(ctx context.Context, target hippo.ModelLock) (*hippo.ReembedResult, error)
	// ReembedMissing is up to n chunks after cursor, in ID order, that
	// have no shadow vector, read without the write lock.
	ReembedMissing(ctx context.Context, cursor string, n int) (ids, texts []string, err error)
	// ReembedUpdate runs fn in one write transaction, committed when fn
	// returns nil.
	ReembedUpdate(ctx context.Context, fn func(ReembedTx) error) error
	// AfterSwitch is called after a committed switch (sqlite: the change
	// log trimmed and a WAL checkpoint).
	AfterSwitch(ctx context.Context)
}

// ReembedKey is a re-embedding's target as a store records it (hippo_meta
// 'reembed_target'), to tell its own shadow vectors from another run's.
func ReembedKey(l hippo.ModelLock) string {
	b, _ := json.Marshal(l)
	return string(b)
}

// ReembedTx is one write transaction of a re-embedding.
type ReembedTx interface {
	// ModelLock is the model lock, nil when there is none.
	ModelLock(ctx context.Context) (*hippo.ModelLock, error)
	// CheckTarget is ECONFLICT when the shadow set is no longer target's:
	// another run finished or started over.
	CheckTarget(ctx context.Context, target hippo.ModelLock) error
	// Missing is ReembedMissing in the transaction.
	Missing(ctx context.Context, cursor string, n int) (ids, texts []string, err error)
	// Shadow records the vectors of the chunks whose content is still
	// texts and returns how many it recorded.
	Shadow(ctx context.Context, ids, texts []string, vecs [][]float32) (int, error)
	// Switch copies every shadow vector into its chunk, checks that every
	// chunk has a vector of target's dimension (EINTERNAL), moves the
	// model lock to target, drops the shadow set and has every reader
	// reload its indexes. It returns the number of chunks switched.
	Switch(ctx context.Context, target hippo.ModelLock) (int, error)
}

// Reembed re-embeds the content of every chunk of every agent with e and
// switches the store's model lock to e's model.
//
// Recall never sees a mix of models: the new vectors wait in the store's
// shadow set while the chunks keep the old ones, and one final write
// transaction embeds the chunks written meanwhile, copies every new
// vector into the chunks, moves the lock and drops the shadow set. Until
// then the store stays on the old model for every reader and writer.
//
// Batches are committed to the shadow set one by one, so when ctx is
// cancelled (checked between batches), or the embedder fails, a later call
// with an embedder of the same model and dimension continues where this
// one stopped; a call with another target starts over. Chunks whose
// content changes or that are deleted meanwhile lose their shadow vector
// and are embedded again.
//
// When the store is already on e's model Reembed does nothing and reports
// Unchanged.
func Reembed(ctx context.Context, s ReembedStore, e hippo.Embedder, opts hippo.ReembedOptions) (*hippo.ReembedResult, error) {
	if e == nil {
		return nil, hippo.Errorf(hippo.EINVALID, "no embedder configured")
	}
	if strings.TrimSpace(e.Model()) == "" {
		return nil, hippo.Errorf(hippo.EINVALID, "embedding model name must not be empty")
	}
	batch := opts.BatchSize
	if batch == 0 {
		batch = hippo.DefaultReembedBatch
	}
	if batch < 0 {
		return nil, hippo.Invalidf("batch_size", "must be positive, got %d", batch)
	}
	target := hippo.ModelLock{Model: e.Model(), Dimension: e.Dimension()}
	if opts.DryRun {
		return s.ReembedPlan(ctx, target)
	}
	if target.Dimension <= 0 {
		// The embedder learns its dimension from a response: the target
		// must be known before anything is recorded.
		vecs, err := hippo.Embed(ctx, e, []string{"dimension probe"}, 0)
		if err != nil {
			return nil, err
		}
		target.Dimension = len(vecs[0])
	}
	res, err := s.StartReembed(ctx, target)
	if err != nil || res.Unchanged {
		return res, err
	}
	r := &reembedder{s: s, e: e, target: target, batch: batch,
		progress: opts.Progress, res: res, done: res.Reused}
	if err := r.fill(ctx); err != nil {
		return nil, r.interrupted(ctx, err)
	}
	if err := r.finish(ctx); err != nil {
		return nil, r.interrupted(ctx, err)
	}
	return res, nil
}

type reembedder struct {
	s        ReembedStore
	e        hippo.Embedder
	target   hippo.ModelLock
	batch    int
	progress func(done, total int)
	res      *hippo.ReembedResult
	done     int // shadow vectors so far
}

// fill embeds, batch by batch, every chunk that has no shadow vector,
// committing each batch. Passes restart from the first ID to catch chunks
// written behind the cursor; what is still missing after a few passes is
// left to finish.
func (r *reembedder) fill(ctx context.Context) error {
	r.report()
	cursor := ""
	for pass := 0; pass < 3; {
		if err := ctx.Err(); err != nil {
			return err
		}
		ids, texts, err := r.s.ReembedMissing(ctx, cursor, r.batch)
		if err != nil {
			return err
		}
		if len(ids) == 0 {
			if cursor == "" {
				break
			}
			cursor, pass = "", pass+1
			continue
		}
		cursor = ids[len(ids)-1]
		vecs, err := hippo.Embed(ctx, r.e, texts, r.target.Dimension)
		if err != nil {
			return err
		}
		// A chunk whose content changed since it was read gets no shadow
		// vector: a later pass embeds it.
		var n int
		err = r.s.ReembedUpdate(ctx, func(tx ReembedTx) error {
			if err := tx.CheckTarget(ctx, r.target); err != nil {
				return err
			}
			n, err = tx.Shadow(ctx, ids, texts, vecs)
			return err
		})
		if err != nil {
			return err
		}
		r.done += n
		r.res.Embedded += len(ids)
		r.report()
	}
	return nil
}

// finish switches the store to the target in one write transaction.
func (r *reembedder) finish(ctx context.Context) error {
	var n int
	err := r.s.ReembedUpdate(ctx, func(tx ReembedTx) error {
		lock, err := tx.ModelLock(ctx)
		if err != nil {
			return err
		}
		if !sameLock(lock, r.res.From) {
			return hippo.Errorf(hippo.ECONFLICT, "the embedding model lock changed while re-embedding; run it again")
		}
		if err := tx.CheckTarget(ctx, r.target); err != nil {
			return err
		}
		// Chunks written since fill's last pass, embedded under the write
		// lock so that none can slip in before the switch.
		for cursor := ""; ; {
			ids, texts, err := tx.Missing(ctx, cursor, r.batch)
			if err != nil {
				return err
			}
			if len(ids) == 0 {
				break
			}
			cursor = ids[len(ids)-1]
			vecs, err := hippo.Embed(ctx, r.e, texts, r.target.Dimension)
			if err != nil {
				return err
			}
			if _, err := tx.Shadow(ctx, ids, texts, vecs); err != nil {
				return err
			}
			r.res.Embedded += len(ids)
		}
		n, err = tx.Switch(ctx, r.target)
		return err
	})
	if err != nil {
		return err
	}
	r.res.Chunks = n
	r.done = n
	r.report()
	r.s.AfterSwitch(ctx)
	return nil
}

func (r *reembedder) report() {
	if r.progress != nil {
		r.res.Chunks = max(r.res.Chunks, r.done)
		r.progress(r.done, r.res.Chunks)
	}
}

// interrupted says how far a run that stopped on err got.
func (r *reembedder) interrupted(ctx context.Context, err error) error {
	if ctx.Err() == nil {
		return err
	}
	return fmt.Errorf("re-embedding interrupted after %d of %d chunks; nothing was switched, and running it again with the same embedder resumes: %w",
		r.done, r.res.Chunks, ctx.Err())
}

func sameLock(a, b *hippo.ModelLock) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}
