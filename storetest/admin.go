package storetest

import (
	"context"
	"math"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
)

// adminFixture is a small database: two agents, facts with a supersession
// chain, memories in two scopes, blocks.
type adminFixture struct {
	*env
	cotton, redux, bigRedux, underscore *hippo.Chunk
	paris, lyon, berlin                 *hippo.Chunk // paris ← lyon ← berlin
}

func newAdminFixture(t *testing.T, b Backend) *adminFixture {
	t.Helper()
	ctx := context.Background()
	e := newEnv(t, b)
	f := &adminFixture{env: e}
	alice := e.memory("alice")
	f.cotton = store(t, alice, "Wears 100% cotton shirts")
	e.clock.Advance(time.Hour)
	f.redux = store(t, alice, "Uses Redux for state")
	e.clock.Advance(time.Hour)
	f.underscore = store(t, alice, "Named the file my_notes.txt")
	e.clock.Advance(time.Hour)
	f.bigRedux = store(t, e.memory("bob", scope("work")), "REDUX is overkill")

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
	e.plant("alice", "", f.paris, f.lyon, f.berlin)
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

func testAdminStatsAndAgents(t *testing.T, b Backend) {
	ctx := context.Background()
	f := newAdminFixture(t, b)
	s, err := f.s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := hippo.Stats{Path: f.s.Location(), Chunks: 7, Facts: 3, Memories: 4, Superseded: 2, Blocks: 2, Agents: 2,
		EmbeddingModel: &hippo.ModelLock{Model: "mock-embed", Dimension: testDim}, DecayModel: hippo.DecayHippo, DecayClock: "wall"}
	if s.FileSize <= 0 {
		t.Errorf("FileSize = %d, want > 0", s.FileSize)
	}
	s.FileSize, s.WALSize = 0, 0
	if !reflect.DeepEqual(*s, want) {
		t.Errorf("Stats = %+v\nwant    %+v", *s, want)
	}

	agents, err := f.s.Agents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	wantAgents := []hippo.AgentSummary{
		{AgentID: "alice", Chunks: 6, Facts: 3, Memories: 3, Superseded: 2, Blocks: 2},
		{AgentID: "bob", Chunks: 1, Memories: 1},
	}
	if !reflect.DeepEqual(agents, wantAgents) {
		t.Errorf("Agents = %+v\nwant %+v", agents, wantAgents)
	}
}

func testAdminStatsEmptyDatabase(t *testing.T, b Backend) {
	e := newEnv(t, b)
	s, err := e.s.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if s.Chunks != 0 || s.Agents != 0 || s.EmbeddingModel != nil {
		t.Errorf("empty Stats = %+v", s)
	}
	agents, err := e.s.Agents(context.Background())
	if err != nil || agents == nil || len(agents) != 0 {
		t.Errorf("empty Agents = %#v, %v; want empty non-nil", agents, err)
	}
}

func testAdminListChunks(t *testing.T, b Backend) {
	ctx := context.Background()
	f := newAdminFixture(t, b)
	work := "work"
	global := ""
	tests := []struct {
		name   string
		filter hippo.ChunkFilter
		want   []*hippo.Chunk
	}{
		{"live, newest first", hippo.ChunkFilter{AgentID: "alice"}, []*hippo.Chunk{f.berlin, f.underscore, f.redux, f.cotton}},
		{"with superseded", hippo.ChunkFilter{AgentID: "alice", Superseded: true},
			[]*hippo.Chunk{f.berlin, f.lyon, f.paris, f.underscore, f.redux, f.cotton}},
		{"facts", hippo.ChunkFilter{AgentID: "alice", Kind: hippo.KindFact, Superseded: true}, []*hippo.Chunk{f.berlin, f.lyon, f.paris}},
		{"memories", hippo.ChunkFilter{AgentID: "alice", Kind: hippo.KindMemory}, []*hippo.Chunk{f.underscore, f.redux, f.cotton}},
		{"limit", hippo.ChunkFilter{AgentID: "alice", Limit: 2}, []*hippo.Chunk{f.berlin, f.underscore}},
		{"offset", hippo.ChunkFilter{AgentID: "alice", Limit: 2, Offset: 2}, []*hippo.Chunk{f.redux, f.cotton}},
		{"offset past the end", hippo.ChunkFilter{AgentID: "alice", Offset: 10}, nil},
		{"scope", hippo.ChunkFilter{Scope: &work}, []*hippo.Chunk{f.bigRedux}},
		{"global scope", hippo.ChunkFilter{AgentID: "bob", Scope: &global}, nil},
		{"unknown agent", hippo.ChunkFilter{AgentID: "carol"}, nil},
	}
	for _, tt := range tests {
		got, err := f.s.ListChunks(ctx, tt.filter)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if !slices.Equal(ids(got), ids(tt.want)) {
			t.Errorf("%s: ListChunks = %v, want %v", tt.name, ids(got), ids(tt.want))
		}
		n, err := f.s.CountChunks(ctx, tt.filter)
		if err != nil {
			t.Fatal(err)
		}
		tt.filter.Limit, tt.filter.Offset = 0, 0
		all, _ := f.s.ListChunks(ctx, tt.filter)
		if n != len(all) {
			t.Errorf("%s: CountChunks = %d, want %d", tt.name, n, len(all))
		}
	}

	// Listed chunks carry every column but the vector.
	got, err := f.s.ListChunks(ctx, hippo.ChunkFilter{AgentID: "alice", Kind: hippo.KindFact, Superseded: true, Limit: 1, Offset: 1})
	if err != nil {
		t.Fatal(err)
	}
	full, err := f.s.Chunk(ctx, "alice", f.lyon.ID)
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

	for _, bad := range []hippo.ChunkFilter{{Kind: "note"}, {Limit: -1}, {Offset: -3}} {
		_, err := f.s.ListChunks(ctx, bad)
		mustCode(t, err, hippo.EINVALID)
	}
}

func testAdminSearch(t *testing.T, b Backend) {
	ctx := context.Background()
	f := newAdminFixture(t, b)
	tests := []struct {
		name   string
		filter hippo.ChunkFilter
		want   []*hippo.Chunk
	}{
		{"ASCII case ignored, across agents", hippo.ChunkFilter{Text: "redux"}, []*hippo.Chunk{f.bigRedux, f.redux}},
		{"one agent", hippo.ChunkFilter{Text: "REDUX", AgentID: "alice"}, []*hippo.Chunk{f.redux}},
		{"% is literal", hippo.ChunkFilter{Text: "100%"}, []*hippo.Chunk{f.cotton}},
		{"% alone matches only a %", hippo.ChunkFilter{Text: "%"}, []*hippo.Chunk{f.cotton}},
		{"_ is literal", hippo.ChunkFilter{Text: "y_n"}, []*hippo.Chunk{f.underscore}},
		{"_ alone matches only an _", hippo.ChunkFilter{Text: "_"}, []*hippo.Chunk{f.underscore}},
		{"backslash is literal", hippo.ChunkFilter{Text: `\`}, nil},
		{"kind", hippo.ChunkFilter{Text: "lives", Kind: hippo.KindFact}, []*hippo.Chunk{f.berlin}},
		{"superseded too", hippo.ChunkFilter{Text: "lives", Superseded: true}, []*hippo.Chunk{f.berlin, f.lyon, f.paris}},
		{"limit", hippo.ChunkFilter{Text: "e", Limit: 1}, []*hippo.Chunk{f.berlin}},
	}
	for _, tt := range tests {
		got, err := f.s.ListChunks(ctx, tt.filter)
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
		got, err := f.s.ListChunks(ctx, hippo.ChunkFilter{AgentID: "carol", Text: tt.text})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(ids(got), ids(tt.want)) {
			t.Errorf("search %q = %v, want %v", tt.text, ids(got), ids(tt.want))
		}
		if n, err := f.s.CountChunks(ctx, hippo.ChunkFilter{AgentID: "carol", Text: tt.text}); err != nil || n != len(tt.want) {
			t.Errorf("count %q = %d, %v; want %d", tt.text, n, err, len(tt.want))
		}
	}
	// A text with nothing left once accents are dropped is refused, not
	// matched against everything.
	_, err := f.s.ListChunks(ctx, hippo.ChunkFilter{Text: "\u0301"})
	mustCode(t, err, hippo.EINVALID)
}

func testAdminListBlocks(t *testing.T, b Backend) {
	ctx := context.Background()
	f := newAdminFixture(t, b)
	blocks, err := f.s.ListBlocks(ctx, "alice", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 2 || blocks[0].Key != "objectives" || blocks[0].Chars != len("Ship the CLI") ||
		blocks[1].Key != "persona" || blocks[1].Chars != len("Terse.") || blocks[1].UpdatedAt.IsZero() {
		t.Errorf("ListBlocks = %+v", blocks)
	}
	work := "work"
	if blocks, err := f.s.ListBlocks(ctx, "alice", &work); err != nil || len(blocks) != 0 {
		t.Errorf("ListBlocks in scope work = %+v, %v; want none", blocks, err)
	}
	// Characters, not bytes.
	if _, err := f.memory("carol").AppendBlock(ctx, "name", "Zoë"); err != nil {
		t.Fatal(err)
	}
	if blocks, _ := f.s.ListBlocks(ctx, "carol", nil); len(blocks) != 1 || blocks[0].Chars != 3 {
		t.Errorf("ListBlocks(carol) = %+v, want 3 characters", blocks)
	}
}

func testAdminPlanDeleteMatchesDelete(t *testing.T, b Backend) {
	ctx := context.Background()
	f := newAdminFixture(t, b)
	req := []string{f.berlin.ID, "nope", f.cotton.ID, f.berlin.ID}
	plan, err := f.s.PlanDelete(ctx, "", req)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ids(plan.Chunks), []string{f.berlin.ID, f.cotton.ID}) ||
		!slices.Equal(plan.NotFound, []string{"nope"}) || !slices.Equal(plan.Resurrected, []string{f.lyon.ID}) {
		t.Errorf("plan = chunks %v, not found %v, resurrected %v", ids(plan.Chunks), plan.NotFound, plan.Resurrected)
	}
	if n, _ := f.s.CountChunks(ctx, hippo.ChunkFilter{Superseded: true}); n != 7 {
		t.Fatalf("PlanDelete changed the database: %d chunks", n)
	}
	deleted, resurrected, err := f.s.DeleteChunks(ctx, "", req)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(deleted, ids(plan.Chunks)) || !slices.Equal(resurrected, plan.Resurrected) {
		t.Errorf("DeleteChunks = %v, %v; plan said %v, %v", deleted, resurrected, ids(plan.Chunks), plan.Resurrected)
	}

	// Another agent's chunk is not found when an agent is given.
	plan, err = f.s.PlanDelete(ctx, "alice", []string{f.bigRedux.ID})
	if err != nil || len(plan.Chunks) != 0 || !slices.Equal(plan.NotFound, []string{f.bigRedux.ID}) {
		t.Errorf("plan for another agent's chunk = %+v, %v", plan, err)
	}
}

func testAdminPurgeSuperseded(t *testing.T, b Backend) {
	ctx := context.Background()
	f := newAdminFixture(t, b)

	// Before day 5 only Paris (superseded on day 1) qualifies.
	day5 := f.clock.Now().Add(5 * 24 * time.Hour)
	preview, err := f.s.PurgeSuperseded(ctx, hippo.PurgeFilter{Before: day5, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ids(preview), []string{f.paris.ID}) {
		t.Errorf("dry run = %v, want Paris", ids(preview))
	}
	if n, _ := f.s.CountChunks(ctx, hippo.ChunkFilter{Superseded: true}); n != 7 {
		t.Fatalf("dry run changed the database: %d chunks", n)
	}
	if got, err := f.s.PurgeSuperseded(ctx, hippo.PurgeFilter{AgentID: "bob"}); err != nil || len(got) != 0 {
		t.Errorf("purge bob = %v, %v; want nothing", ids(got), err)
	}

	day20 := f.clock.Now().Add(20 * 24 * time.Hour)
	got, err := f.s.PurgeSuperseded(ctx, hippo.PurgeFilter{AgentID: "alice", Before: day20, DryRun: true})
	if err != nil || !slices.Equal(ids(got), []string{f.paris.ID, f.lyon.ID}) {
		t.Fatalf("dry run before day 20 = %v, %v", ids(got), err)
	}
	got, err = f.s.PurgeSuperseded(ctx, hippo.PurgeFilter{Before: day5})
	if err != nil || !slices.Equal(ids(got), []string{f.paris.ID}) {
		t.Fatalf("purge before day 5 = %v, %v", ids(got), err)
	}
	if _, err := f.s.Chunk(ctx, "", f.paris.ID); hippo.ErrorCode(err) != hippo.ENOTFOUND {
		t.Errorf("Paris still there after purge: %v", err)
	}
	lyon, err := f.s.Chunk(ctx, "", f.lyon.ID)
	if err != nil || lyon.SupersededBy != f.berlin.ID {
		t.Errorf("Lyon after purging Paris = %+v, %v; want still superseded by Berlin", lyon, err)
	}
	if got, err := f.s.PurgeSuperseded(ctx, hippo.PurgeFilter{}); err != nil || !slices.Equal(ids(got), []string{f.lyon.ID}) {
		t.Errorf("purge all = %v, %v; want Lyon", ids(got), err)
	}
	if live, _ := f.s.ListChunks(ctx, hippo.ChunkFilter{AgentID: "alice", Kind: hippo.KindFact}); !slices.Equal(ids(live), []string{f.berlin.ID}) {
		t.Errorf("live facts after purge = %v, want Berlin only", ids(live))
	}
}

func testAdminPurgeKeepsOlderChunksSuperseded(t *testing.T, b Backend) {
	// Old ← Mid ← New, where only Mid qualifies: Old must not come back.
	ctx := context.Background()
	e := newEnv(t, b)
	vec := make([]float32, testDim)
	vec[1] = 1
	t0 := e.clock.Now()
	late, early := t0.Add(48*time.Hour), t0.Add(time.Hour)
	chunks := []*hippo.Chunk{
		{ID: "A-OLD", Kind: hippo.KindFact, Content: "old", Embedding: vec, SupersededBy: "B-MID", SupersededAt: &late, CreatedAt: t0},
		{ID: "B-MID", Kind: hippo.KindFact, Content: "mid", Embedding: vec, SupersededBy: "C-NEW", SupersededAt: &early, CreatedAt: t0},
		{ID: "C-NEW", Kind: hippo.KindFact, Content: "new", Embedding: vec, CreatedAt: t0},
	}
	e.plant("a", "", chunks...)
	got, err := e.s.PurgeSuperseded(ctx, hippo.PurgeFilter{Before: t0.Add(24 * time.Hour)})
	if err != nil || !slices.Equal(ids(got), []string{"B-MID"}) {
		t.Fatalf("purge = %v, %v; want B-MID", ids(got), err)
	}
	old, err := e.chunk("", "A-OLD")
	if err != nil || old.SupersededBy != "C-NEW" {
		t.Errorf("A-OLD after purge = %+v, %v; want superseded by C-NEW", old, err)
	}
}

// testBrowseStrengthMatchesRecall checks the SQL strength of BrowseChunks,
// ChunkStrengths and CountAgentChunks against recall's, under both decay
// clocks.
func testBrowseStrengthMatchesRecall(t *testing.T, b Backend) {
	for _, clockName := range []string{"wall", "active"} {
		t.Run(clockName, func(t *testing.T) {
			e := newEnv(t, b)
			ctx := context.Background()
			db := e.open(b.New(t), Options{DecayClock: clockName})
			m := e.memoryOf(db, "a")
			var ids []string
			for i, text := range []string{"alpha one", "beta two", "gamma three"} {
				ids = append(ids, store(t, m, text).ID)
				// Activity in some hours only: the active clock counts those.
				e.clock.Advance(time.Duration(30+20*i) * time.Hour)
				if _, err := m.Recall(ctx, hippo.RecallInput{Query: "beta two", Limit: 1}); err != nil {
					t.Fatal(err)
				}
				e.clock.Advance(50 * time.Hour)
			}
			res, err := m.Recall(ctx, hippo.RecallInput{Query: "alpha", Limit: 10, DryRun: true})
			if err != nil || len(res) != 3 {
				t.Fatalf("recall = %v, %v", res, err)
			}
			want := map[string]float64{}
			for _, r := range res {
				want[r.Chunk.ID] = r.Strength
			}
			got, err := db.ChunkStrengths(ctx, "a", ids)
			if err != nil {
				t.Fatal(err)
			}
			page, total, err := db.BrowseChunks(ctx, hippo.BrowseQuery{ChunkFilter: hippo.ChunkFilter{AgentID: "a"}, Order: hippo.OrderStrength})
			if err != nil || total != 3 || len(page) != 3 {
				t.Fatalf("browse = %v, %d, %v", page, total, err)
			}
			for i, b := range page {
				if math.Abs(b.Strength-want[b.Chunk.ID]) > 1e-6 || math.Abs(got[b.Chunk.ID]-want[b.Chunk.ID]) > 1e-6 {
					t.Errorf("%s: browse %v, ChunkStrengths %v, recall %v", b.Chunk.Content, b.Strength, got[b.Chunk.ID], want[b.Chunk.ID])
				}
				if i > 0 && b.Strength > page[i-1].Strength {
					t.Errorf("not by strength: %v after %v", b.Strength, page[i-1].Strength)
				}
			}
			counts, err := db.CountAgentChunks(ctx, "a", 10)
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for bin, c := range counts.Strength {
				n += c
				for _, s := range want {
					if int(s*10) == bin && c == 0 {
						t.Errorf("strength %v not counted in bin %d: %v", s, bin, counts.Strength)
					}
				}
			}
			if n != 3 || counts.Live != 3 || counts.ByKind["memory"] != 3 || counts.ByScope[""] != 3 {
				t.Errorf("counts = %+v", counts)
			}
		})
	}
}

func testBrowseFiltersAndPages(t *testing.T, b Backend) {
	e := newEnv(t, b)
	ctx := context.Background()
	m := e.memory("a")
	for i, meta := range []string{`{"tags":["x","y"],"category":"c"}`, `{"tags":["y"]}`, `{"tags":["caf\u00e9"]}`, ``} {
		in := hippo.StoreInput{Content: "note " + string(rune('a'+i))}
		if meta != "" {
			in.Metadata = []byte(meta)
		}
		if _, err := m.StoreMemory(ctx, in); err != nil {
			t.Fatal(err)
		}
		e.clock.Advance(time.Hour)
	}
	for _, c := range []struct {
		q    hippo.BrowseQuery
		want []string
	}{
		{hippo.BrowseQuery{Tag: "y"}, []string{"note b", "note a"}},
		{hippo.BrowseQuery{Tag: "café"}, []string{"note c"}}, // stored escaped
		{hippo.BrowseQuery{Category: "c"}, []string{"note a"}},
		{hippo.BrowseQuery{Order: hippo.OrderCreated, ChunkFilter: hippo.ChunkFilter{Limit: 2, Offset: 1}}, []string{"note c", "note b"}},
	} {
		c.q.AgentID = "a"
		page, _, err := e.s.BrowseChunks(ctx, c.q)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, b := range page {
			got = append(got, b.Chunk.Content)
		}
		if len(got) != len(c.want) || (len(got) > 0 && got[0] != c.want[0]) || (len(got) > 1 && got[1] != c.want[1]) {
			t.Errorf("%+v: %v, want %v", c.q, got, c.want)
		}
	}
	if _, _, err := e.s.BrowseChunks(ctx, hippo.BrowseQuery{ChunkFilter: hippo.ChunkFilter{AgentID: "a"}, Order: "bogus"}); hippo.ErrorCode(err) != hippo.EINVALID {
		t.Errorf("bad order: %v", err)
	}
}

// testTextFilterFolds finds content by text without case or accents.
func testTextFilterFolds(t *testing.T, b Backend) {
	ctx := context.Background()
	s := open(t, b)
	m := memory(t, s, "alice", "", nil)
	for _, c := range []string{"Tried the new Café on Sukhumvit", "The cafeteria closes at 3", "Tea at home"} {
		if _, err := m.StoreMemory(ctx, hippo.StoreInput{Content: c}); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		text string
		want int
	}{{"cafe", 2}, {"CAFÉ", 2}, {"café on", 1}, {"tea", 1}, {"nothing", 0}} {
		n, err := s.CountChunks(ctx, hippo.ChunkFilter{AgentID: "alice", Text: tc.text})
		if err != nil || n != tc.want {
			t.Errorf("text %q: %d chunks (%v), want %d", tc.text, n, err, tc.want)
		}
	}
}
