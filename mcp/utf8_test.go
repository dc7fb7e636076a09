package mcp_test

import (
	"bufio"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/hippo-mem/hippo"
)

// rawSession initializes a Streamable HTTP session with raw JSON-RPC and
// returns its ID.
func (e *env) rawSession() string {
	e.t.Helper()
	resp := e.post("/mcp", initialize)
	id := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || id == "" {
		e.t.Fatalf("initialize: %d, session %q", resp.StatusCode, id)
	}
	e.post("/mcp", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, "Mcp-Session-Id", id)
	return id
}

// rawCall calls a tool with arguments given as raw JSON bytes, which may
// hold anything (a Go client would turn invalid UTF-8 into U+FFFD before
// sending it), and returns the reply.
func (e *env) rawCall(session, tool, args string) string {
	e.t.Helper()
	resp := e.post("/mcp", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"`+tool+`","arguments":`+args+`}}`,
		"Mcp-Session-Id", session)
	if resp.StatusCode != http.StatusOK {
		e.t.Fatalf("tools/call: status %d", resp.StatusCode)
	}
	var out strings.Builder
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data:"); ok {
				out.WriteString(strings.TrimSpace(d))
			}
		}
	} else {
		io.Copy(&out, resp.Body)
	}
	return out.String()
}

// TestInvalidUTF8IDsRefused: encoding/json turns invalid UTF-8 and escaped
// lone surrogates into U+FFFD, so that different byte strings would become
// one agent. agent_id and scope that are not valid UTF-8 are refused, as
// the CLI refuses them, and nothing is stored.
func TestInvalidUTF8IDsRefused(t *testing.T) {
	e := newEnv(t)
	session := e.rawSession()
	tests := []struct {
		name, args, field string
	}{
		{"agent_id with byte 0xff", "{\"agent_id\":\"al\xffce\",\"content\":\"a note\"}", "agent_id"},
		{"agent_id with byte 0xfe", "{\"agent_id\":\"al\xfece\",\"content\":\"a note\"}", "agent_id"},
		{"agent_id cut in a rune", "{\"agent_id\":\"caf\xc3\",\"content\":\"a note\"}", "agent_id"},
		{"agent_id with a lone low surrogate", `{"agent_id":"al\udc00ce","content":"a note"}`, "agent_id"},
		{"agent_id with a lone high surrogate", `{"agent_id":"al\ud800ce","content":"a note"}`, "agent_id"},
		{"agent_id with a reversed pair", `{"agent_id":"al\udc00\ud800","content":"a note"}`, "agent_id"},
		{"scope with byte 0xff", "{\"agent_id\":\"alice\",\"scope\":\"w\xffrk\",\"content\":\"a note\"}", "scope"},
		{"scope with a lone surrogate", `{"agent_id":"alice","scope":"w\udfffrk","content":"a note"}`, "scope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reply := e.rawCall(session, "store_memory", tt.args)
			if !strings.Contains(reply, `"isError":true`) || !strings.Contains(reply, tt.field+": is not valid UTF-8") {
				t.Errorf("reply %s, want an error naming %s as not valid UTF-8", reply, tt.field)
			}
		})
	}
	n, err := e.db.CountChunks(t.Context(), hippo.ChunkFilter{Superseded: true})
	if err != nil || n != 0 {
		t.Errorf("%d chunks stored by refused calls (%v)", n, err)
	}

	// Valid text still passes, escaped or not, U+FFFD itself included.
	for _, args := range []string{
		`{"agent_id":"al\u00efce","content":"a note"}`,
		`{"agent_id":"\ud83e\udd9b hippo","content":"a note"}`,
		"{\"agent_id\":\"\xef\xbf\xbd\",\"content\":\"a note\"}",
		`{"agent_id":"\ufffd","scope":"a\\udc00","content":"a note"}`,
	} {
		if reply := e.rawCall(session, "store_memory", args); strings.Contains(reply, `"isError":true`) {
			t.Errorf("%s: %s", args, reply)
		}
	}
}
