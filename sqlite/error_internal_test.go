package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"
)

// TestIsBusy: a write blocked by another connection's write lock, with no
// busy timeout, is SQLITE_BUSY by result code (what create retries on);
// other errors are not.
func TestIsBusy(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "busy.db")
	a, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, err := a.ExecContext(ctx, `PRAGMA journal_mode=WAL; CREATE TABLE t (x)`); err != nil {
		t.Fatal(err)
	}
	tx, err := a.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `INSERT INTO t VALUES (1)`); err != nil {
		t.Fatal(err)
	}
	b, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(0)")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	_, err = b.ExecContext(ctx, `INSERT INTO t VALUES (2)`)
	if err == nil || !isBusy(err) {
		t.Fatalf("a write against another's write lock: %v, want SQLITE_BUSY", err)
	}
	_, err = b.ExecContext(ctx, `INSERT INTO missing VALUES (1)`)
	if err == nil || isBusy(err) || isBusy(errors.New("database is locked")) {
		t.Errorf("not busy: %v reported as SQLITE_BUSY", err)
	}
}
