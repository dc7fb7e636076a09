package mcp_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/mcp"
)

var toolNames = []string{"remember_facts", "store_memory", "store_memories", "recall_memories", "forget_memory",
	"recall_memory_block", "replace_memory_block", "append_memory_block",
	"list_memory_blocks", "delete_memory_block", "get_context", "fact_history", "memory_source", "reinforce_memory", "update_memory"}

func TestListTools(t *testing.T) {
	e := newEnv(t)
	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) {
			cs := e.connect(tr)
			res, err := cs.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tool := range res.Tools {
				names = append(names, tool.Name)
				b, _ := json.Marshal(tool.InputSchema)
				var schema struct {
					Type       string                     `json:"type"`
					Required   []string                   `json:"required"`
					Properties map[string]json.RawMessage `json:"properties"`
				}
				if err := json.Unmarshal(b, &schema); err != nil {
					t.Fatal(err)
				}
				if schema.Type != "object" || len(schema.Required) == 0 || schema.Required[0] != "agent_id" {
					t.Errorf("%s: schema %s does not require agent_id first", tool.Name, b)
				}
				if slices.Contains(schema.Required, "scope") {
					t.Errorf("%s: scope is required", tool.Name)
				}
				var agent, scope struct {
					Type      string `json:"type"`
					MinLength int    `json:"minLength"`
					MaxLength int    `json:"maxLength"`
				}
				json.Unmarshal(schema.Properties["agent_id"], &agent)
				json.Unmarshal(schema.Properties["scope"], &scope)
				if agent.Type != "string" || agent.MinLength != 1 || agent.MaxLength != 128 {
					t.Errorf("%s: agent_id schema %s", tool.Name, schema.Properties["agent_id"])
				}
				if scope.Type != "string" || scope.MaxLength != 128 {
					t.Errorf("%s: scope schema %s", tool.Name, schema.Properties["scope"])
				}
				if len(schema.Properties) < 3 && tool.Name != "list_memory_blocks" {
					t.Errorf("%s: the tool's own properties are missing: %s", tool.Name, b)
				}
				if len(tool.Description) < 200 {
					t.Errorf("%s: short description %q", tool.Name, tool.Description)
				}
				a := tool.Annotations
				if a == nil || a.DestructiveHint == nil {
					t.Fatalf("%s: annotations %+v", tool.Name, a)
				}
				wantRO := strings.HasPrefix(tool.Name, "recall_") || tool.Name == "list_memory_blocks" ||
					tool.Name == "get_context" || tool.Name == "fact_history" || tool.Name == "memory_source"
				wantDestructive := tool.Name == "forget_memory" || tool.Name == "replace_memory_block" ||
					tool.Name == "delete_memory_block" || tool.Name == "update_memory"
				if a.ReadOnlyHint != wantRO || *a.DestructiveHint != wantDestructive {
					t.Errorf("%s: readOnly %v destructive %v", tool.Name, a.ReadOnlyHint, *a.DestructiveHint)
				}
			}
			if !slices.Equal(sorted(names), sorted(toolNames)) {
				t.Errorf("tools = %v, want %v", names, toolNames)
			}
		})
	}

	withConv := newEnv(t, func(c *mcp.Config) { c.MessagesTable = "messages" })
	res, err := withConv.connect("streamable").ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != len(toolNames)+1 || !slices.ContainsFunc(res.Tools, func(t2 *sdkTool) bool { return t2.Name == "recall_conversation" }) {
		t.Errorf("with a messages table: %d tools", len(res.Tools))
	}
	if got := withConv.server.Tools(); len(got) != len(toolNames)+1 {
		t.Errorf("Tools() = %v", got)
	}
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

