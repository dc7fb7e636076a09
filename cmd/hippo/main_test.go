package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/sqlite"
)

// hippoBin is the binary under test, built once by TestMain.
var hippoBin string

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(runHelper(mode)) // a library process of a crash or concurrency test
	}
	dir, err := os.MkdirTemp("", "hippo-cli-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	hippoBin = filepath.Join(dir, "hippo")
	args := []string{"build", "-o", hippoBin}
	if raceEnabled {
		args = append(args, "-race")
	}
	build := exec.Command("go", append(args, ".")...)
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build hippo:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// cli runs the binary against a database of its own, in an environment
// where HOME and XDG_DATA_HOME point into a temporary directory.
type cli struct {
	t   *testing.T
	dir string
	db  string
	env []string
}

func newCLI(t *testing.T) *cli {
	t.Helper()
	t.Parallel()
	dir := t.TempDir()
	c := &cli{t: t, dir: dir, db: filepath.Join(dir, "hippo.db")}
	c.env = cleanEnv(dir, c.db)
	return c
}

type result struct {
	code           int
	stdout, stderr string
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
}

// run runs hippo with args, stdin empty.
func (c *cli) run(args ...string) result {
	c.t.Helper()
	return c.runIn("", nil, args...)
}

// runIn runs hippo with stdin and extra environment variables.
func (c *cli) runIn(stdin string, env []string, args ...string) result {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, hippoBin, args...)
	cmd.Env = withEnv(c.env, env)
	cmd.Dir = c.dir
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := result{stdout: stdout.String(), stderr: stderr.String()}
	if exit, ok := err.(*exec.ExitError); ok {
		r.code = exit.ExitCode()
	} else if err != nil {
		c.t.Fatalf("run hippo %v: %v", args, err)
	}
	return r
}

// ok runs hippo, requiring exit code 0.
func (c *cli) ok(args ...string) result {
	c.t.Helper()
	r := c.run(args...)
	if r.code != 0 {
		c.t.Fatalf("hippo %s: %s", strings.Join(args, " "), r)
	}
	return r
}

// json runs hippo --json, requiring exit code 0, and decodes stdout into v.
func (c *cli) json(v any, args ...string) result {
	c.t.Helper()
	r := c.ok(append(args, "--json")...)
	decodeJSON(c.t, r.stdout, v)
	return r
}

// fails runs hippo, requiring exit code code, nothing on stdout and stderr
// mentioning want.
func (c *cli) fails(code int, want string, args ...string) result {
	c.t.Helper()
	r := c.run(args...)
	if r.code != code || !strings.Contains(r.stderr, want) {
		c.t.Fatalf("hippo %s: want exit %d and stderr mentioning %q, got %s", strings.Join(args, " "), code, want, r)
	}
	return r
}

func decodeJSON(t *testing.T, s string, v any) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("decode %T: %v\n%s", v, err, s)
	}
}

// seed fills the database with two agents: alice has memories (one with a
// literal % and one with an _), a fact superseded by another, and blocks;
// bob has a memory in scope "work".
func (c *cli) seed() {
	c.t.Helper()
	ctx := context.Background()
	clock := time.Date(2026, 1, 10, 12, 0, 0, 0, time.UTC)
	db, err := sqlite.Open(ctx, c.db, sqlite.Options{Now: func() time.Time { return clock }})
	if err != nil {
		c.t.Fatal(err)
	}
	defer db.Close()
	vec := func(i int) []float32 {
		v := make([]float32, 8)
		v[i] = 1
		return v
	}
	at := func(h int) time.Time { return clock.Add(time.Duration(h) * time.Hour) }
	supAt := at(3)
	alice := []*hippo.Chunk{
		{ID: "A1", Kind: hippo.KindMemory, Content: "Wears 100% cotton shirts", Embedding: vec(0), CreatedAt: at(0),
			Metadata: json.RawMessage(`{"source":"chat"}`)},
		{ID: "A2", Kind: hippo.KindMemory, Content: "Keeps notes in my_notes.txt", Embedding: vec(1), CreatedAt: at(1)},
		{ID: "A3", Kind: hippo.KindFact, Content: "Uses Redux for state", Embedding: vec(2), CreatedAt: at(2),
			SupersededBy: "A4", SupersededAt: &supAt},
		{ID: "A4", Kind: hippo.KindFact, Content: "Uses Zustand for state", Embedding: vec(3), CreatedAt: at(3)},
	}
	bob := []*hippo.Chunk{{ID: "B1", Kind: hippo.KindMemory, Scope: "work", Content: "REDUX is overkill", Embedding: vec(4), CreatedAt: at(4)}}
	for agent, chunks := range map[string][]*hippo.Chunk{"alice": alice, "bob": bob} {
		if err := db.InsertChunks(ctx, agent, "", "test-model", chunks); err != nil {
			c.t.Fatal(err)
		}
	}
	m, err := db.Memory(sqlite.MemoryOptions{AgentID: "alice"})
	if err != nil {
		c.t.Fatal(err)
	}
	for _, kv := range [][2]string{{"persona", "Terse & precise."}, {"objectives", "Ship the CLI\nWrite tests"}} {
		if _, err := m.AppendBlock(ctx, kv[0], kv[1]); err != nil {
			c.t.Fatal(err)
		}
	}
}

