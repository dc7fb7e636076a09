package mcp_test

import (
	"context"
	"slices"
	"testing"
	"time"
)

// TestRememberFactsAsync: remember_facts with async returns at once with
// the text kept and its facts pending; the text is recalled meanwhile, and
// the facts are learned in the background.
func TestRememberFactsAsync(t *testing.T) {
	e := newEnv(t)
	cs := e.connect("streamable")
	e.ai.Reply(`{"facts":[{"fact":"User keeps bees","intensity":0.6}]}`)
	r := ok(t, cs, "remember_facts", map[string]any{"agent_id": "alice", "text": "I keep bees on the roof.", "async": true})
	msg, _ := r.Details["message"].(map[string]any)
	if r.Details["pending"] != true || msg == nil || len(r.Details["facts"].([]any)) != 0 {
		t.Fatalf("async remember_facts = %s %v", r.Text, r.Details)
	}
	if got := recalled(t, cs, map[string]any{"agent_id": "alice", "query": "I keep bees on the roof.", "kind": "memory"}); !slices.Contains(got, "I keep bees on the roof.") {
		t.Errorf("the queued text is not recalled: %q", got)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		st, err := e.db.Stats(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if st.Pending == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the text is still queued after 30 s")
		}
	}
	if got := recalled(t, cs, map[string]any{"agent_id": "alice", "query": "User keeps bees", "kind": "fact"}); !slices.Contains(got, "User keeps bees") {
		t.Errorf("the fact was not learned: %q", got)
	}
	fails(t, cs, "remember_facts", map[string]any{"agent_id": "alice", "text": "x", "facts": []any{"User likes jazz"}, "async": true}, "invalid", "async")
}
