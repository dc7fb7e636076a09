package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// rememberJSONLOut is the --json output of `hippo remember --jsonl`.
type rememberJSONLOut struct {
	Learned int            `json:"learned"`
	Facts   map[string]int `json:"facts"`
	Kept    int            `json:"kept"`
	Failed  int            `json:"failed"`
	Lines   []struct {
		Line  int    `json:"line"`
		Error string `json:"error"`
		Facts []struct {
			ChunkID string `json:"chunk_id"`
			Action  string `json:"action"`
		} `json:"facts"`
		Message *struct {
			ID  string `json:"id"`
			New bool   `json:"new"`
		} `json:"message"`
	} `json:"lines"`
}

// TestRememberJSONL: `hippo remember --jsonl` learns each line as `hippo
// remember` learns its text, in order (a repeat of an earlier line
// strengthens what it learned), and keeps each text; each line's source is
// its facts' provenance.
func TestRememberJSONL(t *testing.T) {
	c := newCLI(t)
	file := c.writeFile("in.jsonl", `{"text":"Call me Sam."}
{"text":"The user prefers dark mode."}

{"text":"I take my coffee black.","source":"msg-3"}
{"text":"How do I reverse a linked list?"}
{"text":"Call me Sam."}
`)
	var out rememberJSONLOut
	c.json(&out, "--agent", "me", "remember", "--jsonl", file)
	if out.Learned != 5 || out.Kept != 5 || out.Failed != 0 || len(out.Lines) != 5 || out.Facts["duplicate"] != 1 {
		t.Fatalf("remember --jsonl: %+v", out)
	}
	for i, want := range []struct {
		line, facts int
		newText     bool
	}{{1, 1, true}, {2, 1, true}, {4, 1, true}, {5, 0, true}, {6, 1, false}} {
		l := out.Lines[i]
		if l.Line != want.line || l.Error != "" || len(l.Facts) != want.facts ||
			l.Message == nil || l.Message.ID == "" || l.Message.New != want.newText {
			t.Fatalf("result %d: %+v, want line %d, %d facts, a kept text (new %v)", i, l, want.line, want.facts, want.newText)
		}
	}
	first, last := out.Lines[0], out.Lines[4]
	if first.Facts[0].Action != "new" || last.Facts[0].Action != "duplicate" ||
		last.Facts[0].ChunkID != first.Facts[0].ChunkID || last.Message.ID != first.Message.ID {
		t.Errorf("the repeated line did not strengthen the first: %+v, %+v", first, last)
	}
	r := c.ok("--agent", "me", "source", out.Lines[2].Facts[0].ChunkID)
	if !strings.Contains(r.stdout, "msg-3") || !strings.Contains(r.stdout, "I take my coffee black.") {
		t.Errorf("source of line 4's fact: %s", r.stdout)
	}

	// Without --json: the counts.
	file = c.writeFile("more.jsonl", `{"text":"I work as a nurse at St. Mary's hospital."}`+"\n")
	r = c.ok("--agent", "other", "remember", "--jsonl", file)
	if want := "Remembered 1 text: 1 fact (1 new), 1 text kept; 0 failed.\n"; r.stdout != want {
		t.Errorf("remember --jsonl: stdout %q, want %q", r.stdout, want)
	}

	// Standard input.
	r = c.runIn(`{"text":"My name is Ada."}`+"\n"+`{"text":"The user likes jazz.","source":"msg-9"}`, nil,
		"--agent", "you", "remember", "--jsonl", "-", "--json")
	if r.code != 0 {
		t.Fatalf("remember --jsonl -: %s", r)
	}
	out = rememberJSONLOut{}
	if decodeJSON(t, r.stdout, &out); out.Learned != 2 || len(out.Lines) != 2 || out.Lines[1].Line != 2 || len(out.Lines[1].Facts) != 1 {
		t.Errorf("remember --jsonl -: %+v\n%s", out, r)
	}
}

