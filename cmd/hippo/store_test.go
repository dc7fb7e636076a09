package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStoreJSONL: `hippo store --jsonl` stores each line as store_memory
// would, a repeat once; a line that is not an item or that is refused is
// reported by number and the rest is stored, with exit code 1.
func TestStoreJSONL(t *testing.T) {
	c := newCLI(t)
	var b strings.Builder
	for i := range 2500 { // three batches
		fmt.Fprintf(&b, "{\"content\":\"Note %d about the garden\"}\n", i)
	}
	b.WriteString(`{"content":"My sister lives in Lisbon","source":"msg-7","metadata":{"tag":"family"},"intensity":0.9}` + "\n")
	b.WriteString("\n")                                           // blank: skipped
	b.WriteString("not json\n")                                   // line 2503
	b.WriteString(`{"content":""}` + "\n")                        // line 2504: refused
	b.WriteString(`{"content":"Note 3 about the garden"}` + "\n") // a repeat
	b.WriteString(`{"content":"x","color":"red"}` + "\n")         // line 2506: unknown field
	file := filepath.Join(c.dir, "in.jsonl")
	if err := os.WriteFile(file, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	r := c.runIn("", []string{"HIPPO_AGENT=alice"}, "store", "--jsonl", file)
	if r.code != 1 || !strings.Contains(r.stdout, "Stored 2501 new memories, strengthened 1 memory already known, 3 failed.") ||
		!strings.Contains(r.stderr, "3 of 2505 lines failed") {
		t.Fatalf("store --jsonl: %s", r)
	}
	for _, want := range []string{"line 2503: not a JSON object", "line 2504: content: must not be empty", `line 2506: not a JSON object of content, metadata, intensity and source: json: unknown field "color"`} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output does not say %q:\n%s", want, r.stdout)
		}
	}
	var list chunkList
	c.json(&list, "chunks", "alice", "--limit", "3000")
	if len(list.Chunks) != 2501 {
		t.Errorf("%d chunks stored, want 2501", len(list.Chunks))
	}
	for _, ch := range list.Chunks {
		switch ch.Content {
		case "My sister lives in Lisbon":
			var meta bytes.Buffer
			json.Compact(&meta, ch.Metadata)
			if meta.String() != `{"tag":"family"}` || ch.Provenance == nil || ch.Provenance.Source != "msg-7" || ch.RunningIntensity != 0.9 {
				t.Errorf("line 2501 stored as %+v", ch)
			}
		case "Note 3 about the garden":
			if ch.EncounterCount != 2 {
				t.Errorf("the repeated line: %d encounters, want 2", ch.EncounterCount)
			}
		}
	}

	// Standard input, --json: every line accounted for, in order.
	var out struct {
		Stored, Strengthened, Failed int
		Lines                        []struct {
			Line      int
			ID        string
			Duplicate bool
			Error     string
		}
	}
	r = c.runIn("{\"content\":\"Note 1 about the garden\"}\n{\"content\":\"A new note\"}\n", []string{"HIPPO_AGENT=alice"}, "store", "--jsonl", "-", "--json")
	if r.code != 0 {
		t.Fatalf("store --jsonl - --json: %s", r)
	}
	decodeJSON(t, r.stdout, &out)
	if out.Stored != 1 || out.Strengthened != 1 || out.Failed != 0 || len(out.Lines) != 2 ||
		out.Lines[0].Line != 1 || !out.Lines[0].Duplicate || out.Lines[1].Line != 2 || out.Lines[1].ID == "" {
		t.Errorf("store --jsonl - --json: %+v", out)
	}

	c.fails(2, "--jsonl takes no <content>", "store", "--agent", "alice", "text", "--jsonl", file)
	c.fails(1, "cannot read "+filepath.Join(c.dir, "missing.jsonl"), "store", "--agent", "alice", "--jsonl", filepath.Join(c.dir, "missing.jsonl"))
}
