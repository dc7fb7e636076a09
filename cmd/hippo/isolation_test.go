package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/internal/testutil"
	"github.com/hippo-mem/hippo/local"
	"github.com/hippo-mem/hippo/sqlite"
)

// TestIsolationProperty runs random CLI commands for random agents and
// scopes (look-alike agent IDs; other agents' chunk IDs given to delete,
// reinforce and history) and checks after each that no other agent's data
// changed by a byte and that every agent ID and chunk ID in the output is
// the acting agent's.
func TestIsolationProperty(t *testing.T) {
	c := newCLI(t)
	ctx := context.Background()
	agents := []string{"alice", "Alice", "al%", "ali'ce", "alıce"}
	scopes := []string{"", "work", "%"}
	texts := []string{"I live in Berlin.", "I love Svelte and I hate Redux.", "My dog is called Rex.", "The launch code is 4711."}

	db, err := sqlite.Open(ctx, c.db, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, a := range agents {
		for _, s := range scopes[:2] {
			m, err := db.Memory(sqlite.MemoryOptions{AgentID: a, Scope: s, Embedder: local.NewEmbedder(),
				Extractor: local.NewExtractor(), Classifier: local.NewClassifier()})
			if err != nil {
				t.Fatal(err)
			}
			for _, text := range texts {
				if _, err := m.StoreMemory(ctx, hippo.StoreInput{Content: text}); err != nil {
					t.Fatal(err)
				}
				if _, err := m.RememberFacts(ctx, text); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := m.AppendBlock(ctx, "human", "note [["+a+"]]"); err != nil {
				t.Fatal(err)
			}
		}
	}

	r := rand.New(rand.NewPCG(21, 22))
	ops := envInt("HIPPO_ISOLATION_OPS", 30)
	counts := map[string]int{}
	var order []int // every command in turn, in a random order each round
	for i := range ops {
		if len(order) == 0 {
			order = r.Perm(15)
		}
		op := order[0]
		order = order[1:]
		actor := agents[r.IntN(len(agents))]
		cs, err := db.ListChunks(ctx, sqlite.ChunkFilter{Superseded: true})
		if err != nil {
			t.Fatal(err)
		}
		own := map[string]string{}
		var others []string
		for _, ch := range cs {
			own[ch.ID] = ch.AgentID
			if ch.AgentID != actor {
				others = append(others, ch.ID)
			}
		}
		slices.Sort(others)
		other := others[r.IntN(len(others))]
		text := texts[r.IntN(len(texts))]
		base := []string{"--agent", actor, "--json"}
		if r.IntN(2) == 0 {
			base = append(base, "--scope", scopes[r.IntN(len(scopes))])
		}
		var args []string
		wantCode := 0
		switch op {
		case 0:
			args = []string{"store", text}
		case 1:
			args = []string{"remember", text}
		case 2:
			args = []string{"recall", text, "--limit", "50"}
		case 3:
			args = []string{"forget", text, "--force"}
		case 4:
			args = []string{"block", "append", "human", "more [[" + actor + "]]"}
		case 5:
			args = []string{"block", "replace", "human", "note", "Note"}
			wantCode = -1 // 1 when the block or text is missing
		case 6:
			args = []string{"block", "delete", "human", "--force"}
			wantCode = -1
		case 7:
			args = []string{"blocks", actor}
		case 8:
			args, wantCode = []string{"delete", other, "--force"}, 1
		case 9:
			args, wantCode = []string{"reinforce", "--up", other}, 1
		case 10:
			args, wantCode = []string{"history", "--id", other}, 1
		case 11:
			args = []string{"context", text}
		case 12:
			args = []string{"purge", "--force"}
		case 13:
			args = []string{"chunks", actor, "--superseded"}
		case 14:
			args = []string{"search", strings.Fields(text)[1], "--superseded"}
		}
		counts[args[0]]++
		args = append(args, base...)
		where := fmt.Sprintf("op %d: hippo %s", i, strings.Join(args, " "))
		before := testutil.ExportWithout(t, db, actor)

		res := c.run(args...)
		switch {
		case wantCode >= 0 && res.code != wantCode, wantCode < 0 && res.code > 1:
			t.Fatalf("%s: %s", where, res)
		case wantCode == 1 && !strings.Contains(res.stderr, "not_found"):
			t.Fatalf("%s: another agent's chunk was not refused as not found: %s", where, res)
		}
		if res.code == 0 {
			var out any
			if err := json.Unmarshal([]byte(res.stdout), &out); err != nil {
				t.Fatalf("%s: output is not JSON: %s", where, res)
			}
			walkOutput(out, "", func(key, s string) {
				if key == "agent_id" && s != actor {
					t.Fatalf("%s: output names agent %q:\n%s", where, s, res.stdout)
				}
				if key != "agent_id" && own[s] != "" && own[s] != actor {
					t.Fatalf("%s: output holds %s of agent %q:\n%s", where, s, own[s], res.stdout)
				}
			})
			for _, a := range agents {
				if a != actor && strings.Contains(res.stdout, "[["+a+"]]") {
					t.Fatalf("%s: output shows %q's block:\n%s", where, a, res.stdout)
				}
			}
		}
		if !bytes.Equal(before, testutil.ExportWithout(t, db, actor)) {
			t.Fatalf("%s: other agents' data changed", where)
		}
	}
	t.Logf("%d CLI commands by %d agents: %v", ops, len(agents), counts)
}

// walkOutput calls fn with every string in v under a key holding chunk or
// agent IDs, skipping not_found (which echoes the IDs asked for).
func walkOutput(v any, key string, fn func(key, s string)) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if k != "not_found" {
				walkOutput(x, k, fn)
			}
		}
	case []any:
		for _, x := range v {
			walkOutput(x, key, fn)
		}
	case string:
		switch key {
		case "id", "chunk_id", "superseded_id", "superseded_by", "agent_id", "upvoted", "downvoted", "memories", "resurrected":
			fn(key, v)
		}
	}
}

