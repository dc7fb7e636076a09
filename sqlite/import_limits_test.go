package sqlite_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/sqlite"
)

// TestImportLimits: an import takes what the tools take and no more. A
// record past a tool's limit (content, block value, metadata, IDs) or a
// memory whose content_hash is not its content's refuses the whole file,
// naming the record and the limit, and imports nothing.
func TestImportLimits(t *testing.T) {
	cfg := hippo.DefaultConfig()
	const emb = "AACAPwAAAAAAAAAAAAAAAA==" // 4 dimensions
	chunk := func(edit func(c map[string]any)) map[string]any {
		c := map[string]any{"id": "m-ok", "kind": "memory", "content": "fine", "embedding_base64": emb,
			"created_at": "2025-01-10T09:00:00Z"}
		if edit != nil {
			edit(c)
		}
		return c
	}
	doc := func(blocks []map[string]any, chunks ...map[string]any) string {
		bs, err := json.Marshal(blocks)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := json.Marshal(append([]map[string]any{chunk(func(c map[string]any) { c["id"] = "first" })}, chunks...))
		if err != nil {
			t.Fatal(err)
		}
		return `{"version":1,"agentId":"alice","embedding_model":{"model":"test-model","dimension":4},"blocks":` +
			string(bs) + `,"chunks":` + string(cs) + `}`
	}
	block := func(value string) []map[string]any {
		return []map[string]any{{"key": "persona", "value": value, "updatedAt": "2025-01-10T09:00:00Z"}}
	}
	big := strings.Repeat("x", cfg.MaxContent+1)
	tests := []struct {
		name, doc, want string
	}{
		{"memory past the content limit", doc(nil, chunk(func(c map[string]any) { c["content"] = big })), "at most 50000 characters"},
		{"10 MB memory", doc(nil, chunk(func(c map[string]any) { c["content"] = strings.Repeat("y", 10<<20) })), "at most 50000 characters"},
		{"fact past the content limit", doc(nil, chunk(func(c map[string]any) { c["kind"], c["content"] = "fact", big })), "at most 50000 characters"},
		{"block past the block limit", doc(block(strings.Repeat("b", cfg.MaxBlockValue+1))), "at most 100000 characters"},
		{"1 MB of metadata", doc(nil, chunk(func(c map[string]any) {
			c["metadata"] = map[string]any{"note": strings.Repeat("m", 1<<20)}
		})), "at most 16384 bytes"},
		{"1 MB of metadata as a string", doc(nil, chunk(func(c map[string]any) {
			c["metadata"] = `{"note":"` + strings.Repeat("m", 1<<20) + `"}`
		})), "at most 16384 bytes"},
		{"metadata with a number past float64", doc(nil, chunk(func(c map[string]any) { c["metadata"] = json.RawMessage(`{"n":1e999}`) })), "float64"},
		{"ID of 10,000 characters", doc(nil, chunk(func(c map[string]any) { c["id"] = strings.Repeat("i", 10000) })), "at most 128 characters"},
		{"ID with markup", doc(nil, chunk(func(c map[string]any) { c["id"] = "<script>alert(1)</script>" })), "letters, digits"},
		{"ID with a space", doc(nil, chunk(func(c map[string]any) { c["id"] = "a b" })), "letters, digits"},
		{"superseded_by with markup", doc(nil, chunk(func(c map[string]any) { c["superseded_by"] = "<img src=x>" })), "superseded_by"},
		{"content_hash of other content", doc(nil, chunk(func(c map[string]any) { c["content_hash"] = hippo.ContentHash("something else") })), "content_hash"},
		{"fact content_hash of other content", doc(nil, chunk(func(c map[string]any) {
			c["kind"], c["content_hash"] = "fact", hippo.ContentHash("other")
		})), "content_hash"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "h.db"), sqlite.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			_, err = importString(db, tt.doc, sqlite.ImportOptions{})
			if hippo.ErrorCode(err) != hippo.EINVALID || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("import: %v, want %s saying %q", err, hippo.EINVALID, tt.want)
			}
			if len(err.Error()) > 1000 {
				t.Errorf("the error quotes the input: %d bytes", len(err.Error()))
			}
			n, err := db.CountChunks(context.Background(), sqlite.ChunkFilter{Superseded: true})
			blocks, berr := db.ListBlocks(context.Background(), "alice", nil)
			if err != nil || berr != nil || n != 0 || len(blocks) != 0 {
				t.Errorf("after a refused import: %d chunks, %d blocks (%v, %v), want none", n, len(blocks), err, berr)
			}
		})
	}

	// At the limits, and with a matching hash in any case, it imports.
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "h.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ok := doc(block(strings.Repeat("b", cfg.MaxBlockValue)),
		chunk(func(c map[string]any) {
			c["id"], c["content"] = "01M8FXE5TDFTARVW3QGZKXV4DP", strings.Repeat("x", cfg.MaxContent)
		}),
		chunk(func(c map[string]any) {
			c["id"], c["content"], c["content_hash"] = "m-2.v1:a_b", "hashed", strings.ToUpper(hippo.ContentHash("hashed"))
		}),
		chunk(func(c map[string]any) { c["id"], c["content"] = "m-3", "" }),
		// Not a SHA-256 (another algorithm): a memory's is computed.
		chunk(func(c map[string]any) { c["id"], c["content"], c["content_hash"] = "m-4", "other algorithm", "abc" }),
	)
	res, err := importString(db, ok, sqlite.ImportOptions{})
	if err != nil || res.Chunks != 5 || res.Blocks != 1 {
		t.Fatalf("import at the limits: %+v, %v", res, err)
	}
}
