package main

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hippo-mem/hippo/sqlite"
)

func TestInit(t *testing.T) {
	c := newCLI(t)
	db := filepath.Join(c.dir, "new", "dir", "hippo.db")
	var out struct {
		Path    string `json:"path"`
		Created bool   `json:"created"`
	}
	c.json(&out, "init", "--db", db)
	if out.Path != db || !out.Created {
		t.Errorf("first init = %+v", out)
	}
	// The offline embedder's 100-dimension rows get small pages.
	raw, err := sql.Open("sqlite", "file:"+db+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	var pageSize int
	if err := raw.QueryRow(`PRAGMA page_size`).Scan(&pageSize); err != nil || pageSize != sqlite.PageSizeFor(100) {
		t.Errorf("page_size = %d, %v; want %d", pageSize, err, sqlite.PageSizeFor(100))
	}
	raw.Close()
	if _, err := os.Stat(db); err != nil {
		t.Fatalf("init did not create the database: %v", err)
	}
	c.json(&out, "init", "--db", db)
	if out.Created {
		t.Errorf("second init = %+v, want created false", out)
	}
	if r := c.ok("init", "--db", db); !strings.Contains(r.stdout, "up to date") {
		t.Errorf("init text: %s", r)
	}
	var stats struct{ Chunks, Agents int }
	c.jsonLoose(&stats, "stats", "--db", db)
	if stats.Chunks != 0 || stats.Agents != 0 {
		t.Errorf("stats of a new database: %+v", stats)
	}

	// The default path honours XDG_DATA_HOME.
	r := c.runIn("", []string{"HIPPO_DB="}, "init")
	if want := filepath.Join(c.dir, "xdg", "hippo", "hippo.db"); r.code != 0 || !strings.Contains(r.stdout, want) {
		t.Errorf("init at the default path: %s", r)
	}
	// A directory is not a database.
	c.fails(1, "directory", "init", "--db", c.dir)
}