// TestAgentTextStatistics: with --agent-text-statistics (or its variable)
// an agent's full-text scores stay as they were when another agent of the
// database stores memories holding the query's word; without it they move
// (the database's statistics), which is how one agent could tell what
// another's memories hold.
func TestAgentTextStatistics(t *testing.T) {
	c := newCLI(t)
	for _, text := range []string{"The blue heron nests by the lake.", "We went hiking in the hills.", "My tea is green and strong."} {
		c.ok("--agent", "me", "store", text)
	}
	bm25 := func(args ...string) float64 {
		t.Helper()
		var out struct{ Results []recalledView }
		c.jsonLoose(&out, append([]string{"--agent", "me", "recall", "--min-relevance", "0", "heron"}, args...)...)
		for _, r := range out.Results {
			if strings.Contains(r.Content, "heron") {
				return r.BM25
			}
		}
		t.Fatalf("recall heron %v: the heron memory is not among %d results", args, len(out.Results))
		return 0
	}
	own, whole := bm25("--agent-text-statistics"), bm25()
	if own <= 0 || own != whole {
		t.Fatalf("alone in the database: bm25 %v with the flag, %v without; want equal and positive", own, whole)
	}
	var lines strings.Builder
	for i := range 12 {
		fmt.Fprintf(&lines, "{\"content\":\"heron sighting number %d at the marsh\"}\n", i)
	}
	if r := c.runIn(lines.String(), nil, "--agent", "other", "store", "--jsonl", "-"); r.code != 0 {
		t.Fatal(r)
	}
	// The agent's scores are read back from FTS5's (sqlite agentBM25):
	// equal to rounding.
	same := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Abs(b) }
	if got := bm25("--agent-text-statistics"); !same(got, own) {
		t.Errorf("with --agent-text-statistics, another agent's memories moved bm25 %v -> %v", own, got)
	}
	var out struct{ Results []recalledView }
	r := c.runIn("", []string{"HIPPO_AGENT_TEXT_STATISTICS=1"}, "--agent", "me", "recall", "--min-relevance", "0", "--json", "heron")
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("%v: %s", err, r)
	}
	if len(out.Results) == 0 || !same(out.Results[0].BM25, own) {
		t.Errorf("with HIPPO_AGENT_TEXT_STATISTICS=1: %s\nwant the heron memory first with bm25 %v", r.stdout, own)
	}
	if got := bm25(); same(got, own) {
		t.Errorf("without the flag bm25 stayed %v: the test no longer shows the database's statistics", got)
	}
	// --explain says which statistics a score was computed with.
	for flag, want := range map[string]string{"--agent-text-statistics": "the agent's word statistics", "--json=false": "the database's word statistics"} {
		if r := c.ok("--agent", "me", "recall", "--explain", flag, "heron"); !strings.Contains(r.stdout, want) {
			t.Errorf("recall --explain %s:\n%s\nwant %q", flag, r.stdout, want)
		}
	}
	// hippo serve says which statistics it scores with (stdio: it stops
	// at the end of its input).
	for env, want := range map[string]string{"HIPPO_AGENT_TEXT_STATISTICS=1": "agent_text_statistics=true", "HIPPO_AGENT_TEXT_STATISTICS=0": "agent_text_statistics=false"} {
		if r := c.runIn("", []string{env}, "serve", "--transport", "stdio"); r.code != 0 || !strings.Contains(r.stderr, want) {
			t.Errorf("hippo serve with %s: %s\nwant %q in its log", env, r, want)
		}
	}
	r = c.runIn("", []string{"HIPPO_AGENT_TEXT_STATISTICS=maybe"}, "--agent", "me", "recall", "heron")
	if r.code != 2 || !strings.Contains(r.stderr, "HIPPO_AGENT_TEXT_STATISTICS must be 1, 0, true or false") {
		t.Errorf("a bad HIPPO_AGENT_TEXT_STATISTICS: %s", r)
	}
}
