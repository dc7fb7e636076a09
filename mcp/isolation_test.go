package mcp_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hippo-mem/hippo/internal/testutil"
	"github.com/hippo-mem/hippo/local"
	"github.com/hippo-mem/hippo/mcp"
	"github.com/hippo-mem/hippo/sqlite"
)

// TestIsolationProperty calls random tools over MCP for random agents and
// scopes (look-alike agent IDs, other agents' chunk IDs passed wherever a
// tool takes one) and checks after each call that no other agent's data
// changed by a byte, and that every chunk ID, agent ID and block text in
// the result is the calling agent's.
func TestIsolationProperty(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *mcp.Config) { c.Extractor, c.Classifier = local.NewExtractor(), local.NewClassifier() })
	ctx := context.Background()
	agents := []string{"alice", "Alice", "alice ", "al%", "ali'ce", "alıce"}
	scopes := []any{nil, "", "work", "Work", "%"}
	texts := []string{"I live in Berlin.", "I love Svelte and I hate Redux.", "My dog is called Rex.",
		"The launch code is 4711.", "We chose SQLite over PostgreSQL."}
	stream := e.connect("streamable")
	sse := e.connect("sse")

	owners := func() map[string]string {
		out := map[string]string{}
		cs, err := e.db.ListChunks(ctx, sqlite.ChunkFilter{Superseded: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cs {
			out[c.ID] = c.AgentID
		}
		return out
	}
	marker := func(agent string) string { return "[[" + agent + "]]" }
	for _, a := range agents {
		for _, text := range texts[:3] {
			ok(t, stream, "store_memory", map[string]any{"agent_id": a, "content": text})
			ok(t, stream, "remember_facts", map[string]any{"agent_id": a, "text": text})
		}
		ok(t, stream, "append_memory_block", map[string]any{"agent_id": a, "key": "human", "text": "note " + marker(a)})
	}

	r := rand.New(rand.NewPCG(11, 12))
	counts := map[string]int{}
	checked := 0 // IDs in results checked
	calls := 60
	if n, err := strconv.Atoi(os.Getenv("HIPPO_ISOLATION_OPS")); err == nil && n > 0 {
		calls = n
	}
	for i := range calls {
		actor := agents[r.IntN(len(agents))]
		cs := stream
		if r.IntN(3) == 0 {
			cs = sse
		}
		own := owners()
		var others []string
		for id, a := range own {
			if a != actor {
				others = append(others, id)
			}
		}
		slices.Sort(others)
		other := func() string { return others[r.IntN(len(others))] }
		text := texts[r.IntN(len(texts))]
		args := map[string]any{"agent_id": actor}
		if s := scopes[r.IntN(len(scopes))]; s != nil {
			args["scope"] = s
		}
		var tool string
		switch r.IntN(13) {
		case 0:
			tool, args["content"] = "store_memory", text
		case 1:
			tool, args["text"] = "remember_facts", text
		case 2:
			tool, args["query"], args["limit"], args["min_relevance"] = "recall_memories", text, 50, 0 // every chunk eligible: more IDs to check
		case 3:
			tool, args["description"], args["threshold"] = "forget_memory", text, 0.3+0.7*r.Float64()
		case 4:
			tool, args["key"], args["text"] = "append_memory_block", "human", "more "+marker(actor)
		case 5:
			tool, args["key"], args["old_text"], args["new_text"] = "replace_memory_block", "human", "note", "Note"
		case 6:
			tool, args["key"] = "recall_memory_block", "human"
		case 7:
			tool = "list_memory_blocks"
		case 8:
			tool, args["key"] = "delete_memory_block", "human"
		case 9:
			tool, args["query"] = "get_context", text
		case 10:
			tool, args["id"] = "fact_history", other()
		case 11:
			tool, args["upvotes"], args["downvotes"] = "reinforce_memory", []string{other()}, []string{other()}
		case 12:
			tool, args["id"] = "memory_source", other()
		}
		counts[tool]++
		where := fmt.Sprintf("call %d: %s %v", i, tool, args)
		before := testutil.ExportWithout(t, e.db, actor)

		res := call(t, cs, tool, args)
		if res.IsError && res.Details["error"] != "not_found" {
			t.Fatalf("%s: %s", where, res.Text)
		}
		if (tool == "fact_history" || tool == "memory_source") && !res.IsError {
			t.Fatalf("%s: another agent's fact was found: %s", where, res.Text)
		}
		if tool == "reinforce_memory" && len(res.Details["not_found"].([]any)) != 2 {
			t.Fatalf("%s: another agent's chunks were reinforced: %v", where, res.Details)
		}
		walkIDs(res.Details, "", func(key, id string) {
			checked++
			if key == "agent_id" && id != actor {
				t.Fatalf("%s: result names agent %q", where, id)
			}
			if key != "agent_id" && own[id] != "" && own[id] != actor {
				t.Fatalf("%s: result holds %s of agent %q (%s)", where, id, own[id], key)
			}
		})
		for _, a := range agents {
			if a != actor && strings.Contains(res.Text, marker(a)) {
				t.Fatalf("%s: result shows %q's block: %s", where, a, res.Text)
			}
		}
		if !bytes.Equal(before, testutil.ExportWithout(t, e.db, actor)) {
			t.Fatalf("%s: other agents' data changed", where)
		}
	}
	if checked < calls/3 {
		t.Errorf("only %d IDs in results were checked: the test proves little", checked)
	}
	t.Logf("%d calls over MCP by %d agents, %d IDs in results checked: %v", calls, len(agents), checked, counts)
}

// walkIDs calls fn with every string in v under a key that holds chunk or
// agent IDs, skipping not_found (which echoes the IDs asked for).
func walkIDs(v any, key string, fn func(key, id string)) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if k != "not_found" {
				walkIDs(x, k, fn)
			}
		}
	case []any:
		for _, x := range v {
			walkIDs(x, key, fn)
		}
	case string:
		switch key {
		case "id", "chunk_id", "superseded_id", "agent_id", "upvoted", "downvoted", "memories", "resurrected":
			fn(key, v)
		}
	}
}
