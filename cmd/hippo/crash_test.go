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
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/local"
	"github.com/hippo-mem/hippo/sqlite"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestCrashSafety kills writers with SIGKILL at random points and checks,
// after each kill, that the database is intact (PRAGMA integrity_check,
// the full-text index's own check) and holds every write that was
// acknowledged before the kill. The writers are library processes
// (store_memory, remember_facts and recall_memories through the tools, on
// the offline defaults), `hippo store` and `hippo remember` processes, and
// `hippo serve --transport stdio` with this test as its MCP client. Every
// tenth kill hits a writer creating a new database, during migrations.
//
// HIPPO_CRASH_KILLS sets the number of processes killed (12 by default;
// the full run is 200: a CLI process that ends before its kill does not
// count), HIPPO_CRASH_SEED the random seed.
func TestCrashSafety(t *testing.T) {
	t.Parallel()
	kills := envInt("HIPPO_CRASH_KILLS", 12)
	seed := uint64(envInt("HIPPO_CRASH_SEED", int(time.Now().UnixNano()%1e9)))
	t.Logf("%d kills, HIPPO_CRASH_SEED=%d", kills, seed)
	r := rand.New(rand.NewPCG(seed, 2))
	c := &cli{t: t, dir: t.TempDir()}
	c.db = filepath.Join(c.dir, "crash.db")
	c.env = cleanEnv(c.dir, c.db)

	acked := map[string]ack{} // every acknowledged write to c.db, by chunk ID
	var stats struct {
		rounds, killed, acks, hot, midway int
		byKind                            map[string]int
	}
	stats.byKind = map[string]int{}
	cliTook := 100 * time.Millisecond // how long a CLI write runs, to aim kills inside it
	for round := 0; stats.killed < kills; round++ {
		kind := []string{"library", "library", "cli", "server"}[round%4]
		path := c.db
		if round%10 == 9 {
			kind, path = "new-db", filepath.Join(c.dir, fmt.Sprintf("new-%d.db", round))
		}
		var got []ack
		var err error
		killed := true
		switch kind {
		case "library", "new-db":
			got, err = crashLibrary(c, r, path, kind == "new-db")
		case "cli":
			got, killed, err = crashCLI(c, r, &cliTook)
		case "server":
			got, err = crashServer(c, r)
		}
		if err != nil {
			t.Fatalf("round %d (%s): %v", round, kind, err)
		}
		stats.rounds++
		if killed {
			stats.killed++
			stats.byKind[kind]++
			if len(got) > 0 {
				stats.midway++
			}
		}
		if st, err := os.Stat(path + "-wal"); err == nil && st.Size() > 0 {
			stats.hot++ // a write-ahead log left to recover
		}
		want := got
		if path == c.db {
			for _, a := range got {
				acked[a.ID] = a
			}
			want = make([]ack, 0, len(acked))
			for _, a := range acked {
				want = append(want, a)
			}
		}
		stats.acks += len(got)
		if err := checkAfterCrash(path, want); err != nil {
			t.Fatalf("round %d (%s), after %d acknowledged writes this round: %v", round, kind, len(got), err)
		}
	}
	t.Logf("%d processes killed (%v) in %d rounds; %d writes acknowledged, all present after every kill; %d kills after acknowledged writes of the same process; %d left a WAL to recover",
		stats.killed, stats.byKind, stats.rounds, stats.acks, stats.midway, stats.hot)
}

// crashLibrary runs a library writer on path and kills it: after a few
// acknowledged writes, or at a random time from its start (fresh: always,
// early, while it creates the database).
func crashLibrary(c *cli, r *rand.Rand, path string, fresh bool) ([]ack, error) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(cleanEnv(c.dir, path), helperEnv+"=writer", "HIPPO_AGENT=crash,crash-other",
		"HIPPO_HELPER_SEED="+strconv.FormatUint(r.Uint64(), 10))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	acks := make(chan ack, 1<<16)
	readErr := make(chan error, 1)
	go func() { readErr <- readAcks(out, acks) }()

	var got []ack
	var delay time.Duration
	switch {
	case fresh:
		delay = time.Duration(r.IntN(400)) * time.Millisecond
	case r.IntN(5) == 0:
		delay = time.Duration(r.IntN(1500)) * time.Millisecond
	default:
		// After n acknowledgements, then a little more: most kills land
		// inside a write.
		n := 1 + r.IntN(10)
		deadline := time.After(30 * time.Second)
		for len(got) < n {
			select {
			case a, ok := <-acks:
				if !ok {
					cmd.Wait()
					return nil, fmt.Errorf("writer ended early: %v %s", <-readErr, stderr.String())
				}
				got = append(got, a)
			case <-deadline:
				cmd.Process.Kill()
				cmd.Wait()
				return nil, fmt.Errorf("writer made no progress: %s", stderr.String())
			}
		}
		delay = time.Duration(r.IntN(30_000)) * time.Microsecond
	}
	time.Sleep(delay)
	cmd.Process.Kill() // SIGKILL
	werr := cmd.Wait()
	for a := range acks {
		got = append(got, a)
	}
	if err := <-readErr; err != nil {
		return nil, err
	}
	if werr == nil || !strings.Contains(werr.Error(), "killed") {
		return nil, fmt.Errorf("writer ended on its own (%v) before the kill: %s", werr, stderr.String())
	}
	return got, nil
}

