package engine

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/hippo-mem/hippo"
)

// TestPurgeSuccessors checks that each purged chunk's successors are
// re-pointed past the chunks purged with it, and that a cycle ends.
func TestPurgeSuccessors(t *testing.T) {
	chunk := func(id, by string) *hippo.Chunk { return &hippo.Chunk{ID: id, SupersededBy: by} }
	tests := []struct {
		name   string
		purged []*hippo.Chunk
		want   map[string]string
	}{
		{"one", []*hippo.Chunk{chunk("a", "b")}, map[string]string{"a": "b"}},
		{"chain", []*hippo.Chunk{chunk("a", "b"), chunk("b", "c"), chunk("c", "d")},
			map[string]string{"a": "d", "b": "d", "c": "d"}},
		{"two chains", []*hippo.Chunk{chunk("a", "b"), chunk("x", "y")}, map[string]string{"a": "b", "x": "y"}},
		{"cycle ends", []*hippo.Chunk{chunk("a", "b"), chunk("b", "a")}, map[string]string{"a": "b", "b": "a"}},
		{"none", nil, map[string]string{}},
	}
	for _, tt := range tests {
		if got := purgeSuccessors(tt.purged); !maps.Equal(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

// adminFake is an in-memory DeleteStore and AdminTx; the
// rest of AdminStore is not used here.
type adminFake struct {
	AdminStore
	chunks  map[string]*hippo.Chunk
	deletes int // AfterDelete calls
}

// admin is the engine's Admin over f.
func (f *adminFake) admin(t *testing.T) *Admin {
	a, err := OpenAdmin(context.Background(), f, hippo.DefaultConfig(), "", "", nil, nil, (*GroupCommit[*groupTx])(nil))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func (f *adminFake) Meta(context.Context, string) (string, error) { return "", nil }

// groupTx is a GroupTx that is never begun here.
type groupTx struct{ GroupTx }

func newAdminFake(cs ...*hippo.Chunk) *adminFake {
	f := &adminFake{chunks: map[string]*hippo.Chunk{}}
	for _, c := range cs {
		f.chunks[c.ID] = c
	}
	return f
}

func (f *adminFake) AdminView(_ context.Context, fn func(AdminTx) error) error { return fn(f) }

func (f *adminFake) AdminUpdate(_ context.Context, _ string, fn func(AdminTx) error) error {
	saved := maps.Clone(f.chunks)
	for id, c := range saved {
		cp := *c
		saved[id] = &cp
	}
	if err := fn(f); err != nil {
		f.chunks = saved
		return err
	}
	return nil
}

func (f *adminFake) AfterDelete(context.Context) { f.deletes++ }

func (f *adminFake) DeleteChunk(_ context.Context, agentID, id string) (string, error) {
	c := f.chunks[id]
	if c == nil || agentID != "" && c.AgentID != agentID {
		return "", nil
	}
	delete(f.chunks, id)
	return c.AgentID, nil
}

func (f *adminFake) Unsupersede(_ context.Context, owner, id string) ([]string, error) {
	ids, _ := f.SupersededBy(context.Background(), owner, id)
	for _, i := range ids {
		f.chunks[i].SupersededBy = ""
	}
	return ids, nil
}

func (f *adminFake) Listed(_ context.Context, agentID, id string) (*hippo.Chunk, error) {
	if c := f.chunks[id]; c != nil && (agentID == "" || c.AgentID == agentID) {
		return c, nil
	}
	return nil, nil
}

func (f *adminFake) SupersededBy(_ context.Context, owner, id string) ([]string, error) {
	var ids []string
	for _, c := range f.chunks {
		if c.SupersededBy == id && c.AgentID == owner {
			ids = append(ids, c.ID)
		}
	}
	slices.Sort(ids)
	return ids, nil
}

func (f *adminFake) Superseded(_ context.Context, pf hippo.PurgeFilter) ([]*hippo.Chunk, error) {
	var out []*hippo.Chunk
	for _, c := range f.chunks {
		if c.SupersededBy != "" && (pf.AgentID == "" || c.AgentID == pf.AgentID) {
			out = append(out, c)
		}
	}
	slices.SortFunc(out, func(a, b *hippo.Chunk) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}

func (f *adminFake) Repoint(_ context.Context, owner, id, next string) error {
	for _, c := range f.chunks {
		if c.SupersededBy == id && c.AgentID == owner {
			c.SupersededBy = next
		}
	}
	return nil
}

func (f *adminFake) Purge(_ context.Context, ids []string) error {
	for _, id := range ids {
		delete(f.chunks, id)
	}
	return nil
}

// chain is a1 superseded by a2 superseded by a3 (agent a), with b1 of
// agent b also pointing at a2 (a crafted import's link).
func chain() []*hippo.Chunk {
	return []*hippo.Chunk{{ID: "a1", AgentID: "a", SupersededBy: "a2"}, {ID: "a2", AgentID: "a", SupersededBy: "a3"},
		{ID: "a3", AgentID: "a"}, {ID: "b1", AgentID: "b", SupersededBy: "a2"}}
}

// TestDeleteChunks checks that deleting a chunk makes what it superseded
// current again (the owner's chunks only), that a chunk deleted in the
// same call is not reported resurrected, that another agent's chunk is
// not found, and that the plan says the same beforehand.
func TestDeleteChunks(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name, agent         string
		ids                 []string
		deleted, back, miss []string
	}{
		{"resurrects the owner's", "a", []string{"a2"}, []string{"a2"}, []string{"a1"}, nil},
		{"deleted together", "", []string{"a3", "a2"}, []string{"a3", "a2"}, []string{"a1"}, nil},
		{"another agent's", "b", []string{"a3", "zz"}, nil, nil, []string{"a3", "zz"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := newAdminFake(chain()...)
			plan, err := st.admin(t).PlanDelete(ctx, tt.agent, append(tt.ids, tt.ids...))
			if err != nil {
				t.Fatal(err)
			}
			var planned []string
			for _, c := range plan.Chunks {
				planned = append(planned, c.ID)
			}
			if !slices.Equal(planned, tt.deleted) || !slices.Equal(plan.Resurrected, nonNil(tt.back)) || !slices.Equal(plan.NotFound, nonNil(tt.miss)) {
				t.Errorf("plan %v, resurrected %v, not found %v", planned, plan.Resurrected, plan.NotFound)
			}
			deleted, back, err := st.admin(t).DeleteChunks(ctx, tt.agent, tt.ids)
			if err != nil || !slices.Equal(deleted, tt.deleted) || !slices.Equal(back, tt.back) || st.deletes != 1 {
				t.Errorf("deleted %v, resurrected %v, %v", deleted, back, err)
			}
			if b1 := st.chunks["b1"]; b1.SupersededBy != "a2" {
				t.Errorf("b1's link to a2 was cleared")
			}
		})
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// TestPurgeSuperseded checks that a purge deletes the superseded chunks
// and re-points what they superseded past them, and that a dry run only
// lists them.
func TestPurgeSuperseded(t *testing.T) {
	ctx := context.Background()
	st := newAdminFake(chain()...)
	st.chunks["a0"] = &hippo.Chunk{ID: "a0", AgentID: "a", SupersededBy: "a1"}
	dry, err := st.admin(t).PurgeSuperseded(ctx, hippo.PurgeFilter{AgentID: "a", DryRun: true})
	if err != nil || len(dry) != 3 || len(st.chunks) != 5 || st.deletes != 0 {
		t.Fatalf("dry run: %d listed, %d left, %v", len(dry), len(st.chunks), err)
	}
	purged, err := st.admin(t).PurgeSuperseded(ctx, hippo.PurgeFilter{AgentID: "a"})
	if err != nil || len(purged) != 3 || st.deletes != 1 {
		t.Fatalf("purged %d, %v", len(purged), err)
	}
	if len(st.chunks) != 2 || st.chunks["a3"] == nil || st.chunks["b1"].SupersededBy != "a2" {
		t.Errorf("left %v", slices.Sorted(maps.Keys(st.chunks)))
	}
}
