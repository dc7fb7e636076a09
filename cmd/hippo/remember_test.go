package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestRememberOffline runs `hippo remember` on the offline defaults: facts
// in the third person and changes of state are learned, and text with no
// fact says why and points to `hippo store`.
func TestRememberOffline(t *testing.T) {
	c := newCLI(t)
	tests := []struct {
		text string
		want string // in stdout
	}{
		{"Call me Sam.", "1 new (User's name is Sam)"},
		{"The user prefers dark mode.", "1 new (User prefers dark mode)"},
		{"I take my coffee black.", "User takes their coffee black"},
		{"I work as a nurse at St. Mary's hospital.", "User works as a nurse at St. Mary's hospital"},
		{"I used to prefer VS Code, but now I use Neovim.", `1 superseding (User uses Neovim — replaces "User prefers VS Code")`},
		{"How do I reverse a linked list?", "No facts extracted: text is a question, not a statement. The text was kept as memory "},
		{"Thanks!", "No facts extracted: text is empty after removing greetings, thanks and filler."},
	}
	for _, tt := range tests {
		r := c.ok("--agent", "me", "remember", tt.text)
		if !strings.Contains(r.stdout, tt.want) {
			t.Errorf("remember %q: stdout %q, want %q in it", tt.text, r.stdout, tt.want)
		}
	}
	var res struct {
		Summary string `json:"summary"`
		Reason  string `json:"reason"`
		Facts   []any  `json:"facts"`
	}
	c.jsonLoose(&res, "--agent", "me", "remember", "He said he would call.")
	if res.Reason != "no first-person or third-person statement of a fact found" || res.Facts == nil || len(res.Facts) != 0 {
		t.Errorf("remember --json = %+v", res)
	}

	// --discard-text (or HIPPO_DISCARD_TEXT) keeps no text.
	for _, r := range []result{
		c.ok("--agent", "you", "remember", "--discard-text", "How do I sort a map?"),
		c.runIn("", []string{"HIPPO_DISCARD_TEXT=1"}, "--agent", "you", "remember", "How do I sort a slice?"),
	} {
		if !strings.Contains(r.stdout, "To keep the text verbatim, use `hippo store`.") {
			t.Errorf("remember keeping no text: %s", r)
		}
	}
	if r := c.runIn("", []string{"HIPPO_DISCARD_TEXT=perhaps"}, "--agent", "you", "remember", "I am Sam."); r.code != 2 || !strings.Contains(r.stderr, "HIPPO_DISCARD_TEXT") {
		t.Errorf("a bad HIPPO_DISCARD_TEXT: %s", r)
	}
	var kept struct{ Results []any }
	c.jsonLoose(&kept, "--agent", "you", "recall", "--min-relevance", "0", "how do I sort")
	if len(kept.Results) != 0 {
		t.Errorf("keeping no text stored %v", kept.Results)
	}
}

