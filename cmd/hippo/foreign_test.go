package main

import (
	"bytes"
	"database/sql"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestForeignDatabaseRefused: every command refuses another application's
// SQLite database, naming the file, and leaves it byte for byte as it
// was: no Hippo table added, no switch to WAL.
func TestForeignDatabaseRefused(t *testing.T) {
	c := newCLI(t)
	path := filepath.Join(c.dir, "other-app.db")
	u := url.URL{Scheme: "file", Path: path}
	raw, err := sql.Open("sqlite", u.String())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`CREATE TABLE invoices (id INTEGER PRIMARY KEY, amount REAL)`, `INSERT INTO invoices (amount) VALUES (12.5)`} {
		if _, err := raw.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	raw.Close()
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"stats"}, {"agents"}, {"chunks", "alice"}, {"search", "x"}, {"export"}, {"recall", "--agent", "a", "x"},
		{"init"}, {"store", "--agent", "a", "a note"}, {"remember", "--agent", "a", "I live in Oslo."},
		{"block", "set", "--agent", "a", "persona", "Terse."}, {"import", "-"},
		{"serve", "--transport", "stdio"},
	} {
		r := c.runIn(`{"version":1,"agentId":"alice"}`, nil, append(args, "--db", path)...)
		if r.code != 1 || !strings.Contains(r.stderr, path) || !strings.Contains(r.stderr, "not a Hippo database") {
			t.Errorf("hippo %v on another application's database: want exit 1 naming it as not a Hippo database, got %s", args, r)
		}
		if after, _ := os.ReadFile(path); !bytes.Equal(after, before) {
			t.Fatalf("hippo %v changed another application's database", args)
		}
	}
	if _, err := os.Stat(path + "-wal"); err == nil {
		t.Error("a WAL file was created beside another application's database")
	}
}