func TestRoundTrip(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) {
			e := newEnv(t)
			cs := e.connect(tr)
			a := func(args map[string]any) map[string]any {
				args["agent_id"] = "agent-a"
				return args
			}

			r := ok(t, cs, "store_memory", a(map[string]any{"content": "The user's home address is 12 Main Street",
				"metadata": map[string]any{"source": "chat"}}))
			if !strings.HasPrefix(r.Text, "Stored new memory") || r.Details["duplicate"] != false {
				t.Errorf("store: %q %v", r.Text, r.Details)
			}
			ok(t, cs, "store_memory", a(map[string]any{"content": "We deploy on Fridays"}))

			e.ai.Reply(`{"facts":[{"fact":"User owns a cat called Miso","intensity":0.7}]}`)
			r = ok(t, cs, "remember_facts", a(map[string]any{"text": "I have a cat, Miso"}))
			if !strings.Contains(r.Text, "Learned 1 fact") {
				t.Errorf("remember_facts: %q", r.Text)
			}

			got := recalled(t, cs, a(map[string]any{"query": "The user's home address is 12 Main Street", "min_relevance": 0}))
			if len(got) != 3 || got[0] != "The user's home address is 12 Main Street" {
				t.Errorf("recall = %v", got)
			}
			r = ok(t, cs, "recall_memories", a(map[string]any{"query": "cat", "kind": "fact"}))
			if !strings.Contains(r.Text, "[fact] User owns a cat called Miso") {
				t.Errorf("recall facts: %q", r.Text)
			}

			r = ok(t, cs, "forget_memory", a(map[string]any{"description": "The user's home address is 12 Main Street"}))
			if !strings.HasPrefix(r.Text, "Forgot 1 item") || len(r.Details["deleted"].([]any)) != 1 {
				t.Errorf("forget: %q", r.Text)
			}
			got = recalled(t, cs, a(map[string]any{"query": "The user's home address is 12 Main Street", "min_relevance": 0}))
			if slices.Contains(got, "The user's home address is 12 Main Street") || len(got) != 2 {
				t.Errorf("after forget: %v", got)
			}
		})
	}
}

func TestBlocks(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) {
			e := newEnv(t)
			cs := e.connect(tr)
			args := func(kv ...any) map[string]any {
				m := map[string]any{"agent_id": "agent-a"}
				for i := 0; i < len(kv); i += 2 {
					m[kv[i].(string)] = kv[i+1]
				}
				return m
			}

			// A missing block is not an error: its value is null.
			r := ok(t, cs, "recall_memory_block", args("key", "persona"))
			if v, present := r.Details["value"]; !present || v != nil || r.Text != `Block "persona" does not exist.` {
				t.Errorf("missing block: %q %v", r.Text, r.Details)
			}
			fails(t, cs, "replace_memory_block", args("key", "persona", "old_text", "a", "new_text", "b"),
				hippo.ENOTFOUND, `block "persona" does not exist`)

			r = ok(t, cs, "append_memory_block", args("key", "persona", "text", "Tone: dry."))
			if r.Details["created"] != true {
				t.Errorf("append: %v", r.Details)
			}
			ok(t, cs, "append_memory_block", args("key", "persona", "text", "Name: Hippo."))
			r = fails(t, cs, "replace_memory_block", args("key", "persona", "old_text", "cold", "new_text", "x"),
				hippo.ENOTFOUND, `"cold" not found in block "persona"`)
			if r.Details["message"] != r.Text {
				t.Errorf("error details = %v", r.Details)
			}
			r = ok(t, cs, "replace_memory_block", args("key", "persona", "old_text", "dry", "new_text", "warm"))
			if r.Details["replacements"] != 1.0 {
				t.Errorf("replace: %v", r.Details)
			}
			r = ok(t, cs, "recall_memory_block", args("key", "persona"))
			if r.Text != "Tone: warm.\nName: Hippo." || r.Details["value"] != r.Text {
				t.Errorf("block = %q %v", r.Text, r.Details)
			}
		})
	}
}

func TestBadInput(t *testing.T) {
	e := newEnv(t)
	cs := e.connect("streamable")
	tests := []struct {
		name  string
		tool  string
		args  map[string]any
		field string
		text  string
	}{
		{"no agent_id", "recall_memories", map[string]any{"query": "x"}, "agent_id", "agent_id: is required"},
		{"null agent_id", "recall_memories", map[string]any{"agent_id": nil, "query": "x"}, "agent_id", "agent_id: is required"},
		{"empty agent_id", "store_memory", map[string]any{"agent_id": "", "content": "x"}, "agent_id", "agent_id: must not be empty"},
		{"agent_id not a string", "store_memory", map[string]any{"agent_id": 7, "content": "x"}, "agent_id", "agent_id: must be a string"},
		{"long agent_id", "store_memory", map[string]any{"agent_id": strings.Repeat("a", 129), "content": "x"}, "agent_id", "at most 128"},
		{"control character", "store_memory", map[string]any{"agent_id": "a\nb", "content": "x"}, "agent_id", "control characters"},
		{"scope not a string", "store_memory", map[string]any{"agent_id": "a", "scope": true, "content": "x"}, "scope", "scope: must be a string"},
		{"control in scope", "store_memory", map[string]any{"agent_id": "a", "scope": "p\x01", "content": "x"}, "scope", "control characters"},
		{"limit 0", "recall_memories", map[string]any{"agent_id": "a", "query": "x", "limit": 0}, "limit", "limit: must be between 1 and 50, got 0"},
		{"limit 51", "recall_memories", map[string]any{"agent_id": "a", "query": "x", "limit": 51}, "limit", "between 1 and 50"},
		{"missing field", "store_memory", map[string]any{"agent_id": "a"}, "content", "content: is required"},
		{"unknown field", "store_memory", map[string]any{"agent_id": "a", "content": "x", "agent": "b"}, "agent", `unknown field "agent"`},
		{"too long", "remember_facts", map[string]any{"agent_id": "a", "text": strings.Repeat("x", 10_001)}, "text", "at most 10000 characters"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := fails(t, cs, tt.tool, tt.args, hippo.EINVALID, tt.text)
			if r.Details["field"] != tt.field {
				t.Errorf("field = %v, want %q", r.Details["field"], tt.field)
			}
		})
	}
	// Nothing was stored by the failed calls, and the session still works.
	if got := recalled(t, cs, map[string]any{"agent_id": "a", "query": "x"}); len(got) != 0 {
		t.Errorf("recall after failures = %v", got)
	}
}