// readAcks sends every complete ack line and closes acks at the end of
// out; a line cut by the kill was never acknowledged.
func readAcks(out io.Reader, acks chan<- ack) error {
	defer close(acks)
	br := bufio.NewReader(out)
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return nil
		}
		var a ack
		if err := json.Unmarshal([]byte(line), &a); err != nil {
			return fmt.Errorf("bad ack %q: %v", line, err)
		}
		acks <- a
	}
}

// crashCLI starts `hippo store` or `hippo remember` and kills it at a
// random time within about how long one runs (took, which it updates); it
// is acknowledged if it printed its result first. It reports whether the
// kill came before the process ended.
func crashCLI(c *cli, r *rand.Rand, took *time.Duration) (acks []ack, killed bool, err error) {
	args := []string{"store", "--json", "--agent", "crash-cli", fmt.Sprintf("cli note %d about %s", r.Uint64(), helperWords[r.IntN(len(helperWords))])}
	if r.IntN(2) == 0 {
		args = []string{"remember", "--json", "--agent", "crash-cli", helperFactText(r)}
	}
	cmd := exec.Command(hippoBin, args...)
	cmd.Env = c.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, false, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
		*took = (*took + time.Since(start)) / 2
	case <-time.After(time.Duration(r.Int64N(int64(*took) * 5 / 4))):
		cmd.Process.Kill()
		err = <-done
	}
	if err != nil {
		if strings.Contains(err.Error(), "killed") {
			return nil, true, nil // not acknowledged
		}
		return nil, false, fmt.Errorf("hippo %v: %v: %s", args, err, stderr.String())
	}
	if args[0] == "store" {
		var v struct {
			Duplicate bool
			Chunk     struct{ ID, Content string }
		}
		if err := json.Unmarshal(stdout.Bytes(), &v); err != nil {
			return nil, false, fmt.Errorf("store output %q: %v", stdout.String(), err)
		}
		return []ack{{Agent: "crash-cli", Op: "memory", ID: v.Chunk.ID, Hash: sqlite.ContentHash(args[4]), New: !v.Duplicate}}, false, nil
	}
	var res hippo.RememberResult
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		return nil, false, fmt.Errorf("remember output %q: %v", stdout.String(), err)
	}
	for _, f := range res.Facts {
		acks = append(acks, ack{Agent: "crash-cli", Op: "fact", ID: f.ChunkID, Content: f.Content})
	}
	return acks, false, nil
}

// crashServerWriters is how many calls crashServer keeps in flight.
const crashServerWriters = 6

// crashServer runs `hippo serve --transport stdio`, stores memories
// through it with the MCP SDK's client, several calls at once, and kills
// the server at a random time; the calls answered before are
// acknowledged.
func crashServer(c *cli, r *rand.Rand) ([]ack, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.Command(hippoBin, "serve", "--transport", "stdio")
	cmd.Env = c.env
	session, err := sdk.NewClient(&sdk.Implementation{Name: "crash", Version: "0"}, nil).
		Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return nil, err
	}
	var (
		mu   sync.Mutex
		got  []ack
		fail error
	)
	stop := make(chan struct{})
	var writers sync.WaitGroup
	// Several calls at once, so that the server commits them in groups
	// (sqlite's group commit): a kill lands between a group's commit and
	// its answers, or inside a group.
	for w := range crashServerWriters {
		writers.Add(1)
		rr := rand.New(rand.NewPCG(r.Uint64(), uint64(3+w))) // the goroutine's own
		go func() {
			defer writers.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				content := fmt.Sprintf("served note %d.%d %d about %s", w, i, rr.Uint64(), helperWords[i%len(helperWords)])
				res, err := session.CallTool(ctx, &sdk.CallToolParams{Name: "store_memory",
					Arguments: map[string]any{"agent_id": "crash-server", "content": content}})
				if err != nil {
					return // the server is gone
				}
				mu.Lock()
				if res.IsError {
					fail = fmt.Errorf("store_memory: %v", res.Content)
					mu.Unlock()
					return
				}
				var d struct {
					Duplicate bool `json:"duplicate"`
					Memory    struct {
						ID string `json:"id"`
					} `json:"memory"`
				}
				if err := remarshal(res.StructuredContent, &d); err != nil {
					fail = err
				}
				got = append(got, ack{Agent: "crash-server", Op: "memory", ID: d.Memory.ID, Hash: sqlite.ContentHash(content), New: !d.Duplicate})
				mu.Unlock()
			}
		}()
	}
	time.Sleep(time.Duration(200+r.IntN(1500)) * time.Millisecond)
	mu.Lock()
	cmd.Process.Kill()
	acked := append([]ack(nil), got...) // answers after the kill are impossible
	mu.Unlock()
	close(stop)
	writers.Wait()
	session.Close()
	return acked, fail
}

