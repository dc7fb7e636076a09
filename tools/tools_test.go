package tools_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/llm"
	"github.com/hippo-mem/hippo/local"
	"github.com/hippo-mem/hippo/mock"
	"github.com/hippo-mem/hippo/openai"
	"github.com/hippo-mem/hippo/sqlite"
	"github.com/hippo-mem/hippo/tools"
)

// env is a database, a fake OpenAI server, the real clients talking to it
// and the tools over one agent's memory.
type env struct {
	t     *testing.T
	srv   *mock.Server
	mem   hippo.MemoryService
	tools tools.Set
}

const testDim = 64

// messagesSchema is a consumer-owned messages table with an external-content
// FTS5 index kept in sync by triggers, as seed 000 describes.
const messagesSchema = `
CREATE TABLE messages (
	id         INTEGER PRIMARY KEY,
	agent_id   TEXT NOT NULL,
	role       TEXT NOT NULL,
	content    TEXT NOT NULL,
	created_at TEXT NOT NULL
);
CREATE VIRTUAL TABLE messages_fts USING fts5(content, content=messages, content_rowid=id);
CREATE TRIGGER messages_ai AFTER INSERT ON messages BEGIN
	INSERT INTO messages_fts(rowid, content) VALUES (new.id, new.content);
END;
CREATE TRIGGER messages_ad AFTER DELETE ON messages BEGIN
	INSERT INTO messages_fts(messages_fts, rowid, content) VALUES ('delete', old.id, old.content);
END;
INSERT INTO messages (agent_id, role, content, created_at) VALUES
	('agent-a', 'user', 'My cat is called Miso and she likes foo treats.', '2026-01-02T10:00:00Z'),
	('agent-a', 'assistant', 'Noted: Miso likes foo treats.', '2026-01-02T10:00:05Z'),
	('agent-a', 'user', 'The deploy key lives in the bar vault.', '2026-01-03T09:00:00Z'),
	('agent-b', 'user', 'foo bar from another agent', '2026-01-03T09:30:00Z');
`

