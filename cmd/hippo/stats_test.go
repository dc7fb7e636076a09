package main

import (
	"reflect"
	"strings"
	"testing"

	"github.com/hippo-mem/hippo/sqlite"
)

func TestStats(t *testing.T) {
	c := newCLI(t)
	c.seed()
	var s sqlite.Stats
	c.json(&s, "stats")
	if s.Path != c.db || s.FileSize <= 0 || s.Chunks != 5 || s.Facts != 2 || s.Memories != 3 || s.Superseded != 1 ||
		s.Blocks != 2 || s.Agents != 2 || s.EmbeddingModel == nil || *s.EmbeddingModel != (sqlite.ModelLock{Model: "test-model", Dimension: 8}) {
		t.Errorf("stats = %+v", s)
	}
	r := c.ok("stats")
	for _, want := range []string{c.db, `"test-model" (8 dimensions)`, "5 (2 facts, 3 memories; 1 superseded)"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stats text lacks %q:\n%s", want, r.stdout)
		}
	}
}

func TestAgents(t *testing.T) {
	c := newCLI(t)
	c.ok("init")
	var out struct {
		Agents []sqlite.AgentSummary `json:"agents"`
	}
	c.json(&out, "agents")
	if out.Agents == nil || len(out.Agents) != 0 {
		t.Errorf("agents of an empty database = %#v, want []", out.Agents)
	}
	if r := c.ok("agents"); r.stdout != "" || !strings.Contains(r.stderr, "No agents") {
		t.Errorf("agents text, empty: %s", r)
	}

	c.seed()
	c.json(&out, "agents")
	want := []sqlite.AgentSummary{
		{AgentID: "alice", Chunks: 4, Facts: 2, Memories: 2, Superseded: 1, Blocks: 2},
		{AgentID: "bob", Chunks: 1, Memories: 1},
	}
	if !reflect.DeepEqual(out.Agents, want) {
		t.Errorf("agents = %+v", out.Agents)
	}
	r := c.ok("agents")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "AGENT") || !strings.HasPrefix(lines[1], "alice") || !strings.HasPrefix(lines[2], "bob") {
		t.Errorf("agents text:\n%s", r.stdout)
	}
}
