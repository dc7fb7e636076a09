package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestServeStdio drives `hippo serve --transport stdio` with the MCP SDK's
// own client, on the offline defaults.
func TestServeStdio(t *testing.T) {
	c := newCLI(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.Command(hippoBin, "serve", "--transport", "stdio")
	cmd.Env = c.env
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	session, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()

	tools, err := session.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	for _, want := range []string{"remember_facts", "store_memory", "recall_memories", "forget_memory",
		"recall_memory_block", "replace_memory_block", "append_memory_block"} {
		if !strings.Contains(strings.Join(names, " "), want) {
			t.Errorf("tool %s missing from %v", want, names)
		}
	}
	call := func(name string, args map[string]any) (*sdk.CallToolResult, string) {
		t.Helper()
		res, err := session.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var text strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*sdk.TextContent); ok {
				text.WriteString(tc.Text)
			}
		}
		return res, text.String()
	}
	if res, text := call("store_memory", map[string]any{"agent_id": "claude", "content": "the staging database is on port 5433"}); res.IsError {
		t.Fatalf("store: %s", text)
	}
	res, text := call("recall_memories", map[string]any{"agent_id": "claude", "query": "which port does staging use"})
	if res.IsError || !strings.Contains(text, "5433") {
		t.Fatalf("recall: %s", text)
	}
	if res, text := call("recall_memories", map[string]any{"agent_id": "someone-else", "query": "which port does staging use"}); res.IsError || strings.Contains(text, "5433") {
		t.Fatalf("another agent recalled it: %s", text)
	}
	if res, text := call("forget_memory", map[string]any{"agent_id": "claude", "description": "staging database port"}); res.IsError || !strings.Contains(text, "1") {
		t.Fatalf("forget: %s", text)
	}
	if res, _ := call("recall_memories", map[string]any{"agent_id": "claude", "query": "x", "limit": 0}); !res.IsError {
		t.Error("limit 0 was accepted")
	}
	if res, text := call("recall_memory_block", map[string]any{"agent_id": "claude", "key": "persona"}); res.IsError {
		t.Errorf("missing block is an error: %s", text)
	}
}

// TestServeHTTP starts the HTTP server on a free port and checks /health
// and the bearer token.
func TestServeHTTP(t *testing.T) {
	c := newCLI(t)
	cmd := exec.Command(hippoBin, "serve", "--addr", "127.0.0.1:0", "--auth-token", "s3cret")
	cmd.Env = c.env
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("serve did not shut down cleanly: %v", err)
			}
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			t.Error("serve did not stop on SIGINT")
		}
	}()
	urlRe := regexp.MustCompile(`http://127\.0\.0\.1:\d+`)
	sc := bufio.NewScanner(stderr)
	var base, signIn string
	var logs strings.Builder
	for sc.Scan() {
		logs.WriteString(sc.Text() + "\n")
		if m := urlRe.FindString(sc.Text()); m != "" && base == "" {
			base = m
		}
		if link, ok := strings.CutPrefix(sc.Text(), "Web UI: "); ok {
			signIn = link
			break
		}
	}
	go io.Copy(io.Discard, stderr)
	if base == "" {
		t.Fatalf("no URL printed:\n%s", logs.String())
	}
	if strings.Contains(logs.String(), "s3cret") {
		t.Error("the auth token was logged")
	}
	resp, err := http.Get(base + "/health")
	if err != nil {
		t.Fatal(err)
	}
	var health map[string]any
	json.NewDecoder(resp.Body).Decode(&health)
	resp.Body.Close()
	if health["status"] != "ok" {
		t.Errorf("health = %v", health)
	}
	resp, err = http.Post(base+"/mcp", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("/mcp without token = %d, want 401", resp.StatusCode)
	}
	// /metrics: behind the token, with the database's size.
	req, _ := http.NewRequest(http.MethodGet, base+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer s3cret")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !regexp.MustCompile(`(?m)^hippo_database_bytes [1-9]`).Match(body) {
		t.Errorf("/metrics = %d:\n%s", resp.StatusCode, body)
	}
	if resp, err = http.Get(base + "/metrics"); err == nil {
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("/metrics without token = %d, want 401", resp.StatusCode)
		}
	}

	// The web UI: signed out it asks for the token; the printed link signs
	// in once.
	if !strings.HasPrefix(signIn, base+"/ui/login?code=") {
		t.Fatalf("sign-in link %q, want %s/ui/login?code=…", signIn, base)
	}
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar}
	for _, u := range []string{base + "/ui/", signIn} {
		resp, err := browser.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		signedIn := u == signIn
		if resp.StatusCode != http.StatusOK || strings.Contains(string(body), `name="token"`) == signedIn {
			t.Errorf("GET %s: status %d, signed in %v:\n%.300s", u, resp.StatusCode, signedIn, body)
		}
	}
	req, _ = http.NewRequest("GET", base+"/ui/", nil)
	req.Host = "rebound.example"
	if resp, err := browser.Do(req); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("UI with a foreign Host = %v, %v: want 403", resp, err)
	}
}

// TestServeFlagErrors: out-of-range serve flags are usage errors given
// before anything is opened or created; pprof only on loopback.
func TestServeFlagErrors(t *testing.T) {
	c := newCLI(t)
	for _, tt := range []struct{ args, want string }{
		{"--embed-window -1ms", "--embed-window must be between 0 (off) and 1s"},
		{"--embed-window 2s", "--embed-window must be between 0 (off) and 1s"},
		{"--log-format xml", `--log-format must be text or json, got "xml"`},
		{"--pprof 0.0.0.0:6060", "--pprof must be a loopback address"},
		{"--pprof nonsense", `--pprof "nonsense"`},
		{"--index-memory lots", `--index-memory must be a size such as 256MB or 2GiB, auto (a quarter of the memory), or 0 (no bound), got "lots"`},
	} {
		r := c.run(append([]string{"serve"}, strings.Fields(tt.args)...)...)
		if r.code != 2 || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("serve %s: %s\nwant exit 2 and %q", tt.args, r, tt.want)
		}
	}
	if _, err := os.Stat(c.db); !os.IsNotExist(err) {
		t.Errorf("a refused serve left a database behind: %v", err)
	}
}

// TestAutoIndexMemory checks --index-memory auto: a quarter of the smaller
// of the machine's memory and the cgroup's limit, no bound when neither
// is known.
func TestAutoIndexMemory(t *testing.T) {
	const meminfo = "MemTotal:       24684084 kB\nMemFree:        19461000 kB\n"
	tests := []struct {
		name, meminfo, cgroup string
		want                  int64
	}{
		{"machine", meminfo, "", 24684084 << 10 / 4},
		{"unlimited cgroup", meminfo, "max\n", 24684084 << 10 / 4},
		{"cgroup below the machine", meminfo, "2147483648\n", 512 << 20},
		{"cgroup above the machine", meminfo, "107374182400\n", 24684084 << 10 / 4},
		{"cgroup only", "", "1073741824", 256 << 20},
		{"nothing known", "", "", 0},
		{"garbage", "MemTotal: lots kB", "nope", 0},
	}
	for _, tt := range tests {
		if got := autoIndexMemory(tt.meminfo, tt.cgroup); got != tt.want {
			t.Errorf("%s: autoIndexMemory = %d, want %d", tt.name, got, tt.want)
		}
	}
}
