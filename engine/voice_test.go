package engine_test

import (
	"testing"

	"github.com/hippo-mem/hippo/engine"
)

func TestFactVoice(t *testing.T) {
	tests := []struct{ in, want string }{
		{"where do I live", "where does User live"},
		{"What do I do for a living?", "What does User do for a living?"}, // only the auxiliary before I
		{"Do I own a car?", "Does User own a car?"},
		{"Have I been to Rome?", "Has User been to Rome?"},
		{"Did I say so?", "Did User say so?"},
		{"what do we do", "what do we do"},
		{"things I do", "things User do"}, // not an auxiliary before I
		{"What is my career ambition?", "What is User's career ambition?"},
		{"What am I studying?", "What is User studying?"},
		{"I'm allergic to what?", "User is allergic to what?"},
		{"I’ve got which car?", "User has got which car?"},
		{"Who is married to me?", "Who is married to User?"},
		{"which database did we pick", "which database did we pick"}, // no first person
		{"meeting at 9 am", "meeting at 9 am"},
		{"Ich bin müde, I think", "Ich bin müde, User think"},
		{"mine, myself and I", "User's, User and User"},
		{"", ""},
		{"Mindy and Iris", "Mindy and Iris"},
	}
	for _, tt := range tests {
		if got := engine.FactVoice(tt.in); got != tt.want {
			t.Errorf("FactVoice(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
