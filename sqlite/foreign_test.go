package sqlite_test

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/sqlite"
)

// foreignDB writes a SQLite database of another application at path, in
// rollback-journal mode or in WAL mode, and closes it.
func foreignDB(t *testing.T, path string, wal bool) {
	t.Helper()
	u := url.URL{Scheme: "file", Path: path}
	raw, err := sql.Open("sqlite", u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	stmts := []string{`CREATE TABLE invoices (id INTEGER PRIMARY KEY, amount REAL)`, `INSERT INTO invoices (amount) VALUES (12.5), (99)`}
	if wal {
		stmts = append([]string{"PRAGMA journal_mode=WAL"}, stmts...)
	}
	for _, s := range stmts {
		if _, err := raw.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
}

// snapshot is the name and hash of every file in dir.
func snapshot(t *testing.T, dir string) map[string][32]byte {
	t.Helper()
	out := map[string][32]byte{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = sha256.Sum256(b)
	}
	return out
}

// TestForeignFilesRefused: Open refuses a file that is not a Hippo
// database, naming it and leaving it (and its directory) byte for byte as
// it was, whether it would create or must find a database. An empty file
// is no database yet: Open creates one in it, unless it must exist.
func TestForeignFilesRefused(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name      string
		make      func(t *testing.T, path string)
		mustExist bool
		want      string // in the error; "" when Open succeeds
	}{
		{"another application's database", func(t *testing.T, p string) { foreignDB(t, p, false) }, false, "not a Hippo database"},
		{"another application's database, read", func(t *testing.T, p string) { foreignDB(t, p, false) }, true, "not a Hippo database"},
		{"another application's WAL database", func(t *testing.T, p string) { foreignDB(t, p, true) }, false, "not a Hippo database"},
		{"a text file", func(t *testing.T, p string) { os.WriteFile(p, []byte("hello, world\n"), 0o644) }, false, "not a database"},
		{"a text file longer than a header", func(t *testing.T, p string) {
			os.WriteFile(p, []byte(strings.Repeat("not sqlite ", 1000)), 0o644)
		}, true, "not a database"},
		{"a truncated header", func(t *testing.T, p string) { os.WriteFile(p, []byte("SQLite format 3\x00\x10"), 0o644) }, false, "not a database"},
		{"an empty file, read", func(t *testing.T, p string) { os.WriteFile(p, nil, 0o600) }, true, "is empty"},
		{"an empty file", func(t *testing.T, p string) { os.WriteFile(p, nil, 0o600) }, false, ""},
		{"a SQLite file with no tables yet", func(t *testing.T, p string) {
			u := url.URL{Scheme: "file", Path: p}
			raw, _ := sql.Open("sqlite", u.String())
			defer raw.Close()
			if _, err := raw.Exec("PRAGMA journal_mode=WAL"); err != nil {
				t.Fatal(err)
			}
		}, true, ""},
		{"a Hippo database", func(t *testing.T, p string) {
			db, err := sqlite.Open(ctx, p, sqlite.Options{})
			if err != nil {
				t.Fatal(err)
			}
			db.Close()
		}, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "other-app.db")
			tt.make(t, path)
			before := snapshot(t, dir)
			db, err := sqlite.Open(ctx, path, sqlite.Options{MustExist: tt.mustExist})
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Open: %v", err)
				}
				db.Close()
				return
			}
			if err == nil {
				db.Close()
				t.Fatalf("Open succeeded, want an error saying %q", tt.want)
			}
			if hippo.ErrorCode(err) != hippo.EINVALID || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Open: %v (%s), want %s naming %s and saying %q", err, hippo.ErrorCode(err), hippo.EINVALID, path, tt.want)
			}
			after := snapshot(t, dir)
			for name, sum := range before {
				if after[name] != sum {
					t.Errorf("%s changed", name)
				}
			}
			for name := range after {
				if _, ok := before[name]; !ok && !strings.HasSuffix(name, "-shm") && !strings.HasSuffix(name, "-wal") {
					t.Errorf("%s created", name)
				}
			}
		})
	}
}
