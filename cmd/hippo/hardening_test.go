package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The adversarial pass's defects, checked against the built binary where
// the other tests check them in a package: invalid UTF-8 IDs over MCP,
// import limits and the files' modes. The rest of the binary checks are
// listed in docs/RELIABILITY.md.

// TestServeStdioInvalidUTF8 sends store_memory calls whose agent_id or
// scope is not valid UTF-8 (raw bytes or an escaped lone surrogate) to
// `hippo serve --transport stdio`: each is refused naming the field, the
// server goes on, and nothing is stored for any agent.
func TestServeStdioInvalidUTF8(t *testing.T) {
	c := newCLI(t)
	call := func(id int, args string) string {
		return `{"jsonrpc":"2.0","id":` + string(rune('0'+id)) + `,"method":"tools/call","params":{"name":"store_memory","arguments":` + args + `}}`
	}
	bad := []struct{ args, field string }{
		{"{\"agent_id\":\"al\xffce\",\"content\":\"a note\"}", "agent_id"},
		{`{"agent_id":"al\udc00ce","content":"a note"}`, "agent_id"},
		{"{\"agent_id\":\"alice\",\"scope\":\"w\xc3\",\"content\":\"a note\"}", "scope"},
	}
	lines := []string{
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	}
	for i, b := range bad {
		lines = append(lines, call(i+1, b.args))
	}
	cmd := exec.Command(hippoBin, "serve", "--transport", "stdio")
	cmd.Env = c.env
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go io.WriteString(stdin, strings.Join(lines, "\n")+"\n")
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 1<<20)
	var replies []string
	for len(replies) < 1+len(bad) && sc.Scan() {
		replies = append(replies, sc.Text())
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Errorf("serve --transport stdio: %v", err)
	}
	if len(replies) != 1+len(bad) {
		t.Fatalf("%d replies, want %d:\n%s", len(replies), 1+len(bad), strings.Join(replies, "\n"))
	}
	// The server answers calls concurrently, so replies are matched by id.
	byID := map[int]string{}
	for _, r := range replies {
		var head struct{ ID int }
		if err := json.Unmarshal([]byte(r), &head); err != nil {
			t.Fatalf("reply %s: %v", r, err)
		}
		byID[head.ID] = r
	}
	for i, b := range bad {
		reply := byID[i+1]
		if !strings.Contains(reply, `"isError":true`) || !strings.Contains(reply, b.field+": is not valid UTF-8") {
			t.Errorf("call %d: %s, want an error naming %s as not valid UTF-8", i+1, reply, b.field)
		}
	}
	var agents struct{ Agents []json.RawMessage }
	c.json(&agents, "agents")
	if len(agents.Agents) != 0 {
		t.Errorf("refused calls stored data for %d agents", len(agents.Agents))
	}
}

// TestImportLimitsCLI: `hippo import` of a file written by `hippo export`
// with one record past a tool's limit, or a content_hash that is not its
// content's, refuses the whole file naming the problem, and the database
// keeps what it had.
func TestImportLimitsCLI(t *testing.T) {
	src := newCLI(t)
	src.ok("store", "--agent", "alice", "I keep bees on the roof")
	src.ok("store", "--agent", "alice", "My sister lives in Lisbon")
	file := filepath.Join(src.dir, "export.json")
	src.ok("export", "-o", file)
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	dst := &cli{t: t, dir: dir, db: filepath.Join(dir, "hippo.db")}
	dst.env = cleanEnv(dir, dst.db)
	dst.ok("store", "--agent", "alice", "Already here")
	tests := []struct {
		name, want string
		edit       func(c map[string]any)
	}{
		{"10 MB memory", "at most 50000 characters", func(c map[string]any) { c["content"] = strings.Repeat("y", 10<<20) }},
		{"1 MB of metadata", "at most 16384 bytes", func(c map[string]any) {
			c["metadata"] = map[string]any{"note": strings.Repeat("m", 1<<20)}
		}},
		{"ID of 10,000 characters", "at most 128 characters", func(c map[string]any) { c["id"] = strings.Repeat("i", 10000) }},
		{"ID with markup", "letters, digits", func(c map[string]any) { c["id"] = "<script>alert(1)</script>" }},
		{"content_hash of other content", "content_hash", func(c map[string]any) {
			c["content_hash"] = strings.Repeat("ab", 32)
		}},
	}
	for i, tt := range tests {
		var d map[string]any
		json.Unmarshal(raw, &d) // a fresh copy of the export each time
		chunks := d["chunks"].([]any)
		tt.edit(chunks[len(chunks)-1].(map[string]any))
		b, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		bad := filepath.Join(dst.dir, "bad"+string(rune('a'+i))+".json")
		if err := os.WriteFile(bad, b, 0o600); err != nil {
			t.Fatal(err)
		}
		r := dst.run("import", bad)
		if r.code == 0 || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("%s: %s, want a refusal saying %q", tt.name, r, tt.want)
		}
		if len(r.stderr) > 2000 {
			t.Errorf("%s: the error quotes the input (%d bytes)", tt.name, len(r.stderr))
		}
	}
	var got chunkList
	dst.json(&got, "chunks", "alice")
	if len(got.Chunks) != 1 || got.Chunks[0].Content != "Already here" {
		t.Errorf("after refused imports the database holds %+v, want only what it had", got.Chunks)
	}
	// The export as written imports whole.
	dst.ok("import", file)
	got = chunkList{}
	dst.json(&got, "chunks", "alice")
	if len(got.Chunks) != 3 {
		t.Errorf("after the good import: %d chunks, want 3", len(got.Chunks))
	}
}

// TestFileModesCLI: with a permissive umask, a database that `hippo serve`
// creates in a new directory gets a 0700 directory and 0600 files, the
// write-ahead log and shared-memory files included, while it runs.
func TestFileModesCLI(t *testing.T) {
	c := newCLI(t)
	dir := filepath.Join(c.dir, "new", "data")
	c.db = filepath.Join(dir, "hippo.db")
	c.env = cleanEnv(c.dir, c.db)
	// The binary runs under sh with umask 000, so that only Hippo's own
	// modes can make the files private.
	sh := exec.Command("sh", "-c", `umask 000; exec "$0" serve --addr 127.0.0.1:0`, hippoBin)
	sh.Env = c.env
	stderr, err := sh.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := sh.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		sh.Process.Signal(os.Interrupt)
		done := make(chan error, 1)
		go func() { done <- sh.Wait() }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			sh.Process.Kill()
		}
	}()
	sc := bufio.NewScanner(stderr)
	for sc.Scan() && !strings.HasPrefix(sc.Text(), "Hippo MCP server on ") {
	}
	go io.Copy(io.Discard, stderr)

	check := func(path string, want os.FileMode) {
		t.Helper()
		fi, err := os.Stat(path)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			return
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", path, fi.Mode().Perm(), want)
		}
	}
	check(dir, 0o700)
	check(c.db, 0o600)
	check(c.db+"-wal", 0o600)
	check(c.db+"-shm", 0o600)
}
