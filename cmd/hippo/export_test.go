package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/sqlite"
	"github.com/hippo-mem/hippo/vector"
)

// exportDoc is Hippo's export format, decoded strictly.
type exportDoc struct {
	Format         string            `json:"format"`
	Version        int               `json:"version"`
	EmbeddingModel *sqlite.ModelLock `json:"embedding_model"`
	Blocks         []struct {
		AgentID     string `json:"agent_id"`
		Scope       string `json:"scope"`
		Key         string `json:"key"`
		Value       string `json:"value"`
		Description string `json:"description"`
		UpdatedAt   string `json:"updated_at"`
	} `json:"blocks"`
	Chunks []struct {
		ID               string  `json:"id"`
		AgentID          string  `json:"agent_id"`
		Scope            string  `json:"scope"`
		Kind             string  `json:"kind"`
		Content          string  `json:"content"`
		ContentHash      *string `json:"content_hash"`
		Embedding        []byte  `json:"embedding_base64"`
		Metadata         *string `json:"metadata"`
		RunningIntensity float64 `json:"running_intensity"`
		EncounterCount   int     `json:"encounter_count"`
		AccessCount      int     `json:"access_count"`
		LastAccessedAt   string  `json:"last_accessed_at"`
		SupersededBy     *string `json:"superseded_by"`
		SupersededAt     *string `json:"superseded_at"`
		CreatedAt        string  `json:"created_at"`
		Suspicious       string  `json:"suspicious"`
		Origin           *string `json:"origin"`
		Caller           *string `json:"caller"`
		Source           *string `json:"source"`
		InputHash        *string `json:"input_hash"`
		Extractor        *string `json:"extractor"`
		ContextOf        *string `json:"context_of"`
	} `json:"chunks"`
	Inputs []struct {
		AgentID   string `json:"agent_id"`
		Hash      string `json:"hash"`
		Text      string `json:"text"`
		CreatedAt string `json:"created_at"`
	} `json:"inputs"`
}

type importOutput struct {
	Format           string            `json:"format"`
	Agents           []string          `json:"agents"`
	Chunks           int               `json:"chunks"`
	Blocks           int               `json:"blocks"`
	Inputs           int               `json:"inputs"`
	Duplicates       int               `json:"duplicates"`
	DuplicateIDs     []string          `json:"duplicate_ids"`
	DuplicateContent []string          `json:"duplicate_content"`
	DuplicateBlocks  []sqlite.BlockRef `json:"duplicate_blocks"`
	EmbeddingModel   *sqlite.ModelLock `json:"embedding_model"`
}

const tsFixture = "testdata/typescript-v1.json"

