package openai_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	hippoopenai "github.com/hippo-mem/hippo/adapters/openai"
	"github.com/hippo-mem/hippo/local"
	"github.com/hippo-mem/hippo/sqlite"
	"github.com/hippo-mem/hippo/tools"
	"github.com/openai/openai-go/v3"
)

func newSet(t *testing.T) tools.Set {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "hippo.db"), sqlite.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	mem, err := db.Memory(sqlite.MemoryOptions{AgentID: "a", Embedder: local.NewEmbedder()})
	if err != nil {
		t.Fatal(err)
	}
	return tools.New(mem, tools.Options{Config: db.Config()})
}

func TestTools(t *testing.T) {
	set := newSet(t)
	got := hippoopenai.Tools(set)
	if len(got) != len(set) {
		t.Fatalf("%d tools, want %d", len(got), len(set))
	}
	for i, tool := range got {
		b, err := json.Marshal(tool)
		if err != nil {
			t.Fatal(err)
		}
		var wire struct {
			Type     string `json:"type"`
			Function struct {
				Name        string         `json:"name"`
				Description string         `json:"description"`
				Parameters  map[string]any `json:"parameters"`
			} `json:"function"`
		}
		if err := json.Unmarshal(b, &wire); err != nil {
			t.Fatal(err)
		}
		f := wire.Function
		if wire.Type != "function" || f.Name != set[i].Name || f.Description != set[i].Description || f.Parameters["type"] != "object" {
			t.Errorf("tool %d on the wire: %s", i, b)
		}
	}
}

func TestCall(t *testing.T) {
	set := newSet(t)
	var calls []openai.ChatCompletionMessageToolCallUnion
	for _, c := range []string{
		`{"id":"1","type":"function","function":{"name":"append_memory_block","arguments":"{\"key\":\"human\",\"text\":\"Likes tea.\"}"}}`,
		`{"id":"2","type":"function","function":{"name":"recall_memory_block","arguments":"{\"key\":\"human\"}"}}`,
		`{"id":"3","type":"function","function":{"name":"no_such_tool","arguments":"{}"}}`,
		`{"id":"4","type":"function","function":{"name":"recall_memory_block","arguments":"{\"key\":"}}`,
		`{"id":"5","type":"custom","custom":{"name":"x","input":"y"}}`,
	} {
		var call openai.ChatCompletionMessageToolCallUnion
		if err := json.Unmarshal([]byte(c), &call); err != nil {
			t.Fatal(err)
		}
		calls = append(calls, call)
	}
	msgs, err := hippoopenai.Call(context.Background(), set, calls)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ id, text string }{
		{"1", `Created block "human" with the text (10 characters).`},
		{"2", "Likes tea."},
		{"3", `Error: unknown tool "no_such_tool"`},
		{"4", "Error: input is not valid JSON"},
		{"5", `Error: tool call 5 is of type "custom"`},
	}
	if len(msgs) != len(want) {
		t.Fatalf("%d messages, want %d", len(msgs), len(want))
	}
	for i, w := range want {
		m := msgs[i].OfTool
		if m == nil {
			t.Fatalf("message %d is not a tool message", i)
		}
		if m.ToolCallID != w.id || !strings.HasPrefix(m.Content.OfString.Value, w.text) {
			t.Errorf("message %d = %s: %q, want %s: %q...", i, m.ToolCallID, m.Content.OfString.Value, w.id, w.text)
		}
	}
}