func TestAgentIsolation(t *testing.T) {
	e := newEnv(t)
	a, b := e.connect("streamable"), e.connect("sse")
	ok(t, a, "store_memory", map[string]any{"agent_id": "agent-a", "content": "The launch code is 1234"})
	ok(t, a, "append_memory_block", map[string]any{"agent_id": "agent-a", "key": "human", "text": "Likes tea"})

	if got := recalled(t, b, map[string]any{"agent_id": "agent-b", "query": "The launch code is 1234"}); len(got) != 0 {
		t.Errorf("agent-b recalls %v", got)
	}
	r := ok(t, b, "recall_memory_block", map[string]any{"agent_id": "agent-b", "key": "human"})
	if r.Details["value"] != nil {
		t.Errorf("agent-b reads agent-a's block: %v", r.Details)
	}
	r = ok(t, b, "forget_memory", map[string]any{"agent_id": "agent-b", "description": "The launch code is 1234"})
	if len(r.Details["deleted"].([]any)) != 0 {
		t.Errorf("agent-b forgot %v", r.Details)
	}
	// The same session may act for another agent: agent_id decides, not the session.
	if got := recalled(t, b, map[string]any{"agent_id": "agent-a", "query": "The launch code is 1234"}); len(got) != 1 {
		t.Errorf("agent-a via another session recalls %v", got)
	}
}

func TestScopes(t *testing.T) {
	e := newEnv(t)
	cs := e.connect("streamable")
	store := func(scope any, content string) {
		args := map[string]any{"agent_id": "a", "content": content}
		if scope != nil {
			args["scope"] = scope
		}
		r := ok(t, cs, "store_memory", args)
		want := ""
		if s, ok := scope.(string); ok {
			want = s
		}
		if got := r.Details["memory"].(map[string]any)["scope"]; got != want {
			t.Errorf("stored %q in scope %v, want %q", content, got, want)
		}
	}
	store(nil, "global note about apples")
	store("", "another global note about apples")
	store("p1", "project one note about apples")
	store("p2", "project two note about apples")

	tests := []struct {
		scope any
		want  []string
	}{
		{nil, []string{"another global note about apples", "global note about apples", "project one note about apples", "project two note about apples"}},
		{"", []string{"another global note about apples", "global note about apples", "project one note about apples", "project two note about apples"}},
		{"p1", []string{"project one note about apples"}},
		{"p3", nil},
	}
	for _, tt := range tests {
		args := map[string]any{"agent_id": "a", "query": "note about apples"}
		if tt.scope != nil {
			args["scope"] = tt.scope
		}
		got := sorted(recalled(t, cs, args))
		if !slices.Equal(got, tt.want) {
			t.Errorf("recall in scope %v = %v, want %v", tt.scope, got, tt.want)
		}
	}

	// forget with a scope deletes only there.
	r := ok(t, cs, "forget_memory", map[string]any{"agent_id": "a", "scope": "p2", "description": "note about apples", "threshold": 0.5})
	if d := r.Details["deleted"].([]any); len(d) != 1 || d[0].(map[string]any)["content"] != "project two note about apples" {
		t.Errorf("scoped forget deleted %v", d)
	}

	// Blocks live in one scope.
	ok(t, cs, "append_memory_block", map[string]any{"agent_id": "a", "scope": "p1", "key": "objectives", "text": "ship p1"})
	if r := ok(t, cs, "recall_memory_block", map[string]any{"agent_id": "a", "key": "objectives"}); r.Details["value"] != nil {
		t.Errorf("global block sees the p1 block: %v", r.Details)
	}
	if r := ok(t, cs, "recall_memory_block", map[string]any{"agent_id": "a", "scope": "p1", "key": "objectives"}); r.Text != "ship p1" {
		t.Errorf("p1 block = %q", r.Text)
	}
}

