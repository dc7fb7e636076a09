package eval_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hippo-mem/hippo/local"
)

// TestLongMemEvalMCP runs the LongMemEval protocol end to end through the
// server a user would run: it builds ./cmd/hippo, starts `hippo serve` on
// a temporary database and a loopback port, stores every turn with
// store_memory and asks each question with recall_memories (limit 10)
// through the official MCP Go SDK over Streamable HTTP. The server uses its
// default embedder (or -embedder's, as HIPPO_EMBEDDER, when given) and
// configuration, retrieval boost included; each method runs on a fresh
// copy of the stored database under a new server.
//
//	go test ./eval/ -run LongMemEvalMCP -longmemeval-mcp -v -timeout 3h [-embedder glove|minilm]
func TestLongMemEvalMCP(t *testing.T) {
	if !*flagLMEMCP {
		t.Skip("runs with -longmemeval-mcp")
	}
	ctx := context.Background()
	d := loadLME(t, needData(t), false)
	dir := t.TempDir()
	base := filepath.Join(dir, "base.db")
	label, env := "hippo serve (default embedder)", []string(nil)
	if embedderFlagSet() {
		label, env = "hippo serve ("+*flagEmbedder+")", []string{"HIPPO_EMBEDDER=" + *flagEmbedder}
	}

	start := time.Now()
	srv := startServer(t, base, env...)
	c, err := newMCPClient(ctx, srv.base, lmeAgent)
	if err != nil {
		srv.stop()
		t.Fatal(err)
	}
	store := &lmeStore{}
	for i, tr := range d.turns {
		id, dup, err := c.store(ctx, tr.Text)
		if err != nil {
			srv.stop()
			t.Fatalf("store_memory %s: %v", tr.ID, err)
		}
		store.add(id, tr.ID, dup)
		if (i+1)%2000 == 0 {
			t.Logf("stored %d turns in %v", i+1, time.Since(start).Round(time.Second))
		}
	}
	c.close()
	if err := srv.stop(); err != nil {
		t.Fatalf("hippo serve: %v", err)
	}
	t.Logf("stored %d turns as %d memories (%d verbatim repeats) over MCP in %v", len(d.turns), len(store.turnsOf), store.dups, time.Since(start).Round(time.Millisecond))

	run := func(m method, _ bool, only *half) result {
		t.Helper()
		path := filepath.Join(dir, fmt.Sprintf("run-%v-%v-%v.db", m.alpha, m.serverDefault, m.noFloor))
		if err := copyDB(base, path); err != nil {
			t.Fatal(err)
		}
		defer os.Remove(path)
		srv := startServer(t, path, env...)
		defer func() {
			if err := srv.stop(); err != nil {
				t.Errorf("hippo serve: %v", err)
			}
		}()
		c, err := newMCPClient(ctx, srv.base, lmeAgent)
		if err != nil {
			t.Fatal(err)
		}
		defer c.close()
		r := result{method: m, boost: true}
		for _, q := range d.queries {
			h := splitOf(q.QID)
			if only != nil && h != *only {
				continue
			}
			res, err := c.recall(ctx, q.Question, 10, m.alphaArg(), m.minRelevance())
			if err != nil {
				t.Fatalf("recall_memories %s: %v", q.QID, err)
			}
			r.add(h, "", store.ranked(d, q, m, res), q.relevant())
		}
		return r
	}
	// The server's embedder is its default, and so is the hybrid method's α:
	// none is sent.
	ms := methods(local.NewEmbedder())
	ms[2].name = "hybrid (server's default α)"
	ms[3].name = "hybrid (server's α, no floor)"
	report := runMethods(t, label, ms, []bool{true}, run)
	t.Logf("\nLongMemEval oracle through hippo serve (MCP Streamable HTTP), %d questions (%d abstention skipped), %d turns\n%s", len(d.queries), d.skipped, len(d.turns), report)
}
