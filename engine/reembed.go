package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/hippo-mem/hippo"
)

// ReembedStore is a store's side of a re-embedding: a shadow set of new
// vectors, filled batch by batch while the chunks keep the old ones, and
// one switch (see Reembed).
type ReembedStore interface {
	// ReembedView runs fn in one read snapshot.
	ReembedView(ctx context.Context, fn func(ReembedTx) error) error
	// ReembedUpdate runs fn in one write transaction, committed when fn
	// returns nil, that keeps every other writer out.
	ReembedUpdate(ctx context.Context, fn func(ReembedTx) error) error
	// ReembedMissing is up to n chunks after cursor, in ID order, that
	// have no shadow vector, read without the write lock: their IDs and
	// contents, and for a follow-up the content of the memory it was read
	// after (hippo.Chunk.ContextOf; "" for none).
	ReembedMissing(ctx context.Context, cursor string, n int) (ids, texts, after []string, err error)
	// AfterSwitch is called after a committed switch (sqlite: the change
	// log trimmed and a WAL checkpoint).
	AfterSwitch(ctx context.Context)
}

// reembedKey is a re-embedding's target as a store records it (hippo_meta
// 'reembed_target'), to tell its own shadow vectors from another run's.
func reembedKey(l hippo.ModelLock) string {
	b, _ := json.Marshal(l)
	return string(b)
}

