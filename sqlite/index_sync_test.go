package sqlite

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/engine"
)

// TestIndexCurrentCheck checks the one-statement check that lets a sync
// skip its read transaction: it must pass only when nothing the index
// depends on changed, whoever wrote it, and the next recall must then see
// the change.
func TestIndexCurrentCheck(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 1, 10, 12, 0, 0, 0, time.UTC)
	var nowMu sync.Mutex
	clockNow := func() time.Time { nowMu.Lock(); defer nowMu.Unlock(); return now }
	open := sharedFile(t, Options{Now: clockNow, DecayClock: ActiveClock})
	db, m := open()
	other, cli := open()
	if _, err := m.StoreMemory(ctx, hippo.StoreInput{Content: "the first memory"}); err != nil {
		t.Fatal(err)
	}
	lock := &ModelLock{Model: "mock", Dimension: 32}
	recall := func(q string) []hippo.Recalled {
		t.Helper()
		res, err := m.Recall(ctx, hippo.RecallInput{Query: q, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	current := func(step string, want bool) {
		t.Helper()
		got, err := indexCurrent(ctx, db.indexes.Cached("agent"), db, "agent", lock)
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		if got != want {
			t.Errorf("%s: current = %v, want %v", step, got, want)
		}
	}
	recall("first")
	current("after a recall and its own boost", true)

	// Another agent's writes leave this agent's index current.
	mate, err := other.Memory(MemoryOptions{AgentID: "mate", Embedder: m.opts.Embedder})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mate.StoreMemory(ctx, hippo.StoreInput{Content: "a memory of another agent"}); err != nil {
		t.Fatal(err)
	}
	current("after another agent's store", true)

	// This agent's memory written by another handle.
	if _, err := cli.StoreMemory(ctx, hippo.StoreInput{Content: "written by the cli"}); err != nil {
		t.Fatal(err)
	}
	current("after another handle's store", false)
	found := false
	for _, r := range recall("written by the cli") {
		found = found || r.Chunk.Content == "written by the cli"
	}
	if !found {
		t.Fatal("recall missed another handle's store")
	}
	current("after folding it in", true)

	// Activity in a new hour, recorded by another handle (active clock).
	nowMu.Lock()
	now = now.Add(2 * time.Hour)
	nowMu.Unlock()
	if _, err := cli.SetBlock(ctx, "scratch", "busy"); err != nil {
		t.Fatal(err)
	}
	current("after another handle's activity", false)
	recall("first")
	ai, err := db.syncIndex(ctx, "agent")
	if err != nil {
		t.Fatal(err)
	}
	if _, last := ai.Position(); last != clockNow().Unix()/3600 {
		t.Errorf("last activity hour %d, want %d", last, clockNow().Unix()/3600)
	}
	current("after folding the activity in", true)

	// The log pruned past the index.
	if _, err := cli.StoreMemory(ctx, hippo.StoreInput{Content: "stored before pruning"}); err != nil {
		t.Fatal(err)
	}
	if err := other.pruneChanges(ctx, 0); err != nil {
		t.Fatal(err)
	}
	current("after pruning past the index", false)
	recall("first")
	current("after reloading", true)

	// The check reads the model lock too.
	_, err = indexCurrent(ctx, ai, db, "agent", &ModelLock{Model: "another model", Dimension: 32})
	wantConflict(t, err)
}

// indexCurrent asks the change feed whether ai is current, as
// engine.Indexes.Sync does first.
func indexCurrent(ctx context.Context, ai *engine.Index, db *DB, agent string, lock *ModelLock) (bool, error) {
	seq, last := ai.Position()
	return feed{db}.Head(ctx, agent, seq, db.clock.Active(), last, lock)
}

func wantConflict(t *testing.T, err error) {
	t.Helper()
	if hippo.ErrorCode(err) != hippo.ECONFLICT {
		t.Errorf("err = %v, want %s", err, hippo.ECONFLICT)
	}
}

// TestCurrentQueryPlan guards the current check against scanning the
// change log or the activity table.
func TestCurrentQueryPlan(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "plan.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got := queryPlan(t, db, headActiveQuery, 1, "a", "a", 1)
	for _, want := range []string{"SEARCH hippo_changes USING INTEGER PRIMARY KEY (rowid>?)", "SEARCH hippo_activity USING PRIMARY KEY (agent_id=? AND hour>?)"} {
		if !strings.Contains(got, want) {
			t.Errorf("plan %s\nwant it to %s", got, want)
		}
	}
	if strings.Contains(strings.ReplaceAll(got, "SCAN CONSTANT ROW", ""), "SCAN") {
		t.Errorf("plan %s scans a table", got)
	}
}
