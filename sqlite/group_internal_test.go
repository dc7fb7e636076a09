package sqlite

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/engine"
	"github.com/hippo-mem/hippo/local"
)

// grouped starts, while a first Update holds the write connection, the
// calls fns as Updates of agent's store, waits until all of them are
// queued behind it, then lets the first finish: the calls then run as one
// group. It returns each call's error, in order.
func grouped(t *testing.T, db *DB, agent string, fns []func(engine.Tx) error) []error {
	t.Helper()
	ctx := context.Background()
	m := &agentStore{db: db, cfg: db.cfg, opts: MemoryOptions{AgentID: agent}}
	release := make(chan struct{})
	started := make(chan struct{})
	first := make(chan error, 1)
	go func() {
		first <- m.Update(ctx, func(tx engine.Tx) error {
			// The database's model is m, whatever order the calls
			// queue in.
			err := tx.LockModel(ctx, "m", 2)
			close(started)
			<-release
			return err
		})
	}()
	<-started
	errs := make([]error, len(fns))
	var wg sync.WaitGroup
	for i, fn := range fns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = m.Update(ctx, fn)
		}()
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		n := db.group.Queued("")
		if n == len(fns) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d calls queued", n, len(fns))
		}
	}
	close(release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	return errs
}

func openGroupDB(t *testing.T) *DB {
	t.Helper()
	db, err := Open(context.Background(), filepath.Join(t.TempDir(), "group.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func insertFn(content string) func(engine.Tx) error {
	return func(tx engine.Tx) error {
		ctx := context.Background()
		same, err := tx.SameMemory(ctx, "", hippo.ContentHash(content))
		if err != nil || same != nil {
			return err
		}
		if err := tx.LockModel(ctx, "m", 2); err != nil {
			return err
		}
		now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		return tx.Insert(ctx, &hippo.Chunk{ID: engine.NewChunkID(now), AgentID: "agent", Kind: hippo.KindMemory, Content: content,
			ContentHash: hippo.ContentHash(content), Embedding: []float32{1, 0}, RunningIntensity: 0.5,
			EncounterCount: 1, LastAccessedAt: now, CreatedAt: now})
	}
}

func countChunks(t *testing.T, db *DB) (n int) {
	t.Helper()
	if err := db.read.QueryRow(`SELECT COUNT(*) FROM chunks`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestGroupCommit checks the rules of a group: every call commits in one
// transaction, a failing call is rolled back alone and gets its own error,
// identical writes see each other (one memory), and a call cancelled while
// it waits is skipped with its context's error.
func TestGroupCommit(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name   string
		fns    func() []func(engine.Tx) error
		want   []string // nil error as "", else a substring
		chunks int
		calls  int64 // the calls of the second group
	}{
		{
			name: "distinct writes all commit",
			fns: func() []func(engine.Tx) error {
				var fns []func(engine.Tx) error
				for i := range 6 {
					fns = append(fns, insertFn(fmt.Sprintf("memory %d", i)))
				}
				return fns
			},
			want: []string{"", "", "", "", "", ""}, chunks: 6, calls: 6,
		},
		{
			name: "identical writes insert once",
			fns: func() []func(engine.Tx) error {
				return []func(engine.Tx) error{insertFn("same"), insertFn("same"), insertFn("same"), insertFn("same")}
			},
			want: []string{"", "", "", ""}, chunks: 1, calls: 4,
		},
		{
			name: "a failing call fails alone and leaves nothing",
			fns: func() []func(engine.Tx) error {
				failing := func(tx engine.Tx) error {
					if err := insertFn("half written")(tx); err != nil {
						return err
					}
					return boom // after its insert: the savepoint undoes it
				}
				return []func(engine.Tx) error{insertFn("a"), failing, insertFn("b")}
			},
			want: []string{"", "boom", ""}, chunks: 2, calls: 3,
		},
		{
			name: "a model conflict fails alone",
			fns: func() []func(engine.Tx) error {
				other := func(tx engine.Tx) error { return tx.LockModel(context.Background(), "other", 3) }
				return []func(engine.Tx) error{insertFn("a"), other, insertFn("b")}
			},
			want: []string{"", "model", ""}, chunks: 2, calls: 3,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := openGroupDB(t)
			errs := grouped(t, db, "agent", tt.fns())
			for i, err := range errs {
				switch {
				case tt.want[i] == "" && err != nil:
					t.Errorf("call %d: %v", i, err)
				case tt.want[i] != "" && (err == nil || !strings.Contains(err.Error(), tt.want[i])):
					t.Errorf("call %d: error %v, want one with %q", i, err, tt.want[i])
				}
			}
			if n := countChunks(t, db); n != tt.chunks {
				t.Errorf("chunks = %d, want %d", n, tt.chunks)
			}
			st := db.CommitStats()
			if st.Groups != 2 || st.Calls != 1+tt.calls || st.Largest != int(tt.calls) {
				t.Errorf("stats = %+v, want 2 groups (the holder's, then all %d calls)", st, tt.calls)
			}
		})
	}
}

// TestGroupCommitCancelledWhileQueued: a call whose context ends while it
// waits is skipped with the context's error; the rest of its group commits.
func TestGroupCommitCancelledWhileQueued(t *testing.T) {
	db := openGroupDB(t)
	ctx := context.Background()
	m := &agentStore{db: db, cfg: db.cfg, opts: MemoryOptions{AgentID: "agent"}}
	release, started := make(chan struct{}), make(chan struct{})
	go m.Update(ctx, func(engine.Tx) error { close(started); <-release; return nil })
	<-started
	cctx, cancel := context.WithCancel(ctx)
	errs := make(chan error, 2)
	go func() { errs <- m.Update(cctx, insertFn("cancelled")) }()
	waitQueued(t, db, 1)
	go func() { errs <- m.Update(ctx, insertFn("kept")) }()
	waitQueued(t, db, 2)
	cancel()
	close(release)
	var got []error
	for range 2 {
		got = append(got, <-errs)
	}
	if !(errors.Is(got[0], context.Canceled) && got[1] == nil) && !(errors.Is(got[1], context.Canceled) && got[0] == nil) {
		t.Fatalf("errors = %v, want one context.Canceled and one nil", got)
	}
	var content string
	if err := db.read.QueryRow(`SELECT group_concat(content) FROM chunks`).Scan(&content); err != nil || content != "kept" {
		t.Fatalf("stored %q, %v; want only the kept call's memory", content, err)
	}
}

func waitQueued(t *testing.T, db *DB, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		q := db.group.Queued("")
		if q == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d calls queued, want %d", q, n)
		}
	}
}