// TestRememberGivenFacts runs `hippo remember --fact`: the facts are
// learned as given, each rated by the --intensity after it, and checked
// against the known facts as extracted ones; the text, when there is one,
// is kept as their source.
func TestRememberGivenFacts(t *testing.T) {
	c := newCLI(t)
	var res struct {
		Summary string `json:"summary"`
		Facts   []struct {
			Action    string  `json:"action"`
			Content   string  `json:"content"`
			ChunkID   string  `json:"chunk_id"`
			Intensity float64 `json:"intensity"`
		} `json:"facts"`
	}
	c.jsonLoose(&res, "--agent", "me", "remember", "--fact", "User lives in Berlin", "--intensity", "0.7", "--fact", "User likes jazz")
	if len(res.Facts) != 2 || res.Facts[0].Intensity != 0.7 || res.Facts[1].Intensity != 0.5 ||
		res.Summary != "Learned 2 facts: 2 new (User lives in Berlin; User likes jazz)" {
		t.Errorf("remember --fact = %+v", res)
	}
	r := c.ok("--agent", "me", "remember", "I moved to Lisbon last month.", "--fact", "User lives in Lisbon", "--source", "msg-2")
	if want := `1 superseding (User lives in Lisbon — replaces "User lives in Berlin")`; !strings.Contains(r.stdout, want) {
		t.Errorf("correction: stdout %q, want %q in it", r.stdout, want)
	}
	// The text from standard input is the facts' source.
	r = c.runIn("I play chess on Sundays.", nil, "--agent", "me", "--json", "remember", "-", "--fact", "User plays chess", "--intensity", "0.4")
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || r.code != 0 || len(res.Facts) != 1 || res.Facts[0].Intensity != 0.4 {
		t.Fatalf("remember - --fact: %v\n%s", err, r)
	}
	r = c.ok("--agent", "me", "source", res.Facts[0].ChunkID)
	if !strings.Contains(r.stdout, "User plays chess") || !strings.Contains(r.stdout, "I play chess on Sundays.") {
		t.Errorf("source: %s", r.stdout)
	}

	// --replaces names the fact the --fact before it makes untrue, however
	// unlike the two read.
	r = c.ok("--agent", "me", "remember", "--fact", "User's home is a boat on the Tagus", "--replaces", "User lives in Lisbon")
	if want := `replaces "User lives in Lisbon"`; !strings.Contains(r.stdout, want) {
		t.Errorf("--replaces: stdout %q, want %q in it", r.stdout, want)
	}
	c.fails(2, "must follow the --fact that replaces it", "--agent", "me", "remember", "--replaces", "x", "--fact", "y")
	c.fails(2, `given twice for --fact "y"`, "--agent", "me", "remember", "--fact", "y", "--replaces", "a", "--replaces", "b")
	c.fails(2, "--intensity\" flag: must follow the --fact it rates", "--agent", "me", "remember", "--intensity", "0.3", "--fact", "x")
	c.fails(2, "must be a number from 0 to 1", "--agent", "me", "remember", "--fact", "x", "--intensity", "1.5")
	c.fails(2, `given twice for --fact "x"`, "--agent", "me", "remember", "--fact", "x", "--intensity", "0.3", "--intensity", "0.4")
	c.fails(2, "missing <text>, or --fact", "--agent", "me", "remember")
	c.fails(1, "facts[0].fact: must not be empty", "--agent", "me", "remember", "--fact", " ")
}

// TestRememberAsyncCLI: remember --async keeps and queues the text and
// returns; hippo pending learns what the command's end left queued, and
// afterwards nothing is queued and the fact is there.
func TestRememberAsyncCLI(t *testing.T) {
	c := newCLI(t)
	r := c.ok("--agent", "me", "remember", "--async", "I keep three bicycles in the hall.")
	if !strings.Contains(r.stdout, "its facts are learned in the background") {
		t.Errorf("remember --async: %s", r)
	}
	file := c.writeFile("texts.jsonl", `{"text": "I play the cello on Sundays."}`+"\n"+`{"text": "My brother Tom lives in Leeds."}`+"\n")
	c.ok("--agent", "me", "remember", "--async", "--jsonl", file)
	c.ok("pending")
	var st struct{ Pending int }
	c.jsonLoose(&st, "stats")
	if st.Pending != 0 {
		t.Errorf("%d texts queued after hippo pending", st.Pending)
	}
	if r := c.ok("pending"); !strings.Contains(r.stdout, "Nothing queued") {
		t.Errorf("hippo pending with nothing queued: %s", r)
	}
	var facts struct{ Results []struct{ Content string } }
	c.jsonLoose(&facts, "--agent", "me", "recall", "--kind", "fact", "--min-relevance", "0", "--limit", "20", "cello")
	var got []string
	for _, f := range facts.Results {
		got = append(got, f.Content)
	}
	if !strings.Contains(strings.Join(got, "|"), "cello") || !strings.Contains(strings.Join(got, "|"), "bicycles") {
		t.Errorf("facts after hippo pending = %q", got)
	}
}
