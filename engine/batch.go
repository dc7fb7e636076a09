package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/hippo-mem/hippo"
)

// BatchRows is the most rows a batch reads or writes in one call of
// Tx.SameMemories or Tx.InsertMany: a statement each, within any
// database's limit on a statement's parameters.
const BatchRows = 100

// StoreMemories implements hippo.MemoryService: each item as StoreMemory
// stores it, with one embedding request for the new contents and one write
// transaction for the batch.
func (m *Memory) StoreMemories(ctx context.Context, items []hippo.StoreInput) (*hippo.StoreBatchResult, error) {
	switch {
	case len(items) == 0:
		return nil, hippo.Invalidf("items", "give at least one item")
	case len(items) > hippo.MaxStoreBatch:
		return nil, hippo.Invalidf("items", "at most %d items a call, got %d", hippo.MaxStoreBatch, len(items))
	}
	if err := m.touch(ctx); err != nil {
		return nil, err
	}
	res := &hippo.StoreBatchResult{Items: make([]hippo.StoreItemResult, len(items))}
	valid := make([]storing, 0, len(items))
	at := make([]int, 0, len(items)) // the index of each valid item
	for i, in := range items {
		res.Items[i].Index = i
		it, err := m.storeItem(in)
		if err != nil {
			res.Items[i].Err = err
			res.Failed++
			continue
		}
		valid = append(valid, it)
		at = append(at, i)
	}
	if len(valid) == 0 {
		return res, nil
	}

	// Contents already stored need no embedding; a content repeated in
	// the batch is embedded once.
	hashes := make([]string, 0, len(valid))
	for _, it := range valid {
		hashes = append(hashes, it.hash)
	}
	slices.Sort(hashes)
	hashes = slices.Compact(hashes)
	vecs := make(map[string][]float32, len(hashes))
	parts := map[string][]float32{} // the parts of those embedded, by hash
	var seen []string               // the contents stored already
	if err := m.s.View(ctx, func(tx Tx) error {
		found, err := sameMemories(ctx, tx, m.opts.Scope, hashes)
		for h := range found {
			vecs[h] = nil
			seen = append(seen, h)
		}
		return err
	}); err != nil {
		return nil, fmt.Errorf("look up memories: %w", err)
	}
	// The write looks up again only the contents seen above, to
	// strengthen them as they are then: the rest it inserts. A content
	// another writer stores meanwhile makes the insert fall short; the
	// write is then undone and run again looking up every content.
	slices.Sort(seen)
	lookup := seen
	after, err := m.batchAfter(ctx, valid)
	if err != nil {
		return nil, err
	}
	// A memory seen above may be deleted before the write: the write then
	// reports its hash, and it is embedded and written in another round.
	for round := 0; ; {
		if err := m.embedNew(ctx, valid, vecs, parts, after); err != nil {
			return nil, err
		}
		missing, err := m.writeBatch(ctx, valid, at, lookup, len(lookup) < len(hashes), vecs, parts, after, res)
		if errors.Is(err, errInsertRaced) {
			lookup = hashes
			continue
		}
		if err != nil {
			return nil, err
		}
		if len(missing) == 0 {
			break
		}
		if round == 2 {
			return nil, hippo.Errorf(hippo.ECONFLICT, "memories were deleted while the batch was stored, %d times; try again", round+1)
		}
		round++
		for _, h := range missing {
			delete(vecs, h)
		}
	}
	for _, r := range res.Items {
		switch {
		case r.Err != nil:
		case r.Duplicate:
			res.Strengthened++
		default:
			res.Stored++
		}
	}
	return res, nil
}