// TestGroupCommitFTS: over several groups, the full-text index holds what
// each group committed and nothing of a call rolled back to its savepoint.
func TestGroupCommitFTS(t *testing.T) {
	db := openGroupDB(t)
	boom := errors.New("boom")
	for round := range 4 {
		word := func(w string) string { return fmt.Sprintf("%s%d", w, round) }
		failing := func(tx engine.Tx) error {
			if err := insertFn(word("halfwritten"))(tx); err != nil {
				return err
			}
			return boom
		}
		grouped(t, db, "agent", []func(engine.Tx) error{insertFn(word("alpha")), failing, insertFn(word("beta"))})
		for w, want := range map[string]int{"alpha": 1, "halfwritten": 0, "beta": 1} {
			var n int
			if err := db.read.QueryRow(`SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?`, word(w)).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n != want {
				t.Errorf("group %d: %d rows match %s, want %d", round, n, word(w), want)
			}
		}
		if _, err := db.write.Exec(`INSERT INTO chunks_fts (chunks_fts, rank) VALUES ('integrity-check', 0)`); err != nil {
			t.Errorf("group %d: %v", round, err)
		}
	}
}

// TestHasMemoryWhileWriting: the check for a repeated memory answers the
// same on the write connection when it is free (lightRead) and on the read
// pool while an Update holds it, without waiting for that Update.
func TestHasMemoryWhileWriting(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "h.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mem, err := db.Memory(MemoryOptions{AgentID: "a", Embedder: local.NewEmbedder()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mem.StoreMemory(ctx, hippo.StoreInput{Content: "kept"}); err != nil {
		t.Fatal(err)
	}
	kept, other := hippo.ContentHash("kept"), hippo.ContentHash("other")
	check := func(when string) {
		t.Helper()
		for _, tt := range []struct {
			hash string
			want bool
		}{{kept, true}, {other, false}} {
			if got, err := mem.st.HasMemory(ctx, "", tt.hash); err != nil || got != tt.want {
				t.Errorf("%s: HasMemory = %v, %v; want %v", when, got, err, tt.want)
			}
		}
	}
	check("write connection free")
	release, held := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- mem.st.Update(ctx, func(engine.Tx) error {
			close(held)
			<-release
			return nil
		})
	}()
	<-held
	if db.writing.Load() == 0 {
		t.Error("an Update in progress is not counted")
	}
	check("write connection held")
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := db.writing.Load(); n != 0 {
		t.Errorf("writing = %d after the Update", n)
	}
	check("write connection free again")
}
