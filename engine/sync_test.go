package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/internal/timestamp"
	"github.com/hippo-mem/hippo/vector"
)

// memFeed is a change feed in memory, for the sync's contract: rows by ID,
// a log of (position, ID), a floor, and a model lock.
type memFeed struct {
	rows  map[string]Row
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
	return &memFeed{rows: map[string]Row{}}
}

// put writes a row and logs it.
func (f *memFeed) put(id string, v []float32) {
	f.putRow(Row{ID: id, Kind: hippo.KindMemory, Intensity: 0.5, Size: 10, Vector: vector.Encode(v)})
}

func (f *memFeed) putRow(r Row) {
	f.rows[r.ID] = r
	f.last++
	f.log = append(f.log, change{f.last, r.ID})
}

func (f *memFeed) remove(id string) {
	delete(f.rows, id)
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

func (f *memFeed) Snapshot(_ context.Context, _ string, fn func(Snapshot) error) error {
	return fn(f)
}

func (f *memFeed) Vectors(_ context.Context, _ string, ids []string, fn func(string, []byte, []byte)) error {
	for _, id := range ids {
		if r, ok := f.rows[id]; ok {
			fn(id, r.Vector, r.Parts)
		}
	}
	return nil
}

func (f *memFeed) Floor(_ context.Context, lock *hippo.ModelLock) (int64, error) {
	return f.floor, f.check(lock)
}

func (f *memFeed) ActiveHours(context.Context, int64) ([]int64, error) { return nil, nil }
func (f *memFeed) Last(context.Context) (int64, error)                 { return f.last, nil }
func (f *memFeed) Count(context.Context) (int, error)                  { return len(f.rows), nil }

func (f *memFeed) LoadAll(_ context.Context, fn func(*Row) error) error {
	f.reads = append(f.reads, "load")
	ids := make([]string, 0, len(f.rows))
	for id := range f.rows {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		r := f.rows[id]
		if err := fn(&r); err != nil {
			return err
		}
	}
	return nil
}

// Changes logs every entry since, duplicates and all: the sync reads
// each ID once.
func (f *memFeed) Changes(_ context.Context, since int64) ([]string, int64, error) {
	f.reads = append(f.reads, "changes")
	var ids []string
	last := since
	for _, c := range f.log {
		if c.seq > since {
			ids = append(ids, c.id)
			last = c.seq
		}
	}
	return ids, last, nil
}

func (f *memFeed) Rows(_ context.Context, ids []string, fn func(*Row) error) error {
	if len(ids) != len(slices.Compact(slices.Sorted(slices.Values(ids)))) {
		return fmt.Errorf("rows %v asked for twice", ids)
	}
	for _, id := range ids {
		if r, ok := f.rows[id]; ok {
			if err := fn(&r); err != nil {
				return err
			}
		}
	}
	return nil
}

func ids(ai *Index) []string {
	return slices.Sorted(func(yield func(string) bool) {
		for id := range ai.Metas() {
			if !yield(id) {
				return
			}
		}
	})
}

// TestSyncContract drives Indexes.Sync through the feed's contract: a
// first whole load, changes folded in since the index's position, nothing
// read but the head when nothing changed, a reload once the floor passes
// the index, a reload when the vectors' dimension changes, and the model
// lock checked.
func TestSyncContract(t *testing.T) {
	ctx := context.Background()
	f := newFeed()
	f.put("a", []float32{1, 0})
	f.put("b", []float32{0, 1})
	x := NewIndexes(f, 0)
	sync := func(step string, want []string, reads ...string) {
		t.Helper()
		f.reads = nil
		ai, err := x.Sync(ctx, "agent", hippo.DefaultConfig(), false, nil)
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		if got := ids(ai); !slices.Equal(got, want) {
			t.Errorf("%s: index holds %v, want %v", step, got, want)
		}
		if !slices.Equal(f.reads, reads) {
			t.Errorf("%s: read %v, want %v", step, f.reads, reads)
		}
		if seq, _ := ai.Position(); seq != f.last {
			t.Errorf("%s: index at position %d, feed at %d", step, seq, f.last)
		}
	}
	sync("first sync", []string{"a", "b"}, "load")
	sync("nothing new", []string{"a", "b"}, "head")
	f.put("c", []float32{1, 1})
	f.remove("a")
	f.put("c", []float32{1, 2})
	sync("an insert and a delete", []string{"b", "c"}, "head", "changes")
	f.put("d", []float32{2, 1})
	f.prune()
	sync("below the floor", []string{"b", "c", "d"}, "head", "load")
	// A new model re-embeds every row in another dimension.
	for _, id := range []string{"b", "c", "d"} {
		f.put(id, []float32{1, 2, 3})
	}
	sync("another dimension", []string{"b", "c", "d"}, "head", "changes", "load")
	if st := x.Cached("agent").Stats(); st.Dimension != 3 {
		t.Errorf("index of %d dimensions after the model changed, want 3", st.Dimension)
	}

	f.lock = &hippo.ModelLock{Model: "m", Dimension: 3}
	_, err := x.Sync(ctx, "agent", hippo.DefaultConfig(), false, &hippo.ModelLock{Model: "other", Dimension: 3})
	if hippo.ErrorCode(err) != hippo.ECONFLICT {
		t.Errorf("another model: %v, want %s", err, hippo.ECONFLICT)
	}
}

// TestWholeLoadPipeline loads an index of several batches through the
// two-goroutine load and checks every row's vector and metadata against
// the rows, and that a row whose time does not parse fails the load with
// its ID.
func TestWholeLoadPipeline(t *testing.T) {
	ctx := context.Background()
	const n = 3*loadBatchRows + 7
	f := newFeed()
	rng := rand.New(rand.NewPCG(3, 7))
	vecs := map[string][]float32{}
	created := time.Date(2026, 1, 2, 3, 4, 5, 6000, time.UTC)
	var order []string
	for i := range n {
		v := make([]float32, 16)
		for j := range v {
			v[j] = float32(rng.NormFloat64())
		}
		id := fmt.Sprintf("row%05d", i)
		order = append(order, id)
		vecs[id] = v
		f.putRow(Row{ID: id, RowID: int64(i + 1), Kind: hippo.KindMemory, Vector: vector.Encode(v),
			Metadata: fmt.Sprintf(`{"tags":["t%d"],"category":"c%d"}`, i%3, i%2), Intensity: float64(i%10) / 10,
			Created: created.Add(time.Duration(i) * time.Second).Format(timestamp.Layout), LastAccess: created.Format(time.RFC3339Nano)})
	}
	x := NewIndexes(f, 0)
	ai, err := x.Sync(ctx, "agent", hippo.DefaultConfig(), false, nil)
	if err != nil {
		t.Fatal(err)
	}
	ai.mu.RLock()
	if ai.idx.Len() != n {
		t.Fatalf("loaded %d rows, want %d", ai.idx.Len(), n)
	}
	for i, id := range order {
		// Each row's codes are its own: its vector finds it first.
		hits, err := ai.idx.Search(ctx, vecs[id], 1, func(_ *Meta, cos, _ float64, _ bool) (float64, bool) { return cos, true })
		if err != nil || len(hits) != 1 || hits[0].ID != id || hits[0].Cosine < 0.99999 {
			t.Fatalf("%s: search by its own vector = %+v, %v", id, hits, err)
		}
		m, _ := ai.idx.Meta(id)
		if m.Intensity != float32(i%10)/10 || m.Tags == 0 || len(ai.tagsOf(m.Tags)) != 1 || m.Category == 0 ||
			m.Created != created.Add(time.Duration(i)*time.Second).UnixMilli() || m.LastAccess != created.UnixMilli() || m.RowID != int64(i+1) {
			t.Fatalf("%s: meta %+v", id, m)
		}
	}
	// The exact vectors are read through the feed.
	read := 0
	if err := ai.idx.Vectors(ctx, order, func(i int, v []float32) {
		read++
		if want := vector.Normalize(append([]float32(nil), vecs[order[i]]...)); !slices.Equal(v, want) {
			t.Fatalf("%s: vector %v, want %v", order[i], v, want)
		}
	}); err != nil || read != n {
		t.Fatalf("read %d of %d vectors: %v", read, n, err)
	}
	ai.mu.RUnlock()

	bad := order[2*loadBatchRows+1]
	r := f.rows[bad]
	r.Created = "not a time"
	f.putRow(r)
	f.prune()
	if _, err := NewIndexes(f, 0).Sync(ctx, "agent", hippo.DefaultConfig(), false, nil); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("load with a broken row: %v, want an error naming %s", err, bad)
	}
}