// fixturePath is the TypeScript fixture's absolute path: hippo runs in the
// test's temporary directory.
func fixturePath(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs(tsFixture)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// writeFile writes content to name in the cli's directory and returns its path.
func (c *cli) writeFile(name, content string) string {
	c.t.Helper()
	p := filepath.Join(c.dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		c.t.Fatal(err)
	}
	return p
}

// edgeCases is a Hippo export of records the tools never write: an empty
// block value, empty content, HTML-ish and non-ASCII text.
func edgeCases() string {
	v := make([]float32, 8)
	v[7] = -0.25
	emb := base64.StdEncoding.EncodeToString(vector.Encode(v))
	return `{"format":"hippo-export","version":1,"embedding_model":{"model":"test-model","dimension":8},
"blocks":[{"agent_id":"alice","scope":"","key":"empty","value":"","updated_at":"2026-01-01T00:00:00.000000Z"}],
"chunks":[
{"id":"E1","agent_id":"alice","scope":"","kind":"memory","content":"","content_hash":null,"embedding_base64":"` + emb + `","metadata":"{}","running_intensity":0.3333333333333333,"encounter_count":3,"access_count":2,"last_accessed_at":"2026-01-02T00:00:00.000000Z","superseded_by":null,"superseded_at":null,"created_at":"2026-01-01T00:00:00.000000Z"},
{"id":"E2","agent_id":"zoë","scope":"ünïcode","kind":"fact","content":"<b>&amp;</b> \"quoted\"\n\ttabbed","content_hash":"","embedding_base64":"` + emb + `","metadata":null,"running_intensity":1,"encounter_count":1,"access_count":0,"last_accessed_at":"2026-01-02T00:00:00.000000Z","superseded_by":"GONE","superseded_at":"2026-01-03T00:00:00.000000Z","created_at":"2026-01-01T00:00:00.000000Z"}
]}`
}

func TestExportImportRoundTrip(t *testing.T) {
	c := newCLI(t)
	c.seed()
	c.ok("import", c.writeFile("edge.json", edgeCases()))
	first := c.ok("export").stdout

	var doc exportDoc
	decodeJSON(t, first, &doc)
	if doc.Format != "hippo-export" || doc.Version != 1 || doc.EmbeddingModel == nil ||
		*doc.EmbeddingModel != (sqlite.ModelLock{Model: "test-model", Dimension: 8}) || len(doc.Blocks) != 3 || len(doc.Chunks) != 7 {
		t.Fatalf("export = %+v", doc)
	}
	a1 := doc.Chunks[0]
	if a1.ID != "A1" || a1.AgentID != "alice" || len(a1.Embedding) != 32 || a1.Metadata == nil || *a1.Metadata != `{"source":"chat"}` ||
		a1.ContentHash == nil || *a1.ContentHash != sqlite.ContentHash(a1.Content) || a1.SupersededBy != nil {
		t.Errorf("exported A1 = %+v", a1)
	}
	if !strings.Contains(first, `"content":"<b>&amp;</b>`) {
		t.Errorf("export escapes HTML: %s", first)
	}

	// Into a fresh database from a file, then from stdin: exports identical.
	var res importOutput
	c.json(&res, "import", c.writeFile("first.json", first), "--db", filepath.Join(c.dir, "fresh.db"))
	if res.Format != "hippo-export" || res.Chunks != 7 || res.Blocks != 3 || res.Duplicates != 0 ||
		!slices.Equal(res.Agents, []string{"alice", "bob", "zoë"}) || *res.EmbeddingModel != *doc.EmbeddingModel {
		t.Errorf("import = %+v", res)
	}
	if second := c.ok("export", "--db", filepath.Join(c.dir, "fresh.db")).stdout; second != first {
		t.Errorf("export after import differs:\n%s\nwant:\n%s", second, first)
	}
	r := c.runIn(first, nil, "import", "-", "--db", filepath.Join(c.dir, "stdin.db"), "--json")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("import from stdin: %s", r)
	}
	if third := c.ok("export", "--db", filepath.Join(c.dir, "stdin.db")).stdout; third != first {
		t.Errorf("export after import from stdin differs")
	}

	// --output writes the same bytes; --json then reports what was written.
	out := filepath.Join(c.dir, "backup.json")
	var sum struct {
		Path   string `json:"path"`
		Blocks int    `json:"blocks"`
		Chunks int    `json:"chunks"`
		Inputs int    `json:"inputs"`
	}
	c.json(&sum, "export", "-o", out)
	if sum.Path != out || sum.Blocks != 3 || sum.Chunks != 7 {
		t.Errorf("export -o --json = %+v", sum)
	}
	if b, err := os.ReadFile(out); err != nil || string(b) != first {
		t.Errorf("export -o wrote something else: %v", err)
	}
	if r := c.ok("export", "-o", out); r.stdout != "" || !strings.Contains(r.stderr, "Exported 7 chunks and 3 blocks") {
		t.Errorf("export -o text: %s", r)
	}
}

func TestExportOneAgent(t *testing.T) {
	c := newCLI(t)
	c.seed()
	var doc exportDoc
	decodeJSON(t, c.ok("export", "bob").stdout, &doc)
	if len(doc.Chunks) != 1 || doc.Chunks[0].ID != "B1" || len(doc.Blocks) != 0 || doc.EmbeddingModel == nil {
		t.Errorf("export bob = %+v", doc)
	}
	decodeJSON(t, c.runIn("", []string{"HIPPO_AGENT=alice"}, "export").stdout, &doc)
	if len(doc.Chunks) != 4 || len(doc.Blocks) != 2 {
		t.Errorf("export with HIPPO_AGENT=alice: %d chunks, %d blocks", len(doc.Chunks), len(doc.Blocks))
	}
	decodeJSON(t, c.ok("export", "alice", "--scope", "work").stdout, &doc)
	if len(doc.Chunks) != 0 || len(doc.Blocks) != 0 {
		t.Errorf("export alice --scope work = %+v", doc)
	}
	r := c.fails(1, `agent "nobody" has no chunks or blocks`, "export", "nobody")
	if r.stdout != "" {
		t.Errorf("failed export wrote %q", r.stdout)
	}
}

