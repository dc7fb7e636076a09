package main

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/sqlite"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMultiProcess runs 4 writer and 4 reader processes on one new
// database file at once, started together so that they also race to
// create it:
//
//	writers: 2 library processes (tools on the offline defaults), a
//	         stream of `hippo store` / `hippo remember` processes, and a
//	         `hippo serve` process driven over Streamable HTTP
//	readers: 2 library processes (recall, count, list, export), a stream
//	         of `hippo chunks|stats|search|recall|export` processes, and
//	         another `hippo serve` driven by recall_memories, get_context
//	         and list_memory_blocks
//
// Writers share an agent besides their own. No call may fail (SQLITE_BUSY
// included: busy_timeout must absorb every wait), readers must never see
// a count shrink, and at the end the stored chunks must be exactly the
// acknowledged ones, each memory seen as many times as it was stored.
//
// HIPPO_STRESS_SECONDS sets the duration (4 by default; the full run is 60).
func TestMultiProcess(t *testing.T) {
	t.Parallel()
	seconds := envInt("HIPPO_STRESS_SECONDS", 4)
	dir := t.TempDir()
	db := filepath.Join(dir, "shared.db")
	env := cleanEnv(dir, db)
	deadline := time.Now().Add(time.Duration(seconds) * time.Second)
	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 4))

	var (
		mu    sync.Mutex
		acks  []ack
		fails []string
		reads = map[string]*atomic.Int64{}
		wg    sync.WaitGroup
	)
	fail := func(who string, err error) {
		mu.Lock()
		defer mu.Unlock()
		msg := fmt.Sprintf("%s: %v", who, err)
		if isBusy(msg) {
			msg = "SQLITE_BUSY surfaced: " + msg
		}
		fails = append(fails, msg)
	}
	addAcks := func(a ...ack) {
		mu.Lock()
		acks = append(acks, a...)
		mu.Unlock()
	}
	counter := func(name string) *atomic.Int64 { // only before the goroutines start
		n := &atomic.Int64{}
		reads[name] = n
		return n
	}
	writeAgents := []string{"w-lib1", "w-lib2", "w-cli", "w-server"}
	allAgents := append(slices.Clone(writeAgents), "shared")

	// Library processes, two writers and two readers.
	for i, spec := range []struct{ mode, agents string }{
		{"writer", "w-lib1,shared"}, {"writer", "w-lib2,shared"},
		{"reader", strings.Join(allAgents, ",")}, {"reader", strings.Join(allAgents, ",")},
	} {
		name := fmt.Sprintf("library %s %d", spec.mode, i)
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(slices.Clone(env), helperEnv+"="+spec.mode, "HIPPO_AGENT="+spec.agents,
			"HIPPO_HELPER_SEED="+strconv.Itoa(i), "HIPPO_HELPER_SECONDS="+strconv.Itoa(seconds))
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		n := counter(name)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := cmd.Wait(); err != nil {
				fail(name, fmt.Errorf("%v: %s", err, stderr.String()))
				return
			}
			if spec.mode == "reader" {
				v, _ := strconv.Atoi(strings.TrimSpace(stdout.String()))
				n.Store(int64(v))
				return
			}
			got := make(chan ack, 1<<20)
			if err := readAcks(&stdout, got); err != nil {
				fail(name, err)
			}
			for a := range got {
				addAcks(a)
				n.Add(1)
			}
		}()
	}

	// The CLI writer and reader: one process after another.
	cliRun := func(args ...string) ([]byte, error) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, hippoBin, args...)
		cmd.Env = env
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("hippo %s: %v: %s", strings.Join(args, " "), err, stderr.String())
		}
		return stdout.Bytes(), nil
	}
	wg.Add(2)
	cliWrites, cliReads := counter("cli writer"), counter("cli reader")
	go func() {
		defer wg.Done()
		n := cliWrites
		for i := 0; time.Now().Before(deadline); i++ {
			agent := "w-cli"
			if i%4 == 3 {
				agent = "shared"
			}
			if i%3 == 2 {
				text := fmt.Sprintf("I live in %s.", helperPlaces[i%len(helperPlaces)])
				out, err := cliRun("remember", "--json", "--agent", agent, text)
				if err != nil {
					fail("cli writer", err)
					return
				}
				var res hippo.RememberResult
				if err := json.Unmarshal(out, &res); err != nil {
					fail("cli writer", err)
					return
				}
				for _, f := range res.Facts {
					addAcks(ack{Agent: agent, Op: "fact", ID: f.ChunkID, Content: f.Content, New: f.Action != hippo.ActionDuplicate})
				}
				if m := res.Message; m != nil { // the text, kept as a memory
					addAcks(ack{Agent: agent, Op: "memory", ID: m.ID, Hash: sqlite.ContentHash(text), New: m.New})
				}
			} else {
				content := fmt.Sprintf("cli note %d: %s", i, helperWords[i%len(helperWords)])
				out, err := cliRun("store", "--json", "--agent", agent, content)
				if err != nil {
					fail("cli writer", err)
					return
				}
				var v struct {
					Duplicate bool
					Chunk     struct{ ID string }
				}
				if err := json.Unmarshal(out, &v); err != nil {
					fail("cli writer", err)
					return
				}
				addAcks(ack{Agent: agent, Op: "memory", ID: v.Chunk.ID, Hash: sqlite.ContentHash(content), New: !v.Duplicate})
			}
			n.Add(1)
		}
	}()
	go func() {
		defer wg.Done()
		n := cliReads
		for !exists(db) {
			time.Sleep(20 * time.Millisecond)
		}
		last := map[string]int{}
		for i := 0; time.Now().Before(deadline); i++ {
			agent := allAgents[i%len(allAgents)]
			var args []string
			switch i % 5 {
			case 0:
				args = []string{"chunks", agent, "--json"}
			case 1:
				args = []string{"stats", "--json"}
			case 2:
				args = []string{"search", "note", "--json"}
			case 3:
				args = []string{"recall", "--agent", agent, "where does the user live", "--json"}
			case 4:
				args = []string{"export", agent}
			}
			out, err := cliRun(args...)
			if err != nil {
				fail("cli reader", err)
				return
			}
			if !json.Valid(out) {
				fail("cli reader", fmt.Errorf("hippo %v: output is not JSON: %.200s", args, out))
				return
			}
			if args[0] == "stats" {
				var s struct{ Chunks int }
				json.Unmarshal(out, &s)
				if s.Chunks < last["*"] {
					fail("cli reader", fmt.Errorf("stats: %d chunks after %d", s.Chunks, last["*"]))
				}
				last["*"] = s.Chunks
			}
			n.Add(1)
		}
	}()

	// Two servers: one takes writes, the other reads.
	for _, role := range []string{"writer", "reader"} {
		name := "server " + role
		base, stop, logs := startServer(t, env)
		n := counter(name)
		rr := rand.New(rand.NewPCG(r.Uint64(), 5))
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if err := stop(); err != nil {
					fail(name, err)
				}
				if l := logs(); strings.Contains(l, "tool call failed") || strings.Contains(l, "level=ERROR") {
					fail(name, fmt.Errorf("errors logged:\n%s", l))
				}
			}()
			ctx := context.Background()
			cs, err := sdk.NewClient(&sdk.Implementation{Name: "stress", Version: "0"}, nil).
				Connect(ctx, &sdk.StreamableClientTransport{Endpoint: base + "/mcp", MaxRetries: -1}, nil)
			if err != nil {
				fail(name, err)
				return
			}
			defer cs.Close()
			for i := 0; time.Now().Before(deadline); i++ {
				var tool string
				args := map[string]any{}
				if role == "writer" {
					args["agent_id"] = "w-server"
					if i%4 == 3 {
						args["agent_id"] = "shared"
					}
					if i%3 == 2 {
						tool, args["text"] = "remember_facts", helperFactText(rr)
					} else {
						tool, args["content"] = "store_memory", helperMemoryText(rr, i)
					}
				} else {
					args["agent_id"] = allAgents[i%len(allAgents)]
					switch i % 3 {
					case 0:
						tool, args["query"] = "recall_memories", helperFactText(rr)
					case 1:
						tool, args["query"] = "get_context", "what does the user love"
					case 2:
						tool = "list_memory_blocks"
					}
				}
				cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
				res, err := cs.CallTool(cctx, &sdk.CallToolParams{Name: tool, Arguments: args})
				cancel()
				if err == nil && res.IsError {
					err = fmt.Errorf("error result: %v", toolText(res))
				}
				if err != nil {
					fail(name, fmt.Errorf("%s: %w", tool, err))
					return
				}
				n.Add(1)
				agent := args["agent_id"].(string)
				switch tool {
				case "store_memory":
					var d struct {
						Duplicate bool `json:"duplicate"`
						Memory    struct {
							ID string `json:"id"`
						} `json:"memory"`
					}
					remarshal(res.StructuredContent, &d)
					addAcks(ack{Agent: agent, Op: "memory", ID: d.Memory.ID, Hash: sqlite.ContentHash(args["content"].(string)), New: !d.Duplicate})
				case "remember_facts":
					var d hippo.RememberResult
					remarshal(res.StructuredContent, &d)
					for _, f := range d.Facts {
						addAcks(ack{Agent: agent, Op: "fact", ID: f.ChunkID, Content: f.Content, New: f.Action != hippo.ActionDuplicate})
					}
					if m := d.Message; m != nil { // the text, kept as a memory
						addAcks(ack{Agent: agent, Op: "memory", ID: m.ID, Hash: sqlite.ContentHash(args["text"].(string)), New: m.New})
					}
				}
			}
		}()
	}
	wg.Wait()

	for _, f := range fails {
		t.Error(f)
	}
	if t.Failed() {
		return
	}

	// Reconcile: the stored chunks of the writers' agents are exactly the
	// acknowledged ones, and each memory was counted once per store.
	if err := checkAfterCrash(db, acks); err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open("sqlite", "file:"+db+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	type stored struct {
		kind       string
		encounters int
	}
	rows, err := raw.Query(`SELECT id, kind, encounter_count FROM chunks`)
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]stored{}
	for rows.Next() {
		var id string
		var s stored
		if err := rows.Scan(&id, &s.kind, &s.encounters); err != nil {
			t.Fatal(err)
		}
		have[id] = s
	}
	rows.Close()
	stores := map[string]int{}
	ids := map[string]bool{}
	var writes, memories, facts int
	for _, a := range acks {
		ids[a.ID] = true
		if a.Op == "memory" {
			stores[a.ID]++
			memories++
		} else {
			facts++
		}
		writes++
	}
	for id := range have {
		if !ids[id] {
			t.Errorf("chunk %s is stored but was never acknowledged", id)
		}
	}
	for id, n := range stores {
		if have[id].encounters != n {
			t.Errorf("memory %s: encounter_count %d, stored %d times", id, have[id].encounters, n)
		}
	}
	var summary []string
	for name, n := range reads {
		summary = append(summary, fmt.Sprintf("%s %d", name, n.Load()))
	}
	t.Logf("%d s: %d acknowledged writes (%d store_memory, %d facts) → %d chunks, all reconciled; calls per process: %s",
		seconds, writes, memories, facts, len(have), strings.Join(summary, ", "))
}

