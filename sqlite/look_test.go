package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/sqlite"
)

// TestLookingRecordsNoActivity: under the active decay clock, reads made
// WithLooking (the web UI's pages) record no hour of activity, so looking
// ages nothing; the same reads without it do.
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
	look := hippo.WithLooking(ctx)
	if _, err := m.Recall(look, hippo.RecallInput{Query: "deploy key", DryRun: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.FactHistory(look, "deploy key", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Forget(look, hippo.ForgetInput{Description: "deploy key", DryRun: true}); err != nil {
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