// TestRememberJSONLBadLines: a line that is not an object of text and
// source, or whose text Remember refuses, fails alone, named by its number;
// the others are learned and the command exits 1.
func TestRememberJSONLBadLines(t *testing.T) {
	c := newCLI(t)
	bad := []struct {
		line string
		want string
	}{
		{`not json`, "not a JSON object of text and source: invalid character"},
		{`"I live in Berlin."`, "not a JSON object of text and source: a JSON string"},
		{`{"text":"I live in Berlin.","tags":["home"]}`, `not a JSON object of text and source: json: unknown field "tags"`},
		{`{"text":""}`, "text: is required when no facts are given"},
		{`{"text":"   "}`, "text: must not be empty"},
		{`{"text":7}`, "text: got a JSON number"},
		{`{"text":"a"} {"text":"b"}`, "more than one JSON value on the line"},
	}
	lines := []string{`{"text":"Call me Sam."}`}
	for _, b := range bad {
		lines = append(lines, b.line)
	}
	lines = append(lines, `{"text":"The user prefers dark mode."}`)
	file := c.writeFile("in.jsonl", strings.Join(lines, "\n")+"\n")

	r := c.runIn("", nil, "--agent", "me", "remember", "--jsonl", file)
	if r.code != 1 || !strings.Contains(r.stdout, fmt.Sprintf("Remembered 2 texts: 2 facts (2 new), 2 texts kept; %d failed.", len(bad))) ||
		!strings.Contains(r.stderr, fmt.Sprintf("%d of %d lines failed (listed above); the others are learned", len(bad), len(lines))) {
		t.Fatalf("remember --jsonl: %s", r)
	}
	for i, b := range bad {
		if want := fmt.Sprintf("line %d: %s", i+2, b.want); !strings.Contains(r.stdout, want) {
			t.Errorf("%s: output does not say %q:\n%s", b.line, want, r.stdout)
		}
	}
	var recalled struct {
		Results []struct {
			Content string `json:"content"`
		} `json:"results"`
	}
	c.jsonLoose(&recalled, "--agent", "me", "recall", "--min-relevance", "0", "--limit", "20", "what is the user's name")
	var got []string
	for _, res := range recalled.Results {
		got = append(got, res.Content)
	}
	if s := strings.Join(got, "|"); !strings.Contains(s, "Sam") || !strings.Contains(s, "dark mode") {
		t.Errorf("the good lines were not learned: %q", got)
	}
}

// TestRememberJSONLUsage: --jsonl takes none of the flags of a single text.
func TestRememberJSONLUsage(t *testing.T) {
	c := newCLI(t)
	file := c.writeFile("in.jsonl", `{"text":"Call me Sam."}`+"\n")
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"I live in Berlin."}, 2, "--jsonl takes no <text>, --fact, --intensity, --replaces or --source"},
		{[]string{"--fact", "User lives in Berlin"}, 2, "--jsonl takes no <text>, --fact, --intensity, --replaces or --source"},
		{[]string{"--fact", "User lives in Berlin", "--intensity", "0.7"}, 2, "--jsonl takes no <text>"},
		{[]string{"--intensity", "0.7"}, 2, "must follow the --fact it rates"},
		{[]string{"--source", "msg-1"}, 2, "--jsonl takes no <text>, --fact, --intensity, --replaces or --source"},
		{[]string{"--fact", "User lives in Lisbon", "--replaces", "User lives in Paris"}, 2, "--jsonl takes no <text>, --fact, --intensity, --replaces or --source"},
	} {
		c.fails(tt.code, tt.want, append([]string{"--agent", "me", "remember", "--jsonl", file}, tt.args...)...)
	}
	missing := filepath.Join(c.dir, "missing.jsonl")
	c.fails(1, "cannot read "+missing, "--agent", "me", "remember", "--jsonl", missing)
}
