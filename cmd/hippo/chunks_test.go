package main

import (
	"slices"
	"strings"
	"testing"
	"time"
)

type chunkList struct {
	AgentID string      `json:"agent_id"`
	Total   int         `json:"total"`
	Limit   int         `json:"limit"`
	Offset  int         `json:"offset"`
	Chunks  []chunkView `json:"chunks"`
}

func TestChunks(t *testing.T) {
	c := newCLI(t)
	c.seed()
	tests := []struct {
		args  []string
		want  []string
		total int
	}{
		{[]string{"chunks", "alice"}, []string{"A4", "A2", "A1"}, 3},
		{[]string{"chunks", "alice", "--superseded"}, []string{"A4", "A3", "A2", "A1"}, 4},
		{[]string{"chunks", "alice", "--kind", "fact", "--superseded"}, []string{"A4", "A3"}, 2},
		{[]string{"chunks", "alice", "--kind", "memory"}, []string{"A2", "A1"}, 2},
		{[]string{"chunks", "alice", "--limit", "2"}, []string{"A4", "A2"}, 3},
		{[]string{"chunks", "alice", "--limit", "2", "--offset", "2"}, []string{"A1"}, 3},
		{[]string{"chunks", "alice", "--limit", "0"}, []string{"A4", "A2", "A1"}, 3},
		{[]string{"chunks", "bob", "--scope", "work"}, []string{"B1"}, 1},
		{[]string{"chunks", "bob", "--scope", ""}, []string{}, 0},
		{[]string{"chunks", "carol"}, []string{}, 0},
		{[]string{"chunks", "--agent", "bob"}, []string{"B1"}, 1},
	}
	for _, tt := range tests {
		var out chunkList
		c.json(&out, tt.args...)
		if got := chunkIDs(out.Chunks); !slices.Equal(got, tt.want) || out.Total != tt.total {
			t.Errorf("%v: chunks %v, total %d; want %v, %d", tt.args, got, out.Total, tt.want, tt.total)
		}
	}

	// Every field of a chunk, none of its vector.
	var out chunkList
	c.json(&out, "chunks", "alice", "--superseded", "--kind", "fact")
	a3 := out.Chunks[1]
	if a3.ID != "A3" || a3.AgentID != "alice" || a3.Kind != "fact" || a3.Content != "Uses Redux for state" ||
		!a3.Superseded || a3.SupersededBy == nil || *a3.SupersededBy != "A4" || a3.SupersededAt == nil ||
		a3.EncounterCount != 1 || a3.RunningIntensity != 0.5 || a3.Strength <= 0 || a3.Strength > 0.5 ||
		!a3.CreatedAt.Equal(time.Date(2026, 1, 10, 14, 0, 0, 0, time.UTC)) {
		t.Errorf("A3 = %+v", a3)
	}
	if out.Chunks[0].Superseded || out.Chunks[0].SupersededBy != nil {
		t.Errorf("A4 = %+v", out.Chunks[0])
	}

	// HIPPO_AGENT is the default agent; an argument wins over it.
	c.runIn("", []string{"HIPPO_AGENT=bob"}, "chunks")
	if r := c.runIn("", []string{"HIPPO_AGENT=bob"}, "chunks", "--json"); !strings.Contains(r.stdout, `"B1"`) {
		t.Errorf("chunks with HIPPO_AGENT=bob: %s", r)
	}
	if r := c.runIn("", []string{"HIPPO_AGENT=bob"}, "chunks", "alice", "--json"); !strings.Contains(r.stdout, `"A1"`) {
		t.Errorf("chunks alice with HIPPO_AGENT=bob: %s", r)
	}

	r := c.ok("chunks", "alice", "--superseded", "--limit", "3")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "ID") || !strings.Contains(r.stdout, "[superseded by A4] Uses Redux") {
		t.Errorf("chunks text:\n%s", r.stdout)
	}
	if !strings.Contains(r.stderr, "--offset 3") {
		t.Errorf("no paging hint on stderr: %q", r.stderr)
	}
	if r := c.ok("chunks", "carol"); r.stdout != "" || !strings.Contains(r.stderr, "No chunks") {
		t.Errorf("chunks of an unknown agent: %s", r)
	}
}

func TestSearch(t *testing.T) {
	c := newCLI(t)
	c.seed()
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"search", "redux"}, []string{"B1"}},
		{[]string{"search", "redux", "--superseded"}, []string{"B1", "A3"}},
		{[]string{"search", "ReDuX", "--superseded", "--agent", "alice"}, []string{"A3"}},
		{[]string{"search", "%"}, []string{"A1"}},
		{[]string{"search", "100%"}, []string{"A1"}},
		{[]string{"search", "_"}, []string{"A2"}},
		{[]string{"search", "y_n"}, []string{"A2"}},
		{[]string{"search", "s"}, []string{"B1", "A4", "A2", "A1"}},
		{[]string{"search", "s", "--kind", "fact"}, []string{"A4"}},
		{[]string{"search", "s", "--limit", "2"}, []string{"B1", "A4"}},
		{[]string{"search", "s", "--scope", "work"}, []string{"B1"}},
		{[]string{"search", "nothing like this"}, []string{}},
	}
	for _, tt := range tests {
		var out struct {
			Query   string      `json:"query"`
			AgentID string      `json:"agent_id"`
			Total   int         `json:"total"`
			Chunks  []chunkView `json:"chunks"`
		}
		c.json(&out, tt.args...)
		if got := chunkIDs(out.Chunks); !slices.Equal(got, tt.want) || out.Query != tt.args[1] {
			t.Errorf("%v: %v (query %q), want %v", tt.args, got, out.Query, tt.want)
		}
	}
	r := c.ok("search", "REDUX", "--superseded")
	if !strings.Contains(r.stdout, "AGENT") || !strings.Contains(r.stdout, "bob") || !strings.Contains(r.stdout, "alice") {
		t.Errorf("search text:\n%s", r.stdout)
	}
}
