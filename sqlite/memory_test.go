package sqlite_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/sqlite"
)

func TestStoreMemoryDedup(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	m := e.memory("agent-a")
	first := store(t, m, "We chose SQLite over PostgreSQL")
	if first.Kind != hippo.KindMemory || first.RunningIntensity != 0.5 || first.EncounterCount != 1 || first.AccessCount != 0 {
		t.Fatalf("new memory = %+v", first)
	}
	embeds, _ := e.srv.Counts()

	high := 1.0
	res, err := m.StoreMemory(ctx, hippo.StoreInput{Content: "We chose SQLite over PostgreSQL", Intensity: &high})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Duplicate || res.Chunk.ID != first.ID {
		t.Fatalf("repeat: duplicate=%v id=%s, want strengthened %s", res.Duplicate, res.Chunk.ID, first.ID)
	}
	if res.Chunk.EncounterCount != 2 || res.Chunk.AccessCount != 1 || math.Abs(res.Chunk.RunningIntensity-0.75) > 1e-9 {
		t.Errorf("strengthened = encounters %d, accesses %d, intensity %v; want 2, 1, 0.75",
			res.Chunk.EncounterCount, res.Chunk.AccessCount, res.Chunk.RunningIntensity)
	}
	if n, _ := e.srv.Counts(); n != embeds {
		t.Errorf("a verbatim repeat made %d embedding requests, want 0", n-embeds)
	}
	// A near-verbatim text is different content.
	if other := store(t, m, "We chose SQLite over PostgreSQL."); other.ID == first.ID {
		t.Error("different content deduplicated")
	}
	// The same content in another scope or for another agent is its own chunk.
	scoped := e.memory("agent-a", func(o *sqlite.MemoryOptions) { o.Scope = "project-x" })
	if c := store(t, scoped, "We chose SQLite over PostgreSQL"); c.ID == first.ID || c.Scope != "project-x" {
		t.Errorf("scoped store = %s in %q", c.ID, c.Scope)
	}
	if c := store(t, e.memory("agent-b"), "We chose SQLite over PostgreSQL"); c.ID == first.ID {
		t.Error("agent-b's store strengthened agent-a's chunk")
	}
}

func TestStoreMemoryConcurrentDuplicates(t *testing.T) {
	e := newEnv(t)
	m := e.memory("agent-a")
	const n = 8
	var wg sync.WaitGroup
	ids := make([]string, n)
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := m.StoreMemory(context.Background(), hippo.StoreInput{Content: "the same memory"})
			errs[i] = err
			if err == nil {
				ids[i] = res.Chunk.ID
			}
		}()
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if ids[i] != ids[0] {
			t.Fatalf("concurrent stores made chunks %s and %s", ids[0], ids[i])
		}
	}
	c, err := e.db.Chunk(context.Background(), "agent-a", ids[0])
	if err != nil {
		t.Fatal(err)
	}
	if c.EncounterCount != n {
		t.Errorf("encounter count = %d, want %d", c.EncounterCount, n)
	}
}