// newEnv opens a fresh database; conversation creates a messages table and
// configures the service and the tools with it.
func newEnv(t *testing.T, conversation bool) *env {
	t.Helper()
	ctx := context.Background()
	srv := mock.NewServer(t, testDim)
	client := openai.Config{BaseURL: srv.BaseURL(), APIKey: "sk-test", MaxRetries: -1}
	embCfg, chatCfg := client, client
	embCfg.Model, chatCfg.Model = "mock-embed", "mock-chat"
	emb, err := openai.NewEmbedder(embCfg)
	if err != nil {
		t.Fatal(err)
	}
	chat, err := openai.NewLLM(chatCfg)
	if err != nil {
		t.Fatal(err)
	}

	path := filepath.Join(t.TempDir(), "hippo.db")
	opts := sqlite.MemoryOptions{
		AgentID: "agent-a", Embedder: emb,
		Extractor: llm.NewExtractor(chat), Classifier: llm.NewClassifier(chat),
		FallbackExtractor: local.NewExtractor(),
	}
	if conversation {
		raw, err := sql.Open("sqlite", path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := raw.ExecContext(ctx, messagesSchema); err != nil {
			t.Fatal(err)
		}
		if err := raw.Close(); err != nil {
			t.Fatal(err)
		}
		opts.MessagesTable = "messages"
	}
	// The consumer's messages table is in the file first: Hippo adopts it.
	db, err := sqlite.Open(ctx, path, sqlite.Options{Adopt: conversation})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	mem, err := db.Memory(opts)
	if err != nil {
		t.Fatal(err)
	}
	set := tools.New(mem, tools.Options{Conversation: conversation, Config: db.Config()})
	return &env{t: t, srv: srv, mem: mem, tools: set}
}

// call runs a tool, fails on a Go error and checks that Details marshals
// and validates against the tool's output schema (ErrorSchema for a
// failure). It returns the result and its Details as generic JSON.
func (e *env) call(name, input string) (*tools.Result, map[string]any) {
	e.t.Helper()
	res, err := e.tools.Call(context.Background(), name, json.RawMessage(input))
	if err != nil {
		e.t.Fatalf("%s %s: %v", name, input, err)
	}
	d := details(e.t, res)
	schema := tools.ErrorSchema()
	if tool, ok := e.tools.Lookup(name); ok && !res.IsError {
		schema = tool.OutputSchema
	}
	if err := validate(schema, d); err != nil {
		e.t.Errorf("%s %s: details %v do not match the output schema: %v", name, input, d, err)
	}
	return res, d
}

// validate checks instance, as generic JSON, against schema.
func validate(schema *jsonschema.Schema, instance any) error {
	if schema == nil {
		return errors.New("no schema")
	}
	resolved, err := schema.Resolve(nil)
	if err != nil {
		return fmt.Errorf("resolve: %w", err)
	}
	return resolved.Validate(instance)
}

// ok is call that also requires success.
func (e *env) ok(name, input string) (*tools.Result, map[string]any) {
	e.t.Helper()
	res, d := e.call(name, input)
	if res.IsError {
		e.t.Fatalf("%s %s: unexpected error result: %s", name, input, res.Text)
	}
	return res, d
}

func details(t *testing.T, res *tools.Result) map[string]any {
	t.Helper()
	if res == nil {
		t.Fatal("nil result")
	}
	b, err := json.Marshal(res.Details)
	if err != nil {
		t.Fatalf("details do not marshal: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("details %s are not a JSON object: %v", b, err)
	}
	if strings.Contains(string(b), "embedding") {
		t.Errorf("details hold an embedding: %s", b)
	}
	return m
}

func wantText(t *testing.T, res *tools.Result, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(res.Text, p) {
			t.Errorf("text %q does not contain %q", res.Text, p)
		}
	}
}

func TestNames(t *testing.T) {
	e := newEnv(t, false)
	want := []string{"remember_facts", "store_memory", "store_memories", "recall_memories", "forget_memory",
		"recall_memory_block", "replace_memory_block", "append_memory_block",
		"list_memory_blocks", "delete_memory_block", "get_context", "fact_history", "memory_source", "reinforce_memory", "update_memory"}
	if got := e.tools.Names(); !slices.Equal(got, want) {
		t.Errorf("without a messages table: %v, want %v", got, want)
	}
	res, d := e.call("recall_conversation", `{"query":"foo"}`)
	if !res.IsError || d["error"] != hippo.ENOTFOUND {
		t.Errorf("recall_conversation without a messages table = %+v", res)
	}
	if got := newEnv(t, true).tools.Names(); !slices.Equal(got, append(want, "recall_conversation")) {
		t.Errorf("with a messages table: %v", got)
	}
}

func TestSchemas(t *testing.T) {
	tests := []struct {
		name     string
		required []string
		valid    string // an input the schema must accept
	}{
		{"remember_facts", nil, `{"text":"I live in Berlin","source":"msg-1","facts":[{"fact":"User lives in Berlin","intensity":0.6},{"fact":"User likes jazz"}]}`},
		{"store_memory", []string{"content"}, `{"content":"x","metadata":{"source":"a","tags":["b"],"category":"c","extra":1},"source":"https://example.com/a"}`},
		{"recall_memories", []string{"query"}, `{"query":"x","limit":50,"kind":"fact","tags":["a"],"category":"decision","since":"2025-01-01","as_of":"2026-01-01T00:00:00Z","min_score":0.2,"offset":10,"include_suspicious":true}`},
		{"forget_memory", []string{"description"}, `{"description":"x","threshold":1}`},
		{"store_memories", []string{"items"}, `{"items":[{"content":"x","metadata":{"a":1},"intensity":0.5,"source":"s"}]}`},
		{"recall_memory_block", []string{"key"}, `{"key":"persona"}`},
		{"replace_memory_block", []string{"key", "old_text", "new_text"}, `{"key":"persona","old_text":"a","new_text":""}`},
		{"append_memory_block", []string{"key", "text"}, `{"key":"persona","text":"a"}`},
		{"recall_conversation", []string{"query"}, `{"query":"x","limit":1}`},
		{"list_memory_blocks", nil, `{}`},
		{"delete_memory_block", []string{"key"}, `{"key":"persona"}`},
		{"get_context", nil, `{"query":"x","max_tokens":100,"limit":5}`},
		{"fact_history", nil, `{"query":"where the user lives"}`},
		{"memory_source", []string{"id"}, `{"id":"01J0000000000000000000000"}`},
		{"reinforce_memory", nil, `{"upvotes":["a"],"downvotes":["b"]}`},
		{"update_memory", []string{"id"}, `{"id":"a","content":"x","tags":["t"],"category":"","context":["c"],"intensity":0.5,"reinforce":"none"}`},
	}
	set := newEnv(t, true).tools
	if len(set) != len(tests) {
		t.Fatalf("%d tools, want %d", len(set), len(tests))
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool, ok := set.Lookup(tt.name)
			if !ok {
				t.Fatal("missing")
			}
			if len(tool.Description) < 200 {
				t.Errorf("description too short to act on: %q", tool.Description)
			}
			b, err := json.Marshal(tool.InputSchema)
			if err != nil {
				t.Fatal(err)
			}
			var s struct {
				Type                 string                     `json:"type"`
				Properties           map[string]json.RawMessage `json:"properties"`
				Required             []string                   `json:"required"`
				AdditionalProperties *bool                      `json:"additionalProperties"`
			}
			if err := json.Unmarshal(b, &s); err != nil {
				t.Fatalf("schema %s: %v", b, err)
			}
			if s.Type != "object" {
				t.Errorf("type = %q, want object", s.Type)
			}
			if !reflect.DeepEqual(s.Required, tt.required) {
				t.Errorf("required = %v, want %v", s.Required, tt.required)
			}
			for _, r := range tt.required {
				if s.Properties[r] == nil {
					t.Errorf("required %q is not a property", r)
				}
			}
			if s.AdditionalProperties == nil || *s.AdditionalProperties {
				t.Errorf("additionalProperties = %v, want false", s.AdditionalProperties)
			}
			for name, p := range s.Properties {
				if !strings.Contains(string(p), `"description"`) {
					t.Errorf("property %s has no description", name)
				}
			}
			if tool.OutputSchema == nil || tool.OutputSchema.Type != "object" {
				t.Errorf("output schema = %v, want an object schema", tool.OutputSchema)
			} else if err := validate(tool.OutputSchema, map[string]any{"unexpected": 1}); err == nil {
				t.Errorf("output schema accepts {\"unexpected\": 1}")
			}
			// The schema is valid and agrees with the handler on good input.
			var reparsed jsonschema.Schema
			if err := json.Unmarshal(b, &reparsed); err != nil {
				t.Fatal(err)
			}
			resolved, err := reparsed.Resolve(nil)
			if err != nil {
				t.Fatalf("resolve: %v", err)
			}
			var instance any
			json.Unmarshal([]byte(tt.valid), &instance)
			if err := resolved.Validate(instance); err != nil {
				t.Errorf("schema rejects %s: %v", tt.valid, err)
			}
			if err := resolved.Validate(map[string]any{}); (err == nil) != (len(tt.required) == 0) {
				t.Errorf("schema on {}: %v, with required fields %v", err, tt.required)
			}
		})
	}
}

