package engine

import (
	"context"
	"errors"

	"github.com/hippo-mem/hippo"
)

// Feed is a store's change feed as an agent's index reads it. Positions
// grow strictly and are never reused; the floor is the position up to
// which entries may be gone; a reader below it reloads the agent whole
// (docs/ARCHITECTURE.md, "The store contract").
type Feed interface {
	// Head reports, in one round trip, whether an index at position since
	// is current for agent: at or above the floor, with no change after
	// since and, when lastHour ≥ -1 is asked for under the active clock,
	// no activity hour after lastHour. It checks lock (nil: nothing)
	// against the store's model lock.
	Head(ctx context.Context, agent string, since int64, active bool, lastHour int64, lock *hippo.ModelLock) (bool, error)
	// Snapshot runs fn in one consistent read of the feed and the rows.
	Snapshot(ctx context.Context, agent string, fn func(Snapshot) error) error
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
	// LoadAll hands every chunk of the agent to add, one at a time.
	LoadAll(ctx context.Context, add func(*Row, []float32) error) error
	// Changes are the IDs of the agent's chunks changed after position
	// since, each once, with the last position read (since when none):
	// "load since".
	Changes(ctx context.Context, since int64) ([]string, int64, error)
	// Rows hands the existing chunks among ids to add, one at a time.
	Rows(ctx context.Context, ids []string, add func(*Row, []float32) error) error
}

// syncBatch is how many changed chunks a sync reads at a time.
const syncBatch = 500

// Sync brings the index up to date with every write committed so far, by
// this process or any other, checking lock (nil: nothing) against the
// model lock in the same snapshot: one statement when nothing changed (the
// usual case), else the changes since the index's position folded in, or
// the agent loaded whole the first time, after the feed's floor passed it,
// or when the model changed. active says the store decays by the active
// clock. Call with ai.Mu held.
func (ai *Index) Sync(ctx context.Context, feed Feed, active bool, lock *hippo.ModelLock) error {
	if ai.Loaded {
		last := int64(-1)
		if n := len(ai.Active); n > 0 {
			last = ai.Active[n-1]
		}
		if current, err := feed.Head(ctx, ai.Agent, ai.Seq, active, last, lock); err != nil || current {
			return err
		}
	}
	return feed.Snapshot(ctx, ai.Agent, func(s Snapshot) error {
		floor, err := s.Floor(ctx, lock)
		if err != nil {
			return err
		}
		if active {
			after := int64(-1)
			if n := len(ai.Active); n > 0 {
				after = ai.Active[n-1]
			}
			hours, err := s.ActiveHours(ctx, after)
			if err != nil {
				return err
			}
			ai.Active = append(ai.Active, hours...)
		}
		if !ai.Loaded || ai.Seq < floor {
			return ai.load(ctx, s)
		}
		ids, seq, err := s.Changes(ctx, ai.Seq)
		if err != nil {
			return err
		}
		add := func(r *Row, v []float32) error { return ai.Add(r, v, true) }
		for start := 0; start < len(ids); start += syncBatch {
			batch := ids[start:min(start+syncBatch, len(ids))]
			found := make(map[string]bool, len(batch))
			err := s.Rows(ctx, batch, func(r *Row, v []float32) error {
				found[r.ID] = true
				return add(r, v)
			})
			if errors.Is(err, ErrDimension) {
				// The embedding model was switched (reembed): every row
				// changed, so load them all afresh from this snapshot.
				return ai.load(ctx, s)
			}
			if err != nil {
				return err
			}
			for _, id := range batch {
				if !found[id] && ai.Idx != nil {
					ai.Idx.Remove(id)
				}
			}
		}
		ai.Seq = seq
		return nil
	})
}

// load rebuilds the index from every row of the snapshot.
func (ai *Index) load(ctx context.Context, s Snapshot) error {
	seq, err := s.Last(ctx)
	if err != nil {
		return err
	}
	ai.Idx = nil
	if ai.Reserve, err = s.Count(ctx); err != nil {
		return err
	}
	if err := s.LoadAll(ctx, func(r *Row, v []float32) error { return ai.Add(r, v, false) }); err != nil {
		return err
	}
	ai.Seq, ai.Loaded = seq, true
	return nil
}
