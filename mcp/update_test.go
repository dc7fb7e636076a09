package mcp_test

import (
	"slices"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
)

// TestUpdateMemoryFact edits a fact over MCP: fact_history then shows the
// old and the new text, and recall as of a moment before the edit returns
// the old text, the current recall the new one. Another agent's call on
// either ID is not found, and the superseded version cannot be edited.
func TestUpdateMemoryFact(t *testing.T) {
	e := newEnv(t)
	cs := e.connect("streamable")
	e.ai.Reply(`{"facts":[{"fact":"User lives in Berlin","intensity":0.6}]}`)
	r := ok(t, cs, "remember_facts", map[string]any{"agent_id": "alice", "text": "I live in Berlin"})
	oldID := r.Details["facts"].([]any)[0].(map[string]any)["chunk_id"].(string)

	time.Sleep(20 * time.Millisecond)
	before := time.Now().UTC().Format(time.RFC3339Nano)
	time.Sleep(20 * time.Millisecond)

	r = ok(t, cs, "update_memory", map[string]any{"agent_id": "alice", "id": oldID, "content": "User lives in Lisbon"})
	chunk := r.Details["chunk"].(map[string]any)
	newID := chunk["id"].(string)
	if newID == oldID || r.Details["previous_id"] != oldID || r.Details["previous_content"] != "User lives in Berlin" ||
		chunk["content"] != "User lives in Lisbon" || chunk["kind"] != "fact" || r.Details["reinforce"] != "up" ||
		chunk["encounter_count"] != 2.0 || chunk["access_count"] != 1.0 {
		t.Fatalf("update_memory: %s\n%v", r.Text, r.Details)
	}

	for _, id := range []string{newID, oldID} {
		r = ok(t, cs, "fact_history", map[string]any{"agent_id": "alice", "id": id})
		h := r.Details["history"].([]any)
		if len(h) != 2 {
			t.Fatalf("fact_history(%s): %s", id, r.Text)
		}
		first, second := h[0].(map[string]any), h[1].(map[string]any)
		if first["content"] != "User lives in Berlin" || first["current"] != false || first["valid_until"] == nil ||
			second["content"] != "User lives in Lisbon" || second["current"] != true || second["id"] != newID {
			t.Errorf("fact_history(%s): %v", id, h)
		}
	}

	query := map[string]any{"agent_id": "alice", "query": "where does the user live", "kind": "fact", "min_relevance": 0}
	asOf := map[string]any{"as_of": before}
	for k, v := range query {
		asOf[k] = v
	}
	if got := recalled(t, cs, asOf); !slices.Equal(got, []string{"User lives in Berlin"}) {
		t.Errorf("recall as of %s: %v, want the old text", before, got)
	}
	if got := recalled(t, cs, query); !slices.Equal(got, []string{"User lives in Lisbon"}) {
		t.Errorf("recall now: %v, want the new text", got)
	}

	// Another agent's IDs are not found, and change nothing.
	for _, id := range []string{newID, oldID, "01NOSUCHCHUNK0000000000000"} {
		fails(t, cs, "update_memory", map[string]any{"agent_id": "bob", "id": id, "content": "User lives in Oslo"}, hippo.ENOTFOUND)
	}
	fails(t, cs, "update_memory", map[string]any{"agent_id": "alice", "id": oldID, "content": "User lives in Oslo"}, hippo.ECONFLICT, newID)
	fails(t, cs, "update_memory", map[string]any{"agent_id": "alice", "id": newID}, hippo.EINVALID, "nothing to change")
	fails(t, cs, "update_memory", map[string]any{"agent_id": "alice", "id": newID, "reinforce": "sideways", "intensity": 0.5}, hippo.EINVALID)
	if got := recalled(t, cs, query); !slices.Equal(got, []string{"User lives in Lisbon"}) {
		t.Errorf("recall after the refused edits: %v", got)
	}
}
