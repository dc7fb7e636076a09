package sqlite_test

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/sqlite"
)

// TestLookingRecordsNoActivity: under the active decay clock, reads
// through a memory bound for looking (MemoryOptions.Look: the web UI's
// pages) record no hour of activity, so looking ages nothing; the same
// reads through a memory bound without it do.
func TestLookingRecordsNoActivity(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "active.db"), sqlite.Options{Now: e.clock.Now, DecayClock: "active"})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	m, err := db.Memory(sqlite.MemoryOptions{AgentID: "agent-a", Embedder: e.emb})
	if err != nil {
		t.Fatal(err)
	}
	look, err := db.Memory(sqlite.MemoryOptions{AgentID: "agent-a", Embedder: e.emb, Look: true})
	if err != nil {
		t.Fatal(err)
	}
	c := store(t, m, "The deploy key is in the team vault")
	hours := func() float64 {
		t.Helper()
		clk, err := db.DecayClockAt(ctx, "agent-a", e.clock.Now())
		if err != nil {
			t.Fatal(err)
		}
		return clk(c.LastAccessedAt.UnixMilli())
	}
	e.clock.Advance(5 * time.Hour)
	before := hours()
	if _, err := look.Recall(ctx, hippo.RecallInput{Query: "deploy key", DryRun: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := look.FactHistory(ctx, "deploy key", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := look.Forget(ctx, hippo.ForgetInput{Description: "deploy key", DryRun: true}); err != nil {
		t.Fatal(err)
	}
	if after := hours(); after != before {
		t.Errorf("active hours %v after looking, want %v as before", after, before)
	}
	if _, err := m.FactHistory(ctx, "deploy key", ""); err != nil {
		t.Fatal(err)
	}
	if after := hours(); !(after > before) {
		t.Errorf("active hours %v after a read that is not a look, want more than %v", after, before)
	}
}

// TestIndexUsage: the resident indexes are reported by agent, row and
// byte once recall has loaded them.
func TestIndexUsage(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	if u := e.db.IndexUsage(); u != (hippo.IndexUsage{}) {
		t.Fatalf("before any recall: %+v, want nothing resident", u)
	}
	for _, agent := range []string{"agent-a", "agent-b"} {
		m := e.memory(agent)
		store(t, m, "first note of "+agent)
		store(t, m, "second note of "+agent)
		if _, err := m.Recall(ctx, hippo.RecallInput{Query: "note"}); err != nil {
			t.Fatal(err)
		}
	}
	u := e.db.IndexUsage()
	if u.Agents != 2 || u.Rows != 4 || u.Bytes < 4*testDim {
		t.Errorf("usage %+v, want 2 agents, 4 rows and at least a byte per dimension each", u)
	}
}

// TestIndexMemoryBound: with Options.IndexMemory too small for two
// agents' indexes, using a third drops the least recently used; a dropped
// agent's recall loads its index again and finds what it found before.
func TestIndexMemoryBound(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	db := boundedDB(t, e)
	zero := 0.0
	first := map[string]string{}
	recall := func(agent string) string {
		t.Helper()
		m, err := db.Memory(sqlite.MemoryOptions{AgentID: agent, Embedder: e.emb})
		if err != nil {
			t.Fatal(err)
		}
		res, err := m.Recall(ctx, hippo.RecallInput{Query: "note about " + agent, MinRelevance: &zero, Limit: 1})
		if err != nil || len(res) != 1 {
			t.Fatalf("recall %s: %v, %d results", agent, err, len(res))
		}
		return res[0].Chunk.ID
	}
	for _, agent := range []string{"a", "b", "c"} {
		m, err := db.Memory(sqlite.MemoryOptions{AgentID: agent, Embedder: e.emb})
		if err != nil {
			t.Fatal(err)
		}
		store(t, m, "note about "+agent)
		store(t, m, "another thing entirely for "+agent)
		first[agent] = recall(agent)
	}
	u := db.IndexUsage()
	if u.Agents != 1 || u.Limit != 1 || u.Evictions < 2 {
		t.Errorf("usage %+v: want only the agent in use resident, two evicted", u)
	}
	loads := u.Loads
	if got := recall("a"); got != first["a"] {
		t.Errorf("agent a after eviction recalled %s, want %s", got, first["a"])
	}
	if u := db.IndexUsage(); u.Loads != loads+1 || u.Agents != 1 {
		t.Errorf("usage %+v: want a's index loaded again (loads %d) and the rest dropped", u, loads+1)
	}
	if _, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "x.db"), sqlite.Options{IndexMemory: -1}); hippo.ErrorCode(err) != hippo.EINVALID {
		t.Errorf("IndexMemory -1: %v, want EINVALID", err)
	}
}

// TestIndexMemoryBoundConcurrent: agents recalled at once from several
// goroutines under a bound that fits one index at a time evict each other
// and keep finding their own memories (run it with -race).
func TestIndexMemoryBoundConcurrent(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	db := boundedDB(t, e)
	agents := []string{"a", "b", "c", "d"}
	ids := map[string]string{}
	for _, agent := range agents {
		m, err := db.Memory(sqlite.MemoryOptions{AgentID: agent, Embedder: e.emb})
		if err != nil {
			t.Fatal(err)
		}
		ids[agent] = store(t, m, "note about "+agent).ID
	}
	zero := 0.0
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20 {
				agent := agents[(g+i)%len(agents)]
				m, err := db.Memory(sqlite.MemoryOptions{AgentID: agent, Embedder: e.emb})
				if err != nil {
					t.Error(err)
					return
				}
				res, err := m.Recall(ctx, hippo.RecallInput{Query: "note about " + agent, MinRelevance: &zero, Limit: 1})
				if err != nil || len(res) != 1 || res[0].Chunk.ID != ids[agent] {
					t.Errorf("recall %s: %v %v", agent, err, res)
					return
				}
			}
		}()
	}
	wg.Wait()
	if u := db.IndexUsage(); u.Evictions == 0 || u.Loads < int64(len(agents)) {
		t.Errorf("usage %+v: want evictions and reloads", u)
	}
}

// boundedDB opens a database whose index memory bound fits one agent's
// index at a time.
func boundedDB(t *testing.T, e *env) *sqlite.DB {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "bounded.db"), sqlite.Options{Now: e.clock.Now, IndexMemory: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