func TestBadInput(t *testing.T) {
	e := newEnv(t, true)
	tests := []struct {
		name, tool, input string
		code, field       string
		text              string
	}{
		{"unknown field", "recall_memories", `{"query":"x","bogus":1}`, hippo.EINVALID, "bogus", `unknown field "bogus"`},
		{"wrong case", "remember_facts", `{"Text":"x"}`, hippo.EINVALID, "Text", `unknown field "Text"`},
		{"string for integer", "recall_memories", `{"query":"x","limit":"5"}`, hippo.EINVALID, "limit", "limit: must be an integer, got string"},
		{"fraction for integer", "recall_memories", `{"query":"x","limit":1.5}`, hippo.EINVALID, "limit", "limit: must be an integer, got number 1.5"},
		{"huge float for integer", "recall_memories", `{"query":"x","limit":1e300}`, hippo.EINVALID, "limit", "limit: must be an integer, got number 1e300"},
		{"number for string", "store_memory", `{"content":5}`, hippo.EINVALID, "content", "content: must be a string, got number"},
		{"limit 0", "recall_memories", `{"query":"x","limit":0}`, hippo.EINVALID, "limit", "limit: must be between 1 and 50, got 0"},
		{"limit 51", "recall_memories", `{"query":"x","limit":51}`, hippo.EINVALID, "limit", "limit: must be between 1 and 50, got 51"},
		{"conversation limit 0", "recall_conversation", `{"query":"x","limit":0}`, hippo.EINVALID, "limit", "limit"},
		{"conversation limit 51", "recall_conversation", `{"query":"x","limit":51}`, hippo.EINVALID, "limit", "limit"},
		{"bad kind", "recall_memories", `{"query":"x","kind":"note"}`, hippo.EINVALID, "kind", "kind"},
		{"min_relevance 1.5", "recall_memories", `{"query":"x","min_relevance":1.5}`, hippo.EINVALID, "min_relevance", "min_relevance"},
		{"min_relevance -0.1", "recall_memories", `{"query":"x","min_relevance":-0.1}`, hippo.EINVALID, "min_relevance", "min_relevance"},
		{"threshold 0", "forget_memory", `{"description":"x","threshold":0}`, hippo.EINVALID, "threshold", "threshold: must be in (0, 1], got 0"},
		{"threshold -0.1", "forget_memory", `{"description":"x","threshold":-0.1}`, hippo.EINVALID, "threshold", "threshold"},
		{"threshold 1.5", "forget_memory", `{"description":"x","threshold":1.5}`, hippo.EINVALID, "threshold", "threshold"},
		{"empty input", "remember_facts", ``, hippo.EINVALID, "text", "text: is required when no facts are given"},
		{"no facts and no text", "remember_facts", `{"facts":[],"source":"msg-1"}`, hippo.EINVALID, "text", "text: is required when no facts are given"},
		{"null input", "store_memory", `null`, hippo.EINVALID, "content", "content: is required"},
		{"null field", "store_memory", `{"content":null}`, hippo.EINVALID, "content", "content: is required"},
		{"missing new_text", "replace_memory_block", `{"key":"k","old_text":"a"}`, hippo.EINVALID, "new_text", "new_text: is required"},
		{"blank text", "remember_facts", `{"text":"   "}`, hippo.EINVALID, "text", "text: must not be empty"},
		{"text too long", "remember_facts", `{"text":"` + strings.Repeat("a", 10_001) + `"}`, hippo.EINVALID, "text", "at most 10000 characters"},
		{"content too long", "store_memory", `{"content":"` + strings.Repeat("a", 50_001) + `"}`, hippo.EINVALID, "content", "at most 50000 characters"},
		{"metadata string", "store_memory", `{"content":"x","metadata":"tags"}`, hippo.EINVALID, "metadata", `metadata: must be a JSON object, or a string holding one; got the string "tags"`},
		{"metadata string of an array", "store_memory", `{"content":"x","metadata":"[1]"}`, hippo.EINVALID, "metadata", `got the string "[1]"`},
		{"metadata string of null", "store_memory", `{"content":"x","metadata":"null"}`, hippo.EINVALID, "metadata", `got the string "null"`},
		{"text and its alias", "append_memory_block", `{"key":"k","text":"a","content":"b"}`, hippo.EINVALID, "content", "content and text are the same argument; give only text"},
		{"metadata array", "store_memory", `{"content":"x","metadata":["a"]}`, hippo.EINVALID, "metadata", "metadata"},
		{"metadata number", "store_memory", `{"content":"x","metadata":5}`, hippo.EINVALID, "metadata", "metadata"},
		{"array input", "recall_memories", `["x"]`, hippo.EINVALID, "", "input must be a JSON object, got array"},
		{"string input", "recall_memories", `"x"`, hippo.EINVALID, "", "input must be a JSON object, got string"},
		{"invalid JSON", "recall_memories", `{"query":`, hippo.EINVALID, "", "input is not valid JSON"},
		{"trailing data", "recall_memories", `{"query":"x"} {}`, hippo.EINVALID, "", "single JSON object"},
		{"oversized input", "store_memory", `{"content":"` + strings.Repeat("a", tools.MaxInputBytes) + `"}`, hippo.EINVALID, "", "more than the 1048576 allowed"},
		{"key too long", "recall_memory_block", `{"key":"` + strings.Repeat("k", 129) + `"}`, hippo.EINVALID, "key", "key: must be at most 128"},
		{"blank key", "append_memory_block", `{"key":" ","text":"x"}`, hippo.EINVALID, "key", "key: must not be empty"},
		{"empty old_text", "replace_memory_block", `{"key":"persona","old_text":"","new_text":"x"}`, hippo.EINVALID, "old_text", "old_text: must not be empty"},
		{"no searchable words", "recall_conversation", `{"query":"(*) \"\""}`, hippo.EINVALID, "query", "no searchable words"},
		{"unknown tool", "recall_everything", `{}`, hippo.ENOTFOUND, "", `unknown tool "recall_everything"`},
		// One pass finds them all and reports, in this order: an argument
		// given twice through an alias, unknown ones, missing ones, then
		// the first of the wrong type.
		{"null after a value", "store_memory", `{"content":"x","content":null}`, hippo.EINVALID, "content", "content: is required"},
		{"alias beside null", "append_memory_block", `{"key":"k","text":null,"content":"b"}`, hippo.EINVALID, "content", "give only text"},
		{"unknown before wrong type", "recall_memories", `{"query":"x","limit":"5","bogus":1}`, hippo.EINVALID, "bogus", `unknown field "bogus"`},
		{"missing before wrong type", "recall_memories", `{"limit":"5"}`, hippo.EINVALID, "query", "query: is required"},
		{"first wrong type", "recall_memories", `{"query":"x","kind":5,"limit":"5"}`, hippo.EINVALID, "kind", "kind: must be a string, got number"},
		{"integer beyond int64", "recall_memories", `{"query":"x","limit":99999999999999999999}`, hippo.EINVALID, "limit", "limit: must be an integer, got number 99999999999999999999"},
		{"wrong element type", "reinforce_memory", `{"upvotes":[1]}`, hippo.EINVALID, "upvotes", "upvotes: must be an array, got number"},
		{"no colon", "recall_memories", `{"query" "x"}`, hippo.EINVALID, "", "input is not valid JSON: invalid character '\"' after object key"},
		{"null then more", "recall_memories", `null {}`, hippo.EINVALID, "", "single JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, d := e.call(tt.tool, tt.input)
			if !res.IsError {
				t.Fatalf("not an error: %s", res.Text)
			}
			wantText(t, res, tt.text)
			if d["error"] != tt.code || d["message"] != res.Text {
				t.Errorf("details = %v, want code %q and the text as message", d, tt.code)
			}
			if field, _ := d["field"].(string); field != tt.field {
				t.Errorf("field = %q, want %q", field, tt.field)
			}
		})
	}
	if embeds, chats := e.srv.Counts(); embeds != 0 || chats != 0 {
		t.Errorf("bad input made %d embedding and %d chat requests, want none", embeds, chats)
	}
}

