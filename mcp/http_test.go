package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/mcp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestAuth(t *testing.T) {
	const token = "s3cret-token"
	logger, logs := newTestLogger()
	e := newEnv(t, func(c *mcp.Config) { c.AuthToken = token; c.Logger = logger })

	for _, path := range []string{"/mcp", "/sse?sessionid=x", "/messages?sessionId=x"} {
		for _, auth := range []string{"", "Bearer wrong", "Basic " + token, "Bearer " + token + "x", "Bearer"} {
			resp := e.post(path, initialize, "Authorization", auth)
			if resp.StatusCode != http.StatusUnauthorized {
				t.Errorf("POST %s with %q: %d, want 401", path, auth, resp.StatusCode)
			}
			if !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("POST %s: no WWW-Authenticate challenge", path)
			}
		}
	}
	resp, err := http.Get(e.http.URL + "/sse")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("GET /sse without a token: %d", resp.StatusCode)
	}

	// The SDK's own clients: refused without the token, served with it.
	for _, tr := range []string{"streamable", "sse"} {
		var transport sdk.Transport = &sdk.StreamableClientTransport{Endpoint: e.http.URL + "/mcp", MaxRetries: -1}
		if tr == "sse" {
			transport = &sdk.SSEClientTransport{Endpoint: e.http.URL + "/sse"}
		}
		if _, err := e.client(transport); err == nil {
			t.Errorf("%s: connected without a token", tr)
		}
		cs := e.connect(tr, "Authorization", "Bearer "+token)
		ok(t, cs, "store_memory", map[string]any{"agent_id": "a", "content": "authorized via " + tr})
	}
	// /health stays open.
	if resp, err := http.Get(e.http.URL + "/health"); err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("/health with auth on: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	if strings.Contains(logs.String(), token) {
		t.Errorf("the token is logged: %s", logs.String())
	}
}

func TestOrigin(t *testing.T) {
	e := newEnv(t, func(c *mcp.Config) { c.AllowedOrigins = []string{"https://App.Example.com/"} })
	tests := []struct {
		origin string
		want   bool
	}{
		{"", true},
		{"http://localhost:5173", true},
		{"http://127.0.0.1:3000", true},
		{"http://[::1]:8080", true},
		{"https://localhost", true},
		{"https://app.example.com", true},
		{"https://app.example.com:443", true},
		{"http://app.example.com", false},
		{"https://evil.example", false},
		{"http://localhost.evil.example", false},
		{"http://127.0.0.1.nip.io", false},
		{"null", false},
		{"file://", false},
	}
	for _, tt := range tests {
		resp := e.post("/mcp", initialize, "Origin", tt.origin)
		if got := resp.StatusCode != http.StatusForbidden; got != tt.want {
			t.Errorf("Origin %q: status %d, allowed %v, want %v", tt.origin, resp.StatusCode, got, tt.want)
		}
		if tt.want && resp.StatusCode != http.StatusOK {
			t.Errorf("Origin %q: status %d, want 200", tt.origin, resp.StatusCode)
		}
	}
	for _, path := range []string{"/sse", "/messages?sessionId=x"} {
		if resp := e.post(path, initialize, "Origin", "https://evil.example"); resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s with a bad origin: %d", path, resp.StatusCode)
		}
	}
	// The SDK's own check: a loopback server refuses a foreign Host.
	if resp := e.post("/mcp", initialize, "Host", "evil.example"); resp.StatusCode != http.StatusForbidden {
		t.Errorf("foreign Host: %d", resp.StatusCode)
	}
}

func TestBodyLimit(t *testing.T) {
	e := newEnv(t, func(c *mcp.Config) { c.MaxBodyBytes = 64 << 10 })
	big := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat("a", 70<<10) + `"}}`
	for _, path := range []string{"/mcp", "/sse?sessionid=x", "/messages?sessionId=x"} {
		if resp := e.post(path, big); resp.StatusCode != http.StatusRequestEntityTooLarge {
			t.Errorf("POST %s, 70 KB: %d, want 413", path, resp.StatusCode)
		}
	}
	// Without a Content-Length (chunked), the limit still holds.
	req, _ := http.NewRequest(http.MethodPost, e.http.URL+"/mcp", io.MultiReader(strings.NewReader(big)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if req.ContentLength != 0 || resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("chunked 70 KB: %d (content length %d), want 413", resp.StatusCode, req.ContentLength)
	}
	// A call just under the limit goes through.
	cs := e.connect("streamable")
	ok(t, cs, "store_memory", map[string]any{"agent_id": "a", "content": strings.Repeat("word ", 10_000)})
}

func TestDefaultBodyLimit(t *testing.T) {
	e := newEnv(t)
	big := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat("a", 4<<20) + `"}}`
	if resp := e.post("/mcp", big); resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("POST /mcp, 4 MB: %d, want 413", resp.StatusCode)
	}
}