func TestInternalError(t *testing.T) {
	logger, logs := newTestLogger()
	e := newEnv(t, func(c *mcp.Config) { c.Logger = logger })
	cs := e.connect("streamable")
	e.ai.EmbedStatus = func(int) int { return http.StatusInternalServerError }
	r := fails(t, cs, "store_memory", map[string]any{"agent_id": "a", "content": "x"}, hippo.EINTERNAL, "internal error in store_memory (ref ")
	if strings.Contains(r.Text, "scripted failure") || strings.Contains(r.Text, e.ai.URL) {
		t.Errorf("internal details leak to the client: %q", r.Text)
	}
	ref := r.Text[strings.Index(r.Text, "ref ")+4:][:8]
	if !strings.Contains(logs.String(), ref) || !strings.Contains(logs.String(), "tool call failed") {
		t.Errorf("log lacks the failure %s: %s", ref, logs.String())
	}
	if strings.Contains(logs.String(), "sk-test") {
		t.Errorf("log holds the API key: %s", logs.String())
	}
	// The server is unharmed.
	e.ai.EmbedStatus = nil
	ok(t, cs, "store_memory", map[string]any{"agent_id": "a", "content": "x"})

	// A remember_facts whose extraction the LLM refuses keeps its text,
	// and says where.
	r = fails(t, cs, "remember_facts", map[string]any{"agent_id": "a", "text": "I moved to Lisbon."}, hippo.EINTERNAL, "The text was kept as memory ")
	if found := ok(t, cs, "recall_memories", map[string]any{"agent_id": "a", "query": "I moved to Lisbon."}); !strings.Contains(found.Text, "I moved to Lisbon.") {
		t.Errorf("the kept text is not recalled: %s (after %s)", found.Text, r.Text)
	}

	// Neither is it by a panic.
	p := newEnv(t, func(c *mcp.Config) { c.Extractor = panicExtractor{} })
	cs = p.connect("sse")
	fails(t, cs, "remember_facts", map[string]any{"agent_id": "a", "text": "boom"}, hippo.EINTERNAL, "internal error in remember_facts")
	ok(t, cs, "store_memory", map[string]any{"agent_id": "a", "content": "after the panic"})
}

type panicExtractor struct{}

func (panicExtractor) ExtractFacts(context.Context, string) ([]hippo.Fact, []hippo.LLMCall, error) {
	panic("boom")
}

func TestRecallConversation(t *testing.T) {
	e := newEnv(t, func(c *mcp.Config) { c.MessagesTable = "messages" })
	if e.lite == nil {
		t.Skip("the messages table of this test is SQLite's (FTS5)")
	}
	raw, err := sql.Open("sqlite", e.lite.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.Exec(`
		CREATE TABLE messages (id INTEGER PRIMARY KEY, agent_id TEXT, role TEXT, content TEXT, created_at TEXT);
		CREATE VIRTUAL TABLE messages_fts USING fts5(content, content=messages, content_rowid=id);
		INSERT INTO messages VALUES (1, 'a', 'user', 'My cat is called Miso', '2026-01-02T10:00:00Z'),
			(2, 'b', 'user', 'Miso is also my cat', '2026-01-02T10:00:00Z');
		INSERT INTO messages_fts(rowid, content) SELECT id, content FROM messages;`); err != nil {
		t.Fatal(err)
	}
	cs := e.connect("streamable")
	r := ok(t, cs, "recall_conversation", map[string]any{"agent_id": "a", "query": "Miso"})
	if msgs := r.Details["messages"].([]any); len(msgs) != 1 || !strings.Contains(r.Text, "My cat is called Miso") {
		t.Errorf("recall_conversation = %q", r.Text)
	}
}

func TestNewServerErrors(t *testing.T) {
	e := newEnv(t)
	tests := []struct {
		name string
		cfg  mcp.Config
		want string
	}{
		{"no db", mcp.Config{}, "DB is required"},
		{"bad table", mcp.Config{DB: e.db, Embedder: stubEmbedder{}, MessagesTable: "x; DROP"}, "not a valid table name"},
		{"bad token", mcp.Config{DB: e.db, Embedder: stubEmbedder{}, AuthToken: "two words"}, "auth token"},
		{"bad origin", mcp.Config{DB: e.db, Embedder: stubEmbedder{}, AllowedOrigins: []string{"example.com"}}, "allowed origin"},
	}
	for _, tt := range tests {
		if _, err := mcp.NewServer(tt.cfg); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.want)
		}
	}
}