// startServer runs `hippo serve` on a free loopback port and returns its
// base URL, a function stopping it with SIGINT (an error unless it exits
// cleanly) and one returning its log.
func startServer(t *testing.T, env []string) (base string, stop func() error, logs func() string) {
	t.Helper()
	cmd := exec.Command(hippoBin, "serve", "--addr", "127.0.0.1:0")
	cmd.Env = env
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() }) // if the test stops early
	var (
		mu  sync.Mutex
		log strings.Builder
	)
	urlRe := regexp.MustCompile(`http://127\.0\.0\.1:\d+`)
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		log.WriteString(sc.Text() + "\n")
		if m := urlRe.FindString(sc.Text()); m != "" {
			base = m
			break
		}
	}
	if base == "" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("hippo serve printed no URL:\n%s", log.String())
	}
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			mu.Lock()
			log.WriteString(sc.Text() + "\n")
			mu.Unlock()
		}
		io.Copy(io.Discard, stderr)
	}()
	stop = func() error {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan error, 1)
		go func() { <-copied; done <- cmd.Wait() }()
		select {
		case err := <-done:
			return err
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			return fmt.Errorf("did not stop on SIGINT")
		}
	}
	logs = func() string {
		mu.Lock()
		defer mu.Unlock()
		return log.String()
	}
	return base, stop, logs
}

// isBusy reports whether an error message is SQLite's "database is
// locked" (SQLITE_BUSY) or its cousin SQLITE_LOCKED.
func isBusy(msg string) bool {
	msg = strings.ToLower(msg)
	return strings.Contains(msg, "database is locked") || strings.Contains(msg, "sqlite_busy") ||
		strings.Contains(msg, "database table is locked") || strings.Contains(msg, "(5)") || strings.Contains(msg, "(6)")
}

func toolText(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
