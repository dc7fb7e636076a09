package main

import (
	"strings"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/sqlite"
)

func TestBlocks(t *testing.T) {
	c := newCLI(t)
	c.seed()
	var out struct {
		AgentID string             `json:"agent_id"`
		Blocks  []sqlite.BlockInfo `json:"blocks"`
	}
	c.json(&out, "blocks", "alice")
	if out.AgentID != "alice" || len(out.Blocks) != 2 || out.Blocks[0].Key != "objectives" ||
		out.Blocks[0].Chars != len("Ship the CLI\nWrite tests") || out.Blocks[1].Key != "persona" || out.Blocks[1].UpdatedAt.IsZero() {
		t.Errorf("blocks = %+v", out)
	}
	c.json(&out, "blocks", "alice", "--scope", "work")
	if len(out.Blocks) != 0 || out.Blocks == nil {
		t.Errorf("blocks in scope work = %#v", out.Blocks)
	}
	r := c.ok("blocks", "alice")
	if !strings.Contains(r.stdout, "KEY") || !strings.Contains(r.stdout, "persona") {
		t.Errorf("blocks text:\n%s", r.stdout)
	}
}

func TestBlock(t *testing.T) {
	c := newCLI(t)
	c.seed()
	var b hippo.Block
	c.json(&b, "block", "alice", "objectives")
	if b.AgentID != "alice" || b.Key != "objectives" || b.Scope != "" || b.Value != "Ship the CLI\nWrite tests" ||
		!b.UpdatedAt.Equal(time.Date(2026, 1, 10, 12, 0, 0, 0, time.UTC)) {
		t.Errorf("block = %+v", b)
	}
	if r := c.ok("block", "alice", "persona"); r.stdout != "Terse & precise.\n" {
		t.Errorf("block text = %q", r.stdout)
	}
	if r := c.runIn("", []string{"HIPPO_AGENT=alice"}, "block", "persona"); r.code != 0 || r.stdout != "Terse & precise.\n" {
		t.Errorf("block with HIPPO_AGENT: %s", r)
	}

	r := c.fails(1, `agent "alice" has no block "mood"`, "block", "alice", "mood")
	if r.stdout != "" {
		t.Errorf("missing block printed %q", r.stdout)
	}
	c.fails(1, "has no block", "block", "bob", "persona")
	c.fails(1, `exists with --scope ""`, "block", "alice", "persona", "--scope", "work")
	r = c.run("block", "alice", "mood", "--json")
	var e struct {
		Error struct{ Code, Message string }
	}
	decodeJSON(t, r.stderr, &e)
	if r.code != 1 || e.Error.Code != "not_found" {
		t.Errorf("missing block under --json: %s", r)
	}
}
