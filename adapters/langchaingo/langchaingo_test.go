package langchaingo_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	hippolangchain "github.com/hippo-mem/hippo/adapters/langchaingo"
	"github.com/hippo-mem/hippo/internal/adaptertest"
	"github.com/tmc/langchaingo/llms"
)

func TestAgentTools(t *testing.T) {
	set := adaptertest.Tools(t)
	ctx := context.Background()
	got := hippolangchain.Tools(set)
	if len(got) != len(set) {
		t.Fatalf("%d tools, want %d", len(got), len(set))
	}
	for i, tool := range got {
		schema, _ := json.Marshal(set[i].InputSchema)
		if tool.Name() != set[i].Name || !strings.HasPrefix(tool.Description(), set[i].Description) ||
			!strings.HasSuffix(tool.Description(), string(schema)) {
			t.Errorf("tool %d: %s: %s", i, tool.Name(), tool.Description())
		}
	}
	byName := map[string]int{}
	for i, tool := range got {
		byName[tool.Name()] = i
	}
	for _, tt := range []struct{ tool, input, want string }{
		{"append_memory_block", `{"key":"human","text":"Likes tea."}`, `Created block "human" with the text (10 characters).`},
		{"recall_memory_block", `{"key":"human"}`, "Likes tea."},
		{"recall_memory_block", `human`, "Error: input is not valid JSON"},
		{"append_memory_block", `{"key":"human"}`, "Error: text: is required"},
	} {
		out, err := got[byName[tt.tool]].Call(ctx, tt.input)
		if err != nil || !strings.HasPrefix(out, tt.want) {
			t.Errorf("%s %s = %q, %v; want %q", tt.tool, tt.input, out, err, tt.want)
		}
	}
}

func TestNativeToolCalls(t *testing.T) {
	set := adaptertest.Tools(t)
	defs := hippolangchain.Definitions(set)
	for i, d := range defs {
		if d.Type != "function" || d.Function.Name != set[i].Name || !reflect.DeepEqual(d.Function.Parameters, set[i].Parameters()) {
			t.Errorf("definition %d = %+v", i, d.Function)
		}
	}
	msg, err := hippolangchain.Call(context.Background(), set, []llms.ToolCall{
		{ID: "1", Type: "function", FunctionCall: &llms.FunctionCall{Name: "append_memory_block", Arguments: `{"key":"k","text":"v"}`}},
		{ID: "2", Type: "function", FunctionCall: &llms.FunctionCall{Name: "forget_everything", Arguments: `{}`}},
		{ID: "3", Type: "function"},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []llms.ToolCallResponse{
		{ToolCallID: "1", Name: "append_memory_block", Content: `Created block "k" with the text (1 character).`},
		{ToolCallID: "2", Name: "forget_everything", Content: `Error: unknown tool "forget_everything"`},
		{ToolCallID: "3", Content: "Error: tool call 3 names no function"},
	}
	if msg.Role != llms.ChatMessageTypeTool || len(msg.Parts) != len(want) {
		t.Fatalf("message = %+v", msg)
	}
	for i, w := range want {
		got := msg.Parts[i].(llms.ToolCallResponse)
		if got.ToolCallID != w.ToolCallID || got.Name != w.Name || !strings.HasPrefix(got.Content, w.Content) {
			t.Errorf("part %d = %+v, want %+v", i, got, w)
		}
	}
}
