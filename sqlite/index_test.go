package sqlite

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/engine"
	"github.com/hippo-mem/hippo/mock"
	"github.com/hippo-mem/hippo/openai"
	"github.com/hippo-mem/hippo/vector"
)

// sharedFile returns a function that opens one new database file again
// each time with opts, as another process would, with agent "agent"'s
// memory on a mock embedder.
func sharedFile(t *testing.T, opts Options) func() (*DB, *Memory) {
	srv := mock.NewServer(t, 32)
	emb, err := openai.NewEmbedder(openai.Config{BaseURL: srv.BaseURL(), Model: "mock"})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "shared.db")
	return func() (*DB, *Memory) {
		t.Helper()
		db, err := Open(context.Background(), path, opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		m, err := db.Memory(MemoryOptions{AgentID: "agent", Embedder: emb})
		if err != nil {
			t.Fatal(err)
		}
		return db, m
	}
}

// TestIndexSeesOtherConnectionsWrites opens the file twice, as a server and
// a CLI would, and checks that neither ever recalls stale data.
func TestIndexSeesOtherConnectionsWrites(t *testing.T) {
	ctx := context.Background()
	open := sharedFile(t, Options{})
	_, server := open()
	_, cli := open()
	recall := func(m *Memory, q string) []string {
		t.Helper()
		res, err := m.Recall(ctx, hippo.RecallInput{Query: q, Limit: 50})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range res {
			out = append(out, r.Chunk.Content)
		}
		return out
	}
	has := func(xs []string, x string) bool {
		for _, y := range xs {
			if y == x {
				return true
			}
		}
		return false
	}

	if _, err := server.StoreMemory(ctx, hippo.StoreInput{Content: "kept by the server"}); err != nil {
		t.Fatal(err)
	}
	recall(server, "kept") // loads the server's index
	if _, err := cli.StoreMemory(ctx, hippo.StoreInput{Content: "written by the cli"}); err != nil {
		t.Fatal(err)
	}
	if got := recall(server, "written by the cli"); !has(got, "written by the cli") {
		t.Fatalf("server missed the CLI's insert: %v", got)
	}
	if _, err := cli.Forget(ctx, hippo.ForgetInput{Description: "written by the cli", Threshold: 0.99}); err != nil {
		t.Fatal(err)
	}
	if got := recall(server, "written by the cli"); has(got, "written by the cli") {
		t.Fatalf("server recalled a chunk the CLI forgot: %v", got)
	}
	// Content changes made elsewhere are seen too.
	res, _ := server.Recall(ctx, hippo.RecallInput{Query: "kept by the server", Limit: 1})
	if _, err := cli.UpdateChunk(ctx, res[0].Chunk.ID, "rewritten by the cli"); err != nil {
		t.Fatal(err)
	}
	if got := recall(server, "rewritten by the cli"); !has(got, "rewritten by the cli") || has(got, "kept by the server") {
		t.Fatalf("server missed the CLI's update: %v", got)
	}

	// When the log is pruned past what the server has folded in, it
	// reloads rather than missing changes.
	if _, err := cli.StoreMemory(ctx, hippo.StoreInput{Content: "stored before pruning"}); err != nil {
		t.Fatal(err)
	}
	if err := cli.db.pruneChanges(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if got := recall(server, "stored before pruning"); !has(got, "stored before pruning") {
		t.Fatalf("server missed a change whose log entry was pruned: %v", got)
	}
	var n int
	cli.db.read.QueryRow(`SELECT COUNT(*) FROM hippo_changes`).Scan(&n)
	if n > 20 {
		t.Errorf("change log holds %d entries after pruning", n)
	}
}

// TestRecallFoldsOwnBoost checks that a recall's boost lands in the index
// in place: the index then holds exactly what a fresh load from the rows
// would, its change-log position has moved past the boost, and a write by
// another handle between a recall's sync and its boost is still folded in
// by the next sync.
func TestRecallFoldsOwnBoost(t *testing.T) {
	ctx := context.Background()
	open := sharedFile(t, Options{})
	db, m := open()
	for _, s := range []string{"alpha memory", "beta memory", "gamma memory"} {
		if _, err := m.StoreMemory(ctx, hippo.StoreInput{Content: s}); err != nil {
			t.Fatal(err)
		}
	}
	// compare checks the index against a fresh load of the same rows.
	compare := func(step string) {
		t.Helper()
		fresh, err := engine.NewIndexes(feed{db}, 0).Sync(ctx, "agent", db.cfg, db.clock.Active(), nil)
		if err != nil {
			t.Fatal(err)
		}
		ai, err := db.syncIndex(ctx, "agent")
		if err != nil {
			t.Fatal(err)
		}
		got, want := ai.Metas(), fresh.Metas()
		if len(got) != len(want) {
			t.Fatalf("%s: index has %d rows, a fresh load %d", step, len(got), len(want))
		}
		for id, w := range want {
			g, ok := got[id]
			if !ok || g.Intensity != w.Intensity || g.DecayRate != w.DecayRate || g.LastAccess != w.LastAccess {
				t.Errorf("%s: %s in index %+v, fresh %+v", step, id, g, w)
			}
		}
	}
	if _, err := m.Recall(ctx, hippo.RecallInput{Query: "alpha", Limit: 2}); err != nil {
		t.Fatal(err)
	}
	var maxSeq int64
	if err := db.read.QueryRowContext(ctx, `SELECT MAX(seq) FROM hippo_changes`).Scan(&maxSeq); err != nil {
		t.Fatal(err)
	}
	// As the recall left it: syncIndex would sync.
	if seq, _ := db.indexes.Cached("agent").Position(); seq != maxSeq {
		t.Errorf("index at change %d after its own boost, log at %d", seq, maxSeq)
	}
	compare("after own boost")

	// Another handle boosts every chunk between this recall's sync and
	// its boost: the fold must not skip that write.
	_, other := open()
	st := boostAfter{m.st, func() {
		if _, err := other.Recall(ctx, hippo.RecallInput{Query: "gamma", Limit: 3}); err != nil {
			t.Fatal(err)
		}
	}}
	if _, err := engine.NewMemory(st, db.clock, db.indexes, m.Config(), m.opts).Recall(ctx, hippo.RecallInput{Query: "beta", Limit: 1}); err != nil {
		t.Fatal(err)
	}
	compare("after another handle's boost")
}

// boostAfter is a store whose boost runs first before the agent's own.
type boostAfter struct {
	*agentStore
	first func()
}

func (b boostAfter) Boost(ctx context.Context, ids []string, now int64) (map[string]*hippo.Chunk, int64, int64, error) {
	b.first()
	return b.agentStore.Boost(ctx, ids, now)
}

// TestQueryPlansUseIndexes guards the statements a recall or a store runs
// against a full scan of chunks.
func TestQueryPlansUseIndexes(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "plan.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, tt := range []struct {
		query, want string
		args        []any
	}{
		{`SELECT id FROM chunks WHERE agent_id = ? AND scope = ? AND substr(content_hash, 1, 32) = substr(?, 1, 32) AND content_hash = ? AND kind = 'memory'`,
			"idx_chunks_memory_dedup", []any{"a", "", "00", "00"}},
		{`SELECT seq, chunk_id FROM hippo_changes WHERE seq > ? AND agent_id = ? ORDER BY seq`,
			"INTEGER PRIMARY KEY (rowid>?)", []any{1, "a"}},
		{`SELECT id FROM chunks WHERE id IN (?, ?) AND +agent_id = ?`, "sqlite_autoindex_chunks_1", []any{"x", "y", "a"}},
		{factsSinceQuery, "SEARCH chunks USING INDEX sqlite_autoindex_chunks_1 (id=?)", []any{"a", 1, "a", ""}},
		{`SELECT id, embedding FROM chunks WHERE id IN (SELECT value FROM json_each(?)) AND +agent_id = ?`,
			"sqlite_autoindex_chunks_1", []any{`["x"]`, "a"}},
	} {
		if got := queryPlan(t, db, tt.query, tt.args...); !strings.Contains(got, tt.want) {
			t.Errorf("%s\nplan %s, want it to use %s", tt.query, got, tt.want)
		}
	}
}

