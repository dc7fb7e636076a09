package mcp_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/mcp"
)

// TestStdioOutput checks that nothing but JSON-RPC reaches stdout, even
// when calls fail inside and the server logs.
func TestStdioOutput(t *testing.T) {
	logger, logs := newTestLogger()
	e := newEnv(t, func(c *mcp.Config) { c.Logger = logger })
	var out logBuffer
	cs, err := e.client(e.stdio(&out))
	if err != nil {
		t.Fatal(err)
	}
	ok(t, cs, "store_memory", map[string]any{"agent_id": "a", "content": "over stdio"})
	fails(t, cs, "recall_memories", map[string]any{"agent_id": "a", "query": "x", "limit": 0}, hippo.EINVALID)
	e.ai.EmbedStatus = func(int) int { return http.StatusInternalServerError }
	fails(t, cs, "recall_memories", map[string]any{"agent_id": "a", "query": "x"}, hippo.EINTERNAL)
	cs.Close()

	if !strings.Contains(logs.String(), "tool call failed") {
		t.Errorf("the internal error was not logged: %s", logs.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) < 4 {
		t.Fatalf("stdout: %q", out.String())
	}
	for _, line := range lines {
		var msg struct {
			JSONRPC string `json:"jsonrpc"`
		}
		if err := json.Unmarshal([]byte(line), &msg); err != nil || msg.JSONRPC != "2.0" {
			t.Errorf("stdout line is not JSON-RPC: %q", line)
		}
	}
}

func TestStdioCancel(t *testing.T) {
	e := newEnv(t)
	r, w := io.Pipe()
	defer w.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.server.ServeStdio(ctx, r, io.Discard) }()
	time.Sleep(50 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("ServeStdio after cancel: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("ServeStdio did not return after cancel")
	}
}