func TestStoreMemoryBadInput(t *testing.T) {
	e := newEnv(t)
	m := e.memory("agent-a")
	tests := []struct {
		name  string
		in    hippo.StoreInput
		field string
	}{
		{"empty", hippo.StoreInput{Content: ""}, "content"},
		{"blank", hippo.StoreInput{Content: " \n\t"}, "content"},
		{"oversized", hippo.StoreInput{Content: strings.Repeat("x", 50_001)}, "content"},
		{"invalid utf-8", hippo.StoreInput{Content: "bad \xff byte"}, "content"},
		{"metadata array", hippo.StoreInput{Content: "ok", Metadata: json.RawMessage(`[1,2]`)}, "metadata"},
		{"metadata string", hippo.StoreInput{Content: "ok", Metadata: json.RawMessage(`"tags"`)}, "metadata"},
		{"metadata broken", hippo.StoreInput{Content: "ok", Metadata: json.RawMessage(`{"tags":`)}, "metadata"},
	}
	for _, tt := range tests {
		_, err := m.StoreMemory(context.Background(), tt.in)
		var he *hippo.Error
		if err == nil || hippo.ErrorCode(err) != hippo.EINVALID {
			t.Errorf("%s: err = %v, want invalid", tt.name, err)
			continue
		}
		if he, _ = err.(*hippo.Error); he == nil || he.Field != tt.field || !strings.Contains(err.Error(), tt.field) {
			t.Errorf("%s: error %q does not name field %q", tt.name, err, tt.field)
		}
	}
	// 50,000 characters (multi-byte) is allowed.
	if _, err := m.StoreMemory(context.Background(), hippo.StoreInput{Content: strings.Repeat("é", 50_000)}); err != nil {
		t.Errorf("50,000 characters refused: %v", err)
	}
	res, err := m.StoreMemory(context.Background(), hippo.StoreInput{Content: "with metadata",
		Metadata: json.RawMessage(` {"source": "chat", "tags": ["a", "b"], "category": "decision"} `)})
	if err != nil {
		t.Fatal(err)
	}
	if string(res.Chunk.Metadata) != `{"source":"chat","tags":["a","b"],"category":"decision"}` {
		t.Errorf("metadata stored as %s", res.Chunk.Metadata)
	}
	if _, err := e.db.Memory(sqlite.MemoryOptions{AgentID: ""}); hippo.ErrorCode(err) != hippo.EINVALID {
		t.Errorf("empty agent id: %v", err)
	}
	if _, err := e.db.Memory(sqlite.MemoryOptions{AgentID: "a\nb"}); hippo.ErrorCode(err) != hippo.EINVALID {
		t.Errorf("agent id with newline: %v", err)
	}
	if _, err := e.db.Memory(sqlite.MemoryOptions{AgentID: strings.Repeat("a", 129)}); hippo.ErrorCode(err) != hippo.EINVALID {
		t.Errorf("129-character agent id: %v", err)
	}
}