// openIntact opens the SQLite file at path directly and checks it with
// PRAGMA integrity_check.
func openIntact(path string) (*sql.DB, error) {
	raw, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		return nil, err
	}
	var res string
	if err := raw.QueryRow(`PRAGMA integrity_check`).Scan(&res); err != nil || res != "ok" {
		raw.Close()
		return nil, fmt.Errorf("integrity_check = %q, %v", res, err)
	}
	return raw, nil
}

// ftsIntact runs the full-text index's own check, when the index exists.
func ftsIntact(raw *sql.DB) error {
	var fts int
	raw.QueryRow(`SELECT COUNT(*) FROM sqlite_schema WHERE name = 'chunks_fts'`).Scan(&fts)
	if fts == 0 {
		return nil
	}
	if _, err := raw.Exec(`INSERT INTO chunks_fts (chunks_fts, rank) VALUES ('integrity-check', 0)`); err != nil {
		return fmt.Errorf("full-text index: %w", err)
	}
	return nil
}

// checkAfterCrash opens the file the way a fresh process would and checks
// it: integrity, the full-text index, migrations, every acknowledged write
// present as written, and a working recall.
func checkAfterCrash(path string, acked []ack) error {
	ctx := context.Background()
	if _, err := os.Stat(path); os.IsNotExist(err) {
		if len(acked) > 0 {
			return fmt.Errorf("the database is gone")
		}
		return nil
	}
	raw, err := openIntact(path)
	if err != nil {
		return err
	}
	defer raw.Close()
	db, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		return fmt.Errorf("reopen: %w", err)
	}
	defer db.Close()
	if err := ftsIntact(raw); err != nil {
		return err
	}

	rows, err := raw.Query(`SELECT id, agent_id, kind, content, COALESCE(content_hash, '') FROM chunks`)
	if err != nil {
		return err
	}
	type row struct{ agent, kind, content, hash string }
	stored := map[string]row{}
	for rows.Next() {
		var id string
		var w row
		if err := rows.Scan(&id, &w.agent, &w.kind, &w.content, &w.hash); err != nil {
			rows.Close()
			return err
		}
		stored[id] = w
	}
	rows.Close()
	for _, a := range acked {
		w, ok := stored[a.ID]
		switch {
		case !ok:
			return fmt.Errorf("acknowledged %s %s of %s is lost", a.Op, a.ID, a.Agent)
		case w.agent != a.Agent:
			return fmt.Errorf("chunk %s belongs to %s, acknowledged for %s", a.ID, w.agent, a.Agent)
		case a.Op == "memory" && w.hash != a.Hash:
			return fmt.Errorf("memory %s: content hash %s, acknowledged %s", a.ID, w.hash, a.Hash)
		case a.Op == "memory" && w.hash != sqlite.ContentHash(w.content):
			return fmt.Errorf("memory %s: stored content does not match its hash", a.ID)
		case a.Op == "fact" && w.content != a.Content:
			return fmt.Errorf("fact %s: content %q, acknowledged %q", a.ID, w.content, a.Content)
		}
	}
	// The index loads and recall runs over what survived.
	m, err := db.Memory(sqlite.MemoryOptions{AgentID: "crash", Embedder: local.NewEmbedder()})
	if err != nil {
		return err
	}
	if _, err := m.Recall(ctx, hippo.RecallInput{Query: "where does the user live"}); err != nil {
		return fmt.Errorf("recall after the crash: %w", err)
	}
	return nil
}

// cleanEnv is the test's environment without HIPPO_* settings, with the
// database at db and HOME inside dir. It picks the GloVe embedder: a -race
// binary loading and running MiniLM costs seconds per command, so the
// tests of the default embedder set HIPPO_EMBEDDER themselves.
func cleanEnv(dir, db string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "HIPPO_") && !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "XDG_DATA_HOME=") {
			env = append(env, kv)
		}
	}
	return append(env, "HOME="+filepath.Join(dir, "home"), "XDG_DATA_HOME="+filepath.Join(dir, "xdg"),
		"HIPPO_DB="+db, "HIPPO_EMBEDDER=glove",
		// A -race binary sleeps a second at exit by default; a race it
		// finds still fails the run with exit code 66.
		"GORACE=atexit_sleep_ms=0")
}

// withEnv is base with extra appended. An extra HIPPO_EMBEDDER or
// HIPPO_EMBED_* setting replaces base's HIPPO_EMBEDDER (an empty
// HIPPO_EMBEDDER= asks for the default embedder).
func withEnv(base, extra []string) []string {
	env := slices.Clone(base)
	for _, kv := range extra {
		if strings.HasPrefix(kv, "HIPPO_EMBED") {
			env = slices.DeleteFunc(env, func(s string) bool { return strings.HasPrefix(s, "HIPPO_EMBEDDER=") })
			break
		}
	}
	return append(env, extra...)
}

// envInt reads a positive integer setting, def when unset.
func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}
