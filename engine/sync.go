package engine

import (
	"context"
	"errors"
	"fmt"
	"runtime"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/internal/timestamp"
	"github.com/hippo-mem/hippo/vector"
)

// Feed is what the index needs of a store: its change feed, consistent
// snapshots of an agent's rows, and vectors by ID. Positions grow strictly
// and are never reused; the floor is the position up to which entries may
// be gone; a reader below it reloads the agent whole (docs/ARCHITECTURE.md,
// "The store contract").
type Feed interface {
	// Head reports, in one round trip, whether an index at position since
	// is current for agent: at or above the floor, with no change after
	// since and, when lastHour ≥ -1 is asked for under the active clock,
	// no activity hour after lastHour. It checks lock (nil: nothing)
	// against the store's model lock.
	Head(ctx context.Context, agent string, since int64, active bool, lastHour int64, lock *hippo.ModelLock) (bool, error)
	// Snapshot runs fn in one consistent read of the feed and the rows.
	Snapshot(ctx context.Context, agent string, fn func(Snapshot) error) error
	// Vectors hands fn the stored embedding (vector.Encode) of each of
	// the agent's chunks among ids, in any order; the store may reuse the
	// bytes once fn returns.
	Vectors(ctx context.Context, agent string, ids []string, fn func(id string, v, parts []byte)) error
}

// Snapshot is one consistent read of a store for one agent.
type Snapshot interface {
	// Floor is the feed's floor, after checking lock (nil: nothing)
	// against the model lock.
	Floor(ctx context.Context, lock *hippo.ModelLock) (int64, error)
	// ActiveHours are the agent's activity hours after hour, ascending.
	ActiveHours(ctx context.Context, after int64) ([]int64, error)
	// Last is the last position ever handed out, whether or not its
	// entry is still stored.
	Last(ctx context.Context) (int64, error)
	// Count is the number of the agent's chunks.
	Count(ctx context.Context) (int, error)
	// LoadAll hands every chunk of the agent to fn, one at a time,
	// returning fn's error.
	LoadAll(ctx context.Context, fn func(*Row) error) error
	// Changes are the IDs of the agent's chunks changed after position
	// since, with the last position read (since when none).
	Changes(ctx context.Context, since int64) ([]string, int64, error)
	// Rows hands the existing chunks among ids to fn, one at a time,
	// returning fn's error.
	Rows(ctx context.Context, ids []string, fn func(*Row) error) error
}

// syncBatch is how many changed chunks a sync reads at a time.
const syncBatch = 500

// sync brings the index up to date with every write committed so far, by
// this process or any other, checking lock (nil: nothing) against the
// model lock in the same snapshot: one statement when nothing changed (the
// usual case), else the changes since the index's position folded in, or
// the agent loaded whole the first time, after the feed's floor passed it,
// or when the model changed. active says the store decays by the active
// clock. Call with ai.mu held.
func (ai *Index) sync(ctx context.Context, feed Feed, active bool, lock *hippo.ModelLock) error {
	if ai.loaded {
		if current, err := feed.Head(ctx, ai.agent, ai.seq, active, ai.lastHour(), lock); err != nil || current {
			return err
		}
	}
	return feed.Snapshot(ctx, ai.agent, func(s Snapshot) error {
		floor, err := s.Floor(ctx, lock)
		if err != nil {
			return err
		}
		if active {
			hours, err := s.ActiveHours(ctx, ai.lastHour())
			if err != nil {
				return err
			}
			ai.active = append(ai.active, hours...)
		}
		if !ai.loaded || ai.seq < floor {
			return ai.load(ctx, s)
		}
		ids, seq, err := s.Changes(ctx, ai.seq)
		if err != nil {
			return err
		}
		ids = dedup(ids)
		var buf []float32
		for start := 0; start < len(ids); start += syncBatch {
			batch := ids[start:min(start+syncBatch, len(ids))]
			found := make(map[string]bool, len(batch))
			err := s.Rows(ctx, batch, func(r *Row) error {
				found[r.ID] = true
				return ai.decode(r, &buf, true)
			})
			if errors.Is(err, errDimension) {
				// The embedding model was switched (reembed): every row
				// changed, so load them all afresh from this snapshot.
				return ai.load(ctx, s)
			}
			if err != nil {
				return err
			}
			for _, id := range batch {
				if !found[id] && ai.idx != nil {
					ai.remove(id)
				}
			}
		}
		ai.seq = seq
		return nil
	})
}

