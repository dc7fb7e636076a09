package sqlite_test

import (
	"context"
	"database/sql"
	"reflect"
	"strings"
	"testing"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/sqlite"
)

// TestUpdateMemoryAtomic makes the last write of an edit fail (a trigger
// aborts it) and checks that the writes before it are undone: an edit is
// one transaction, and nothing changes on any error.
func TestUpdateMemoryAtomic(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	m := e.memory("alice", func(o *sqlite.MemoryOptions) {
		o.Extractor = givenFacts{"I live in Berlin": {"User lives in Berlin"}}
	})
	res, err := m.RememberFacts(ctx, "I live in Berlin")
	if err != nil {
		t.Fatal(err)
	}
	fact := res.Facts[0].ChunkID
	mem := store(t, m, "We deploy on Fridays")
	snapshot := func() []*hippo.Chunk {
		t.Helper()
		cs, err := e.db.ListChunks(ctx, hippo.ChunkFilter{AgentID: "alice", Superseded: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cs {
			c.Embedding = nil
		}
		return cs
	}
	before := snapshot()

	raw, err := sql.Open("sqlite", "file:"+e.db.Path()+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	// The fact's new version is inserted, then superseding the old one
	// fails; the memory's metadata is written, then its content fails.
	if _, err := raw.Exec(`CREATE TRIGGER fail_supersede BEFORE UPDATE OF superseded_by ON chunks
		WHEN old.id = '` + fact + `' BEGIN SELECT RAISE(ABORT, 'injected failure'); END;
		CREATE TRIGGER fail_content BEFORE UPDATE OF content ON chunks
		WHEN old.id = '` + mem.ID + `' BEGIN SELECT RAISE(ABORT, 'injected failure'); END;`); err != nil {
		t.Fatal(err)
	}
	for _, in := range []hippo.UpdateInput{
		{ID: fact, Content: strPtr("User lives in Lisbon"), Tags: &[]string{"home"}},
		{ID: mem.ID, Content: strPtr("We deploy on Thursdays"), Category: strPtr("ops")},
	} {
		if _, err := m.UpdateMemory(ctx, in); err == nil || !strings.Contains(err.Error(), "injected failure") {
			t.Fatalf("edit of %s: %v, want the injected failure", in.ID, err)
		}
	}
	if after := snapshot(); !reflect.DeepEqual(after, before) {
		t.Errorf("a failed edit changed the chunks:\nbefore %+v\nafter  %+v", before, after)
	}
	if ids := recallIDs(t, m, "User lives in Lisbon"); len(ids) != 2 {
		t.Errorf("recall after the failed edits: %v, want the two chunks as they were", ids)
	}
}

func strPtr(s string) *string { return &s }