// queryPlan is SQLite's plan for query, its steps joined by "; ".
func queryPlan(t *testing.T, db *DB, query string, args ...any) string {
	t.Helper()
	rows, err := db.read.QueryContext(context.Background(), `EXPLAIN QUERY PLAN `+query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(plan, "; ")
}

// TestBulkInsertLeavesNoLogEntries checks that a bulk insert replaces its
// change-log entries by a raised floor, that another handle's index still
// sees every row, that a small insert keeps its entries, and that pruning
// by count never lowers the floor.
func TestBulkInsertLeavesNoLogEntries(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "bulk.db")
	a, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	chunks := func(n int, prefix string) []*hippo.Chunk {
		var out []*hippo.Chunk
		for i := range n {
			out = append(out, &hippo.Chunk{Content: fmt.Sprintf("%s %d", prefix, i), Embedding: []float32{1, float32(i), 2}})
		}
		return out
	}
	rows := func(db *DB) int {
		t.Helper()
		st, err := db.IndexStats(ctx, "agent")
		if err != nil {
			t.Fatal(err)
		}
		return st.Rows
	}
	count := func(q string) int64 {
		t.Helper()
		var n int64
		if err := a.read.QueryRowContext(ctx, q).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if err := a.InsertChunks(ctx, "agent", "", "m", chunks(3, "first")); err != nil {
		t.Fatal(err)
	}
	if got := rows(b); got != 3 {
		t.Fatalf("b sees %d rows, want 3", got)
	}
	if err := a.InsertChunks(ctx, "agent", "", "m", chunks(2*bulkLogRows+5, "bulk")); err != nil {
		t.Fatal(err)
	}
	if n := count(`SELECT COUNT(*) FROM hippo_changes`); n != 3 {
		t.Errorf("log holds %d entries after the bulk insert, want the first insert's 3", n)
	}
	floor := count(`SELECT CAST(value AS INTEGER) FROM hippo_meta WHERE key = 'changes_floor'`)
	if last := count(`SELECT seq FROM sqlite_sequence WHERE name = 'hippo_changes'`); floor != last || last < 3+2*bulkLogRows {
		t.Errorf("floor %d, last entry %d", floor, last)
	}
	if got := rows(b); got != 3+2*bulkLogRows+5 {
		t.Errorf("b sees %d rows after the bulk insert, want %d", got, 3+2*bulkLogRows+5)
	}
	// A load must leave the index at or past the floor, or every later
	// search would load it again: a fresh handle, as a server starting.
	c, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for range 2 {
		ai, err := c.syncIndex(ctx, "agent")
		if err != nil {
			t.Fatal(err)
		}
		if seq, _ := ai.Position(); seq < floor {
			t.Errorf("fresh handle's index at change %d, below the floor %d: it reloads on every search", seq, floor)
		}
	}
	if err := a.InsertChunks(ctx, "agent", "", "m", chunks(4, "small")); err != nil {
		t.Fatal(err)
	}
	if n := count(`SELECT COUNT(*) FROM hippo_changes`); n != 7 {
		t.Errorf("log holds %d entries after a small insert, want 7", n)
	}
	if got := rows(b); got != 3+2*bulkLogRows+9 {
		t.Errorf("b sees %d rows after the small insert", got)
	}
	if err := a.pruneChanges(ctx, 2); err != nil {
		t.Fatal(err)
	}
	if got := count(`SELECT CAST(value AS INTEGER) FROM hippo_meta WHERE key = 'changes_floor'`); got < floor {
		t.Errorf("pruning lowered the floor from %d to %d", floor, got)
	}
}

// TestIndexLoadReadsRows loads an index and checks each row's fields
// against the chunks, and that a row whose time does not parse fails the
// load with its ID.
func TestIndexLoadReadsRows(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "load.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const n = 600
	var chunks []*hippo.Chunk
	rng := rand.New(rand.NewPCG(3, 7))
	for i := range n {
		v := make([]float32, 16)
		for j := range v {
			v[j] = float32(rng.NormFloat64())
		}
		chunks = append(chunks, &hippo.Chunk{Content: fmt.Sprintf("row %d", i), Embedding: v,
			Metadata: []byte(fmt.Sprintf(`{"tags":["t%d"],"category":"c%d"}`, i%3, i%2)), RunningIntensity: float64(i%10) / 10, EncounterCount: 1})
	}
	if err := db.InsertChunks(ctx, "agent", "", "m", chunks); err != nil {
		t.Fatal(err)
	}
	ai, err := db.syncIndex(ctx, "agent")
	if err != nil {
		t.Fatal(err)
	}
	metas := ai.Metas()
	if len(metas) != n {
		t.Fatalf("loaded %d rows, want %d", len(metas), n)
	}
	for _, c := range chunks {
		m := metas[c.ID]
		if m.Intensity != float32(c.RunningIntensity) || m.Tags == 0 || m.Category == 0 || m.Created != c.CreatedAt.UnixMilli() ||
			m.Kind != hippo.KindMemory || m.Size != uint32(len(c.Content)) || m.RowID == 0 {
			t.Fatalf("%s: meta %+v for %+v", c.ID, m, c)
		}
	}

	bad := chunks[n/2].ID
	if _, err := db.write.ExecContext(ctx, `UPDATE chunks SET created_at = 'not a time' WHERE id = ?`, bad); err != nil {
		t.Fatal(err)
	}
	if _, err := engine.NewIndexes(feed{db}, 0).Sync(ctx, "agent", db.cfg, db.clock.Active(), nil); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("load with a broken row: %v, want an error naming %s", err, bad)
	}
}

// TestVectorLoaderKeepsToTheAgent checks that the feed's Vectors, which
// the index reads exact vectors through, returns the agent's own rows only, skips rows
// that are gone, and keeps IDs that need quoting inert.
func TestVectorLoaderKeepsToTheAgent(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "loader.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mine := &hippo.Chunk{Content: "mine", Embedding: []float32{1, 2, 3}}
	theirs := &hippo.Chunk{Content: "theirs", Embedding: []float32{4, 5, 6}}
	if err := db.InsertChunks(ctx, "alice", "", "m", []*hippo.Chunk{mine}); err != nil {
		t.Fatal(err)
	}
	if err := db.InsertChunks(ctx, "bob", "", "m", []*hippo.Chunk{theirs}); err != nil {
		t.Fatal(err)
	}
	ids := []string{theirs.ID, `x"]') OR 1=1 --`, mine.ID, "gone"}
	got := map[string][]float32{}
	err = feed{db}.Vectors(ctx, "alice", ids, func(id string, b, _ []byte) {
		got[id], _ = vector.Decode(nil, b)
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || !slices.Equal(got[mine.ID], mine.Embedding) {
		t.Errorf("alice's vectors read %v, want only her own row", got)
	}
}