// TestRememberFactsFallback: when the LLM answers prose, remember_facts
// stores the offline extractor's facts, and both the text the agent reads
// and the details say so.
func TestRememberFactsFallback(t *testing.T) {
	e := newEnv(t, false)
	e.srv.Reply("Sure! The user lives in Lisbon.")
	res, d := e.ok("remember_facts", `{"text":"I live in Lisbon."}`)
	const note = "Extraction: the LLM gave a reply that could not be read, so the offline extractor extracted the facts."
	if d["fallback"] != note || !strings.HasSuffix(res.Text, " "+note) {
		t.Errorf("text %q, fallback %v; want both to say %q", res.Text, d["fallback"], note)
	}
	if facts, _ := d["facts"].([]any); len(facts) == 0 {
		t.Errorf("facts = %v, want the offline extractor's", d["facts"])
	}
}

// TestRememberGivenFactsBadInput: a bad item of remember_facts' facts
// fails the call, named by its index, before anything is embedded.
func TestRememberGivenFactsBadInput(t *testing.T) {
	e := newEnv(t, false)
	tests := []struct {
		name, input, field, text string
	}{
		{"intensity above 1", `{"facts":[{"fact":"User likes jazz"},"User plays bass",{"fact":"User lives in Berlin","intensity":1.5}]}`,
			"facts[2].intensity", "facts[2].intensity: must be between 0 and 1, got 1.5"},
		{"intensity below 0", `{"text":"x","facts":[{"fact":"User likes jazz","intensity":-0.1}]}`,
			"facts[0].intensity", "facts[0].intensity: must be between 0 and 1, got -0.1"},
		{"intensity a string", `{"facts":[{"fact":"User likes jazz","intensity":"high"}]}`,
			"facts[0].intensity", "facts[0].intensity: must be a number, got string"},
		{"blank fact", `{"facts":[{"fact":"User likes jazz"},{"fact":"  ","intensity":0.5}]}`,
			"facts[1].fact", "facts[1].fact: must not be empty"},
		{"no fact", `{"facts":[{"intensity":0.5}]}`, "facts[0].fact", "facts[0].fact: must not be empty"},
		{"fact a number", `{"facts":[{"fact":5}]}`, "facts[0].fact", "facts[0].fact: must be a string, got number"},
		{"fact too long", `{"facts":[{"fact":"` + strings.Repeat("a", 50_001) + `"}]}`,
			"facts[0].fact", "facts[0].fact: must be at most 50000 characters, got 50001"},
		{"unknown field", `{"facts":[{"content":"User likes jazz"}]}`,
			"facts[0]", `facts[0]: unknown field "content"; the fields are fact, intensity, replaces`},
		{"replaces a number", `{"facts":[{"fact":"User likes jazz","replaces":5}]}`,
			"facts[0].replaces", `facts[0].replaces: must be a string, got number`},
		{"item a number", `{"facts":["User likes jazz",5]}`,
			"facts[1]", `facts[1]: must be an object {"fact": …, "intensity": …}, got number`},
		{"facts a string", `{"facts":"User likes jazz"}`, "facts", "facts: must be an array, got string"},
		{"too many", `{"facts":[` + strings.Repeat(`"User likes jazz",`, hippo.MaxGivenFacts) + `"one more"]}`,
			"facts", "facts: give at most 50 facts, got 51"},
		{"blank text beside facts", `{"text":" ","facts":["User likes jazz"]}`, "text", "text: must not be empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, d := e.call("remember_facts", tt.input)
			if !res.IsError || res.Text != tt.text {
				t.Errorf("text = %q (error %v), want %q", res.Text, res.IsError, tt.text)
			}
			if d["error"] != hippo.EINVALID || d["field"] != tt.field {
				t.Errorf("details = %v, want %s naming %q", d, hippo.EINVALID, tt.field)
			}
		})
	}
	if embeds, chats := e.srv.Counts(); embeds != 0 || chats != 0 {
		t.Errorf("bad facts made %d embedding and %d chat requests, want none", embeds, chats)
	}
}

