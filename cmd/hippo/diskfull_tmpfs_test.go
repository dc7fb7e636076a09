package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestServeDiskFullTmpfs: `hippo serve` with its database on a 16 MB
// tmpfs that is then filled up keeps recall_memories answering, refuses
// store_memory with an error saying the disk is full, says so at
// /health, and loses nothing: once space is freed every stored memory is
// there and a store works again. It needs the right to mount a tmpfs
// (root) and is skipped without it.
func TestServeDiskFullTmpfs(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("mounts a tmpfs")
	}
	c := newCLI(t)
	mnt := filepath.Join(c.dir, "tmpfs")
	if err := os.Mkdir(mnt, 0o700); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs (%v): %s", err, strings.TrimSpace(string(out)))
	}
	// Registered before the server's cleanup, so it runs after the
	// server has stopped.
	t.Cleanup(func() {
		if out, err := exec.Command("umount", mnt).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", mnt, err, out)
		}
	})
	c.db = filepath.Join(mnt, "hippo.db")
	c.env = cleanEnv(c.dir, c.db)

	lines, _ := serveCmd(t, c, "--db", c.db)
	base := regexp.MustCompile(`http://127\.0\.0\.1:\d+`).FindString(strings.Join(lines, "\n"))
	if base == "" {
		t.Fatalf("no URL printed:\n%s", strings.Join(lines, "\n"))
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "diskfull-test", Version: "0"}, nil).
		Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: base + "/mcp", MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	tool := func(name string, args map[string]any) (*sdk.CallToolResult, string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return res, toolText(res)
	}
	stored := map[string]bool{} // the IDs of the memories stored
	store := func(content string) (res *sdk.CallToolResult, text, id string) {
		t.Helper()
		res, text = tool("store_memory", map[string]any{"agent_id": "a", "content": content})
		if !res.IsError {
			var out struct {
				Memory struct {
					ID string `json:"id"`
				} `json:"memory"`
			}
			if err := remarshal(res.StructuredContent, &out); err != nil || out.Memory.ID == "" {
				t.Fatalf("store_memory: no id in %v (%v)", res.StructuredContent, err)
			}
			id = out.Memory.ID
			stored[id] = true
		}
		return res, text, id
	}
	health := func() (int, map[string]string) {
		t.Helper()
		resp, err := http.Get(base + "/health")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body map[string]string
		json.NewDecoder(resp.Body).Decode(&body)
		return resp.StatusCode, body
	}

	notes := []string{
		"the staging database listens on port 5433",
		"the release train leaves every second Tuesday",
		"the garden needs watering before the trip to Lisbon",
	}
	ids := make([]string, len(notes))
	for i, n := range notes {
		res, text, id := store(n)
		if res.IsError {
			t.Fatalf("store_memory %q: %s", n, text)
		}
		ids[i] = id
	}

	// Fill the tmpfs to the last byte.
	filler := filepath.Join(mnt, "filler")
	f, err := os.Create(filler)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 1<<20)
	for _, size := range []int{1 << 20, 4096, 1} {
		for err == nil {
			_, err = f.Write(buf[:size])
		}
		if !errors.Is(err, syscall.ENOSPC) {
			f.Close()
			t.Fatalf("fill the tmpfs: %v, want ENOSPC", err)
		}
		err = nil
	}
	f.Close()

	// A store may still fit in room SQLite's files already hold; store
	// until one fails.
	var refused string
	for i := 0; refused == ""; i++ {
		if i == 300 {
			t.Fatal("300 stores succeeded on a full tmpfs")
		}
		if res, text, _ := store(fmt.Sprintf("filler note %d %s", i, strings.Repeat("x", 2000))); res.IsError {
			refused = text
		}
	}
	full := func(msg string) bool { return strings.Contains(msg, "disk") && strings.Contains(msg, "full") }
	if !full(refused) || !strings.Contains(refused, c.db) || strings.Contains(refused, "internal error") {
		t.Errorf("store_memory on a full disk: %q, want it to say the disk holding %s is full", refused, c.db)
	}
	if status, body := health(); status != http.StatusServiceUnavailable || body["db"] != "unavailable" || !full(body["error"]) {
		t.Errorf("/health on a full disk: %d %v, want 503 saying the disk is full", status, body)
	}

	// Recall answers, again and again (each boost needs room).
	for i := range 30 {
		n := i % len(notes)
		res, text := tool("recall_memories", map[string]any{"agent_id": "a", "query": notes[n], "min_relevance": 0, "limit": 5})
		if res.IsError || !strings.Contains(text, ids[n]) {
			t.Fatalf("recall_memories %d on a full disk: error %v, want %s in:\n%s", i, res.IsError, ids[n], text)
		}
	}
	if res, text := tool("get_context", map[string]any{"agent_id": "a", "query": notes[0]}); res.IsError {
		t.Errorf("get_context on a full disk: %s", text)
	}
	if res, text, _ := store("one more note on a full disk"); !res.IsError || !full(text) {
		t.Errorf("store_memory after the recalls on a full disk: error %v, %q", res.IsError, text)
	}

	// Free the space: nothing stored is lost, and writes work again.
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if res, text, _ := store("a note once space is freed"); res.IsError {
		t.Fatalf("store_memory once space is freed: %s", text)
	}
	if status, body := health(); status != http.StatusOK {
		t.Errorf("/health once space is freed: %d %v", status, body)
	}
	var list chunkList
	c.json(&list, "chunks", "a", "--limit", "0")
	have := map[string]bool{}
	for _, ch := range list.Chunks {
		have[ch.ID] = true
	}
	for id := range stored {
		if !have[id] {
			t.Errorf("memory %s stored, then missing", id)
		}
	}
	if len(list.Chunks) != len(stored) {
		t.Errorf("%d chunks, %d memories stored", len(list.Chunks), len(stored))
	}
	t.Logf("%d memories stored, %d of them once the tmpfs was filled", len(stored), len(stored)-len(notes)-1)
}
