package main

import (
	"strings"
	"testing"
	"time"
)

// The semantic commands run on the offline defaults: no keys, no network.
func TestRememberRecallForgetOffline(t *testing.T) {
	c := newCLI(t)
	var learned struct {
		Summary string `json:"summary"`
		Facts   []struct {
			Action  string `json:"action"`
			Content string `json:"content"`
			ChunkID string `json:"chunk_id"`
		} `json:"facts"`
	}
	c.jsonLoose(&learned, "--agent", "me", "remember", "I NEVER want to use Redux again, it was a nightmare. Oh and I tried that new café on Sukhumvit.")
	if len(learned.Facts) != 2 || !strings.HasPrefix(learned.Summary, "Learned 2 facts") {
		t.Fatalf("remember = %+v", learned)
	}
	var recalled struct {
		Results []struct {
			ID      string  `json:"id"`
			Content string  `json:"content"`
			Cosine  float64 `json:"cosine"`
			Score   float64 `json:"score"`
		} `json:"results"`
		Total int `json:"total"`
	}
	c.jsonLoose(&recalled, "--agent", "me", "recall", "coffee shop in Bangkok")
	if len(recalled.Results) == 0 || !strings.Contains(recalled.Results[0].Content, "café") || recalled.Total < 1 {
		t.Fatalf("recall = %+v", recalled)
	}
	r := c.ok("--agent", "me", "recall", "--explain", "what does the user think of Redux")
	if !strings.Contains(r.stdout, "cosine") || !strings.Contains(strings.SplitN(r.stdout, "\n", 2)[0], "Redux") {
		t.Errorf("recall --explain:\n%s", r.stdout)
	}

	// forget previews without --force, with or without --json.
	var preview struct {
		DryRun  bool `json:"dry_run"`
		Deleted []struct {
			ID string `json:"id"`
		} `json:"deleted"`
	}
	c.jsonLoose(&recalled, "--agent", "me", "recall", "--min-relevance", "0", "Redux")
	before := recalled.Total
	// The Redux fact and the text it came from, which says it too.
	c.jsonLoose(&preview, "--agent", "me", "forget", "Redux")
	if !preview.DryRun || len(preview.Deleted) != 2 {
		t.Fatalf("forget preview = %+v", preview)
	}
	c.jsonLoose(&recalled, "--agent", "me", "recall", "--min-relevance", "0", "Redux")
	if recalled.Total != before {
		t.Fatalf("preview deleted something: total %d, was %d", recalled.Total, before)
	}
	c.ok("--agent", "me", "forget", "--force", "Redux")
	c.jsonLoose(&recalled, "--agent", "me", "recall", "--min-relevance", "0", "Redux")
	if recalled.Total != 1 || strings.Contains(recalled.Results[0].Content, "Redux") {
		t.Fatalf("after forget: %+v", recalled)
	}
}

func TestStoreAndBlocksFromStdin(t *testing.T) {
	c := newCLI(t)
	r := c.runIn("We chose SQLite over Postgres\n", nil, "--agent", "me", "store", "-", "--metadata", `{"tags":["db"]}`)
	if r.code != 0 || !strings.HasPrefix(r.stdout, "Stored ") {
		t.Fatalf("store: %s", r)
	}
	r = c.runIn("We chose SQLite over Postgres\n", nil, "--agent", "me", "store", "-")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "Already known") {
		t.Fatalf("store again: %s", r)
	}
	if r := c.run("--agent", "me", "store", "x", "--metadata", "[1]"); r.code != 1 || !strings.Contains(r.stderr, "metadata") {
		t.Errorf("bad metadata: %s", r)
	}
	if r := c.run("store", "no agent"); r.code != 2 {
		t.Errorf("store without an agent: %s", r)
	}
	c.ok("--agent", "me", "block", "set", "persona", "I am terse")
	c.ok("--agent", "me", "block", "append", "persona", "and kind")
	var rep struct {
		Replaced int `json:"replaced"`
		Block    struct {
			Value string `json:"value"`
		} `json:"block"`
	}
	c.jsonLoose(&rep, "--agent", "me", "block", "replace", "persona", "terse", "brief")
	if rep.Replaced != 1 || rep.Block.Value != "I am brief\nand kind" {
		t.Errorf("replace = %+v", rep)
	}
	if r := c.run("--agent", "me", "block", "replace", "persona", "absent", "x"); r.code != 1 || !strings.Contains(r.stderr, "not found") {
		t.Errorf("replace missing text: %s", r)
	}
	if r := c.ok("--agent", "me", "block", "get", "persona"); r.stdout != "I am brief\nand kind\n" {
		t.Errorf("get = %q", r.stdout)
	}
	if r := c.ok("block", "me", "persona"); r.stdout != "I am brief\nand kind\n" {
		t.Errorf("block <agent> <key> = %q", r.stdout)
	}
	if r := c.run("--agent", "me", "block", "get", "nope"); r.code != 1 {
		t.Errorf("get missing block: %s", r)
	}
}