func TestImportReportsDuplicates(t *testing.T) {
	c := newCLI(t)
	c.seed()
	before := c.snapshot()
	backup := c.writeFile("backup.json", before)

	var res importOutput
	c.json(&res, "import", backup)
	if res.Chunks != 0 || res.Blocks != 0 || res.Duplicates != 7 ||
		!slices.Equal(res.DuplicateIDs, []string{"A1", "A2", "A3", "A4", "B1"}) || len(res.DuplicateContent) != 0 ||
		!slices.Equal(res.DuplicateBlocks, []sqlite.BlockRef{{AgentID: "alice", Key: "objectives"}, {AgentID: "alice", Key: "persona"}}) {
		t.Errorf("re-import = %+v", res)
	}
	r := c.ok("import", backup)
	for _, want := range []string{"Imported 0 chunks and 0 blocks", "Skipped 5 duplicate chunk IDs", "A1, A2, A3, A4, B1", "Skipped 2 blocks"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("import text lacks %q:\n%s", want, r.stdout)
		}
	}
	if c.snapshot() != before {
		t.Error("importing duplicates changed the database")
	}

	// A memory under a new ID whose content the agent has is skipped too.
	doc := strings.Replace(before, `"id":"A1"`, `"id":"A1-COPY"`, 1)
	c.json(&res, "import", c.writeFile("copy.json", doc))
	if res.Chunks != 0 || !slices.Equal(res.DuplicateContent, []string{"A1-COPY"}) || res.Duplicates != 7 {
		t.Errorf("import of a copied memory = %+v", res)
	}
}

func TestImportTypeScriptFixture(t *testing.T) {
	c := newCLI(t)
	fixture := fixturePath(t)

	// No model named anywhere: refused, and no empty database left behind.
	c.fails(1, "--model", "import", fixture)
	if _, err := os.Stat(c.db); !os.IsNotExist(err) {
		t.Errorf("failed first import left a database: %v", err)
	}

	var res importOutput
	c.json(&res, "import", fixture, "--model", "ts-embed")
	if res.Format != "typescript-v1" || res.Chunks != 5 || res.Blocks != 3 || res.Duplicates != 0 ||
		!slices.Equal(res.Agents, []string{"ts-agent"}) || *res.EmbeddingModel != (sqlite.ModelLock{Model: "ts-embed", Dimension: 4}) {
		t.Errorf("import = %+v", res)
	}

	var list chunkList
	c.json(&list, "chunks", "ts-agent", "--superseded", "--limit", "0")
	if got := chunkIDs(list.Chunks); !slices.Equal(got, []string{"f-3", "m-2", "m-1", "f-2", "f-1"}) {
		t.Errorf("imported chunks = %v", got)
	}
	byID := map[string]chunkView{}
	for _, ch := range list.Chunks {
		byID[ch.ID] = ch
	}
	if f1 := byID["f-1"]; !f1.Superseded || *f1.SupersededBy != "f-2" || f1.RunningIntensity != 0.7 || f1.EncounterCount != 2 ||
		f1.AccessCount != 3 || f1.LastAccessedAt.Format("2006-01-02T15:04:05Z07:00") != "2025-01-11T08:00:00Z" {
		t.Errorf("f-1 = %+v", f1)
	}
	if m1 := byID["m-1"]; m1.Scope != "project-x" || compact(t, m1.Metadata) != `{"source":"deploy-log","tags":["deploy","release"]}` ||
		m1.LastAccessedAt.Nanosecond() != 345_000_000 {
		t.Errorf("m-1 = %+v", m1)
	}
	if m2 := byID["m-2"]; m2.Content != "" || m2.Kind != hippo.KindMemory {
		t.Errorf("m-2 = %+v", m2)
	}
	var b hippo.Block
	c.json(&b, "block", "ts-agent", "human")
	if b.Value != "" || b.UpdatedAt.Format("15:04") != "09:05" {
		t.Errorf("empty block = %+v", b)
	}
	c.json(&b, "block", "ts-agent", "objectives", "--scope", "project-x")
	if b.Value != "Ship the beta.\nWrite the docs." {
		t.Errorf("objectives = %+v", b)
	}
	var found struct {
		Chunks []chunkView `json:"chunks"`
	}
	c.jsonLoose(&found, "search", "100%")
	if got := chunkIDs(found.Chunks); !slices.Equal(got, []string{"f-3"}) {
		t.Errorf("search 100%% = %v", got)
	}

	// Imported data round-trips like any other.
	first := c.snapshot()
	c.ok("import", c.writeFile("ts-export.json", first), "--db", filepath.Join(c.dir, "again.db"))
	if again := c.ok("export", "--db", filepath.Join(c.dir, "again.db")).stdout; again != first {
		t.Errorf("export of re-imported TypeScript data differs")
	}

	// Again: every record is a duplicate. Into a database of the same
	// dimension no --model is needed.
	c.json(&res, "import", fixture)
	if res.Chunks != 0 || res.Duplicates != 8 || len(res.DuplicateIDs) != 5 || len(res.DuplicateBlocks) != 3 {
		t.Errorf("second import = %+v", res)
	}
}