// chunkIDs are the IDs of a --json chunk list.
func chunkIDs(cs []chunkView) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.ID
	}
	return out
}

func TestUsageErrorsExitTwo(t *testing.T) {
	c := newCLI(t)
	c.seed()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"bogus"}, "unknown command"},
		{[]string{"stats", "--bogus"}, "unknown flag"},
		{[]string{"stats", "extra"}, "unknown command"},
		{[]string{"chunks"}, "no agent given"},
		{[]string{"chunks", "a", "b"}, `hippo chunks takes at most 1 argument ([agent]), got 2 arguments: "a" "b"`},
		{[]string{"chunks", "alice", "--kind", "note"}, "--kind"},
		{[]string{"chunks", "alice", "--limit", "-1"}, "must not be negative"},
		{[]string{"chunks", "alice", "--limit", "many"}, "invalid argument"},
		{[]string{"block"}, "missing <key> (usage: hippo block [agent] <key> [flags])"},
		{[]string{"block", "a", "b", "c"}, "takes 1 to 2 arguments ([agent] <key>)"},
		{[]string{"block", "replace", "persona"}, "missing <old> and <new>"},
		{[]string{"block", "set", "persona"}, "missing <value>"},
		{[]string{"block", "persona"}, "no agent given: pass it as the first argument, or set --agent or HIPPO_AGENT"},
		{[]string{"search"}, "missing <text>"},
		{[]string{"search", "  "}, "<text> must not be empty"},
		{[]string{"delete"}, "missing <id>"},
		{[]string{"recall"}, "missing <query> (usage: hippo recall <query|-> [flags])"},
		{[]string{"recall", "alice", "cafe"}, `hippo recall takes 1 argument (<query|->), got 2 arguments: "alice" "cafe"`},
		{[]string{"recall", "cafe"}, "no agent given: set --agent or HIPPO_AGENT"},
		{[]string{"recall", "", "--agent", "alice"}, "<query> must not be empty"},
		{[]string{"remember", "", "--agent", "alice"}, "<text> must not be empty"},
		{[]string{"store", " \n", "--agent", "alice"}, "<content> must not be empty"},
		{[]string{"forget", "", "--agent", "alice"}, "<description> must not be empty"},
		{[]string{"remember", "--agent", "alice"}, "missing <text>"},
		{[]string{"history", "a", "b"}, "takes at most 1 argument ([query|-])"},
		{[]string{"purge", "--before", "last week"}, "--before"},
		{[]string{"import"}, "missing <file>"},
		{[]string{"completion", "tcsh"}, "tcsh"},
		{[]string{"blocks", "alice", "--scope", "a\tb"}, "control characters"},
	}
	for _, tt := range tests {
		r := c.fails(2, tt.want, tt.args...)
		if r.stdout != "" {
			t.Errorf("hippo %v: usage error printed on stdout: %q", tt.args, r.stdout)
		}
		if !strings.Contains(r.stderr, "--help") {
			t.Errorf("hippo %v: no pointer to --help: %q", tt.args, r.stderr)
		}
	}
	// Under --json the error is a JSON document on stderr.
	r := c.run("chunks", "--kind", "note", "alice", "--json")
	var e struct {
		Error struct{ Code, Message string }
	}
	if r.code != 2 || json.Unmarshal([]byte(r.stderr), &e) != nil || e.Error.Code != "usage" || !strings.Contains(e.Error.Message, "--kind") {
		t.Errorf("JSON usage error: %s", r)
	}
	// The database was not changed by any of this.
	var after struct {
		Chunks, Blocks int
	}
	c.jsonLoose(&after, "stats")
	if after.Chunks != 5 || after.Blocks != 2 {
		t.Errorf("stats after usage errors: %+v", after)
	}
}

