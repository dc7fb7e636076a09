package anthropic_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	hippoanthropic "github.com/hippo-mem/hippo/adapters/anthropic"
	"github.com/hippo-mem/hippo/internal/adaptertest"
)

// TestTools checks the tools on the wire: input_schema is the tool's
// input schema, whole.
func TestTools(t *testing.T) {
	set := adaptertest.Tools(t)
	got := hippoanthropic.Tools(set)
	if len(got) != len(set) {
		t.Fatalf("%d tools, want %d", len(got), len(set))
	}
	for i, tool := range got {
		wire := adaptertest.JSON(t, tool)
		want := set[i].Parameters()
		schema, _ := wire["input_schema"].(map[string]any)
		// Required is left out when empty, here and there alike.
		delete(want, "required")
		if req, ok := schema["required"]; ok {
			if r := set[i].InputSchema.Required; len(r) == 0 || !reflect.DeepEqual(req, set[i].Parameters()["required"]) {
				t.Errorf("%s: required = %v", set[i].Name, req)
			}
			delete(schema, "required")
		}
		if wire["name"] != set[i].Name || wire["description"] != set[i].Description || !reflect.DeepEqual(schema, want) {
			t.Errorf("%s on the wire: %v, want input_schema %v", set[i].Name, wire, want)
		}
	}
}

func TestCall(t *testing.T) {
	set := adaptertest.Tools(t)
	var reply anthropic.Message
	if err := json.Unmarshal([]byte(`{"id":"m","type":"message","role":"assistant","content":[
		{"type":"text","text":"Let me note that."},
		{"type":"tool_use","id":"t1","name":"append_memory_block","input":{"key":"human","text":"Likes tea."}},
		{"type":"tool_use","id":"t2","name":"recall_memory_block","input":{"key":"human"}},
		{"type":"tool_use","id":"t3","name":"no_such_tool","input":{}},
		{"type":"tool_use","id":"t4","name":"append_memory_block","input":{"key":"human"}}
	]}`), &reply); err != nil {
		t.Fatal(err)
	}
	results, err := hippoanthropic.Call(context.Background(), set, reply.Content)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		id, text string
		isError  bool
	}{
		{"t1", `Created block "human" with the text (10 characters).`, false},
		{"t2", "Likes tea.", false},
		{"t3", `unknown tool "no_such_tool"`, true},
		{"t4", "text: is required", true},
	}
	if len(results) != len(want) {
		t.Fatalf("%d results, want %d", len(results), len(want))
	}
	for i, w := range want {
		r := results[i].OfToolResult
		if r == nil {
			t.Fatalf("result %d is not a tool_result", i)
		}
		text := r.Content[0].OfText.Text
		if r.ToolUseID != w.id || !strings.HasPrefix(text, w.text) || r.IsError.Value != w.isError {
			t.Errorf("result %d = %s %q error=%v, want %s %q error=%v", i, r.ToolUseID, text, r.IsError.Value, w.id, w.text, w.isError)
		}
	}

	none, err := hippoanthropic.Call(context.Background(), set, reply.Content[:1])
	if err != nil || len(none) != 0 {
		t.Errorf("a reply without tool use: %v, %v", none, err)
	}
}
