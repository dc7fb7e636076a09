package sqlite

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/engine"
)

// TestLightTx checks that the boost's transaction commits, rolls back on
// error, always leaves the connection at synchronous=FULL, and reuses its
// prepared statements.
func TestLightTx(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "light.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.InsertChunks(ctx, "agent", "", "m", []*hippo.Chunk{{Content: "one", Embedding: []float32{1, 2}}}); err != nil {
		t.Fatal(err)
	}
	const bump = `UPDATE chunks SET access_count = access_count + 1`
	accesses := func() (n int) {
		t.Helper()
		if err := db.read.QueryRowContext(ctx, `SELECT access_count FROM chunks`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	synchronous := func(step string) {
		t.Helper()
		var mode int
		if err := db.write.QueryRowContext(ctx, `PRAGMA synchronous`).Scan(&mode); err != nil {
			t.Fatal(err)
		}
		if mode != 2 {
			t.Errorf("%s: write connection at synchronous=%d, want 2 (FULL)", step, mode)
		}
	}
	for i := range 2 {
		if err := db.lightTx(ctx, func(lc *lightConn) error { return lc.exec(bump) }); err != nil {
			t.Fatal(err)
		}
		if got := accesses(); got != i+1 {
			t.Errorf("after %d commits access_count = %d", i+1, got)
		}
		synchronous("after a commit")
	}
	failed := errors.New("failed")
	err = db.lightTx(ctx, func(lc *lightConn) error {
		if err := lc.exec(bump); err != nil {
			return err
		}
		return failed
	})
	if !errors.Is(err, failed) {
		t.Errorf("err = %v, want %v", err, failed)
	}
	if got := accesses(); got != 2 {
		t.Errorf("a failed transaction left access_count = %d, want 2", got)
	}
	synchronous("after a rollback")
	// Each prepared once: two PRAGMAs, BEGIN, COMMIT, ROLLBACK, the update.
	if n := len(db.light.stmts); n != 6 {
		t.Errorf("%d statements prepared, want 6", n)
	}
	// A connection left in a state lightTx cannot undo (here: its
	// transaction ended behind its back, so COMMIT and ROLLBACK fail) is
	// discarded, and the next transaction runs on a fresh one.
	before := db.light.conn
	if err := db.lightTx(ctx, func(lc *lightConn) error { return lc.exec(`COMMIT`) }); err == nil {
		t.Error("a transaction whose COMMIT failed reported success")
	}
	if err := db.lightTx(ctx, func(lc *lightConn) error { return lc.exec(bump) }); err != nil {
		t.Fatal(err)
	}
	if db.light.conn == before {
		t.Error("the connection lightTx could not clean up was kept")
	}
	if got := accesses(); got != 3 {
		t.Errorf("access_count = %d, want 3", got)
	}
	synchronous("on the fresh connection")
	if err := db.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
}

// TestUniqueViolationIsConflict checks that the store reports a dedup
// collision by its code, whatever the driver's message says.
func TestUniqueViolationIsConflict(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "c.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	now := time.Now()
	c := &hippo.Chunk{ID: engine.NewChunkID(now), AgentID: "a", Kind: hippo.KindMemory, Content: "x", ContentHash: ContentHash("x"),
		Embedding: []float32{1, 0}, RunningIntensity: 0.5, EncounterCount: 1, LastAccessedAt: now, CreatedAt: now}
	if err := txOf(std{db.write}, "").Insert(ctx, c); err != nil {
		t.Fatal(err)
	}
	dup := *c
	dup.ID = engine.NewChunkID(now)
	err = txOf(std{db.write}, "").Insert(ctx, &dup)
	if code := hippo.ErrorCode(err); code != hippo.ECONFLICT {
		t.Errorf("same memory twice: code %q (%v), want %q", code, err, hippo.ECONFLICT)
	}
	if isUniqueViolation(errors.New("UNIQUE constraint failed")) {
		t.Error("a plain error mentioning UNIQUE is taken for a constraint violation")
	}
}

// TestExportTimesNeutral checks that an export writes every timestamp in
// the export's layout (RFC 3339, UTC, microseconds), whatever form the
// row keeps it in, and that the file imports back.
func TestExportTimesNeutral(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "e.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	c := &hippo.Chunk{ID: engine.NewChunkID(now), AgentID: "a", Kind: hippo.KindFact, Content: "x",
		Embedding: []float32{1, 0}, RunningIntensity: 0.5, EncounterCount: 1, LastAccessedAt: now, CreatedAt: now}
	if err := db.InsertChunks(ctx, "a", "", "m", []*hippo.Chunk{c}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.write.ExecContext(ctx, `UPDATE chunks SET created_at = '2026-01-02 03:04:05' WHERE id = ?`, c.ID); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := db.Export(ctx, &buf, ExportOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); !strings.Contains(got, `"created_at":"2026-01-02T03:04:05.000000Z"`) || strings.Contains(got, "2026-01-02 03") {
		t.Errorf("export times not in the neutral form:\n%s", got)
	}
	other, err := Open(ctx, filepath.Join(t.TempDir(), "f.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if res, err := other.Import(ctx, &buf, ImportOptions{}); err != nil || res.Chunks != 1 {
		t.Errorf("import of the export: %+v, %v", res, err)
	}
}
