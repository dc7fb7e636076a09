package tools_test

import (
	"fmt"
	"strings"
	"testing"
)

func TestWorkingMemoryTools(t *testing.T) {
	e := newEnv(t, false)
	// Blocks: list, get_context, delete.
	e.call("append_memory_block", `{"key":"persona","text":"I am terse."}`)
	e.call("append_memory_block", `{"key":"objectives","text":"Ship v1."}`)
	res, d := e.call("list_memory_blocks", `{}`)
	if res.IsError || len(d["blocks"].([]any)) != 2 || !strings.Contains(res.Text, "persona (11 characters") {
		t.Fatalf("list = %s %v", res.Text, d)
	}
	var ids []string
	for _, c := range []string{"the user drinks green tea", "the user hates coffee", "the build uses bazel"} {
		_, d := e.call("store_memory", fmt.Sprintf(`{"content":%q}`, c))
		ids = append(ids, d["memory"].(map[string]any)["id"].(string))
	}
	res, d = e.call("get_context", `{"query":"what does the user drink","max_chars":2000}`)
	if res.IsError || !strings.Contains(res.Text, "## persona") || !strings.Contains(res.Text, "green tea") {
		t.Fatalf("get_context = %s", res.Text)
	}
	res, d = e.call("get_context", `{"query":"what does the user drink","max_tokens":10}`)
	if res.IsError || !strings.Contains(res.Text, "Left out") || d["budget_chars"].(float64) != 40 {
		t.Errorf("small get_context = %s %v", res.Text, d)
	}
	if res, _ := e.call("get_context", `{"max_chars":0}`); !res.IsError || !strings.Contains(res.Text, "max_chars") {
		t.Errorf("max_chars 0 = %+v", res)
	}
	if res, _ := e.call("delete_memory_block", `{"key":"objectives"}`); res.IsError {
		t.Errorf("delete: %s", res.Text)
	}
	if res, _ := e.call("delete_memory_block", `{"key":"objectives"}`); !res.IsError {
		t.Error("deleting a missing block succeeded")
	}

	// Reinforcement by the ids recall returns.
	res, _ = e.call("recall_memories", `{"query":"the user drinks"}`)
	if !strings.Contains(res.Text, "id "+ids[0]) {
		t.Fatalf("recall text lacks full ids: %s", res.Text)
	}
	res, d = e.call("reinforce_memory", fmt.Sprintf(`{"upvotes":[%q],"downvotes":[%q,"nope"]}`, ids[0], ids[1]))
	if res.IsError || len(d["upvoted"].([]any)) != 1 || len(d["not_found"].([]any)) != 1 {
		t.Errorf("reinforce = %s %v", res.Text, d)
	}
	if res, _ := e.call("reinforce_memory", `{}`); !res.IsError {
		t.Error("empty reinforce accepted")
	}

	// Recall filters and paging.
	res, d = e.call("recall_memories", `{"query":"the user","limit":1,"offset":1}`)
	if res.IsError || d["total"].(float64) != 3 || len(d["results"].([]any)) != 1 || !strings.Contains(res.Text, "2. ") {
		t.Errorf("paged recall = %s %v", res.Text, d)
	}
	if res, _ := e.call("recall_memories", `{"query":"x","since":"last tuesday"}`); !res.IsError || !strings.Contains(res.Text, "since") {
		t.Errorf("bad since = %s", res.Text)
	}
	if res, d := e.call("recall_memories", `{"query":"x","until":"2000-01-01"}`); res.IsError || d["total"].(float64) != 0 {
		t.Errorf("until 2000 = %s", res.Text)
	}

	// History of a plain fact: one entry, current.
	res, d = e.call("fact_history", `{}`)
	if !res.IsError {
		t.Errorf("fact_history without query or id = %s", res.Text)
	}
}
