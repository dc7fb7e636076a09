package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/local"
	"github.com/hippo-mem/hippo/mcp"
	"github.com/hippo-mem/hippo/openai"
	"github.com/hippo-mem/hippo/sqlite"
	"github.com/hippo-mem/hippo/tools"
)

// The bad-input tables throw hostile and malformed input at every surface
// (the tools, the CLI, the HTTP server, and Hippo's side of a broken
// embedding endpoint) and require each to be answered with a clear error,
// or, where the input is merely odd (SQL and FTS metacharacters, paths
// that look like URIs), handled literally, and the stored data to be
// exactly what it was: the export of the whole database is checksummed
// before and after every input.

// badDB is a database seeded with memories, facts and blocks on the
// offline defaults, and a checksum of everything it stores.
type badDB struct {
	t    *testing.T
	c    *cli
	db   *sqlite.DB
	mem  *sqlite.Memory
	sum  string
	rows *atomic.Int64
}

func newBadDB(t *testing.T) *badDB {
	c := newCLI(t)
	ctx := context.Background()
	db, err := sqlite.Open(ctx, c.db, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	mem, err := db.Memory(sqlite.MemoryOptions{AgentID: "alice", Embedder: local.NewEmbedder(),
		Extractor: local.NewExtractor(), Classifier: local.NewClassifier()})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"We chose SQLite over PostgreSQL.", "Wears 100% cotton", "Keeps notes in my_notes.txt"} {
		if _, err := mem.StoreMemory(ctx, hippo.StoreInput{Content: s, Metadata: json.RawMessage(`{"tags":["db"]}`)}); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range []string{"I live in Berlin.", "I live in Lisbon.", "I love Svelte and I hate Redux."} {
		if _, err := mem.RememberFacts(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := mem.AppendBlock(ctx, "persona", "I am terse."); err != nil {
		t.Fatal(err)
	}
	b := &badDB{t: t, c: c, db: db, mem: mem, rows: &atomic.Int64{}}
	b.sum = b.checksum()
	return b
}

// checksum is the SHA-256 of the export of the whole database.
func (b *badDB) checksum() string {
	b.t.Helper()
	h := sha256.New()
	if _, err := b.db.Export(context.Background(), h, sqlite.ExportOptions{}); err != nil {
		b.t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// unchanged fails the test if the stored data changed.
func (b *badDB) unchanged(name string) {
	b.t.Helper()
	b.rows.Add(1)
	if got := b.checksum(); got != b.sum {
		b.t.Errorf("%s: the stored data changed", name)
		b.sum = got
	}
}

// clear reports whether an error message is fit to show: non-empty, one
// that names the problem rather than a Go panic or a stack.
func clear(msg string) bool {
	return strings.TrimSpace(msg) != "" && !strings.Contains(msg, "panic") && !strings.Contains(msg, "goroutine ")
}

func TestBadInputTools(t *testing.T) {
	b := newBadDB(t)
	set := tools.New(b.mem, tools.Options{Config: b.mem.Config()})
	ids := make([]string, 1001)
	for i := range ids {
		ids[i] = fmt.Sprintf("X%d", i)
	}
	many, _ := json.Marshal(map[string]any{"upvotes": ids})
	rows := []struct {
		name, tool, input, code string
	}{
		{"invalid UTF-8", "store_memory", "{\"content\":\"\xff\xfe\"}", hippo.EINVALID},
		{"empty content", "store_memory", `{"content":""}`, hippo.EINVALID},
		{"blank content", "store_memory", `{"content":" \n\t "}`, hippo.EINVALID},
		{"content over the limit", "store_memory", `{"content":"` + strings.Repeat("x", 50_001) + `"}`, hippo.EINVALID},
		{"input over 1 MB", "store_memory", `{"content":"` + strings.Repeat("x", tools.MaxInputBytes) + `"}`, hippo.EINVALID},
		{"not an object", "store_memory", `["content"]`, hippo.EINVALID},
		{"two objects", "store_memory", `{"content":"a"}{"content":"b"}`, hippo.EINVALID},
		{"unknown field", "store_memory", `{"content":"a","agent_id":"bob"}`, hippo.EINVALID},
		{"content a number", "store_memory", `{"content":5}`, hippo.EINVALID},
		{"metadata an array", "store_memory", `{"content":"a","metadata":[1]}`, hippo.EINVALID},
		{"metadata a string", "store_memory", `{"content":"a","metadata":"[1]"}`, hippo.EINVALID},
		{"metadata number out of range", "store_memory", `{"content":"a","metadata":{"n":1e999}}`, hippo.EINVALID},
		{"metadata over 16 KiB", "store_memory", `{"content":"a","metadata":{"s":"` + strings.Repeat("m", 17<<10) + `"}}`, hippo.EINVALID},
		{"metadata nested 20000 deep", "store_memory", `{"content":"a","metadata":` + strings.Repeat(`{"a":`, 20000) + `1` + strings.Repeat(`}`, 20000) + `}`, hippo.EINVALID},
		{"fact text over the limit", "remember_facts", `{"text":"` + strings.Repeat("I live in Berlin. ", 600) + `"}`, hippo.EINVALID},
		{"limit 0", "recall_memories", `{"query":"x","limit":0}`, hippo.EINVALID},
		{"negative limit", "recall_memories", `{"query":"x","limit":-1}`, hippo.EINVALID},
		{"huge limit", "recall_memories", `{"query":"x","limit":1000000000000000000}`, hippo.EINVALID},
		{"limit overflowing int", "recall_memories", `{"query":"x","limit":1e30}`, hippo.EINVALID},
		{"negative offset", "recall_memories", `{"query":"x","offset":-1}`, hippo.EINVALID},
		{"huge offset", "recall_memories", `{"query":"x","offset":10001}`, hippo.EINVALID},
		{"min_score 2", "recall_memories", `{"query":"x","min_score":2}`, hippo.EINVALID},
		{"negative min_strength", "recall_memories", `{"query":"x","min_strength":-0.5}`, hippo.EINVALID},
		{"SQL in kind", "recall_memories", `{"query":"x","kind":"fact' OR 1=1 --"}`, hippo.EINVALID},
		{"bad date", "recall_memories", `{"query":"x","since":"yesterday'; DROP TABLE chunks"}`, hippo.EINVALID},
		{"until before since", "recall_memories", `{"query":"x","since":"2026-02-01","until":"2026-01-01"}`, hippo.EINVALID},
		{"tag over 128 characters", "recall_memories", `{"query":"x","tags":["` + strings.Repeat("t", 129) + `"]}`, hippo.EINVALID},
		{"threshold 0", "forget_memory", `{"description":"SQLite","threshold":0}`, hippo.EINVALID},
		{"negative threshold", "forget_memory", `{"description":"SQLite","threshold":-1}`, hippo.EINVALID},
		{"threshold 1.5", "forget_memory", `{"description":"SQLite","threshold":1.5}`, hippo.EINVALID},
		{"empty description", "forget_memory", `{"description":""}`, hippo.EINVALID},
		{"empty key", "append_memory_block", `{"key":"","text":"x"}`, hippo.EINVALID},
		{"NUL in key", "append_memory_block", `{"key":"per\u0000sona","text":"x"}`, hippo.EINVALID},
		{"key of 129 characters", "append_memory_block", `{"key":"` + strings.Repeat("k", 129) + `","text":"x"}`, hippo.EINVALID},
		{"block text over the limit", "append_memory_block", `{"key":"persona","text":"` + strings.Repeat("b", 100_001) + `"}`, hippo.EINVALID},
		{"empty old_text", "replace_memory_block", `{"key":"persona","old_text":"","new_text":"x"}`, hippo.EINVALID},
		{"replace in a missing block", "replace_memory_block", `{"key":"nope","old_text":"a","new_text":"b"}`, hippo.ENOTFOUND},
		{"delete a missing block", "delete_memory_block", `{"key":"../../persona"}`, hippo.ENOTFOUND},
		{"history without query or id", "fact_history", `{}`, hippo.EINVALID},
		{"history of a path", "fact_history", `{"id":"../../etc/passwd"}`, hippo.ENOTFOUND},
		{"reinforce nothing", "reinforce_memory", `{"upvotes":[]}`, hippo.EINVALID},
		{"reinforce 1001 IDs", "reinforce_memory", string(many), hippo.EINVALID},
		{"negative context budget", "get_context", `{"query":"x","max_chars":-1}`, hippo.EINVALID},
		{"both budgets", "get_context", `{"query":"x","max_chars":100,"max_tokens":100}`, hippo.EINVALID},
		{"huge context budget", "get_context", `{"query":"x","max_tokens":1000000000}`, hippo.EINVALID},
		// Metacharacters are text: the call works and, matching nothing
		// (no chunk has the tag), changes nothing.
		{"SQL and FTS metacharacters in a query", "recall_memories", `{"query":"'; DROP TABLE chunks; -- \" NEAR(a b) AND OR NOT * ^ col:x","tags":["no-such-tag"]}`, ""},
		{"LIKE wildcards in a tag", "recall_memories", `{"query":"%","tags":["%","_"]}`, ""},
	}
	for _, r := range rows {
		res, err := set.Call(context.Background(), r.tool, json.RawMessage(r.input))
		switch {
		case err != nil:
			t.Errorf("%s: internal error: %v", r.name, err)
		case r.code == "" && res.IsError:
			t.Errorf("%s: %s", r.name, res.Text)
		case r.code != "" && !res.IsError:
			t.Errorf("%s: accepted: %s", r.name, res.Text)
		case r.code != "" && res.Details.(tools.ErrorDetails).Error != r.code:
			t.Errorf("%s: error %+v, want %s", r.name, res.Details, r.code)
		case !clear(res.Text):
			t.Errorf("%s: unclear message %q", r.name, res.Text)
		}
		b.unchanged(r.name)
	}
	t.Logf("%d hostile tool inputs refused or handled literally, stored data unchanged", len(rows))
}

func TestBadInputCLI(t *testing.T) {
	b := newBadDB(t)
	c := b.c
	dir := filepath.Join(c.dir, "a-directory")
	notDB := filepath.Join(c.dir, "notes.txt")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	notDBText := []byte("These are notes, not a database.\n")
	if err := os.WriteFile(notDB, notDBText, 0o644); err != nil {
		t.Fatal(err)
	}
	badImport := filepath.Join(c.dir, "bad.json")
	os.WriteFile(badImport, []byte(`{"version":1,"agentId":"alice","chunks":[{"id":"Z","kind":"fact","content":"c","embedding_base64":"AACAPw=="}]}`), 0o644)
	rows := []struct {
		name  string
		stdin string
		args  []string
		want  string // in stderr; "" for input handled literally (exit 0)
	}{
		{"invalid UTF-8 content", "", []string{"store", "\xff\xfe"}, "UTF-8"},
		{"empty content", "", []string{"store", ""}, "must not be empty"},
		{"invalid UTF-8 agent", "", []string{"store", "x", "--agent", "\xff"}, "UTF-8"},
		{"agent of 129 characters", "", []string{"store", "x", "--agent", strings.Repeat("a", 129)}, "at most 128"},
		{"control character in scope", "", []string{"store", "x", "--scope", "a\tb"}, "control characters"},
		{"stdin over 1 MB", strings.Repeat("x", 1<<20+1), []string{"store", "-"}, "larger than"},
		{"metadata an array", "", []string{"store", "x", "--metadata", "[1]"}, "JSON object"},
		{"metadata number out of range", "", []string{"store", "x", "--metadata", `{"n":1e999}`}, "float64"},
		{"huge limit", "", []string{"recall", "x", "--limit", "1000000"}, "--limit"},
		{"negative limit", "", []string{"recall", "x", "--limit", "-5"}, "--limit"},
		{"negative offset", "", []string{"recall", "x", "--offset", "-1"}, "offset"},
		{"NaN min-score", "", []string{"recall", "x", "--min-score", "NaN"}, "min_score"},
		{"NaN min-relevance", "", []string{"recall", "x", "--min-relevance", "NaN"}, "min_relevance"},
		{"min-relevance above 1", "", []string{"recall", "x", "--min-relevance", "1.5"}, "min_relevance"},
		{"limit overflowing int", "", []string{"chunks", "alice", "--limit", "99999999999999999999"}, "invalid argument"},
		{"negative list offset", "", []string{"chunks", "alice", "--offset", "-3"}, "negative"},
		{"NaN threshold", "", []string{"forget", "SQLite", "--threshold", "NaN", "--force"}, "threshold"},
		{"infinite threshold", "", []string{"forget", "SQLite", "--threshold", "+Inf", "--force"}, "threshold"},
		{"empty description", "", []string{"forget", " ", "--force"}, "must not be empty"},
		{"--db a directory", "", []string{"store", "x", "--db", dir}, "is a directory"},
		{"--db empty", "", []string{"stats", "--db", ""}, "must not be empty"},
		{"--db a text file, written to", "", []string{"store", "x", "--db", notDB}, "not a database"},
		{"--db a text file, read", "", []string{"stats", "--db", notDB}, "not a database"},
		{"--db with URI parameters", "", []string{"stats", "--db", "hippo.db?mode=memory&_pragma=writable_schema(1)"}, "does not exist"},
		{"--db a file: URI", "", []string{"stats", "--db", "file:" + c.db + "?mode=ro"}, "does not exist"},
		{"--db climbing out", "", []string{"agents", "--db", "../../../../../../nowhere/hippo.db"}, "does not exist"},
		{"SQL as an ID", "", []string{"delete", "' OR 1=1 --", "--force"}, "no chunk"},
		{"LIKE wildcard %", "", []string{"search", "%%%"}, ""},
		{"LIKE wildcard _", "", []string{"search", "_a_"}, ""},
		{"FTS syntax", "", []string{"search", `NEAR("a" b) AND -x* OR ^y`}, ""},
		{"SQL in search", "", []string{"search", "'); DELETE FROM chunks; --"}, ""},
		{"import of a non-JSON file", "", []string{"import", filepath.Join(c.dir, "notes.txt")}, "not a valid Hippo export"},
		{"import of one-dimension vectors", "", []string{"import", badImport}, "dimension"},
		{"import from a path that is not there", "", []string{"import", "/nonexistent/../etc/x.json"}, "no such file"},
		{"control character in block key", "", []string{"block", "set", "per\x01sona", "x"}, "control characters"},
		{"negative context budget", "", []string{"context", "x", "--max-chars", "-1"}, "negative"},
		{"bad purge date", "", []string{"purge", "--before", "2026-99-99", "--force"}, "--before"},
		{"negative embedding dimensions", "", []string{"store", "x", "--embed-dimensions", "-1"}, "must not be negative"},
	}
	for _, r := range rows {
		args := append([]string{"--agent", "alice"}, r.args...)
		res := c.runIn(r.stdin, nil, args...)
		switch {
		case r.want == "" && res.code != 0:
			t.Errorf("%s: %s", r.name, res)
		case r.want != "" && (res.code == 0 || !strings.Contains(res.stderr, r.want)):
			t.Errorf("%s: want an error mentioning %q, got %s", r.name, r.want, res)
		case r.want != "" && !clear(res.stderr):
			t.Errorf("%s: unclear message %q", r.name, res.stderr)
		}
		b.unchanged(r.name)
	}
	if got, _ := os.ReadFile(notDB); !bytes.Equal(got, notDBText) {
		t.Errorf("a text file given as --db was changed: %q", got)
	}
	entries, _ := os.ReadDir(c.dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), "?") || strings.HasPrefix(e.Name(), "file:") {
			t.Errorf("a URI given as --db created %q", e.Name())
		}
	}
	t.Logf("%d hostile command lines refused or handled literally, stored data unchanged", len(rows))
}

func TestBadInputHTTP(t *testing.T) {
	b := newBadDB(t)
	srv, err := mcp.NewServer(mcp.Config{DB: b.db, Embedder: local.NewEmbedder(), Extractor: local.NewExtractor(),
		Classifier: local.NewClassifier(), MaxBodyBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	session := mcpSession(t, hs.URL)
	call := func(args string) string {
		return `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"store_memory","arguments":` + args + `}}`
	}
	rows := []struct {
		name    string
		method  string
		path    string
		headers []string
		body    string
		status  int    // wanted HTTP status, or 0 for any 4xx
		inReply string // wanted in the reply body, for 200 answers
	}{
		{"body over the limit", "POST", "/mcp", nil, call(`{"agent_id":"alice","content":"` + strings.Repeat("x", 1<<20) + `"}`), 413, ""},
		{"body not JSON", "POST", "/mcp", nil, `{"jsonrpc":`, 0, ""},
		{"body nested 100000 deep", "POST", "/mcp", nil, strings.Repeat("[", 100000), 0, ""},
		{"arguments an array", "POST", "/mcp", nil, call(`["alice"]`), 200, `"isError":true`},
		{"no agent_id", "POST", "/mcp", nil, call(`{"content":"x"}`), 200, "agent_id: is required"},
		{"agent_id of 10000 characters", "POST", "/mcp", nil, call(`{"agent_id":"` + strings.Repeat("a", 10000) + `","content":"x"}`), 200, "at most 128"},
		{"invalid UTF-8 in arguments", "POST", "/mcp", nil, call("{\"agent_id\":\"alice\",\"content\":\"\xff\xfe\"}"), 200, "not valid UTF-8"},
		{"unknown tool", "POST", "/mcp", nil, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"drop_tables","arguments":{}}}`, 200, "drop_tables"},
		{"foreign Origin", "POST", "/mcp", []string{"Origin", "https://evil.example"}, call(`{"agent_id":"alice","content":"x"}`), 403, ""},
		{"foreign Host (DNS rebinding)", "POST", "/mcp", []string{"Host", "evil.example"}, call(`{"agent_id":"alice","content":"x"}`), 403, ""},
		{"unknown session", "POST", "/mcp", []string{"Mcp-Session-Id", "../../etc/passwd"}, call(`{"agent_id":"alice","content":"x"}`), 404, ""},
		{"SSE message to a path as session", "POST", "/messages?sessionId=../../x", nil, call(`{"agent_id":"alice","content":"x"}`), 404, ""},
		{"wrong content type", "POST", "/mcp", []string{"Content-Type", "text/plain"}, call(`{"agent_id":"alice","content":"x"}`), 0, ""},
	}
	for _, r := range rows {
		headers := append([]string{"Mcp-Session-Id", session}, r.headers...)
		status, body := rawPost(t, hs.URL+r.path, r.body, headers...)
		switch {
		case r.status == 0 && (status < 400 || status > 499):
			t.Errorf("%s: status %d, want 4xx: %.300s", r.name, status, body)
		case r.status != 0 && status != r.status:
			t.Errorf("%s: status %d, want %d: %.300s", r.name, status, r.status, body)
		case r.inReply != "" && !strings.Contains(body, r.inReply):
			t.Errorf("%s: reply lacks %q: %.300s", r.name, r.inReply, body)
		}
		b.unchanged(r.name)
	}
	t.Logf("%d hostile HTTP requests refused, stored data unchanged", len(rows))
}

// TestBadInputEmbedder points Hippo at an embedding endpoint that answers
// badly in every way, through the tools and the CLI: nothing is stored
// from a bad answer, and the error says what was wrong.
func TestBadInputEmbedder(t *testing.T) {
	const dim = 8
	var mode atomic.Value
	mode.Store("ok")
	ai := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Input []string }
		json.NewDecoder(r.Body).Decode(&req)
		vec := func(n int, v string) string {
			return "[" + strings.TrimSuffix(strings.Repeat(v+",", n), ",") + "]"
		}
		item := func(i int, emb string) string {
			return fmt.Sprintf(`{"object":"embedding","index":%d,"embedding":%s}`, i, emb)
		}
		var items []string
		m := mode.Load().(string)
		for i, text := range req.Input {
			v := make([]string, dim)
			for j := range v {
				v[j] = fmt.Sprint(float32(len(text)%7+j+1) / 10)
			}
			emb := "[" + strings.Join(v, ",") + "]"
			switch m {
			case "nan":
				emb = vec(dim, "NaN")
			case "inf":
				emb = vec(dim, "Infinity")
			case "overflow":
				emb = vec(dim, "1e39")
			case "short":
				emb = vec(dim/2, "0.5")
			case "empty":
				emb = "[]"
			case "zero":
				emb = vec(dim, "0")
			case "strings":
				emb = vec(dim, `"0.5"`)
			}
			items = append(items, item(i, emb))
			if m == "extra" {
				items = append(items, item(i+1, emb))
			}
		}
		switch m {
		case "html":
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, "<html>502 Bad Gateway</html>")
			return
		case "status":
			http.Error(w, `{"error":{"message":"model overloaded"}}`, http.StatusBadRequest)
			return
		case "slow":
			time.Sleep(time.Second)
		case "huge":
			w.Write(bytes.Repeat([]byte(" "), 64<<20+1))
			return
		}
		fmt.Fprintf(w, `{"object":"list","model":"broken-embed","data":[%s]}`, strings.Join(items, ","))
	}))
	defer ai.Close()

	c := newCLI(t)
	ctx := context.Background()
	db, err := sqlite.Open(ctx, c.db, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// Two clients: one that waits 300 ms (for the slow answer), one that
	// waits long enough to read a huge one even under the race detector.
	set := map[bool]tools.Set{}
	var mem *sqlite.Memory
	for _, patient := range []bool{true, false} {
		timeout := 300 * time.Millisecond
		if patient {
			timeout = time.Minute
		}
		emb, err := openai.NewEmbedder(openai.Config{BaseURL: ai.URL + "/v1", Model: "broken-embed", MaxRetries: -1, Timeout: timeout})
		if err != nil {
			t.Fatal(err)
		}
		if mem, err = db.Memory(sqlite.MemoryOptions{AgentID: "alice", Embedder: emb}); err != nil {
			t.Fatal(err)
		}
		set[patient] = tools.New(mem, tools.Options{Config: mem.Config()})
		// A good answer first: the client holds later answers to its length.
		if _, err := mem.Recall(ctx, hippo.RecallInput{Query: "warm up"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := mem.StoreMemory(ctx, hippo.StoreInput{Content: "a good memory"}); err != nil {
		t.Fatal(err)
	}
	b := &badDB{t: t, c: c, db: db, mem: mem, rows: &atomic.Int64{}}
	b.sum = b.checksum()
	env := []string{"HIPPO_EMBED_URL=" + ai.URL + "/v1", "HIPPO_EMBED_MODEL=broken-embed"}

	rows := []struct {
		mode, want string
		cli        bool // through the CLI too
	}{
		{"nan", "NaN", true}, {"inf", "Infinity", false}, {"overflow", "+Inf", false}, {"short", "dimension", true},
		{"empty", "empty", false}, {"zero", "zero", true}, {"strings", "neither an array of numbers nor a base64 string", false},
		{"extra", "2 embeddings returned for 1", false}, {"html", "embeddings object", true},
		{"status", "model overloaded", false}, {"slow", "no response within", false}, {"huge", "exceeds the", false},
	}
	n := 0
	for _, r := range rows {
		mode.Store(r.mode)
		calls := []string{"store_memory", "recall_memories"}
		if r.mode == "huge" {
			calls = calls[:1] // reading 64 MiB is slow under -race: once is enough
		}
		for _, tool := range calls {
			input := `{"content":"a memory for ` + r.mode + `"}`
			if tool == "recall_memories" {
				input = `{"query":"a query"}`
			}
			res, err := set[r.mode != "slow"].Call(ctx, tool, json.RawMessage(input))
			if err == nil && !res.IsError {
				t.Errorf("%s via %s: accepted: %s", r.mode, tool, res.Text)
			} else if err != nil && !strings.Contains(err.Error(), r.want) {
				t.Errorf("%s via %s: error %q does not say %q", r.mode, tool, err, r.want)
			}
			b.unchanged(r.mode + " " + tool)
			n++
		}
		if !r.cli {
			continue // the same code as above; the CLI's own timeout is a minute
		}
		res := c.runIn("", env, "store", "--agent", "alice", "a CLI memory for "+r.mode)
		if res.code != 1 || !strings.Contains(res.stderr, r.want) {
			t.Errorf("%s via the CLI: want exit 1 saying %q, got %s", r.mode, r.want, res)
		}
		b.unchanged(r.mode + " CLI")
		n++
	}
	t.Logf("%d calls against %d broken embedding answers refused, stored data unchanged", n, len(rows))
}

// mcpSession initializes a Streamable HTTP session and returns its ID.
func mcpSession(t *testing.T, base string) string {
	t.Helper()
	status, _, hdr := rawPostHeader(t, base+"/mcp", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	id := hdr.Get("Mcp-Session-Id")
	if status != 200 || id == "" {
		t.Fatalf("initialize: %d, session %q", status, id)
	}
	rawPost(t, base+"/mcp", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, "Mcp-Session-Id", id)
	return id
}

// rawPost posts body with header pairs and returns the status and the
// reply (the data of an event stream, or the body).
func rawPost(t *testing.T, url, body string, headers ...string) (int, string) {
	t.Helper()
	status, reply, _ := rawPostHeader(t, url, body, headers...)
	return status, reply
}

func rawPostHeader(t *testing.T, url, body string, headers ...string) (int, string, http.Header) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i] == "Host" {
			req.Host = headers[i+1]
		} else {
			req.Header.Set(headers[i], headers[i+1])
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out strings.Builder
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 8<<20)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data:"); ok {
				out.WriteString(strings.TrimSpace(d))
			}
		}
	} else {
		io.Copy(&out, io.LimitReader(resp.Body, 1<<20))
	}
	return resp.StatusCode, out.String(), resp.Header
}