func TestHealth(t *testing.T) {
	e := newEnv(t)
	get := func() (int, map[string]string) {
		resp, err := http.Get(e.http.URL + "/health")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("Content-Type %q", ct)
		}
		var body map[string]string
		if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, body
	}
	code, body := get()
	if code != http.StatusOK || body["status"] != "ok" || body["db"] != "ok" || body["version"] != "1.2.3-test" || body["decay_model"] != "hippo" {
		t.Errorf("health = %d %v", code, body)
	}
	e.db.Close()
	code, body = get()
	if code != http.StatusServiceUnavailable || body["status"] != "error" || body["db"] != "error" {
		t.Errorf("health with the database closed = %d %v", code, body)
	}
}

// sseStream is a raw client of the legacy SSE transport.
type sseStream struct {
	t      *testing.T
	events chan [2]string // name, data
}

func openSSE(t *testing.T, url string) *sseStream {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("GET /sse: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	s := &sseStream{t: t, events: make(chan [2]string, 16)}
	go func() {
		defer resp.Body.Close()
		defer close(s.events)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 8<<20)
		var name, data string
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event:"):
				name = strings.TrimSpace(line[len("event:"):])
			case strings.HasPrefix(line, "data:"):
				data += strings.TrimPrefix(line[len("data:"):], " ")
			case line == "":
				if name != "" || data != "" {
					s.events <- [2]string{name, data}
				}
				name, data = "", ""
			}
		}
	}()
	return s
}

func (s *sseStream) next(timeout time.Duration) (name, data string) {
	s.t.Helper()
	select {
	case ev, ok := <-s.events:
		if !ok {
			s.t.Fatal("SSE stream ended")
		}
		return ev[0], ev[1]
	case <-time.After(timeout):
		s.t.Fatal("no SSE event")
	}
	return "", ""
}

