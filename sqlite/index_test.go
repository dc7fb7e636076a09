package sqlite

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/mock"
	"github.com/hippo-mem/hippo/openai"
)

// TestIndexSeesOtherConnectionsWrites opens the file twice, as a server and
// a CLI would, and checks that neither ever recalls stale data.
func TestIndexSeesOtherConnectionsWrites(t *testing.T) {
	ctx := context.Background()
	srv := mock.NewServer(t, 32)
	emb, err := openai.NewEmbedder(openai.Config{BaseURL: srv.BaseURL(), Model: "mock"})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "shared.db")
	open := func() *Memory {
		db, err := Open(ctx, path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		m, err := db.Memory(MemoryOptions{AgentID: "agent", Embedder: emb})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	server, cli := open(), open()
	recall := func(m *Memory, q string) []string {
		t.Helper()
		res, err := m.Recall(ctx, hippo.RecallInput{Query: q, Limit: 50})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range res {
			out = append(out, r.Chunk.Content)
		}
		return out
	}
	has := func(xs []string, x string) bool {
		for _, y := range xs {
			if y == x {
				return true
			}
		}
		return false
	}

	if _, err := server.StoreMemory(ctx, hippo.StoreInput{Content: "kept by the server"}); err != nil {
		t.Fatal(err)
	}
	recall(server, "kept") // loads the server's index
	if _, err := cli.StoreMemory(ctx, hippo.StoreInput{Content: "written by the cli"}); err != nil {
		t.Fatal(err)
	}
	if got := recall(server, "written by the cli"); !has(got, "written by the cli") {
		t.Fatalf("server missed the CLI's insert: %v", got)
	}
	if _, err := cli.Forget(ctx, hippo.ForgetInput{Description: "written by the cli", Threshold: 0.99}); err != nil {
		t.Fatal(err)
	}
	if got := recall(server, "written by the cli"); has(got, "written by the cli") {
		t.Fatalf("server recalled a chunk the CLI forgot: %v", got)
	}
	// Content changes made elsewhere are seen too.
	res, _ := server.Recall(ctx, hippo.RecallInput{Query: "kept by the server", Limit: 1})
	if _, err := cli.UpdateChunk(ctx, res[0].Chunk.ID, "rewritten by the cli"); err != nil {
		t.Fatal(err)
	}
	if got := recall(server, "rewritten by the cli"); !has(got, "rewritten by the cli") || has(got, "kept by the server") {
		t.Fatalf("server missed the CLI's update: %v", got)
	}

	// When the log is pruned past what the server has folded in, it
	// reloads rather than missing changes.
	if _, err := cli.StoreMemory(ctx, hippo.StoreInput{Content: "stored before pruning"}); err != nil {
		t.Fatal(err)
	}
	if err := cli.db.pruneChanges(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if got := recall(server, "stored before pruning"); !has(got, "stored before pruning") {
		t.Fatalf("server missed a change whose log entry was pruned: %v", got)
	}
	var n int
	cli.db.read.QueryRow(`SELECT COUNT(*) FROM hippo_changes`).Scan(&n)
	if n > 20 {
		t.Errorf("change log holds %d entries after pruning", n)
	}
}