// TestRememberGivenFacts: facts the caller gives are learned without a
// call to the extractor, as {fact, intensity} or a bare string, and keep
// the text as their source.
func TestRememberGivenFacts(t *testing.T) {
	e := newEnv(t, false)
	text := "I moved to Lisbon last month, and I still can't stand Redux."
	res, d := e.ok("remember_facts", `{"text":"`+text+`","source":"msg-7","facts":[{"fact":"User lives in Lisbon","intensity":0.6},"User strongly dislikes Redux"]}`)
	wantText(t, res, "Learned 2 facts: 2 new (User lives in Lisbon; User strongly dislikes Redux)")
	if _, chats := e.srv.Counts(); chats != 0 {
		t.Errorf("given facts made %d chat requests, want none", chats)
	}
	facts := d["facts"].([]any)
	first, second := facts[0].(map[string]any), facts[1].(map[string]any)
	if first["intensity"] != 0.6 || second["intensity"] != 0.5 {
		t.Errorf("intensities = %v, %v; want 0.6 and the default 0.5", first["intensity"], second["intensity"])
	}
	res, d = e.ok("memory_source", `{"id":"`+first["chunk_id"].(string)+`"}`)
	src, _ := d["source"].(map[string]any)
	prov, _ := src["provenance"].(map[string]any)
	if src["input"] != text || prov["source"] != "msg-7" || prov["origin"] != "remember_facts" {
		t.Errorf("memory_source: %s\n%v", res.Text, d)
	}
}

func TestRememberFacts(t *testing.T) {
	e := newEnv(t, false)
	e.srv.Reply(`{"facts":[{"fact":"User strongly dislikes Redux","intensity":0.85},{"fact":"User tried a café on Sukhumvit","intensity":0.15}]}`)
	res, d := e.ok("remember_facts", `{"text":"I NEVER want to use Redux again, it was a nightmare. Oh and I tried that new café on Sukhumvit."}`)
	if res.Text != "Learned 2 facts: 2 new (User strongly dislikes Redux; User tried a café on Sukhumvit)" {
		t.Errorf("text = %q", res.Text)
	}
	if d["summary"] != res.Text {
		t.Errorf("summary = %v", d["summary"])
	}
	facts, _ := d["facts"].([]any)
	if len(facts) != 2 {
		t.Fatalf("facts = %v", d["facts"])
	}
	first := facts[0].(map[string]any)
	if first["action"] != "new" || first["content"] != "User strongly dislikes Redux" || first["chunk_id"] == "" {
		t.Errorf("first fact = %v", first)
	}

	// Said again: the fact is strengthened, not added.
	e.srv.Reply(`{"facts":[{"fact":"User strongly dislikes Redux","intensity":0.85}]}`)
	res, _ = e.ok("remember_facts", `{"text":"Redux? Never again."}`)
	wantText(t, res, "Learned 1 fact: 1 updated (User strongly dislikes Redux — intensity 0.85 → running avg 0.85)")

	// Nothing to extract.
	e.srv.Reply(`{"facts":[]}`)
	res, d = e.ok("remember_facts", `{"text":"ok"}`)
	msg, _ := d["message"].(map[string]any)
	if msg == nil || res.Text != "No facts extracted: the extractor found no statement of a fact in the text. The text was kept as memory "+msg["id"].(string)+"." ||
		msg["new"] != true || d["facts"] == nil || d["reason"] != "the extractor found no statement of a fact in the text" {
		t.Errorf("no facts: %q, details %v", res.Text, d)
	}

	// A failing LLM is an internal error, not a result.
	e.srv.Chat = func(mock.ChatRequest) (string, int) { return "", http.StatusInternalServerError }
	if _, err := e.tools.Call(context.Background(), "remember_facts", json.RawMessage(`{"text":"I live in Berlin"}`)); err == nil {
		t.Error("LLM failure: no Go error")
	}
}

func TestStoreMemory(t *testing.T) {
	e := newEnv(t, false)
	const input = `{"content":"We chose SQLite over PostgreSQL","metadata":{"source":"meeting", "tags":["db"],"category":"decision","extra":true}}`
	res, d := e.ok("store_memory", input)
	wantText(t, res, "Stored new memory (id ")
	mem := d["memory"].(map[string]any)
	if d["duplicate"] != false || mem["kind"] != "memory" || mem["content"] != "We chose SQLite over PostgreSQL" || mem["encounter_count"] != 1.0 {
		t.Errorf("details = %v", d)
	}
	if got, _ := json.Marshal(mem["metadata"]); string(got) != `{"category":"decision","extra":true,"source":"meeting","tags":["db"]}` {
		t.Errorf("metadata = %s", got)
	}
	id := mem["id"].(string)
	if !strings.Contains(res.Text, id[len(id)-8:]) {
		t.Errorf("text %q lacks the short id of %s", res.Text, id)
	}

	res, d = e.ok("store_memory", `{"content":"We chose SQLite over PostgreSQL"}`)
	wantText(t, res, "Already known: strengthened the existing memory", "seen 2 times", "intensity 0.50")
	mem = d["memory"].(map[string]any)
	if d["duplicate"] != true || mem["id"] != id || mem["encounter_count"] != 2.0 || mem["access_count"] != 1.0 {
		t.Errorf("repeat details = %v", d)
	}

	if res, _ := e.ok("store_memory", `{"content":"no metadata","metadata":null}`); !strings.HasPrefix(res.Text, "Stored new memory") {
		t.Errorf("null metadata: %q", res.Text)
	}

	// A failing embedder is an internal error, not a result.
	e.srv.EmbedStatus = func(int) int { return http.StatusInternalServerError }
	if res, err := e.tools.Call(context.Background(), "store_memory", json.RawMessage(`{"content":"new content"}`)); err == nil {
		t.Errorf("embedder failure: result %+v, no Go error", res)
	} else if !strings.HasPrefix(err.Error(), "store_memory: ") {
		t.Errorf("error %q does not name the tool", err)
	}
}