func TestImportRefusesAnotherModel(t *testing.T) {
	c := newCLI(t)
	c.seed()
	before := c.snapshot()

	// The fixture's 4-dimension vectors into the 8-dimension database.
	c.fails(1, "embedding model mismatch", "import", fixturePath(t))
	c.fails(1, "embedding model mismatch", "import", fixturePath(t), "--model", "test-model")
	// A Hippo export of another model.
	other := strings.Replace(before, `"model":"test-model"`, `"model":"other-model"`, 1)
	r := c.fails(1, "embedding model mismatch", "import", c.writeFile("other.json", other))
	if !strings.Contains(r.stderr, "other-model") || !strings.Contains(r.stderr, "test-model") {
		t.Errorf("error does not name both models: %s", r.stderr)
	}
	// --model contradicting the file.
	c.fails(1, `not "something-else"`, "import", c.writeFile("same.json", before), "--model", "something-else")
	if c.snapshot() != before {
		t.Error("a refused import changed the database")
	}
}

func TestImportIsAllOrNothing(t *testing.T) {
	c := newCLI(t)
	c.seed()
	before := c.snapshot()
	doc := strings.Replace(before, `"id":"B1"`, `"id":"B1-NEW"`, 1)
	doc = strings.Replace(doc, `"id":"A4"`, `"id":"A4-NEW"`, 1)
	doc = strings.Replace(doc, `"kind":"memory","content":"REDUX`, `"kind":"note","content":"REDUX`, 1)
	r := c.fails(1, `chunk B1-NEW: kind must be`, "import", c.writeFile("bad.json", doc))
	if r.stdout != "" {
		t.Errorf("failed import printed %q", r.stdout)
	}
	if c.snapshot() != before {
		t.Error("a failed import left part of its records (A4-NEW)")
	}

	for name, content := range map[string]string{
		"truncated.json": before[:len(before)/2],
		"garbage.json":   "PK\x03\x04 not json",
		"other.json":     `{"something":"else"}`,
	} {
		c.fails(1, "", "import", c.writeFile(name, content))
	}
	c.fails(1, "no such file", "import", filepath.Join(c.dir, "missing.json"))
	c.fails(1, "no such file", "import", filepath.Join(c.dir, "missing.json"), "--db", filepath.Join(c.dir, "new.db"))
	if _, err := os.Stat(filepath.Join(c.dir, "new.db")); !os.IsNotExist(err) {
		t.Errorf("import of a missing file created the database")
	}
	if c.snapshot() != before {
		t.Error("malformed imports changed the database")
	}
}

func TestImportNeedsAnAgentForTypeScriptRecords(t *testing.T) {
	c := newCLI(t)
	doc := strings.Replace(mustRead(t, tsFixture), `"agentId": "ts-agent",`, "", 1)
	path := c.writeFile("no-agent.json", doc)
	c.fails(1, "names no agent", "import", path, "--model", "m")
	var res importOutput
	c.json(&res, "import", path, "--model", "m", "--agent", "given")
	if !slices.Equal(res.Agents, []string{"given"}) || res.Chunks != 5 {
		t.Errorf("import with --agent = %+v", res)
	}
}

func compact(t *testing.T, raw []byte) string {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
