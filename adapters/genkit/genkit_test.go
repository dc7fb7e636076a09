package genkit_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"
	hippogenkit "github.com/hippo-mem/hippo/adapters/genkit"
	"github.com/hippo-mem/hippo/internal/adaptertest"
)

func TestTools(t *testing.T) {
	ctx := context.Background()
	set := adaptertest.Tools(t)
	g := genkit.Init(ctx)
	for name, refs := range map[string][]ai.ToolRef{"Tools": hippogenkit.Tools(set), "Define": hippogenkit.Define(g, set)} {
		if len(refs) != len(set) {
			t.Fatalf("%s: %d tools, want %d", name, len(refs), len(set))
		}
		for i, ref := range refs {
			def := ref.(ai.Tool).Definition()
			if def.Name != set[i].Name || def.Description != set[i].Description || !reflect.DeepEqual(def.InputSchema, set[i].Parameters()) {
				t.Errorf("%s: tool %d = %+v", name, i, def)
			}
		}
	}
	if genkit.LookupTool(g, "recall_memories") == nil {
		t.Error("Define did not register recall_memories")
	}

	byName := map[string]ai.Tool{}
	for _, ref := range hippogenkit.Tools(set) {
		byName[ref.(ai.Tool).Name()] = ref.(ai.Tool)
	}
	for _, tt := range []struct {
		tool  string
		input map[string]any
		want  string
	}{
		{"append_memory_block", map[string]any{"key": "human", "text": "Likes tea."}, `Created block "human" with the text (10 characters).`},
		{"recall_memory_block", map[string]any{"key": "human"}, "Likes tea."},
		{"replace_memory_block", map[string]any{"key": "human", "old_text": "coffee", "new_text": "tea"}, `Error: text "coffee" not found in block "human"`},
	} {
		out, err := byName[tt.tool].RunRaw(ctx, tt.input)
		if s, _ := out.(string); err != nil || !strings.HasPrefix(s, tt.want) {
			t.Errorf("%s %v = %#v, %v; want %q", tt.tool, tt.input, out, err, tt.want)
		}
	}
	// Genkit checks the input against the tool's schema before Hippo sees it.
	if out, err := byName["append_memory_block"].RunRaw(ctx, map[string]any{"key": "human"}); err == nil || !strings.Contains(err.Error(), "text") {
		t.Errorf("input without text = %#v, %v; want an error naming text", out, err)
	}
}
