package mcp_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/hippo-mem/hippo/mock"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestRememberGivenFacts: a client passes facts to remember_facts and the
// conflict check strengthens, supersedes, keeps distinct or adds exactly
// as it does for the same facts extracted from the text: the same
// outcome, the same facts current and superseded afterwards. Given facts
// cost no extraction call. A given fact that names the fact it replaces
// supersedes it however far apart the two are.
func TestRememberGivenFacts(t *testing.T) {
	tests := []struct {
		name    string
		fact    string
		vec     []float32
		verdict string // the classifier's reply, "" when it is not asked
		action  string
		// replaces names the earlier fact the fact makes untrue.
		replaces string
	}{
		{"restatement strengthens", "User really lives in Berlin", mock.AtCosine(testDim, 0, 1, 0.95), "", "duplicate", ""},
		{"correction supersedes", "User lives in Lisbon", mock.AtCosine(testDim, 0, 1, 0.85), "SUPERSEDES", "supersedes", ""},
		{"related fact is distinct", "User works in Berlin", mock.AtCosine(testDim, 0, 1, 0.80), "DISTINCT", "distinct", ""},
		{"another topic is new", "User likes jazz", mock.Axis(testDim, 2), "", "new", ""},
		{"a named replacement supersedes, however far", "User's home is a boat on the Tagus", mock.Axis(testDim, 3), "", "supersedes", "User lives in Berlin"},
	}
	e := newEnv(t)
	cs := e.connect("streamable")
	e.ai.Set("User lives in Berlin", mock.Axis(testDim, 0))
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.ai.Set(tt.fact, tt.vec)
			item := map[string]any{"fact": tt.fact, "intensity": 0.7}
			if tt.replaces != "" {
				item["replaces"] = tt.replaces
			}
			outcome := map[string]any{}
			paths := []string{"extracted", "given"}
			if tt.replaces != "" {
				paths = paths[1:] // the LLM extractor names no replaced fact
			}
			for _, agent := range paths {
				agent += fmt.Sprintf("-%d-%s", i, tt.action)
				e.ai.Reply(`{"facts":[{"fact":"User lives in Berlin","intensity":0.6}]}`)
				ok(t, cs, "remember_facts", map[string]any{"agent_id": agent, "text": "I live in Berlin"})

				args := map[string]any{"agent_id": agent, "text": "About " + tt.fact}
				if agent[0] == 'g' {
					args["facts"] = []any{item}
				} else {
					reply, _ := json.Marshal(map[string]any{"facts": []any{item}})
					e.ai.Reply(string(reply))
				}
				if tt.verdict != "" {
					e.ai.Reply(`{"verdicts":[{"pair":1,"verdict":"` + tt.verdict + `"}]}`)
				}
				_, before := e.ai.Counts()
				r := ok(t, cs, "remember_facts", args)
				_, after := e.ai.Counts()
				facts := r.Details["facts"].([]any)
				if len(facts) != 1 {
					t.Fatalf("%s: %s", agent, r.Text)
				}
				f := facts[0].(map[string]any)
				if f["action"] != tt.action {
					t.Errorf("%s: %s, want %s", agent, r.Text, tt.action)
				}
				calls := after - before
				if agent[0] == 'e' {
					calls-- // the extraction
				}
				if want := map[bool]int{true: 1, false: 0}[tt.verdict != ""]; calls != want {
					t.Errorf("%s: %d classification calls, want %d", agent, calls, want)
				}
				delete(f, "chunk_id")
				delete(f, "superseded_id")
				outcome[agent[:1]] = []any{f, liveFacts(t, cs, agent)}
			}
			if tt.replaces != "" {
				got := outcome["g"].([]any)
				f, live := got[0].(map[string]any), got[1]
				if f["former_content"] != tt.replaces || !jsonEqual(live, []string{tt.fact}) {
					t.Errorf("given with replaces: %v, live %v: want %q superseded and the new fact alone live", f, live, tt.replaces)
				}
				return
			}
			if a, b := outcome["e"], outcome["g"]; !jsonEqual(a, b) {
				t.Errorf("given facts: %v\nextracted facts: %v", b, a)
			}
		})
	}
}

// liveFacts are agent's current facts, sorted.
func liveFacts(t *testing.T, cs *sdk.ClientSession, agent string) []string {
	t.Helper()
	got := recalled(t, cs, map[string]any{"agent_id": agent, "query": "the user", "kind": "fact", "min_relevance": 0})
	slices.Sort(got)
	return got
}

// jsonEqual reports whether a and b marshal to the same JSON.
func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