func TestRecallRanksAndBoosts(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	m := e.memory("agent-a")
	target := store(t, m, "the deploy key lives in the vault")
	other := store(t, m, "lunch was pizza on friday")
	res, err := m.Recall(ctx, hippo.RecallInput{Query: "where does the deploy key live", Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].Chunk.ID != target.ID {
		t.Fatalf("recall = %+v, want only %s", res, target.ID)
	}
	r := res[0]
	cfg := e.db.Config()
	if math.Abs(r.Score-cfg.Score(r.Relevance, r.Strength, r.Recency)) > 1e-12 || r.Relevance != cfg.CosineRelevance(r.Similarity) {
		t.Errorf("score %v is not the weighted sum of its parts", r.Score)
	}
	if r.Chunk.AccessCount != 1 || math.Abs(r.Chunk.RunningIntensity-0.52) > 1e-9 {
		t.Errorf("returned chunk: access %d intensity %v, want 1 and 0.52", r.Chunk.AccessCount, r.Chunk.RunningIntensity)
	}
	// Only returned chunks are boosted.
	o, _ := e.db.Chunk(ctx, "agent-a", other.ID)
	if o.AccessCount != 0 || o.RunningIntensity != 0.5 {
		t.Errorf("unreturned chunk was touched: %+v", o)
	}
}

func TestRecallLimitsAndKind(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	m := e.memory("agent-a")
	for i := range 12 {
		store(t, m, strings.Repeat("note ", i+1)+"about testing")
	}
	res, err := m.Recall(ctx, hippo.RecallInput{Query: "testing"})
	if err != nil || len(res) != 10 {
		t.Fatalf("default limit: %d results, %v; want 10", len(res), err)
	}
	for _, bad := range []int{-1, 51, 1000} {
		_, err := m.Recall(ctx, hippo.RecallInput{Query: "testing", Limit: bad})
		wantCode(t, err, hippo.EINVALID)
		if !strings.Contains(err.Error(), "limit") {
			t.Errorf("limit %d: error %q does not name the field", bad, err)
		}
	}
	_, err = m.Recall(ctx, hippo.RecallInput{Query: "testing", Kind: "fish"})
	wantCode(t, err, hippo.EINVALID)
	_, err = m.Recall(ctx, hippo.RecallInput{Query: "  "})
	wantCode(t, err, hippo.EINVALID)
	res, err = m.Recall(ctx, hippo.RecallInput{Query: "testing", Kind: hippo.KindFact})
	if err != nil || len(res) != 0 {
		t.Errorf("kind=fact over memories: %d results, %v", len(res), err)
	}
}

func TestRecallExcludesChunksBelowFloor(t *testing.T) {
	e := newEnv(t)
	m := e.memory("agent-a")
	low := 0.3
	old, err := m.StoreMemory(context.Background(), hippo.StoreInput{Content: "an old faint memory", Intensity: &low})
	if err != nil {
		t.Fatal(err)
	}
	// 0.3·e^(-0.001·h) < 0.05 after ln(6)/0.001 h ≈ 74.7 days.
	e.clock.Advance(74 * 24 * time.Hour)
	if !contains(recallIDs(t, m, "an old faint memory"), old.Chunk.ID) {
		t.Fatal("chunk above the floor was not recalled")
	}
	// That recall was an access: it reset the clock and raised resistance.
	// Untouched for long enough, it fades below the floor for good.
	e.clock.Advance(200 * 24 * time.Hour)
	if contains(recallIDs(t, m, "an old faint memory"), old.Chunk.ID) {
		t.Error("chunk below the 0.05 floor was recalled")
	}
	// Fading is not deletion: the row is still there.
	if _, err := e.db.Chunk(context.Background(), "agent-a", old.Chunk.ID); err != nil {
		t.Errorf("faded chunk is gone: %v", err)
	}
}

func TestRecallConsidersEveryChunk(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	m := e.memory("agent-a")
	target := store(t, m, "the very first memory mentions zanzibar")
	// Many later, more recently accessed chunks must not push the target
	// out of consideration.
	var chunks []*hippo.Chunk
	for i := range 3000 {
		chunks = append(chunks, &hippo.Chunk{Content: fmt.Sprintf("filler %d", i), Embedding: e.srv.Vector("filler")})
	}
	if err := e.db.InsertChunks(ctx, "agent-a", "", "mock-embed", chunks); err != nil {
		t.Fatal(err)
	}
	res, err := m.Recall(ctx, hippo.RecallInput{Query: "zanzibar", Limit: 1})
	if err != nil || len(res) != 1 || res[0].Chunk.ID != target.ID {
		t.Fatalf("recall among 3001 = %v, %v; want %s", res, err, target.ID)
	}
}

func TestIsolationBetweenAgents(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	a, b := e.memory("agent-a"), e.memory("agent-b")
	secret := store(t, a, "agent a's secret plan")
	if _, err := a.AppendBlock(ctx, "persona", "I am A"); err != nil {
		t.Fatal(err)
	}
	if ids := recallIDs(t, b, "agent a's secret plan"); len(ids) != 0 {
		t.Errorf("agent-b recalled %v", ids)
	}
	if blk, err := b.Block(ctx, "persona"); blk != nil || err != nil {
		t.Errorf("agent-b read agent-a's block: %v, %v", blk, err)
	}
	if _, _, err := b.ReplaceBlock(ctx, "persona", "A", "B"); hippo.ErrorCode(err) != hippo.ENOTFOUND {
		t.Errorf("agent-b replaced in agent-a's block: %v", err)
	}
	res, err := b.Forget(ctx, hippo.ForgetInput{Description: "agent a's secret plan", Threshold: 0.1})
	if err != nil || len(res.Deleted) != 0 {
		t.Errorf("agent-b forget deleted %v, %v", res, err)
	}
	if _, err := b.DeleteChunk(ctx, secret.ID); hippo.ErrorCode(err) != hippo.ENOTFOUND {
		t.Errorf("agent-b deleted agent-a's chunk: %v", err)
	}
	if _, err := b.UpdateChunk(ctx, secret.ID, "hijacked"); hippo.ErrorCode(err) != hippo.ENOTFOUND {
		t.Errorf("agent-b updated agent-a's chunk: %v", err)
	}
	if _, err := e.db.Chunk(ctx, "agent-a", secret.ID); err != nil {
		t.Errorf("agent-a's chunk is gone: %v", err)
	}
	if blk, _ := a.Block(ctx, "persona"); blk == nil || blk.Value != "I am A" {
		t.Errorf("agent-a's block = %+v", blk)
	}
}

func TestForget(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	m := e.memory("agent-a")
	redux := store(t, m, "I like Redux")
	keep := store(t, m, "the weather in Lisbon is mild")
	if _, err := m.AppendBlock(ctx, "human", "likes Redux"); err != nil {
		t.Fatal(err)
	}
	dry, err := m.Forget(ctx, hippo.ForgetInput{Description: "I like Redux", DryRun: true})
	if err != nil || len(dry.Deleted) != 1 {
		t.Fatalf("dry run = %+v, %v", dry, err)
	}
	if _, err := e.db.Chunk(ctx, "agent-a", redux.ID); err != nil {
		t.Fatalf("dry run deleted: %v", err)
	}
	res, err := m.Forget(ctx, hippo.ForgetInput{Description: "I like Redux"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Deleted) != 1 || res.Deleted[0].ID != redux.ID || res.Deleted[0].Similarity < 0.7 {
		t.Fatalf("forget deleted %+v, want only %s", res.Deleted, redux.ID)
	}
	if _, err := e.db.Chunk(ctx, "agent-a", redux.ID); hippo.ErrorCode(err) != hippo.ENOTFOUND {
		t.Errorf("forgotten chunk still readable: %v", err)
	}
	if _, err := e.db.Chunk(ctx, "agent-a", keep.ID); err != nil {
		t.Errorf("unrelated chunk deleted: %v", err)
	}
	if blk, _ := m.Block(ctx, "human"); blk == nil || blk.Value != "likes Redux" {
		t.Errorf("forget touched a block: %+v", blk)
	}
	for _, bad := range []float64{-0.1, 1.5, math.NaN()} {
		_, err := m.Forget(ctx, hippo.ForgetInput{Description: "x", Threshold: bad})
		wantCode(t, err, hippo.EINVALID)
	}
}

func TestScopes(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	global := store(t, e.memory("agent-a"), "shared note about kites")
	work := store(t, e.memory("agent-a", func(o *sqlite.MemoryOptions) { o.Scope = "work" }), "work note about kites")
	home := store(t, e.memory("agent-a", func(o *sqlite.MemoryOptions) { o.Scope = "home" }), "home note about kites")
	tests := []struct {
		name   string
		scopes []string
		want   []string
	}{
		{"unset searches all scopes", nil, []string{global.ID, work.ID, home.ID}},
		{"empty list searches none", []string{}, nil},
		{"one scope, exactly", []string{"work"}, []string{work.ID}},
		{"global scope is named by empty string", []string{""}, []string{global.ID}},
		{"several", []string{"home", ""}, []string{global.ID, home.ID}},
		{"unknown scope", []string{"nowhere"}, nil},
	}
	for _, tt := range tests {
		m := e.memory("agent-a", func(o *sqlite.MemoryOptions) { o.RecallScopes = tt.scopes })
		got := recallIDs(t, m, "note about kites")
		if len(got) != len(tt.want) {
			t.Errorf("%s: recalled %d chunks, want %d", tt.name, len(got), len(tt.want))
			continue
		}
		for _, id := range tt.want {
			if !contains(got, id) {
				t.Errorf("%s: missing %s", tt.name, id)
			}
		}
	}
	// Forget obeys the recall scopes too.
	m := e.memory("agent-a", func(o *sqlite.MemoryOptions) { o.RecallScopes = []string{"home"} })
	res, err := m.Forget(ctx, hippo.ForgetInput{Description: "note about kites", Threshold: 0.5})
	if err != nil || len(res.Deleted) != 1 || res.Deleted[0].ID != home.ID {
		t.Errorf("scoped forget = %+v, %v; want only %s", res, err, home.ID)
	}
	// Blocks live in the write scope.
	w := e.memory("agent-a", func(o *sqlite.MemoryOptions) { o.Scope = "work" })
	w.AppendBlock(ctx, "objectives", "ship v1")
	if blk, _ := e.memory("agent-a").Block(ctx, "objectives"); blk != nil {
		t.Errorf("work-scope block visible in global scope: %+v", blk)
	}
}

func TestUpdateAndDeleteChunk(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	m := e.memory("agent-a")
	c := store(t, m, "the office is on floor 3")
	other := store(t, m, "the office has a cat")
	up, err := m.UpdateChunk(ctx, c.ID, "the office is on floor 5")
	if err != nil {
		t.Fatal(err)
	}
	if up.Content != "the office is on floor 5" || up.ContentHash != sqlite.ContentHash("the office is on floor 5") {
		t.Errorf("updated chunk = %+v", up)
	}
	if ids := recallIDs(t, m, "the office is on floor 5"); len(ids) == 0 || ids[0] != c.ID {
		t.Errorf("re-embedded chunk not found first: %v", ids)
	}
	// Storing the new content again strengthens the updated chunk.
	if again := store(t, m, "the office is on floor 5"); again.ID != c.ID {
		t.Error("hash not recomputed on update")
	}
	_, err = m.UpdateChunk(ctx, other.ID, "the office is on floor 5")
	wantCode(t, err, hippo.ECONFLICT)
	_, err = m.UpdateChunk(ctx, "01NOSUCHCHUNK", "x")
	wantCode(t, err, hippo.ENOTFOUND)

	if _, err := m.DeleteChunk(ctx, c.ID); err != nil {
		t.Fatal(err)
	}
	_, err = m.DeleteChunk(ctx, c.ID)
	wantCode(t, err, hippo.ENOTFOUND)
}

func TestBlocks(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	m := e.memory("agent-a")
	if b, err := m.Block(ctx, "persona"); b != nil || err != nil {
		t.Fatalf("missing block = %v, %v; want nil, nil", b, err)
	}
	b, err := m.AppendBlock(ctx, "persona", "I am helpful.")
	if err != nil || b.Value != "I am helpful." {
		t.Fatalf("append creates: %+v, %v", b, err)
	}
	b, _ = m.AppendBlock(ctx, "persona", "I am terse.")
	if b.Value != "I am helpful.\nI am terse." {
		t.Errorf("append = %q", b.Value)
	}
	b, n, err := m.ReplaceBlock(ctx, "persona", "I am", "You are")
	if err != nil || n != 2 || b.Value != "You are helpful.\nYou are terse." {
		t.Errorf("replace all = %q, %d, %v", b.Value, n, err)
	}
	_, _, err = m.ReplaceBlock(ctx, "persona", "not there", "x")
	wantCode(t, err, hippo.ENOTFOUND)
	if !strings.Contains(err.Error(), "not found") {
		t.Errorf("error %q", err)
	}
	_, _, err = m.ReplaceBlock(ctx, "nope", "a", "b")
	wantCode(t, err, hippo.ENOTFOUND)
	_, _, err = m.ReplaceBlock(ctx, "persona", "", "b")
	wantCode(t, err, hippo.EINVALID)
	// Replacing with nothing deletes the text.
	b, _, err = m.ReplaceBlock(ctx, "persona", "\nYou are terse.", "")
	if err != nil || b.Value != "You are helpful." {
		t.Errorf("replace with empty = %q, %v", b.Value, err)
	}
	for _, key := range []string{"", "  ", "a\tb", strings.Repeat("k", 129)} {
		_, err := m.AppendBlock(ctx, key, "x")
		wantCode(t, err, hippo.EINVALID)
	}
	_, err = m.AppendBlock(ctx, "persona", "")
	wantCode(t, err, hippo.EINVALID)
	got, _ := m.Block(ctx, "persona")
	if got.Value != "You are helpful." {
		t.Errorf("failed calls changed the block: %q", got.Value)
	}
}