// dedup keeps the first of each ID, in order.
func dedup(ids []string) []string {
	seen := make(map[string]bool, len(ids))
	out := ids[:0]
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// decode adds the row r to the index, its vector decoded into buf. A row
// whose vector does not decode is skipped; one whose time does not parse
// fails with its ID.
func (ai *Index) decode(r *Row, buf *[]float32, strict bool) error {
	var err error
	if *buf, err = vector.Decode(*buf, r.Vector); err != nil || len(*buf) == 0 {
		return nil
	}
	var times [3]int64
	for i, s := range []string{r.LastAccess, r.Created, r.SupersededAt} {
		if s == "" {
			continue
		}
		t, err := timestamp.Parse(s)
		if err != nil {
			return fmt.Errorf("chunk %s: %w", r.ID, err)
		}
		times[i] = t.UnixMilli()
	}
	return ai.add(r, times, *buf, strict)
}

// load rebuilds the index from every row of the snapshot.
func (ai *Index) load(ctx context.Context, s Snapshot) error {
	seq, err := s.Last(ctx)
	if err != nil {
		return err
	}
	ai.idx, ai.texts, ai.flaggedTexts, ai.outdated, ai.rowGroups = nil, nil, nil, nil, nil
	ai.parts, ai.partRows = nil, 0
	if ai.reserve, err = s.Count(ctx); err != nil {
		return err
	}
	if err := ai.loadAll(ctx, s); err != nil {
		return err
	}
	ai.seq, ai.loaded = seq, true
	return nil
}

// loadBatchRows is how many rows a whole load hands over at a time.
const loadBatchRows = 512

// loadGCBytes is how much embedding data a whole load reads between
// garbage collections.
const loadGCBytes = 256 << 20

// loadBatch is rows of a whole load, their vectors back to back in
// vecs (row i's from ends[i-1] to ends[i]).
type loadBatch struct {
	rows []Row
	vecs []byte
	ends []int
}

// loadAll reads the snapshot's rows on this goroutine while another
// decodes them into the index: on two cores that halves a load's time,
// reading rows and decoding them (normalising, quantising, parsing)
// costing about the same.
func (ai *Index) loadAll(ctx context.Context, s Snapshot) error {
	full, free := make(chan *loadBatch, 2), make(chan *loadBatch, 3)
	for range 3 {
		free <- &loadBatch{}
	}
	done := make(chan error, 1)
	go func() {
		var (
			err error
			buf []float32
		)
		for b := range full {
			for i := range b.rows {
				if err == nil {
					err = ai.decode(&b.rows[i], &buf, false)
				}
			}
			free <- b
		}
		done <- err
	}()
	b := <-free
	send := func() {
		for i := range b.rows {
			b.rows[i].Vector = b.vecs[:b.ends[i]:b.ends[i]]
			if i > 0 {
				b.rows[i].Vector = b.rows[i].Vector[b.ends[i-1]:]
			}
		}
		full <- b
		b = <-free
		b.rows, b.vecs, b.ends = b.rows[:0], b.vecs[:0], b.ends[:0]
	}
	garbage := 0
	readErr := s.LoadAll(ctx, func(r *Row) error {
		// A driver may hand over every embedding in a fresh slice: garbage
		// the size of the vectors. Paced by GOGC alone it may grow to the
		// size of the index before a collection (a 1M×1536 load peaked at
		// 21 GB resident for a 7.7 GB index), so collect every loadGCBytes.
		if garbage += len(r.Vector); garbage >= loadGCBytes {
			runtime.GC()
			garbage = 0
		}
		b.rows = append(b.rows, *r)
		if len(r.Parts) > 0 { // the driver's buffer, like the vector
			b.rows[len(b.rows)-1].Parts = append([]byte(nil), r.Parts...)
		}
		b.vecs = append(b.vecs, r.Vector...)
		b.ends = append(b.ends, len(b.vecs))
		if len(b.rows) == loadBatchRows {
			send()
		}
		return nil
	})
	if len(b.rows) > 0 {
		send()
	}
	close(full)
	if err := <-done; err != nil {
		return err
	}
	return readErr
}
