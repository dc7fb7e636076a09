package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
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