// TestLegacyMessages speaks seed 002's SSE protocol by hand: GET /sse,
// then POST /messages?sessionId=<id>, replies arriving on the stream.
func TestLegacyMessages(t *testing.T) {
	e := newEnv(t)
	s := openSSE(t, e.http.URL+"/sse")
	name, endpoint := s.next(5 * time.Second)
	if name != "endpoint" || !strings.HasPrefix(endpoint, "/messages?sessionId=") {
		t.Fatalf("first event %q %q", name, endpoint)
	}
	id := strings.TrimPrefix(endpoint, "/messages?sessionId=")

	send := func(path, body string) {
		t.Helper()
		if resp := e.post(path, body); resp.StatusCode != http.StatusAccepted {
			b, _ := io.ReadAll(resp.Body)
			t.Fatalf("POST %s: %d %s", path, resp.StatusCode, b)
		}
	}
	reply := func(wantID int) map[string]any {
		t.Helper()
		name, data := s.next(10 * time.Second)
		var msg map[string]any
		if err := json.Unmarshal([]byte(data), &msg); err != nil || name != "message" {
			t.Fatalf("event %q %q", name, data)
		}
		if msg["id"] != float64(wantID) || msg["error"] != nil {
			t.Fatalf("reply %s, want a result for id %d", data, wantID)
		}
		return msg["result"].(map[string]any)
	}

	send(endpoint, initialize)
	initResult := reply(1)
	if info := initResult["serverInfo"].(map[string]any); info["name"] != "hippo" || info["version"] != "1.2.3-test" {
		t.Errorf("serverInfo = %v", info)
	}
	if caps, _ := json.Marshal(initResult["capabilities"]); string(caps) != `{"tools":{}}` {
		t.Errorf("capabilities = %s, want tools only, no list changes", caps)
	}
	send("/messages?sessionId="+id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send("/messages?sessionId="+id, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"store_memory","arguments":{"agent_id":"legacy","content":"Seed clients still work"}}}`)
	res := reply(2)
	if res["isError"] == true || res["structuredContent"].(map[string]any)["duplicate"] != false {
		t.Errorf("store via /messages: %v", res)
	}
	// POST /sse?sessionid=, where the SDK's own SSE handler takes
	// messages, works on the same session.
	send("/sse?sessionid="+id, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"recall_memories","arguments":{"agent_id":"legacy","query":"Seed clients still work"}}}`)
	res = reply(3)
	content := res["content"].([]any)[0].(map[string]any)["text"].(string)
	if !strings.Contains(content, "Seed clients still work") {
		t.Errorf("recall via /sse: %v", res)
	}
	// An error result, not a protocol error.
	send("/messages?sessionId="+id, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"recall_memories","arguments":{"query":"x"}}}`)
	if res := reply(4); res["isError"] != true {
		t.Errorf("missing agent_id: %v", res)
	}

	for _, tt := range []struct {
		path string
		code int
	}{
		{"/messages", http.StatusBadRequest},
		{"/messages?sessionId=nope", http.StatusNotFound},
	} {
		if resp := e.post(tt.path, initialize); resp.StatusCode != tt.code {
			t.Errorf("POST %s: %d, want %d", tt.path, resp.StatusCode, tt.code)
		}
	}
	resp, err := http.Get(e.http.URL + "/messages?sessionId=" + id)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET /messages: %d", resp.StatusCode)
	}
}

// TestManySSEClients is the reference's crash: several SSE clients at once.
func TestManySSEClients(t *testing.T) {
	e := newEnv(t)
	var sessions []*sdk.ClientSession
	for i := range 5 {
		cs := e.connect("sse")
		ok(t, cs, "store_memory", map[string]any{"agent_id": "shared", "content": fmt.Sprintf("note number %d from an SSE client", i)})
		sessions = append(sessions, cs)
	}
	for _, cs := range sessions {
		if got := recalled(t, cs, map[string]any{"agent_id": "shared", "query": "note from an SSE client"}); len(got) != 5 {
			t.Errorf("recall = %v", got)
		}
	}
}

// unavailableStore is a store whose Ping reports that it cannot serve
// every call (a full disk, a damaged file).
type unavailableStore struct {
	testStore
	err error
}

func (s unavailableStore) Ping(context.Context) error { return s.err }

// TestHealthUnavailable: /health reports a store that answers but cannot
// serve every call (its disk full) as not ok, saying why.
func TestHealthUnavailable(t *testing.T) {
	full := &hippo.Error{Code: hippo.EUNAVAILABLE, Message: "the disk holding the database is full: reads answer, writes fail"}
	e := newEnv(t, func(c *mcp.Config) { c.DB = unavailableStore{c.DB.(testStore), full} })
	resp, err := http.Get(e.http.URL + "/health")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body map[string]string
	json.NewDecoder(resp.Body).Decode(&body)
	if resp.StatusCode != http.StatusServiceUnavailable || body["status"] != "error" || body["db"] != "unavailable" ||
		!strings.Contains(body["error"], "disk") {
		t.Errorf("health on a full disk = %d %v", resp.StatusCode, body)
	}
}

// TestIsListen: a body is a subscriptions/listen request whether the
// method's name is written plainly or with escapes, and a tool call is
// not one whatever its arguments hold.
func TestIsListen(t *testing.T) {
	for _, tc := range []struct {
		body string
		want bool
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen"}`, true},
		{`{"jsonrpc":"2.0","id":1,"method":"subscriptions\/listen"}`, true},
		{`{"jsonrpc":"2.0","id":1,"method":"\u0073ubscriptions/listen"}`, true},
		{`{"jsonrpc":"2.0","id":1,"METHOD":"subscriptions/listen"}`, true}, // encoding/json matches keys in any case
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"store_memory","arguments":{"content":"a note"}}}`, false},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{"content":"subscriptions/listen"}}}`, false},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{"content":"line\nline"}}}`, false},
		{`{"method":"subscriptions/listen"`, false},
		{``, false},
	} {
		if got := mcp.IsListen([]byte(tc.body)); got != tc.want {
			t.Errorf("isListen(%s) = %v, want %v", tc.body, got, tc.want)
		}
	}
}
