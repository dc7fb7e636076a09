package main

import (
	"strings"
	"testing"
)

func TestWorkingMemoryCommands(t *testing.T) {
	c := newCLI(t)
	var learned struct {
		Facts []struct {
			ChunkID string `json:"chunk_id"`
		} `json:"facts"`
	}
	c.jsonLoose(&learned, "--agent", "me", "remember", "I live in Berlin.")
	if len(learned.Facts) != 1 {
		t.Fatalf("remember = %+v", learned)
	}
	var hist struct {
		History []struct {
			Content string `json:"content"`
			Current bool   `json:"current"`
		} `json:"history"`
	}
	c.jsonLoose(&hist, "--agent", "me", "history", "where the user lives")
	if len(hist.History) != 1 || !hist.History[0].Current {
		t.Errorf("history = %+v", hist)
	}
	c.ok("--agent", "me", "history", "--id", learned.Facts[0].ChunkID)
	if r := c.run("--agent", "me", "history"); r.code != 2 {
		t.Errorf("history without query: %s", r)
	}

	c.ok("--agent", "me", "block", "set", "persona", "I am terse.")
	r := c.ok("--agent", "me", "context", "which city the user lives in")
	if !strings.Contains(r.stdout, "## persona") || !strings.Contains(r.stdout, "Berlin") {
		t.Errorf("context:\n%s", r.stdout)
	}
	var ctx struct {
		Budget int `json:"budget_chars"`
	}
	c.jsonLoose(&ctx, "--agent", "me", "context", "--max-tokens", "5")
	if ctx.Budget != 20 {
		t.Errorf("budget = %d", ctx.Budget)
	}

	var rein struct {
		Upvoted []string `json:"upvoted"`
	}
	c.jsonLoose(&rein, "--agent", "me", "reinforce", "--up", learned.Facts[0].ChunkID)
	if len(rein.Upvoted) != 1 {
		t.Errorf("reinforce = %+v", rein)
	}
	if r := c.run("--agent", "me", "reinforce", "--down", "NOPE"); r.code != 1 || !strings.Contains(r.stderr, "NOPE") {
		t.Errorf("reinforce unknown: %s", r)
	}

	var cons struct {
		DryRun bool  `json:"dry_run"`
		Faded  []any `json:"faded"`
	}
	c.jsonLoose(&cons, "--agent", "me", "consolidate")
	if !cons.DryRun || len(cons.Faded) != 0 {
		t.Errorf("consolidate = %+v", cons)
	}
	c.ok("--agent", "me", "consolidate", "--force")

	if r := c.ok("--agent", "me", "block", "delete", "persona"); !strings.Contains(r.stdout, "Would delete") {
		t.Errorf("block delete preview: %s", r)
	}
	c.ok("--agent", "me", "block", "get", "persona")
	c.ok("--agent", "me", "block", "delete", "persona", "--force")
	if r := c.run("--agent", "me", "block", "get", "persona"); r.code != 1 {
		t.Errorf("deleted block still there: %s", r)
	}
	r = c.ok("--help")
	for _, cmd := range []string{"history", "context", "reinforce", "consolidate", "serve", "recall", "remember"} {
		if !strings.Contains(r.stdout, cmd) {
			t.Errorf("help lacks %s", cmd)
		}
	}
}
