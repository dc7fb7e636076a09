package main

import (
	"slices"
	"strings"
	"testing"
	"time"
)

type deleteOutput struct {
	DryRun      bool        `json:"dry_run"`
	Chunks      []chunkView `json:"chunks"`
	NotFound    []string    `json:"not_found"`
	Resurrected []string    `json:"resurrected"`
}

// snapshot is the full export: any change to the database changes it.
func (c *cli) snapshot() string {
	c.t.Helper()
	return c.ok("export").stdout
}

func TestDeletePreviewsWithoutForce(t *testing.T) {
	c := newCLI(t)
	c.seed()
	before := c.snapshot()

	var out deleteOutput
	c.json(&out, "delete", "A4", "A1")
	if !out.DryRun || !slices.Equal(chunkIDs(out.Chunks), []string{"A4", "A1"}) ||
		!slices.Equal(out.Resurrected, []string{"A3"}) || out.NotFound == nil || len(out.NotFound) != 0 {
		t.Errorf("preview = %+v", out)
	}
	if out.Chunks[0].Content != "Uses Zustand for state" {
		t.Errorf("preview does not show content: %+v", out.Chunks[0])
	}
	r := c.ok("delete", "A4", "A1")
	if !strings.Contains(r.stdout, "Would delete 2 chunks") || !strings.Contains(r.stdout, "Would resurrect") ||
		!strings.Contains(r.stdout, "A3") || !strings.Contains(r.stderr, "--force") {
		t.Errorf("text preview: %s", r)
	}
	if after := c.snapshot(); after != before {
		t.Fatalf("delete without --force changed the database")
	}

	c.json(&out, "delete", "A4", "A1", "--force")
	if out.DryRun || !slices.Equal(chunkIDs(out.Chunks), []string{"A4", "A1"}) || !slices.Equal(out.Resurrected, []string{"A3"}) {
		t.Errorf("delete = %+v", out)
	}
	var list chunkList
	c.json(&list, "chunks", "alice")
	if got := chunkIDs(list.Chunks); !slices.Equal(got, []string{"A3", "A2"}) {
		t.Errorf("after delete: %v, want A3 live again and A2", got)
	}
	if list.Chunks[0].Superseded {
		t.Errorf("A3 still superseded: %+v", list.Chunks[0])
	}
}

func TestDeleteUnknownAndOtherAgentsIDs(t *testing.T) {
	c := newCLI(t)
	c.seed()
	// An unknown ID: listed, exit 1, the rest still deleted with --force.
	r := c.run("delete", "A2", "NOPE", "--force", "--json")
	var out deleteOutput
	decodeJSON(t, r.stdout, &out)
	if r.code != 1 || !strings.Contains(r.stderr, "NOPE") || !slices.Equal(out.NotFound, []string{"NOPE"}) ||
		!slices.Equal(chunkIDs(out.Chunks), []string{"A2"}) {
		t.Errorf("delete with an unknown ID: %s", r)
	}
	// --agent restricts deletion to that agent.
	r = c.run("delete", "B1", "--agent", "alice", "--force")
	if r.code != 1 || !strings.Contains(r.stderr, `no chunk of agent "alice" with ID B1`) {
		t.Errorf("delete of another agent's chunk: %s", r)
	}
	var list chunkList
	c.json(&list, "chunks", "bob")
	if list.Total != 1 {
		t.Errorf("bob's chunk was deleted through --agent alice")
	}
	c.ok("delete", "B1", "--agent", "bob", "--force")
	c.json(&list, "chunks", "bob")
	if list.Total != 0 {
		t.Errorf("bob's chunk survived delete --agent bob --force")
	}
}

type purgeOutput struct {
	DryRun  bool        `json:"dry_run"`
	AgentID string      `json:"agent_id"`
	Before  *time.Time  `json:"before"`
	Count   int         `json:"count"`
	Chunks  []chunkView `json:"chunks"`
}

func TestPurge(t *testing.T) {
	c := newCLI(t)
	c.seed()
	before := c.snapshot()

	var out purgeOutput
	c.json(&out, "purge")
	if !out.DryRun || out.Count != 1 || !slices.Equal(chunkIDs(out.Chunks), []string{"A3"}) {
		t.Errorf("preview = %+v", out)
	}
	r := c.ok("purge")
	if !strings.Contains(r.stdout, "Would purge 1 superseded chunk") || !strings.Contains(r.stderr, "--force") {
		t.Errorf("text preview: %s", r)
	}
	if c.snapshot() != before {
		t.Fatal("purge without --force changed the database")
	}

	// Filters: another agent, or a date before the supersession, match nothing.
	c.json(&out, "purge", "--agent", "bob", "--force")
	if out.Count != 0 || out.AgentID != "bob" {
		t.Errorf("purge --agent bob = %+v", out)
	}
	c.json(&out, "purge", "--before", "2026-01-10", "--force")
	if out.Count != 0 || out.Before == nil || !out.Before.Equal(time.Date(2026, 1, 10, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("purge --before 2026-01-10 = %+v", out)
	}
	if c.snapshot() != before {
		t.Fatal("purges matching nothing changed the database")
	}
	c.json(&out, "purge", "--agent", "alice", "--before", "2026-01-11T00:00:00Z", "--force")
	if out.DryRun || out.Count != 1 || out.Chunks[0].ID != "A3" {
		t.Errorf("purge = %+v", out)
	}
	var list chunkList
	c.json(&list, "chunks", "alice", "--superseded")
	if got := chunkIDs(list.Chunks); !slices.Equal(got, []string{"A4", "A2", "A1"}) {
		t.Errorf("after purge: %v", got)
	}
	if r := c.ok("purge", "--force"); !strings.Contains(r.stderr, "No superseded chunks") {
		t.Errorf("second purge: %s", r)
	}
}