// jsonLoose is json without DisallowUnknownFields, for partial checks.
func (c *cli) jsonLoose(v any, args ...string) {
	c.t.Helper()
	r := c.ok(append(args, "--json")...)
	if err := json.Unmarshal([]byte(r.stdout), v); err != nil {
		c.t.Fatalf("decode: %v\n%s", err, r.stdout)
	}
}

// TestMissingDatabaseIsRefusedAndNotCreated: the database named by
// HIPPO_DB or the XDG default is not created by a read either
// (TestEveryCommandMissingDatabase covers every command with --db).
func TestMissingDatabaseIsRefusedAndNotCreated(t *testing.T) {
	c := newCLI(t)
	c.fails(1, "does not exist", "stats")
	r := c.runIn("", []string{"HIPPO_DB="}, "agents")
	if r.code != 1 || !strings.Contains(r.stderr, filepath.Join(c.dir, "xdg", "hippo", "hippo.db")) {
		t.Errorf("default path under XDG_DATA_HOME: %s", r)
	}
	for _, p := range []string{c.db, filepath.Join(c.dir, "xdg")} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s was created: %v", p, err)
		}
	}
}

func TestCompletion(t *testing.T) {
	c := newCLI(t)
	for _, shell := range []string{"bash", "zsh", "fish"} {
		r := c.ok("completion", shell)
		if !strings.Contains(r.stdout, "hippo") || len(r.stdout) < 500 {
			t.Errorf("completion %s: %d bytes", shell, len(r.stdout))
		}
	}
	// Agent arguments complete from the database, which is never created.
	r := c.ok("__complete", "chunks", "")
	if strings.Contains(r.stdout, "alice") {
		t.Errorf("completion without a database: %q", r.stdout)
	}
	if _, err := os.Stat(c.db); !os.IsNotExist(err) {
		t.Errorf("completion created the database")
	}
	c.seed()
	r = c.ok("__complete", "chunks", "")
	if !strings.Contains(r.stdout, "alice\nbob\n") {
		t.Errorf("agent completion: %q", r.stdout)
	}
}

// TestRunInProcess drives the run entry point without the binary, the way
// tests of further commands can.
func TestRunInProcess(t *testing.T) {
	db := filepath.Join(t.TempDir(), "hippo.db")
	var stdout, stderr bytes.Buffer
	ctx := context.Background()
	if code := run(ctx, []string{"init", "--db", db, "--json"}, strings.NewReader(""), &stdout, &stderr); code != exitOK {
		t.Fatalf("init: exit %d, stderr %q", code, stderr.String())
	}
	var out struct {
		Path    string `json:"path"`
		Created bool   `json:"created"`
		Decay   string `json:"decay_model"`
	}
	decodeJSON(t, stdout.String(), &out)
	if out.Path != db || !out.Created {
		t.Errorf("init = %+v", out)
	}
	stdout.Reset()
	if code := run(ctx, []string{"import", "-", "--db", db}, strings.NewReader(`{"version":1,"agentId":"a"}`), &stdout, &stderr); code != exitOK {
		t.Fatalf("import: exit %d, stderr %q", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "Imported 0 chunks and 0 blocks (typescript-v1 format)") {
		t.Errorf("import output %q", stdout.String())
	}
	stderr.Reset()
	if code := run(ctx, []string{"stats", "--db", db, "--nope"}, strings.NewReader(""), &stdout, &stderr); code != exitUsage {
		t.Errorf("bad flag: exit %d", code)
	}
	if code := run(ctx, []string{"block", "a", "k", "--db", db}, strings.NewReader(""), &stdout, &stderr); code != exitFailure {
		t.Errorf("missing block: exit %d", code)
	}
}
