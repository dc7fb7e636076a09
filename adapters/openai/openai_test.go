package openai_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	hippoopenai "github.com/hippo-mem/hippo/adapters/openai"
	"github.com/hippo-mem/hippo/internal/adaptertest"
	"github.com/openai/openai-go/v3"
)

func TestTools(t *testing.T) {
	set := adaptertest.Tools(t)
	for i, tool := range hippoopenai.Tools(set) {
		wire := adaptertest.JSON(t, tool)
		f, _ := wire["function"].(map[string]any)
		if wire["type"] != "function" || f["name"] != set[i].Name || f["description"] != set[i].Description ||
			!reflect.DeepEqual(f["parameters"], set[i].Parameters()) {
			t.Errorf("tool %d on the wire: %v", i, wire)
		}
	}
	if n := len(hippoopenai.Tools(set)); n != len(set) {
		t.Errorf("%d tools, want %d", n, len(set))
	}
}

func TestCall(t *testing.T) {
	set := adaptertest.Tools(t)
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
