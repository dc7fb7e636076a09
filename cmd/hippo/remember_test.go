package main

import (
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
		{"How do I reverse a linked list?", "No facts extracted: text is a question, not a statement. To keep the text verbatim, use `hippo store`."},
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
}
