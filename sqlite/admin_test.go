package sqlite_test

import (
	"context"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/sqlite"
)

// adminFixture is a small database: two agents, facts with a supersession
// chain, memories in two scopes, blocks.
type adminFixture struct {
	*env
	cotton, redux, bigRedux, underscore *hippo.Chunk
	paris, lyon, berlin                 *hippo.Chunk // paris ← lyon ← berlin
}

func newAdminFixture(t *testing.T) *adminFixture {
	t.Helper()
	ctx := context.Background()
	e := newEnv(t)
	f := &adminFixture{env: e}
	alice := e.memory("alice")
	f.cotton = store(t, alice, "Wears 100% cotton shirts")
	e.clock.Advance(time.Hour)
	f.redux = store(t, alice, "Uses Redux for state")
	e.clock.Advance(time.Hour)
	f.underscore = store(t, alice, "Named the file my_notes.txt")
	e.clock.Advance(time.Hour)
	f.bigRedux = store(t, e.memory("bob", func(o *sqlite.MemoryOptions) { o.Scope = "work" }), "REDUX is overkill")

	// Facts: Paris was superseded by Lyon on day 1, Lyon by Berlin on day 10.
	vec := make([]float32, testDim)
	vec[0] = 1
	day1 := e.clock.Now().Add(24 * time.Hour)
	day10 := e.clock.Now().Add(10 * 24 * time.Hour)
	f.paris = &hippo.Chunk{ID: "01F-PARIS", Kind: hippo.KindFact, Content: "Lives in Paris", Embedding: vec,
		SupersededBy: "01F-LYON", SupersededAt: &day1, CreatedAt: e.clock.Now()}
	f.lyon = &hippo.Chunk{ID: "01F-LYON", Kind: hippo.KindFact, Content: "Lives in Lyon", Embedding: vec,
		SupersededBy: "01F-BERLIN", SupersededAt: &day10, CreatedAt: day1}
	f.berlin = &hippo.Chunk{ID: "01F-BERLIN", Kind: hippo.KindFact, Content: "Lives in Berlin", Embedding: vec,
		CreatedAt: day10}
	if err := e.db.InsertChunks(ctx, "alice", "", e.emb.Model(), []*hippo.Chunk{f.paris, f.lyon, f.berlin}); err != nil {
		t.Fatal(err)
	}
	for _, kv := range [][2]string{{"persona", "Terse."}, {"objectives", "Ship the CLI"}} {
		if _, err := alice.AppendBlock(ctx, kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

func ids(cs []*hippo.Chunk) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.ID
	}
	return out
}

func TestAdminStatsAndAgents(t *testing.T) {
	ctx := context.Background()
	f := newAdminFixture(t)
	s, err := f.db.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := sqlite.Stats{Path: f.db.Path(), Chunks: 7, Facts: 3, Memories: 4, Superseded: 2, Blocks: 2, Agents: 2,
		EmbeddingModel: &sqlite.ModelLock{Model: "mock-embed", Dimension: testDim}, DecayModel: hippo.DecayHippo, DecayClock: sqlite.WallClock}
	if s.FileSize <= 0 {
		t.Errorf("FileSize = %d, want > 0", s.FileSize)
	}
	s.FileSize, s.WALSize = 0, 0
	if !reflect.DeepEqual(*s, want) {
		t.Errorf("Stats = %+v\nwant    %+v", *s, want)
	}

	agents, err := f.db.Agents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	wantAgents := []sqlite.AgentSummary{
		{AgentID: "alice", Chunks: 6, Facts: 3, Memories: 3, Superseded: 2, Blocks: 2},
		{AgentID: "bob", Chunks: 1, Memories: 1},
	}
	if !reflect.DeepEqual(agents, wantAgents) {
		t.Errorf("Agents = %+v\nwant %+v", agents, wantAgents)
	}
}

func TestAdminStatsEmptyDatabase(t *testing.T) {
	e := newEnv(t)
	s, err := e.db.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if s.Chunks != 0 || s.Agents != 0 || s.EmbeddingModel != nil {
		t.Errorf("empty Stats = %+v", s)
	}
	agents, err := e.db.Agents(context.Background())
	if err != nil || agents == nil || len(agents) != 0 {
		t.Errorf("empty Agents = %#v, %v; want empty non-nil", agents, err)
	}
}

func TestAdminListChunks(t *testing.T) {
	ctx := context.Background()
	f := newAdminFixture(t)
	work := "work"
	global := ""
	tests := []struct {
		name   string
		filter sqlite.ChunkFilter
		want   []*hippo.Chunk
	}{
		{"live, newest first", sqlite.ChunkFilter{AgentID: "alice"}, []*hippo.Chunk{f.berlin, f.underscore, f.redux, f.cotton}},
		{"with superseded", sqlite.ChunkFilter{AgentID: "alice", Superseded: true},
			[]*hippo.Chunk{f.berlin, f.lyon, f.paris, f.underscore, f.redux, f.cotton}},
		{"facts", sqlite.ChunkFilter{AgentID: "alice", Kind: hippo.KindFact, Superseded: true}, []*hippo.Chunk{f.berlin, f.lyon, f.paris}},
		{"memories", sqlite.ChunkFilter{AgentID: "alice", Kind: hippo.KindMemory}, []*hippo.Chunk{f.underscore, f.redux, f.cotton}},
		{"limit", sqlite.ChunkFilter{AgentID: "alice", Limit: 2}, []*hippo.Chunk{f.berlin, f.underscore}},
		{"offset", sqlite.ChunkFilter{AgentID: "alice", Limit: 2, Offset: 2}, []*hippo.Chunk{f.redux, f.cotton}},
		{"offset past the end", sqlite.ChunkFilter{AgentID: "alice", Offset: 10}, nil},
		{"scope", sqlite.ChunkFilter{Scope: &work}, []*hippo.Chunk{f.bigRedux}},
		{"global scope", sqlite.ChunkFilter{AgentID: "bob", Scope: &global}, nil},
		{"unknown agent", sqlite.ChunkFilter{AgentID: "carol"}, nil},
	}
	for _, tt := range tests {
		got, err := f.db.ListChunks(ctx, tt.filter)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if !slices.Equal(ids(got), ids(tt.want)) {
			t.Errorf("%s: ListChunks = %v, want %v", tt.name, ids(got), ids(tt.want))
		}
		n, err := f.db.CountChunks(ctx, tt.filter)
		if err != nil {
			t.Fatal(err)
		}
		tt.filter.Limit, tt.filter.Offset = 0, 0
		all, _ := f.db.ListChunks(ctx, tt.filter)
		if n != len(all) {
			t.Errorf("%s: CountChunks = %d, want %d", tt.name, n, len(all))
		}
	}

	// Listed chunks carry every column but the vector.
	got, err := f.db.ListChunks(ctx, sqlite.ChunkFilter{AgentID: "alice", Kind: hippo.KindFact, Superseded: true, Limit: 1, Offset: 1})
	if err != nil {
		t.Fatal(err)
	}
	full, err := f.db.Chunk(ctx, "alice", f.lyon.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Embedding != nil {
		t.Errorf("listed chunk has an embedding of %d dimensions", len(got[0].Embedding))
	}
	full.Embedding = nil
	if !reflect.DeepEqual(got[0], full) {
		t.Errorf("listed chunk = %+v\nwant %+v", got[0], full)
	}

	for _, bad := range []sqlite.ChunkFilter{{Kind: "note"}, {Limit: -1}, {Offset: -3}} {
		_, err := f.db.ListChunks(ctx, bad)
		wantCode(t, err, hippo.EINVALID)
	}
}

func TestAdminSearch(t *testing.T) {
	ctx := context.Background()
	f := newAdminFixture(t)
	tests := []struct {
		name   string
		filter sqlite.ChunkFilter
		want   []*hippo.Chunk
	}{
		{"ASCII case ignored, across agents", sqlite.ChunkFilter{Text: "redux"}, []*hippo.Chunk{f.bigRedux, f.redux}},
		{"one agent", sqlite.ChunkFilter{Text: "REDUX", AgentID: "alice"}, []*hippo.Chunk{f.redux}},
		{"% is literal", sqlite.ChunkFilter{Text: "100%"}, []*hippo.Chunk{f.cotton}},
		{"% alone matches only a %", sqlite.ChunkFilter{Text: "%"}, []*hippo.Chunk{f.cotton}},
		{"_ is literal", sqlite.ChunkFilter{Text: "y_n"}, []*hippo.Chunk{f.underscore}},
		{"_ alone matches only an _", sqlite.ChunkFilter{Text: "_"}, []*hippo.Chunk{f.underscore}},
		{"backslash is literal", sqlite.ChunkFilter{Text: `\`}, nil},
		{"kind", sqlite.ChunkFilter{Text: "lives", Kind: hippo.KindFact}, []*hippo.Chunk{f.berlin}},
		{"superseded too", sqlite.ChunkFilter{Text: "lives", Superseded: true}, []*hippo.Chunk{f.berlin, f.lyon, f.paris}},
		{"limit", sqlite.ChunkFilter{Text: "e", Limit: 1}, []*hippo.Chunk{f.berlin}},
	}
	for _, tt := range tests {
		got, err := f.db.ListChunks(ctx, tt.filter)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if !slices.Equal(ids(got), ids(tt.want)) {
			t.Errorf("%s: search = %v, want %v", tt.name, ids(got), ids(tt.want))
		}
	}

	// Accents and case are ignored on both sides, beyond ASCII.
	carol := f.memory("carol")
	cafe := store(t, carol, "Met Ana at the CAFÉ de Flore")
	naive := store(t, carol, "A naïve ﬁrst draft, Ελλάδα")
	for _, tt := range []struct {
		text string
		want []*hippo.Chunk
	}{
		{"cafe", []*hippo.Chunk{cafe}},
		{"Café", []*hippo.Chunk{cafe}},
		{"CAFE DE", []*hippo.Chunk{cafe}},
		{"naive", []*hippo.Chunk{naive}},
		{"first", []*hippo.Chunk{naive}},
		{"ελλαδα", []*hippo.Chunk{naive}},
		{"cafes", nil},
	} {
		got, err := f.db.ListChunks(ctx, sqlite.ChunkFilter{AgentID: "carol", Text: tt.text})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(ids(got), ids(tt.want)) {
			t.Errorf("search %q = %v, want %v", tt.text, ids(got), ids(tt.want))
		}
		if n, err := f.db.CountChunks(ctx, sqlite.ChunkFilter{AgentID: "carol", Text: tt.text}); err != nil || n != len(tt.want) {
			t.Errorf("count %q = %d, %v; want %d", tt.text, n, err, len(tt.want))
		}
	}
	// A text with nothing left once accents are dropped is refused, not
	// matched against everything.
	_, err := f.db.ListChunks(ctx, sqlite.ChunkFilter{Text: "\u0301"})
	wantCode(t, err, hippo.EINVALID)
}

func TestAdminListBlocks(t *testing.T) {
	ctx := context.Background()
	f := newAdminFixture(t)
	blocks, err := f.db.ListBlocks(ctx, "alice", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 2 || blocks[0].Key != "objectives" || blocks[0].Chars != len("Ship the CLI") ||
		blocks[1].Key != "persona" || blocks[1].Chars != len("Terse.") || blocks[1].UpdatedAt.IsZero() {
		t.Errorf("ListBlocks = %+v", blocks)
	}
	work := "work"
	if blocks, err := f.db.ListBlocks(ctx, "alice", &work); err != nil || len(blocks) != 0 {
		t.Errorf("ListBlocks in scope work = %+v, %v; want none", blocks, err)
	}
	// Characters, not bytes.
	if _, err := f.memory("carol").AppendBlock(ctx, "name", "Zoë"); err != nil {
		t.Fatal(err)
	}
	if blocks, _ := f.db.ListBlocks(ctx, "carol", nil); len(blocks) != 1 || blocks[0].Chars != 3 {
		t.Errorf("ListBlocks(carol) = %+v, want 3 characters", blocks)
	}
}

func TestAdminPlanDeleteMatchesDelete(t *testing.T) {
	ctx := context.Background()
	f := newAdminFixture(t)
	req := []string{f.berlin.ID, "nope", f.cotton.ID, f.berlin.ID}
	plan, err := f.db.PlanDelete(ctx, "", req)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ids(plan.Chunks), []string{f.berlin.ID, f.cotton.ID}) ||
		!slices.Equal(plan.NotFound, []string{"nope"}) || !slices.Equal(plan.Resurrected, []string{f.lyon.ID}) {
		t.Errorf("plan = chunks %v, not found %v, resurrected %v", ids(plan.Chunks), plan.NotFound, plan.Resurrected)
	}
	if n, _ := f.db.CountChunks(ctx, sqlite.ChunkFilter{Superseded: true}); n != 7 {
		t.Fatalf("PlanDelete changed the database: %d chunks", n)
	}
	deleted, resurrected, err := f.db.DeleteChunks(ctx, "", req)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(deleted, ids(plan.Chunks)) || !slices.Equal(resurrected, plan.Resurrected) {
		t.Errorf("DeleteChunks = %v, %v; plan said %v, %v", deleted, resurrected, ids(plan.Chunks), plan.Resurrected)
	}

	// Another agent's chunk is not found when an agent is given.
	plan, err = f.db.PlanDelete(ctx, "alice", []string{f.bigRedux.ID})
	if err != nil || len(plan.Chunks) != 0 || !slices.Equal(plan.NotFound, []string{f.bigRedux.ID}) {
		t.Errorf("plan for another agent's chunk = %+v, %v", plan, err)
	}
}

func TestAdminPurgeSuperseded(t *testing.T) {
	ctx := context.Background()
	f := newAdminFixture(t)

	// Before day 5 only Paris (superseded on day 1) qualifies.
	day5 := f.clock.Now().Add(5 * 24 * time.Hour)
	preview, err := f.db.PurgeSuperseded(ctx, sqlite.PurgeFilter{Before: day5, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ids(preview), []string{f.paris.ID}) {
		t.Errorf("dry run = %v, want Paris", ids(preview))
	}
	if n, _ := f.db.CountChunks(ctx, sqlite.ChunkFilter{Superseded: true}); n != 7 {
		t.Fatalf("dry run changed the database: %d chunks", n)
	}
	if got, err := f.db.PurgeSuperseded(ctx, sqlite.PurgeFilter{AgentID: "bob"}); err != nil || len(got) != 0 {
		t.Errorf("purge bob = %v, %v; want nothing", ids(got), err)
	}

	day20 := f.clock.Now().Add(20 * 24 * time.Hour)
	got, err := f.db.PurgeSuperseded(ctx, sqlite.PurgeFilter{AgentID: "alice", Before: day20, DryRun: true})
	if err != nil || !slices.Equal(ids(got), []string{f.paris.ID, f.lyon.ID}) {
		t.Fatalf("dry run before day 20 = %v, %v", ids(got), err)
	}
	got, err = f.db.PurgeSuperseded(ctx, sqlite.PurgeFilter{Before: day5})
	if err != nil || !slices.Equal(ids(got), []string{f.paris.ID}) {
		t.Fatalf("purge before day 5 = %v, %v", ids(got), err)
	}
	if _, err := f.db.Chunk(ctx, "", f.paris.ID); hippo.ErrorCode(err) != hippo.ENOTFOUND {
		t.Errorf("Paris still there after purge: %v", err)
	}
	lyon, err := f.db.Chunk(ctx, "", f.lyon.ID)
	if err != nil || lyon.SupersededBy != f.berlin.ID {
		t.Errorf("Lyon after purging Paris = %+v, %v; want still superseded by Berlin", lyon, err)
	}
	if got, err := f.db.PurgeSuperseded(ctx, sqlite.PurgeFilter{}); err != nil || !slices.Equal(ids(got), []string{f.lyon.ID}) {
		t.Errorf("purge all = %v, %v; want Lyon", ids(got), err)
	}
	if live, _ := f.db.ListChunks(ctx, sqlite.ChunkFilter{AgentID: "alice", Kind: hippo.KindFact}); !slices.Equal(ids(live), []string{f.berlin.ID}) {
		t.Errorf("live facts after purge = %v, want Berlin only", ids(live))
	}
}

func TestAdminPurgeKeepsOlderChunksSuperseded(t *testing.T) {
	// Old ← Mid ← New, where only Mid qualifies: Old must not come back.
	ctx := context.Background()
	e := newEnv(t)
	vec := make([]float32, testDim)
	vec[1] = 1
	t0 := e.clock.Now()
	late, early := t0.Add(48*time.Hour), t0.Add(time.Hour)
	chunks := []*hippo.Chunk{
		{ID: "A-OLD", Kind: hippo.KindFact, Content: "old", Embedding: vec, SupersededBy: "B-MID", SupersededAt: &late, CreatedAt: t0},
		{ID: "B-MID", Kind: hippo.KindFact, Content: "mid", Embedding: vec, SupersededBy: "C-NEW", SupersededAt: &early, CreatedAt: t0},
		{ID: "C-NEW", Kind: hippo.KindFact, Content: "new", Embedding: vec, CreatedAt: t0},
	}
	if err := e.db.InsertChunks(ctx, "a", "", e.emb.Model(), chunks); err != nil {
		t.Fatal(err)
	}
	got, err := e.db.PurgeSuperseded(ctx, sqlite.PurgeFilter{Before: t0.Add(24 * time.Hour)})
	if err != nil || !slices.Equal(ids(got), []string{"B-MID"}) {
		t.Fatalf("purge = %v, %v; want B-MID", ids(got), err)
	}
	old, err := e.db.Chunk(ctx, "", "A-OLD")
	if err != nil || old.SupersededBy != "C-NEW" {
		t.Errorf("A-OLD after purge = %+v, %v; want superseded by C-NEW", old, err)
	}
}