// ReembedTx is one transaction of a re-embedding.
type ReembedTx interface {
	// Meta and SetMeta read and write the store's settings
	// (reembed_target, embedding_model, embedding_dimension).
	MetaStore
	// ModelLock is the model lock, nil when there is none.
	ModelLock(ctx context.Context) (*hippo.ModelLock, error)
	// Chunks counts every agent's chunks.
	Chunks(ctx context.Context) (int, error)
	// Shadowed counts the shadow vectors, 0 when there is no shadow set.
	Shadowed(ctx context.Context) (int, error)
	// ResetShadow empties the shadow set, creating it when missing, and
	// records key as its target.
	ResetShadow(ctx context.Context, key string) error
	// DropShadow drops the shadow set and its target.
	DropShadow(ctx context.Context) error
	// Missing is ReembedMissing in the transaction.
	Missing(ctx context.Context, cursor string, n int) (ids, texts, after []string, err error)
	// Shadow records the vectors of the chunks whose content is still
	// texts, and the content of the memory they were read after still
	// after ("": none), and returns how many it recorded. The stores drop
	// a follow-up's shadow vector when that memory is deleted or edited.
	Shadow(ctx context.Context, ids, texts, after []string, vecs [][]float32) (int, error)
	// Switch copies every shadow vector into its chunk, so that every
	// reader reloads its indexes, and returns the number of chunks
	// switched.
	//
	// A shadow vector longer than dim holds the chunk's parts after its
	// own vector (reembedder.embed): a memory takes them, a fact none.
	Switch(ctx context.Context, dim int) (int, error)
	// Stale counts the chunks whose vector has other than dim dimensions.
	Stale(ctx context.Context, dim int) (int, error)
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
func Reembed(ctx context.Context, s ReembedStore, cfg hippo.Config, e hippo.Embedder, opts hippo.ReembedOptions) (*hippo.ReembedResult, error) {
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
		return reembedPlan(ctx, s, target)
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
	res, err := startReembed(ctx, s, target)
	if err != nil || res.Unchanged {
		return res, err
	}
	r := &reembedder{s: s, cfg: cfg, e: e, target: target, batch: batch,
		progress: opts.Progress, res: res, done: res.Reused}
	if err := r.fill(ctx); err != nil {
		return nil, r.interrupted(ctx, err)
	}
	if err := r.finish(ctx); err != nil {
		return nil, r.interrupted(ctx, err)
	}
	return res, nil
}

// reembedPlan is what re-embedding to target would do (a dry run).
func reembedPlan(ctx context.Context, s ReembedStore, target hippo.ModelLock) (*hippo.ReembedResult, error) {
	res := &hippo.ReembedResult{DryRun: true, To: target}
	err := s.ReembedView(ctx, func(tx ReembedTx) error {
		var err error
		if res.Unchanged, err = onTarget(ctx, tx, res, target); err != nil || res.Unchanged {
			return err
		}
		key, err := tx.Meta(ctx, "reembed_target")
		if err != nil {
			return err
		}
		var prev hippo.ModelLock
		if json.Unmarshal([]byte(key), &prev) == nil && prev.Model == target.Model &&
			(target.Dimension == 0 || prev.Dimension == target.Dimension) {
			if res.Reused, err = tx.Shadowed(ctx); err != nil {
				return err
			}
		}
		res.Embedded = res.Chunks - res.Reused
		return nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// onTarget reads the model lock and the chunks into res and reports
// whether the store is on target already (a dimension of 0 matching
// any): nothing to re-embed.
func onTarget(ctx context.Context, tx ReembedTx, res *hippo.ReembedResult, target hippo.ModelLock) (bool, error) {
	var err error
	if res.From, err = tx.ModelLock(ctx); err != nil {
		return false, err
	}
	if res.Chunks, err = tx.Chunks(ctx); err != nil {
		return false, fmt.Errorf("count chunks: %w", err)
	}
	from := res.From
	return from == nil && res.Chunks == 0 ||
		from != nil && from.Model == target.Model && (target.Dimension == 0 || from.Dimension == target.Dimension), nil
}

// startReembed, in one write transaction, reports Unchanged when there is
// nothing to do (and drops what an abandoned run to another model left),
// else makes the shadow set target's, keeping what an earlier run to the
// same target left, and counts the work.
func startReembed(ctx context.Context, s ReembedStore, target hippo.ModelLock) (*hippo.ReembedResult, error) {
	res := &hippo.ReembedResult{To: target}
	err := s.ReembedUpdate(ctx, func(tx ReembedTx) error {
		var err error
		if res.Unchanged, err = onTarget(ctx, tx, res, target); err != nil {
			return err
		}
		if res.Unchanged {
			return tx.DropShadow(ctx)
		}
		prev, err := tx.Meta(ctx, "reembed_target")
		if err != nil {
			return err
		}
		if prev != reembedKey(target) {
			if err := tx.ResetShadow(ctx, reembedKey(target)); err != nil {
				return fmt.Errorf("reset re-embedding state: %w", err)
			}
		}
		res.Reused, err = tx.Shadowed(ctx)
		return err
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// checkTarget is ECONFLICT when the shadow set is no longer target's:
// another run finished or started over meanwhile.
func checkTarget(ctx context.Context, tx ReembedTx, target hippo.ModelLock) error {
	key, err := tx.Meta(ctx, "reembed_target")
	if err != nil {
		return err
	}
	if key != reembedKey(target) {
		return hippo.Errorf(hippo.ECONFLICT, "another re-embedding of this database finished or started over meanwhile; run it again")
	}
	return nil
}

type reembedder struct {
	s        ReembedStore
	cfg      hippo.Config // what parts chunks get (PartSentences)
	e        hippo.Embedder
	target   hippo.ModelLock
	batch    int
	progress func(done, total int)
	res      *hippo.ReembedResult
	done     int // shadow vectors so far
}

// embed embeds texts, in one request with the sentences of those that
// may get parts (PartSentences, as for a memory: Switch keeps them for
// memories only, not facts) and a follow-up's text read after the memory
// before it (after), each text's vector followed by its parts.
func (r *reembedder) embed(ctx context.Context, texts, after []string) ([][]float32, error) {
	vecs, parts, err := embedParts(ctx, r.e, r.cfg, texts, r.target.Dimension, nil, after)
	if err != nil {
		return nil, err
	}
	for i, p := range parts {
		if p != nil {
			vecs[i] = append(slices.Clip(vecs[i]), p...)
		}
	}
	return vecs, nil
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
		ids, texts, after, err := r.s.ReembedMissing(ctx, cursor, r.batch)
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
		vecs, err := r.embed(ctx, texts, after)
		if err != nil {
			return err
		}
		// A chunk whose content changed since it was read gets no shadow
		// vector (nor a follow-up whose memory before changed): a later
		// pass embeds it.
		var n int
		err = r.s.ReembedUpdate(ctx, func(tx ReembedTx) error {
			if err := checkTarget(ctx, tx, r.target); err != nil {
				return err
			}
			n, err = tx.Shadow(ctx, ids, texts, after, vecs)
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
		if err := checkTarget(ctx, tx, r.target); err != nil {
			return err
		}
		// Chunks written since fill's last pass, embedded under the write
		// lock so that none can slip in before the switch.
		for cursor := ""; ; {
			ids, texts, after, err := tx.Missing(ctx, cursor, r.batch)
			if err != nil {
				return err
			}
			if len(ids) == 0 {
				break
			}
			cursor = ids[len(ids)-1]
			vecs, err := r.embed(ctx, texts, after)
			if err != nil {
				return err
			}
			if _, err := tx.Shadow(ctx, ids, texts, after, vecs); err != nil {
				return err
			}
			r.res.Embedded += len(ids)
		}
		return r.switchTo(ctx, tx, &n)
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

// switchTo copies the shadow vectors into the chunks, checks that every
// chunk has a vector of the target's dimension, moves the model lock and
// drops the shadow set; n is the number of chunks switched.
func (r *reembedder) switchTo(ctx context.Context, tx ReembedTx, n *int) error {
	var err error
	if *n, err = tx.Switch(ctx, r.target.Dimension); err != nil {
		return fmt.Errorf("switch embeddings: %w", err)
	}
	stale, err := tx.Stale(ctx, r.target.Dimension)
	if err != nil {
		return err
	}
	if stale > 0 {
		return hippo.Errorf(hippo.EINTERNAL, "%d chunks were left without a %d-dimension embedding; nothing was switched", stale, r.target.Dimension)
	}
	if err := tx.SetMeta(ctx, "embedding_model", r.target.Model); err != nil {
		return err
	}
	if err := tx.SetMeta(ctx, "embedding_dimension", strconv.Itoa(r.target.Dimension)); err != nil {
		return err
	}
	return tx.DropShadow(ctx)
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