func TestRecallFlagsValidated(t *testing.T) {
	c := newCLI(t)
	c.ok("--agent", "me", "store", "something to find")
	if r := c.run("--agent", "me", "recall", "x", "--min-score", "2"); r.code != 1 || !strings.Contains(r.stderr, "min_score") {
		t.Errorf("--min-score 2: %s", r)
	}
	for _, args := range [][]string{
		{"recall", "x", "--limit", "0"},
		{"recall", "x", "--limit", "51"},
		{"recall", "x", "--offset", "-1"},
		{"recall", "x", "--kind", "fish"},
		{"recall", "x", "--since", "yesterday"},
	} {
		if r := c.run(append([]string{"--agent", "me"}, args...)...); r.code != 2 {
			t.Errorf("%v: %s", args, r)
		}
	}
}

// TestRecallAsOfDate: --as-of and --until with a bare date mean the end
// of that day, --since its start (hippo.ParseTime), as over MCP and in the
// web UI.
func TestRecallAsOfDate(t *testing.T) {
	c := newCLI(t)
	c.ok("--agent", "me", "store", "something to find")
	var out struct {
		Results []struct {
			CreatedAt time.Time `json:"created_at"`
		} `json:"results"`
	}
	c.jsonLoose(&out, "--agent", "me", "recall", "--min-relevance", "0", "something to find")
	if len(out.Results) != 1 {
		t.Fatalf("%d results, want 1", len(out.Results))
	}
	created := out.Results[0].CreatedAt.UTC()
	day := created.Format(time.DateOnly)
	for _, tt := range []struct {
		flag, value string
		found       bool
	}{
		{"--as-of", day, true},
		{"--as-of", created.AddDate(0, 0, -1).Format(time.DateOnly), false},
		{"--until", day, true},
		{"--since", day, true},
		{"--since", created.AddDate(0, 0, 1).Format(time.DateOnly), false},
	} {
		out.Results = nil
		c.jsonLoose(&out, "--agent", "me", "recall", "--min-relevance", "0", tt.flag, tt.value, "something to find")
		if found := len(out.Results) == 1; found != tt.found {
			t.Errorf("%s %s (stored %s): found %v, want %v", tt.flag, tt.value, created.Format(time.RFC3339Nano), found, tt.found)
		}
	}
}

// TestRecallRelevanceFloor: an unrelated query recalls nothing by
// default, everything with --min-relevance 0; --explain shows relevance's
// parts; history says when no fact is relevant.
func TestRecallRelevanceFloor(t *testing.T) {
	c := newCLI(t)
	c.ok("--agent", "me", "remember", "I live in Berlin. I have a dog named Max.")
	if r := c.ok("--agent", "me", "recall", "quantum chromodynamics lecture"); !strings.Contains(r.stdout, "Nothing relevant recalled") {
		t.Errorf("unrelated recall:\n%s", r.stdout)
	}
	var all struct {
		Results      []struct{ Relevance float64 } `json:"results"`
		MinRelevance float64                       `json:"min_relevance"`
	}
	c.jsonLoose(&all, "--agent", "me", "recall", "--min-relevance", "0", "quantum chromodynamics lecture")
	// The facts, or the text they came from standing for them.
	if len(all.Results) == 0 || all.MinRelevance != 0 {
		t.Errorf("--min-relevance 0: %+v; want the facts or their text", all)
	}
	r := c.ok("--agent", "me", "recall", "--explain", "the user's dog Max")
	for _, part := range []string{"relevance", "bm25", "raw", "cosine", "strength", "recency"} {
		if !strings.Contains(r.stdout, part) {
			t.Errorf("recall --explain lacks %q:\n%s", part, r.stdout)
		}
	}
	if r := c.ok("--agent", "me", "history", "zzzz qqq"); !strings.Contains(r.stdout, "No fact is relevant") {
		t.Errorf("history of an unrelated query:\n%s", r.stdout)
	}
}
