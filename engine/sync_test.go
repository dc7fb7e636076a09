package engine_test

import (
	"context"
	"slices"
	"testing"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/engine"
)

// memFeed is a change feed in memory, for the sync's contract: rows by ID,
// a log of (position, ID), a floor, and a model lock.
type memFeed struct {
	rows  map[string]engine.Row
	vecs  map[string][]float32
	log   []change
	last  int64
	floor int64
	lock  *hippo.ModelLock
	reads []string // what the sync asked for, in order
}

type change struct {
	seq int64
	id  string
}

func newFeed() *memFeed {
	return &memFeed{rows: map[string]engine.Row{}, vecs: map[string][]float32{}}
}

// put writes a row and logs it.
func (f *memFeed) put(id string, v []float32) {
	f.rows[id] = engine.Row{ID: id, Kind: hippo.KindMemory, Intensity: 0.5, Size: 10}
	f.vecs[id] = v
	f.last++
	f.log = append(f.log, change{f.last, id})
}

func (f *memFeed) remove(id string) {
	delete(f.rows, id)
	delete(f.vecs, id)
	f.last++
	f.log = append(f.log, change{f.last, id})
}

// prune drops every log entry and raises the floor past them.
func (f *memFeed) prune() { f.log, f.floor = nil, f.last }

func (f *memFeed) check(lock *hippo.ModelLock) error {
	if lock != nil && f.lock != nil && *lock != *f.lock {
		return hippo.Errorf(hippo.ECONFLICT, "model mismatch")
	}
	return nil
}

func (f *memFeed) Head(_ context.Context, _ string, since int64, _ bool, _ int64, lock *hippo.ModelLock) (bool, error) {
	f.reads = append(f.reads, "head")
	if err := f.check(lock); err != nil {
		return false, err
	}
	changed := false
	for _, c := range f.log {
		changed = changed || c.seq > since
	}
	return since >= f.floor && !changed, nil
}

func (f *memFeed) Snapshot(_ context.Context, _ string, fn func(engine.Snapshot) error) error {
	return fn(f)
}

func (f *memFeed) Floor(_ context.Context, lock *hippo.ModelLock) (int64, error) {
	return f.floor, f.check(lock)
}

func (f *memFeed) ActiveHours(context.Context, int64) ([]int64, error) { return nil, nil }
func (f *memFeed) Last(context.Context) (int64, error)                 { return f.last, nil }
func (f *memFeed) Count(context.Context) (int, error)                  { return len(f.rows), nil }

func (f *memFeed) LoadAll(_ context.Context, add func(*engine.Row, []float32) error) error {
	f.reads = append(f.reads, "load")
	ids := make([]string, 0, len(f.rows))
	for id := range f.rows {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		r := f.rows[id]
		if err := add(&r, f.vecs[id]); err != nil {
			return err
		}
	}
	return nil
}

func (f *memFeed) Changes(_ context.Context, since int64) ([]string, int64, error) {
	f.reads = append(f.reads, "changes")
	var ids []string
	last := since
	for _, c := range f.log {
		if c.seq > since {
			if !slices.Contains(ids, c.id) {
				ids = append(ids, c.id)
			}
			last = c.seq
		}
	}
	return ids, last, nil
}

func (f *memFeed) Rows(_ context.Context, ids []string, add func(*engine.Row, []float32) error) error {
	for _, id := range ids {
		if r, ok := f.rows[id]; ok {
			if err := add(&r, f.vecs[id]); err != nil {
				return err
			}
		}
	}
	return nil
}

func ids(ai *engine.Index) []string {
	if ai.Idx == nil {
		return nil
	}
	out := ai.Idx.IDs()
	slices.Sort(out)
	return out
}

// TestSyncContract drives Index.Sync through the feed's contract: a first
// whole load, changes folded in since the index's position, nothing read
// but the head when nothing changed, a reload once the floor passes the
// index, a reload when the vectors' dimension changes, and the model
// lock checked.
func TestSyncContract(t *testing.T) {
	ctx := context.Background()
	f := newFeed()
	f.put("a", []float32{1, 0})
	f.put("b", []float32{0, 1})
	ai := engine.NewIndex("agent", hippo.DefaultConfig(), nil)
	sync := func(step string, want []string, reads ...string) {
		t.Helper()
		f.reads = nil
		if err := ai.Sync(ctx, f, false, nil); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		if got := ids(ai); !slices.Equal(got, want) {
			t.Errorf("%s: index holds %v, want %v", step, got, want)
		}
		if !slices.Equal(f.reads, reads) {
			t.Errorf("%s: read %v, want %v", step, f.reads, reads)
		}
		if ai.Seq != f.last {
			t.Errorf("%s: index at position %d, feed at %d", step, ai.Seq, f.last)
		}
	}
	sync("first sync", []string{"a", "b"}, "load")
	sync("nothing new", []string{"a", "b"}, "head")
	f.put("c", []float32{1, 1})
	f.remove("a")
	sync("an insert and a delete", []string{"b", "c"}, "head", "changes")
	f.put("d", []float32{2, 1})
	f.prune()
	sync("below the floor", []string{"b", "c", "d"}, "head", "load")
	// A new model re-embeds every row in another dimension.
	for _, id := range []string{"b", "c", "d"} {
		f.put(id, []float32{1, 2, 3})
	}
	sync("another dimension", []string{"b", "c", "d"}, "head", "changes", "load")
	if ai.Idx.Dim() != 3 {
		t.Errorf("index of %d dimensions after the model changed, want 3", ai.Idx.Dim())
	}

	f.lock = &hippo.ModelLock{Model: "m", Dimension: 3}
	err := ai.Sync(ctx, f, false, &hippo.ModelLock{Model: "other", Dimension: 3})
	if hippo.ErrorCode(err) != hippo.ECONFLICT {
		t.Errorf("another model: %v, want %s", err, hippo.ECONFLICT)
	}
}