// embedNew embeds, in one request, each content of valid that vecs does
// not hold yet (a nil vector stands for one already stored), with its
// parts (embedParts; a follow-up's read after the text after names, by
// hash) into parts.
func (m *Memory) embedNew(ctx context.Context, valid []storing, vecs, parts map[string][]float32, after map[string]*followUp) error {
	var texts, hashes, before []string
	for _, it := range valid {
		if _, ok := vecs[it.hash]; !ok {
			vecs[it.hash] = nil // once per content
			texts = append(texts, it.in.Content)
			hashes = append(hashes, it.hash)
			before = append(before, after[it.hash].before())
		}
	}
	if len(texts) == 0 {
		return nil
	}
	got, gotParts, err := m.embedParts(ctx, texts, before)
	if err != nil {
		for _, h := range hashes {
			delete(vecs, h)
		}
		return err
	}
	for i, h := range hashes {
		vecs[h] = got[i]
		if gotParts[i] != nil {
			parts[h] = gotParts[i]
		}
	}
	return nil
}

// errInsertRaced is writeBatch's report that a content it did not look
// up was stored meanwhile (the batch's writes are undone).
var errInsertRaced = errors.New("a memory was stored meanwhile")

// writeBatch writes valid in one transaction, in order: a content stored
// before, or by an earlier item, is strengthened; a new one inserted.
// Contents stored before are looked up among lookup; partial means some
// contents were not looked up, and an insert that finds one of them taken
// undoes the write and returns errInsertRaced. It returns the hashes of
// contents it expected stored but found gone (no vector to insert them
// with); the transaction is then rolled back.
func (m *Memory) writeBatch(ctx context.Context, valid []storing, at []int, lookup []string, partial bool, vecs, parts map[string][]float32, after map[string]*followUp, res *hippo.StoreBatchResult) (missing []string, err error) {
	errMissing := errors.New("memories deleted meanwhile")
	err = m.s.Update(ctx, func(tx Tx) error {
		missing = missing[:0]
		now := m.clock.Now()
		stored, err := sameMemories(ctx, tx, m.opts.Scope, lookup)
		if err != nil {
			return fmt.Errorf("look up memories: %w", err)
		}
		var insert []*hippo.Chunk
		pending := make(map[*hippo.Chunk]bool)
		for k, it := range valid {
			r := &res.Items[at[k]]
			if c := stored[it.hash]; c != nil {
				c.Strengthen(it.reading, now, true)
				// A chunk of this batch is written with its strength.
				if !pending[c] {
					if err := tx.SaveStrength(ctx, c); err != nil {
						return fmt.Errorf("strengthen memory: %w", err)
					}
				}
				r.Chunk, r.Duplicate = c, true
				continue
			}
			vec := vecs[it.hash]
			if vec == nil {
				missing = append(missing, it.hash)
				continue
			}
			c := m.newMemory(it, vec, now)
			c.ID = NewChunkID(now)
			c.Parts = parts[it.hash]
			if err := after[it.hash].link(ctx, tx, c, stored); err != nil {
				return fmt.Errorf("look up the memory before a follow-up: %w", err)
			}
			insert = append(insert, c)
			pending[c], stored[it.hash] = true, c
			r.Chunk, r.Duplicate = c, false
		}
		if len(missing) > 0 {
			return errMissing
		}
		if len(insert) == 0 {
			return nil
		}
		if err := tx.LockModel(ctx, m.opts.Embedder.Model(), len(insert[0].Embedding)); err != nil {
			return err
		}
		for start := 0; start < len(insert); start += BatchRows {
			if err := tx.InsertMany(ctx, insert[start:min(start+BatchRows, len(insert))]); err != nil {
				if partial && hippo.ErrorCode(err) == hippo.ECONFLICT {
					return errInsertRaced
				}
				return err
			}
		}
		return nil
	})
	if errors.Is(err, errMissing) {
		return missing, nil
	}
	return nil, err
}

// sameMemories is Tx.SameMemories for any number of hashes.
func sameMemories(ctx context.Context, tx Tx, scope string, hashes []string) (map[string]*hippo.Chunk, error) {
	out := make(map[string]*hippo.Chunk, len(hashes))
	for start := 0; start < len(hashes); start += BatchRows {
		found, err := tx.SameMemories(ctx, scope, hashes[start:min(start+BatchRows, len(hashes))])
		if err != nil {
			return nil, err
		}
		for _, c := range found {
			out[c.ContentHash] = c
		}
	}
	return out, nil
}
