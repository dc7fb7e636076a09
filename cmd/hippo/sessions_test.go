package main

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestServeSessionTimeout: with --session-timeout 2s and --max-sessions 3,
// sessions initialized and never closed are refused past the third and
// reclaimed once idle for 2 seconds.
func TestServeSessionTimeout(t *testing.T) {
	c := newCLI(t)
	lines := serveLines(t, c, "--session-timeout", "2s", "--max-sessions", "3")
	base := regexp.MustCompile(`http://127\.0\.0\.1:\d+`).FindString(strings.Join(lines, "\n"))
	if base == "" {
		t.Fatalf("no URL printed:\n%s", strings.Join(lines, "\n"))
	}
	const init = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`
	var ids []string
	for i := range 3 {
		status, body, hdr := rawPostHeader(t, base+"/mcp", init)
		if status != http.StatusOK || hdr.Get("Mcp-Session-Id") == "" {
			t.Fatalf("initialize %d: %d %s", i, status, body)
		}
		ids = append(ids, hdr.Get("Mcp-Session-Id"))
	}
	if status, body := rawPost(t, base+"/mcp", init); status != http.StatusServiceUnavailable || !strings.Contains(body, "--max-sessions") {
		t.Fatalf("fourth session: %d %s, want 503 naming --max-sessions", status, body)
	}
	time.Sleep(3 * time.Second)
	if status, body := rawPost(t, base+"/mcp", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, "Mcp-Session-Id", ids[0]); status != http.StatusNotFound {
		t.Errorf("idle session after --session-timeout: %d %s, want 404", status, body)
	}
	for i := range 3 {
		if status, body := rawPost(t, base+"/mcp", init); status != http.StatusOK {
			t.Fatalf("initialize %d once the idle sessions were reclaimed: %d %s", i, status, body)
		}
	}
}

func TestServeSessionFlagErrors(t *testing.T) {
	c := newCLI(t)
	for _, tt := range []struct{ args, want string }{
		{"--session-timeout -1s", "--session-timeout must not be negative"},
		{"--max-sessions 0", "--max-sessions must be at least 1, got 0"},
	} {
		r := c.run(append([]string{"serve"}, strings.Fields(tt.args)...)...)
		if r.code != 2 || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("serve %s: %s\nwant exit 2 and %q", tt.args, r, tt.want)
		}
	}
}
