package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hippo-mem/hippo/local"
	"github.com/hippo-mem/hippo/sqlite"
)

type reembedOutputJSON struct {
	DryRun    bool              `json:"dry_run"`
	From      *sqlite.ModelLock `json:"from"`
	To        sqlite.ModelLock  `json:"to"`
	Unchanged bool              `json:"unchanged"`
	Chunks    int               `json:"chunks"`
	Reused    int               `json:"reused"`
	Embedded  int               `json:"embedded"`
	Seconds   *float64          `json:"duration_seconds"`
	PerSecond *float64          `json:"chunks_per_second"`
}

var gloveLock = sqlite.ModelLock{Model: local.Model, Dimension: local.Dimension}

func TestReembedPreviewsWithoutForce(t *testing.T) {
	c := newCLI(t)
	c.seed()
	before := c.snapshot()

	var out reembedOutputJSON
	c.json(&out, "reembed")
	if !out.DryRun || out.From == nil || *out.From != (sqlite.ModelLock{Model: "test-model", Dimension: 8}) ||
		out.To != gloveLock || out.Chunks != 5 || out.Embedded != 5 || out.Unchanged || out.Seconds != nil {
		t.Errorf("preview = %+v", out)
	}
	r := c.ok("reembed")
	for _, want := range []string{"Would re-embed 5 chunks", `"test-model" (8 dimensions)`, `"` + local.Model + `" (100 dimensions)`} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("text preview lacks %q: %s", want, r)
		}
	}
	if !strings.Contains(r.stderr, "--force") {
		t.Errorf("text preview does not point to --force: %s", r)
	}
	if c.snapshot() != before {
		t.Fatal("reembed without --force changed the database")
	}
	// The offline embedder is refused by the database as it stands. (The
	// seed's chunks have faded since 2026-01-10: recalls look --as-of a
	// later date, where history does not fade.)
	c.fails(1, "embedding model mismatch", "recall", "--agent", "alice", "--as-of", "2099-01-01", "cotton shirts")
}

func TestReembedSwitchesTheModel(t *testing.T) {
	c := newCLI(t)
	c.seed()
	var out reembedOutputJSON
	c.json(&out, "reembed", "--force", "--batch-size", "2")
	if out.DryRun || out.Unchanged || out.To != gloveLock || out.Chunks != 5 || out.Embedded != 5 ||
		out.Seconds == nil || out.PerSecond == nil || *out.PerSecond <= 0 {
		t.Errorf("reembed = %+v", out)
	}
	var stats struct {
		EmbeddingModel *sqlite.ModelLock `json:"embedding_model"`
	}
	c.jsonLoose(&stats, "stats")
	if stats.EmbeddingModel == nil || *stats.EmbeddingModel != gloveLock {
		t.Errorf("lock after reembed = %v", stats.EmbeddingModel)
	}
	r := c.ok("recall", "--agent", "alice", "--as-of", "2099-01-01", "cotton shirts")
	if !strings.Contains(r.stdout, "100% cotton") {
		t.Errorf("recall after reembed: %s", r)
	}
	// Once more: nothing to do.
	r = c.ok("reembed", "--force")
	if !strings.Contains(r.stdout, "already on") {
		t.Errorf("second reembed: %s", r)
	}
	c.json(&out, "reembed", "--force")
	if !out.Unchanged || out.Embedded != 0 {
		t.Errorf("second reembed = %+v", out)
	}

	c.fails(2, "--batch-size", "reembed", "--batch-size", "0")
	c.fails(1, "does not exist", "reembed", "--db", filepath.Join(c.dir, "missing.db"))
}

func TestImportReembed(t *testing.T) {
	c := newCLI(t)
	c.seed()
	file := filepath.Join(c.dir, "export.json")
	if err := os.WriteFile(file, []byte(c.snapshot()), 0o644); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(c.dir, "glove.db")
	db, err := sqlite.Open(context.Background(), target, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.VerifyEmbeddingModel(context.Background(), local.Model, local.Dimension); err != nil {
		t.Fatal(err)
	}
	db.Close()

	c.fails(1, "--reembed", "import", file, "--db", target)
	var res struct {
		Chunks         int               `json:"chunks"`
		Reembedded     int               `json:"reembedded"`
		EmbeddingModel *sqlite.ModelLock `json:"embedding_model"`
	}
	c.jsonLoose(&res, "import", file, "--db", target, "--reembed")
	if res.Chunks != 5 || res.Reembedded != 5 || res.EmbeddingModel == nil || *res.EmbeddingModel != gloveLock {
		t.Errorf("import --reembed = %+v", res)
	}
	r := c.ok("recall", "--db", target, "--agent", "alice", "--as-of", "2099-01-01", "cotton shirts")
	if !strings.Contains(r.stdout, "100% cotton") {
		t.Errorf("recall after import --reembed: %s", r)
	}
}