func TestRecallMemories(t *testing.T) {
	e := newEnv(t, false)
	e.ok("store_memory", `{"content":"The user's cat is called Miso","metadata":{"source":"chat"}}`)
	e.ok("store_memory", `{"content":"We deploy on Fridays"}`)
	e.srv.Reply(`{"facts":[{"fact":"User owns a cat","intensity":0.5}]}`)
	e.ok("remember_facts", `{"text":"I have a cat"}`)

	tests := []struct {
		name, input string
		kinds       []string // of the results, in order
		text        []string
	}{
		// Two pass the floor; the third is the closest of the rest,
		// marked weak (Config.WeakResults).
		{"relevant", `{"query":"The user's cat is called Miso"}`, []string{"memory", "fact", "memory"},
			[]string{`Found 3 results for "The user's cat is called Miso":`, "\n1. [memory] The user's cat is called Miso (score ", "\n2. [fact] User owns a cat (score ", "\n3. [memory] We deploy on Fridays", "[weak match]"}},
		{"relevant, floor asked for", `{"query":"The user's cat is called Miso","min_relevance":0.1}`, []string{"memory", "fact"},
			[]string{`Found 2 results for "The user's cat is called Miso":`, "\n1. [memory] The user's cat is called Miso (score ", "\n2. [fact] User owns a cat (score "}},
		{"all, no relevance floor", `{"query":"The user's cat is called Miso","min_relevance":0}`, []string{"memory", "fact", "memory"},
			[]string{`Found 3 results for "The user's cat is called Miso":`, "\n1. [memory] The user's cat is called Miso (score ", "\n2. [fact] User owns a cat (score ", "\n3. [memory] We deploy on Fridays"}},
		{"limit", `{"query":"The user's cat is called Miso","limit":1}`, []string{"memory"}, []string{"Found 1 result for"}},
		{"facts only", `{"query":"cat","kind":"fact"}`, []string{"fact"}, []string{"1. [fact] User owns a cat"}},
		// The text remember_facts kept is a memory too.
		{"memories only", `{"query":"cat","kind":"memory","limit":null}`, []string{"memory", "memory", "memory"}, []string{"Found 3 results", "1. [memory] I have a cat", "[weak match]"}},
		{"memories only, floor asked for", `{"query":"cat","kind":"memory","min_relevance":0.1}`, []string{"memory", "memory"}, []string{"Found 2 results"}},
		{"memories only, no floor", `{"query":"cat","kind":"memory","min_relevance":0}`, []string{"memory", "memory", "memory"}, []string{"Found 3 results"}},
		{"nothing relevant", `{"query":"quantum chromodynamics lecture"}`, []string{"memory", "fact", "memory"},
			[]string{`Nothing stored is clearly about "quantum chromodynamics lecture"; the closest 3 items, all weak matches:`}},
		{"nothing relevant, floor asked for", `{"query":"quantum chromodynamics lecture","min_relevance":0.1}`, nil, []string{`No facts or memories found for "quantum chromodynamics lecture".`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, d := e.ok("recall_memories", tt.input)
			wantText(t, res, tt.text...)
			results := d["results"].([]any)
			var kinds []string
			for _, r := range results {
				r := r.(map[string]any)
				kinds = append(kinds, r["kind"].(string))
				for _, k := range []string{"id", "content", "score", "similarity", "strength", "recency", "created_at"} {
					if _, ok := r[k]; !ok {
						t.Errorf("result lacks %q: %v", k, r)
					}
				}
				if id := r["id"].(string); !strings.Contains(res.Text, "id "+id) {
					t.Errorf("text lacks the id %s", id)
				}
			}
			if !slices.Equal(kinds, tt.kinds) {
				t.Errorf("kinds = %v, want %v", kinds, tt.kinds)
			}
		})
	}

	// fact_history traces a relevant fact, and says when none is.
	if res, _ := e.ok("fact_history", `{"query":"User owns a cat"}`); !strings.HasPrefix(res.Text, "1. User owns a cat (") {
		t.Errorf("fact_history of a stored fact: %q", res.Text)
	}
	if res, _ := e.ok("fact_history", `{"query":"quantum chromodynamics lecture"}`); !strings.HasPrefix(res.Text, `No fact is relevant to "quantum chromodynamics lecture"`) {
		t.Errorf("fact_history of an unrelated query: %q", res.Text)
	}

	// Nothing stored for another agent's view is found; an empty result
	// is not an error.
	empty := newEnv(t, false)
	res, d := empty.ok("recall_memories", `{"query":"cat","kind":"fact"}`)
	if res.Text != `No facts found for "cat".` || len(d["results"].([]any)) != 0 {
		t.Errorf("empty recall: %q %v", res.Text, d)
	}
}

