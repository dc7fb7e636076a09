package main

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hippo-mem/hippo/mock"
	"github.com/hippo-mem/hippo/sqlite"
)

func TestInit(t *testing.T) {
	c := newCLI(t)
	db := filepath.Join(c.dir, "new", "dir", "hippo.db")
	var out struct {
		Path    string `json:"path"`
		Created bool   `json:"created"`
		Decay   string `json:"decay_model"`
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

// TestInitDecay chooses the Ebbinghaus model at init: it is recorded,
// shown by stats, kept by later opens, carried by an export, and an
// import into a database of the seed's model is refused.
func TestInitDecay(t *testing.T) {
	c := newCLI(t)
	var out struct {
		Path    string `json:"path"`
		Created bool   `json:"created"`
		Decay   string `json:"decay_model"`
	}
	c.json(&out, "init", "--decay", "ebbinghaus")
	if !out.Created || out.Decay != "ebbinghaus" {
		t.Errorf("init --decay ebbinghaus = %+v", out)
	}
	// Without the flag the recorded model stays.
	c.json(&out, "init")
	if out.Created || out.Decay != "ebbinghaus" {
		t.Errorf("init again = %+v", out)
	}
	var stats struct {
		DecayModel string `json:"decay_model"`
		DecayClock string `json:"decay_clock"`
	}
	c.jsonLoose(&stats, "stats")
	if stats.DecayModel != "ebbinghaus" || stats.DecayClock != "wall" {
		t.Errorf("stats: %+v", stats)
	}
	if r := c.ok("stats"); !strings.Contains(r.stdout, "ebbinghaus (R = e^(−t/S)") {
		t.Errorf("stats text lacks the model:\n%s", r.stdout)
	}
	c.fails(2, "--decay must be", "init", "--decay", "linear")

	c.ok("store", "--agent", "alice", "The launch went well")
	file := filepath.Join(c.dir, "ebb.json")
	c.ok("export", "--output", file)
	raw, err := os.ReadFile(file)
	if err != nil || !strings.Contains(string(raw), `"decay_model":"ebbinghaus"`) {
		t.Fatalf("export lacks the decay model: %v\n%.200s", err, raw)
	}
	other := filepath.Join(c.dir, "seed.db")
	c.ok("init", "--db", other)
	c.fails(1, "exported under the ebbinghaus decay model", "import", file, "--db", other)
	c.jsonLoose(&stats, "stats", "--db", other)
	if stats.DecayModel != "hippo" {
		t.Errorf("the refused import changed the model: %+v", stats)
	}
	// Switched to the file's model, the database takes it.
	c.ok("init", "--db", other, "--decay", "ebbinghaus")
	c.ok("import", file, "--db", other)
}

// TestInitProbesDimension: a new database for an API embedder with no
// configured length gets the pages for the length one embedding shows,
// and those for an unknown length when the endpoint cannot answer.
func TestInitProbesDimension(t *testing.T) {
	c := newCLI(t)
	srv := mock.NewServer(t, 384)
	closed := mock.NewServer(t, 384)
	closed.Close()
	for _, tt := range []struct {
		name, url string
		want      int
	}{
		{"answers", srv.BaseURL(), sqlite.PageSizeFor(384)},
		{"down", closed.BaseURL(), sqlite.PageSizeFor(0)},
	} {
		db := filepath.Join(c.dir, tt.name+".db")
		c.runIn("", []string{"HIPPO_EMBED_URL=" + tt.url, "HIPPO_EMBED_KEY=sk-test", "HIPPO_EMBED_MODEL=mock-embed"}, "init", "--db", db)
		raw, err := sql.Open("sqlite", "file:"+db+"?mode=ro")
		if err != nil {
			t.Fatal(err)
		}
		var pageSize int
		if err := raw.QueryRow(`PRAGMA page_size`).Scan(&pageSize); err != nil || pageSize != tt.want {
			t.Errorf("%s: page_size = %d, %v; want %d", tt.name, pageSize, err, tt.want)
		}
		raw.Close()
	}
}
