package mcp_test

import (
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/hippo-mem/hippo/mcp"
)

// initSession posts an initialize request and returns the status, the
// session ID and the body.
func (e *env) initSession() (int, string, string) {
	e.t.Helper()
	resp := e.post("/mcp", initialize)
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), string(body)
}

// TestSessionsBoundedAndReclaimed: sessions that are initialized and never
// closed (no DELETE) are closed once idle for SessionTimeout, and no more
// than MaxSessions live at once: past the bound, a new session is refused
// with 503 and a message saying why, while the live ones go on working.
func TestSessionsBoundedAndReclaimed(t *testing.T) {
	const max, timeout = 20, time.Second
	e := newEnv(t, func(c *mcp.Config) { c.MaxSessions, c.SessionTimeout = max, timeout })
	base := runtime.NumGoroutine()

	var live []string
	for i := range max {
		status, id, body := e.initSession()
		if status != http.StatusOK || id == "" {
			t.Fatalf("initialize %d: %d %q %s", i, status, id, body)
		}
		live = append(live, id)
	}
	status, _, body := e.initSession()
	if status != http.StatusServiceUnavailable || !strings.Contains(body, fmt.Sprintf("%d MCP sessions", max)) {
		t.Fatalf("initialize past the bound: %d %s, want 503 naming the bound", status, body)
	}
	// Legacy SSE sessions count too.
	resp := e.get("/sse")
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("GET /sse past the bound: %d, want 503", resp.StatusCode)
	}
	resp.Body.Close()
	// A live session still answers.
	if reply := e.rawCall(live[0], "list_memory_blocks", `{"agent_id":"a"}`); !strings.Contains(reply, `"result"`) {
		t.Errorf("live session: %s", reply)
	}

	// Idle, they are closed: their IDs are unknown, the bound is free
	// again, and their goroutines are gone.
	time.Sleep(timeout + timeout/2)
	r := e.post("/mcp", `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`, "Mcp-Session-Id", live[1])
	if r.StatusCode != http.StatusNotFound {
		t.Errorf("idle session after the timeout: %d, want 404", r.StatusCode)
	}
	for i := range max {
		if status, _, body := e.initSession(); status != http.StatusOK {
			t.Fatalf("initialize %d after the timeout: %d %s", i, status, body)
		}
	}
	time.Sleep(timeout + timeout/2)
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > base+10 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > base+10 {
		t.Errorf("%d goroutines after every session timed out, %d before", n, base)
	}
}

// get sends a GET to path and returns the response; the caller closes its
// body.
func (e *env) get(path string) *http.Response {
	e.t.Helper()
	req, err := http.NewRequest(http.MethodGet, e.http.URL+path, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	return resp
}
