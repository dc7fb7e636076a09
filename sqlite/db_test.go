package sqlite_test

import (
	"context"
	"database/sql"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/sqlite"
	_ "modernc.org/sqlite"
)

func TestOpenAppliesSchemaAndPragmas(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "sub dir", "a?b#c.db")
	db, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	// Reopening applies nothing twice.
	db, err = sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer db.Close()
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("database not at the path given: %v", err)
	}

	u := url.URL{Scheme: "file", Path: path, RawQuery: "mode=ro"}
	raw, err := sql.Open("sqlite", u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	files, _ := filepath.Glob("migration/*.sql")
	var n int
	if err := raw.QueryRow(`SELECT COUNT(*) FROM hippo_migrations`).Scan(&n); err != nil || n != len(files) || n == 0 {
		t.Errorf("migrations applied = %d, %v; want %d", n, err, len(files))
	}
	for _, name := range []string{"chunks", "memory_blocks", "hippo_meta", "idx_chunks_memory_dedup",
		"idx_chunks_agent_kind", "idx_chunks_superseded"} {
		var got string
		if err := raw.QueryRow(`SELECT name FROM sqlite_master WHERE name = ?`, name).Scan(&got); err != nil {
			t.Errorf("schema object %s missing: %v", name, err)
		}
	}
	// Migration 0006 drops indexes nothing reads.
	for _, name := range []string{"idx_chunks_last_accessed", "idx_changes_agent"} {
		var n int
		if err := raw.QueryRow(`SELECT COUNT(*) FROM sqlite_master WHERE name = ?`, name).Scan(&n); err != nil || n != 0 {
			t.Errorf("index %s still present (%d, %v)", name, n, err)
		}
	}
	var journal string
	raw.QueryRow(`PRAGMA journal_mode`).Scan(&journal)
	if journal != "wal" {
		t.Errorf("journal_mode = %q, want wal", journal)
	}
}

func TestOpenMustExistCreatesNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing.db")
	_, err := sqlite.Open(context.Background(), path, sqlite.Options{MustExist: true})
	wantCode(t, err, hippo.ENOTFOUND)
	if !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("error %q does not say the file is missing", err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("file was created: %v", err)
	}
}

func TestOpenBadPaths(t *testing.T) {
	dir := t.TempDir()
	for _, path := range []string{"", "   ", dir, "a\x00b"} {
		_, err := sqlite.Open(context.Background(), path, sqlite.Options{})
		wantCode(t, err, hippo.EINVALID)
	}
}

func TestConnectionPragmas(t *testing.T) {
	e := newEnv(t)
	// The pragmas hold on the connections Hippo itself uses.
	got := e.db.Pragmas(context.Background())
	want := map[string]string{"journal_mode": "wal", "busy_timeout": "5000", "synchronous": "2"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("PRAGMA %s = %q, want %q", k, got[k], v)
		}
	}
}

func TestNewDatabasePageSize(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		dim, want int
	}{
		{0, 32768}, {100, 4096}, {384, 8192}, {768, 8192}, {1536, 8192}, {2000, 16384}, {3072, 16384}, {100_000, 65536},
	} {
		if got := sqlite.PageSizeFor(tt.dim); got != tt.want {
			t.Errorf("sqlite.PageSizeFor(%d) = %d, want %d", tt.dim, got, tt.want)
		}
		path := filepath.Join(t.TempDir(), "p.db")
		db, err := sqlite.Open(ctx, path, sqlite.Options{Dimension: tt.dim})
		if err != nil {
			t.Fatal(err)
		}
		db.Close()
		// The size is the new file's; reopening with another hint keeps it.
		db, err = sqlite.Open(ctx, path, sqlite.Options{Dimension: 1})
		if err != nil {
			t.Fatal(err)
		}
		db.Close()
		u := url.URL{Scheme: "file", Path: path, RawQuery: "mode=ro"}
		raw, err := sql.Open("sqlite", u.String())
		if err != nil {
			t.Fatal(err)
		}
		var ps int
		if err := raw.QueryRow(`PRAGMA page_size`).Scan(&ps); err != nil || ps != tt.want {
			t.Errorf("dim %d: page_size = %d, %v; want %d", tt.dim, ps, err, tt.want)
		}
		raw.Close()
	}
}
