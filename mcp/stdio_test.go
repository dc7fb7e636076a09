package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
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

// TestStdioSurvivesBadLines: a line that is not JSON, is not a JSON-RPC
// message, nests too deep, is too long or is a batch gets a JSON-RPC
// error reply (parse error -32700, invalid request -32600), and the
// server goes on answering the next request.
func TestStdioSurvivesBadLines(t *testing.T) {
	e := newEnv(t, func(c *mcp.Config) { c.MaxBodyBytes = 1 << 20 })
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.server.ServeStdio(ctx, inR, outW) }()
	defer func() {
		cancel()
		inW.Close()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("ServeStdio: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("ServeStdio did not return")
		}
	}()
	replies := bufio.NewScanner(outR)
	replies.Buffer(nil, 8<<20)
	send := func(line string) {
		t.Helper()
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatalf("write: %v", err)
		}
	}
	next := func() map[string]any {
		t.Helper()
		got := make(chan map[string]any, 1)
		go func() {
			var m map[string]any
			if replies.Scan() {
				json.Unmarshal(replies.Bytes(), &m)
			}
			got <- m
		}()
		select {
		case m := <-got:
			return m
		case <-time.After(20 * time.Second):
			t.Fatal("no reply")
			return nil
		}
	}
	send(initialize)
	if r := next(); r["result"] == nil {
		t.Fatalf("initialize: %v", r)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	tests := []struct {
		name, line string
		code       float64
		id         any
	}{
		{"not JSON", "hello there", -32700, nil},
		{"cut JSON", `{"jsonrpc":"2.0","id":7,"method":`, -32700, nil},
		{"not JSON-RPC", `{"hello":1}`, -32600, nil},
		{"wrong version", `{"jsonrpc":"1.0","id":8,"method":"ping"}`, -32600, float64(8)},
		{"nested 100000 deep", strings.Repeat("[", 100000), -32700, nil},
		{"longer than the limit", `{"jsonrpc":"2.0","id":9,"method":"ping","params":{"x":"` + strings.Repeat("x", 2<<20) + `"}}`, -32600, nil},
		{"a batch", `[{"jsonrpc":"2.0","id":10,"method":"ping"},{"jsonrpc":"2.0","id":11,"method":"ping"}]`, -32600, nil},
		{"a number", `42`, -32600, nil},
	}
	for i, tt := range tests {
		send(tt.line)
		r := next()
		errObj, _ := r["error"].(map[string]any)
		if errObj == nil || errObj["code"] != tt.code || r["id"] != tt.id || r["jsonrpc"] != "2.0" {
			t.Errorf("%s: reply %v, want error %v with id %v", tt.name, r, tt.code, tt.id)
		}
		// The server goes on.
		id := 100 + i
		send(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"name":"list_memory_blocks","arguments":{"agent_id":"a"}}}`)
		if r := next(); r["id"] != float64(id) || r["result"] == nil {
			t.Fatalf("after %s: reply %v, want the call answered", tt.name, r)
		}
	}
}