// TestRecallDates: a bare date in since is the start of its day; in
// until and as_of, its end (hippo.ParseTime), so that "as of" the day
// something was stored includes it.
func TestRecallDates(t *testing.T) {
	e := newEnv(t, false)
	_, d := e.ok("store_memory", `{"content":"We deploy on Fridays"}`)
	created, err := time.Parse(time.RFC3339Nano, d["memory"].(map[string]any)["created_at"].(string))
	if err != nil {
		t.Fatal(err)
	}
	day := created.Format(time.DateOnly)
	before, after := created.AddDate(0, 0, -1).Format(time.DateOnly), created.AddDate(0, 0, 1).Format(time.DateOnly)
	tests := []struct {
		field, value string
		found        bool
	}{
		{"as_of", day, true},
		{"as_of", before, false},
		{"as_of", created.Format(time.RFC3339Nano), true},
		{"until", day, true},
		{"until", before, false},
		{"since", day, true},
		{"since", after, false},
	}
	for _, tt := range tests {
		res, d := e.ok("recall_memories", fmt.Sprintf(`{"query":"We deploy on Fridays","min_relevance":0,%q:%q}`, tt.field, tt.value))
		if found := len(d["results"].([]any)) == 1; found != tt.found {
			t.Errorf("%s %s (stored %s): found %v, want %v: %s", tt.field, tt.value, created.Format(time.RFC3339Nano), found, tt.found, res.Text)
		}
	}
}

func TestForgetMemory(t *testing.T) {
	e := newEnv(t, false)
	e.ok("store_memory", `{"content":"The user's home address is 12 Main Street"}`)
	e.ok("store_memory", `{"content":"We deploy on Fridays"}`)

	res, d := e.ok("forget_memory", `{"description":"The user's home address is 12 Main Street"}`)
	wantText(t, res, "Forgot 1 item:\n1. [memory] The user's home address is 12 Main Street (similarity 1.00, id ")
	if d["threshold"] != 0.7 || len(d["deleted"].([]any)) != 1 || d["resurrected"] == nil {
		t.Errorf("details = %v", d)
	}
	res, _ = e.ok("recall_memories", `{"query":"The user's home address is 12 Main Street"}`)
	if strings.Contains(res.Text, "] The user's home address") {
		t.Errorf("forgotten memory recalled: %q", res.Text)
	}

	res, d = e.ok("forget_memory", `{"description":"The user's home address","threshold":0.99}`)
	if res.Text != `Nothing matched "The user's home address" at similarity 0.99 or more; nothing was deleted.` {
		t.Errorf("nothing matched: %q", res.Text)
	}
	if len(d["deleted"].([]any)) != 0 || d["threshold"] != 0.99 {
		t.Errorf("details = %v", d)
	}
}

func TestMemoryBlocks(t *testing.T) {
	e := newEnv(t, false)

	// recall of a missing block: null, not an error.
	res, d := e.ok("recall_memory_block", `{"key":"persona"}`)
	if res.Text != `Block "persona" does not exist.` {
		t.Errorf("text = %q", res.Text)
	}
	if v, ok := d["value"]; !ok || v != nil || d["key"] != "persona" {
		t.Errorf("details = %v, want value null", d)
	}

	// replace in a missing block: an error result, nothing created.
	res, d = e.call("replace_memory_block", `{"key":"persona","old_text":"a","new_text":"b"}`)
	if !res.IsError || d["error"] != hippo.ENOTFOUND {
		t.Errorf("replace in missing block = %+v", res)
	}
	wantText(t, res, `block "persona" does not exist`)

	// append creates, then appends on a new line.
	res, d = e.ok("append_memory_block", `{"key":"persona","text":"Name: Hippo. Tone: dry."}`)
	wantText(t, res, `Created block "persona"`)
	if d["created"] != true || d["value"] != "Name: Hippo. Tone: dry." || d["updated_at"] == "" {
		t.Errorf("create details = %v", d)
	}
	res, d = e.ok("append_memory_block", `{"key":"persona","text":"Tone: dry, always."}`)
	wantText(t, res, `Appended to block "persona"; it now holds 42 characters.`)
	if d["created"] != false || d["value"] != "Name: Hippo. Tone: dry.\nTone: dry, always." {
		t.Errorf("append details = %v", d)
	}

	// replace: every occurrence.
	res, d = e.ok("replace_memory_block", `{"key":"persona","old_text":"dry","new_text":"warm"}`)
	wantText(t, res, `Replaced 2 occurrences of "dry" with "warm" in block "persona"`)
	if d["replacements"] != 2.0 || d["value"] != "Name: Hippo. Tone: warm.\nTone: warm, always." {
		t.Errorf("replace details = %v", d)
	}

	// replace: text not found is an error result.
	res, d = e.call("replace_memory_block", `{"key":"persona","old_text":"cold","new_text":"x"}`)
	if !res.IsError || d["error"] != hippo.ENOTFOUND {
		t.Errorf("text not found = %+v", res)
	}
	wantText(t, res, `"cold" not found in block "persona"`)

	// replace with "" deletes.
	e.ok("replace_memory_block", `{"key":"persona","old_text":"\nTone: warm, always.","new_text":""}`)
	res, d = e.ok("recall_memory_block", `{"key":"persona"}`)
	if res.Text != "Name: Hippo. Tone: warm." || d["value"] != res.Text {
		t.Errorf("recall = %q, details %v", res.Text, d)
	}
}

