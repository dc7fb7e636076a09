package mcp_test

import (
	"strings"
	"testing"

	"github.com/hippo-mem/hippo/local"
	"github.com/hippo-mem/hippo/mcp"
)

// TestRememberFactsFallback: over MCP, an LLM answering prose costs no
// fact: Config.FallbackExtractor extracts instead, after one chat request,
// and the tool result says so in its text and its "fallback".
func TestRememberFactsFallback(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *mcp.Config) { c.FallbackExtractor = local.NewExtractor() })
	e.ai.Reply("I'd rather not answer in JSON today.")
	r := ok(t, e.connect("streamable"), "remember_facts", map[string]any{"agent_id": "alice", "text": "I live in Lisbon."})
	fallback, _ := r.Details["fallback"].(string)
	if !strings.Contains(fallback, "offline extractor") || !strings.HasSuffix(r.Text, fallback) {
		t.Errorf("text %q, fallback %q; want the fallback said in both", r.Text, fallback)
	}
	if facts, _ := r.Details["facts"].([]any); len(facts) == 0 {
		t.Errorf("facts = %v, want the offline extractor's", r.Details["facts"])
	}
	if _, chats := e.ai.Counts(); chats != 1 {
		t.Errorf("chat requests = %d, want 1", chats)
	}
}
