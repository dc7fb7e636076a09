package mcp_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
)

// TestTypeScriptClient runs testdata/tsclient/calls.mjs: the official
// TypeScript MCP client calls every tool of the TypeScript Hippo's MCP
// server with that server's argument names, over SSE (the transport the
// TypeScript Hippo serves) and Streamable HTTP, then every tool of
// Hippo's own. Node and npm are required when CI is set; elsewhere the
// test is skipped without them.
func TestTypeScriptClient(t *testing.T) {
	node, dir, script := tsClient(t)
	for _, transport := range []string{"sse", "streamable"} {
		t.Run(transport, func(t *testing.T) {
			e := newEnv(t)
			e.ai.Reply(`{"facts":[{"fact":"User lives in Berlin","intensity":0.6}]}`)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, node, script, transport, e.http.URL)
			cmd.Dir = dir
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("node %s %s: %v\n%s", filepath.Base(script), transport, err, out)
			}
			if !strings.Contains(string(out), " passed, 0 failed") {
				t.Fatalf("no summary line in the output:\n%s", out)
			}
			t.Logf("%s", out)

			// The calls reached the server: remember_facts asked the LLM,
			// and the agent the script named has the memory it stored
			// last and no block left.
			if _, chats := e.ai.Counts(); chats == 0 {
				t.Error("remember_facts did not reach the LLM")
			}
			mem, err := e.db.Service(hippo.MemoryOptions{AgentID: "ts-agent", Embedder: stubEmbedder{}})
			if err != nil {
				t.Fatal(err)
			}
			if blocks, err := mem.Blocks(context.Background()); err != nil || len(blocks) != 0 {
				t.Errorf("blocks after delete_memory_block: %+v, %v", blocks, err)
			}
		})
	}
}

// tsClient returns node's path, a directory holding the client's npm
// dependencies, installed once per version of package-lock.json in the
// user's cache directory, and the path of calls.mjs copied beside them
// (ES modules resolve packages from their own location).
func tsClient(t *testing.T) (node, dir, script string) {
	t.Helper()
	node, errNode := exec.LookPath("node")
	npm, errNpm := exec.LookPath("npm")
	if err := errors.Join(errNode, errNpm); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("the TypeScript client test needs node and npm, which CI must have: %v", err)
		}
		t.Skipf("node or npm not found (%v); CI runs this test", err)
	}
	const src = "testdata/tsclient"
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	pkg, lock, calls := read("package.json"), read("package-lock.json"), read("calls.mjs")
	sum := func(parts ...[]byte) string {
		h := sha256.New()
		for _, p := range parts {
			h.Write(p)
		}
		return hex.EncodeToString(h.Sum(nil))[:16]
	}

	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	root := filepath.Join(cache, "hippo", "tsclient")
	dir = filepath.Join(root, sum(pkg, lock))
	if _, err := os.Stat(filepath.Join(dir, "node_modules", ".package-lock.json")); errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(root, 0o755); err != nil {
			t.Fatal(err)
		}
		tmp, err := os.MkdirTemp(root, "install-")
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(tmp)
		for name, b := range map[string][]byte{"package.json": pkg, "package-lock.json": lock} {
			if err := os.WriteFile(filepath.Join(tmp, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund")
		cmd.Dir = tmp
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("npm ci in a copy of %s: %v\n%s", src, err, out)
		}
		// Another test process may have installed it meanwhile: either
		// copy will do.
		if err := os.Rename(tmp, dir); err != nil {
			if _, statErr := os.Stat(dir); statErr != nil {
				t.Fatal(err)
			}
		}
	} else if err != nil {
		t.Fatal(err)
	}

	script = filepath.Join(dir, "calls-"+sum(calls)+".mjs")
	if _, err := os.Stat(script); err != nil {
		tmp := script + ".tmp-" + sum([]byte(t.Name()), []byte(time.Now().String()))
		if err := os.WriteFile(tmp, calls, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, script); err != nil {
			t.Fatal(err)
		}
	}
	return node, dir, script
}
