package tools_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hippo-mem/hippo/local"
	"github.com/hippo-mem/hippo/sqlite"
	"github.com/hippo-mem/hippo/tools"
)

// TestRememberFactsOffline calls remember_facts on the offline defaults:
// a change of state reports the fact it replaces, and text with no fact
// says why, in the text and in the structured content, and names
// store_memory.
func TestRememberFactsOffline(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "hippo.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	mem, err := db.Memory(sqlite.MemoryOptions{AgentID: "me", Embedder: local.NewEmbedder(),
		Extractor: local.NewExtractor(), Classifier: local.NewClassifier()})
	if err != nil {
		t.Fatal(err)
	}
	set := tools.New(mem, tools.Options{Config: mem.Config()})
	call := func(text string) (*tools.Result, map[string]any) {
		t.Helper()
		in, _ := json.Marshal(map[string]string{"text": text})
		res, err := set.Call(ctx, "remember_facts", in)
		if err != nil || res.IsError {
			t.Fatalf("remember_facts %q: %v %+v", text, err, res)
		}
		return res, details(t, res)
	}

	tests := []struct {
		text, wantText, reason string
	}{
		{"Can you help me with SQL?", "No facts extracted: text is a question, not a statement. The text was kept as memory ",
			"text is a question, not a statement"},
		{"Please write a haiku.", "No facts extracted: text is a request to the assistant", "text is a request to the assistant, not a statement about the user or someone named"},
		{"User's favorite programming language is Rust.", "Learned 1 fact: 1 new (User's favorite programming language is Rust)", ""},
	}
	for _, tt := range tests {
		res, d := call(tt.text)
		if !strings.HasPrefix(res.Text, tt.wantText) {
			t.Errorf("%q: text %q, want it to start %q", tt.text, res.Text, tt.wantText)
		}
		if got, _ := d["reason"].(string); got != tt.reason {
			t.Errorf("%q: reason %q, want %q", tt.text, got, tt.reason)
		}
	}

	res, d := call("I used to work at Amazon, but now I work at a startup.")
	facts, _ := d["facts"].([]any)
	if len(facts) != 1 {
		t.Fatalf("facts = %v", d["facts"])
	}
	f := facts[0].(map[string]any)
	if f["action"] != "supersedes" || f["former_content"] != "User works at Amazon" || f["former_recorded"] != true {
		t.Errorf("fact = %v", f)
	}
	if !strings.Contains(res.Text, `replaces "User works at Amazon"`) {
		t.Errorf("text %q does not say what was replaced", res.Text)
	}
}