func TestRecallConversation(t *testing.T) {
	e := newEnv(t, true)
	tests := []struct {
		name, input string
		ids         []float64
		text        []string
	}{
		{"words", `{"query":"Miso treats"}`, []float64{1, 2},
			[]string{`Found 2 messages matching "Miso treats":`, ". [user, 2026-01-02T10:00:00Z] My cat is called Miso", ". [assistant, 2026-01-02T10:00:05Z] Noted: Miso"}},
		{"FTS syntax", `{"query":"\"foo\" AND (bar OR* NEAR("}`, []float64{1, 2, 3}, []string{"Found 3 messages"}},
		{"limit", `{"query":"foo bar","limit":1}`, nil, []string{"Found 1 message matching"}},
		{"no match", `{"query":"zebra"}`, []float64{}, []string{`No past messages match "zebra".`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, d := e.ok("recall_conversation", tt.input)
			wantText(t, res, tt.text...)
			if strings.Contains(res.Text, "another agent") {
				t.Errorf("another agent's message found: %q", res.Text)
			}
			if tt.ids == nil {
				return
			}
			var ids []float64
			for _, m := range d["messages"].([]any) {
				ids = append(ids, m.(map[string]any)["id"].(float64))
			}
			slices.Sort(ids)
			if !slices.Equal(ids, tt.ids) && !(len(ids) == 0 && len(tt.ids) == 0) {
				t.Errorf("ids = %v, want %v", ids, tt.ids)
			}
		})
	}
}

// TestServe runs tools as a server does that adds arguments of its own
// (the MCP server's agent_id and scope): their raw values reach memory,
// whose errors come before those of the tool's arguments.
func TestServe(t *testing.T) {
	e := newEnv(t, false)
	e.ok("append_memory_block", `{"key":"persona","text":"Terse."}`)
	tool, _ := e.tools.Lookup("recall_memory_block")
	extra := []string{"agent_id", "scope"}
	tests := []struct {
		input, values, text string
	}{
		{`{"agent_id":"a","key":"persona","scope":"s"}`, `"a" "s"`, "Terse."},
		{`{"scope":null,"key":"persona","agent_id":"a"}`, `"a" `, "Terse."},
		{`{"key":"persona"}`, ` `, "agent_id: is required"},
		{`{"key":5,"bogus":1}`, ` `, "agent_id: is required"},
		{`{"agent_id":"a","bogus":1}`, `"a" `, `unknown field "bogus"; the fields are key`},
		{`{"agent_id":"a"}`, `"a" `, "key: is required"},
	}
	for _, tt := range tests {
		res, err := tool.Serve(context.Background(), json.RawMessage(tt.input), extra, func(values []json.RawMessage) (hippo.MemoryService, error) {
			if got := string(values[0]) + " " + string(values[1]); got != tt.values {
				t.Errorf("%s: values %s, want %s", tt.input, got, tt.values)
			}
			if values[0] == nil {
				return nil, hippo.Invalidf("agent_id", "is required")
			}
			return e.mem, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(res.Text, tt.text) {
			t.Errorf("%s: %q, want %q", tt.input, res.Text, tt.text)
		}
	}
	if _, err := (tools.Tool{Name: "mine"}).Serve(context.Background(), nil, extra, nil); err == nil {
		t.Error("a Tool made outside the package was served")
	}
}

// TestHandlerDirect runs a tool's Handler without the Set, with a nil input.
func TestHandlerDirect(t *testing.T) {
	e := newEnv(t, false)
	tool, ok := e.tools.Lookup("recall_memory_block")
	if !ok {
		t.Fatal("no recall_memory_block")
	}
	res, err := tool.Handler(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(res.Text, "key: is required") {
		t.Errorf("nil input = %+v", res)
	}
	if d := details(t, res); d["field"] != "key" {
		t.Errorf("details = %v", d)
	}
}

// TestTypeScriptArguments checks the arguments the TypeScript Hippo's tools
// take where they differ from this package's schemas.
func TestTypeScriptArguments(t *testing.T) {
	e := newEnv(t, false)

	// append_memory_block: content for text.
	_, d := e.ok("append_memory_block", `{"key":"persona","content":"Name: Hippo."}`)
	if d["created"] != true || d["value"] != "Name: Hippo." {
		t.Errorf("append with content: %v", d)
	}
	_, d = e.ok("append_memory_block", `{"content":"Tone: dry.","key":"persona"}`)
	if d["value"] != "Name: Hippo.\nTone: dry." {
		t.Errorf("second append with content: %v", d)
	}

	// recall_memories: a whole-number limit written as a float.
	for _, limit := range []string{"1.0", "1e0", "10.000"} {
		if res, _ := e.call("recall_memories", `{"query":"tea","limit":`+limit+`}`); res.IsError {
			t.Errorf("limit %s: %s", limit, res.Text)
		}
	}

	// store_memory: metadata as a string holding an object is the same
	// metadata as the object.
	_, d = e.ok("store_memory", `{"content":"We chose SQLite","metadata":"{\"source\": \"pdf\", \"tags\": [\"db\"]}"}`)
	if got, _ := json.Marshal(d["memory"].(map[string]any)["metadata"]); string(got) != `{"source":"pdf","tags":["db"]}` {
		t.Errorf("metadata from a string = %s", got)
	}
	res, _ := e.ok("recall_memories", `{"query":"We chose SQLite","tags":["db"]}`)
	wantText(t, res, "We chose SQLite")
	_, d = e.ok("store_memory", `{"content":"blank metadata string","metadata":" {} "}`)
	if got, _ := json.Marshal(d["memory"].(map[string]any)["metadata"]); string(got) != `{}` {
		t.Errorf("metadata from the string \" {} \" = %s", got)
	}
}

func TestParameters(t *testing.T) {
	set := newEnv(t, false).tools
	for _, tool := range set {
		p := tool.Parameters()
		b, _ := json.Marshal(tool.InputSchema)
		var want map[string]any
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(p, want) {
			t.Errorf("%s: Parameters() = %v, want the input schema %s", tool.Name, p, b)
		}
		if p["type"] != "object" {
			t.Errorf("%s: type = %v", tool.Name, p["type"])
		}
	}
	tool, _ := set.Lookup("append_memory_block")
	if req := tool.Parameters()["required"]; !reflect.DeepEqual(req, []any{"key", "text"}) {
		t.Errorf("append_memory_block required = %v", req)
	}
}
