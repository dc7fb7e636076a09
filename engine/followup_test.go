package engine

import (
	"strings"
	"testing"

	"github.com/hippo-mem/hippo"
)

func TestOpensWithReference(t *testing.T) {
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"He has hay fever.", true},
		{"she's moving to Lyon", true},
		{"They’re both vegetarian", true},
		{"  \"It broke again\"", true},
		{"Their flat is small", true},
		{"That was the plan", true},
		{"Those two never agree", true},
		{"Hello there", false},
		{"Thesis due in May", false},
		{"Hers is the red one", false},
		{"My son is 8.", false},
		{"", false},
		{"...", false},
	} {
		if got := opensWithReference(tc.text); got != tc.want {
			t.Errorf("opensWithReference(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

func TestContextText(t *testing.T) {
	cfg := hippo.DefaultConfig()
	cfg.PartBytes = 40
	for _, tc := range []struct {
		name, before, want string
	}{
		{"short", "My son is 8.", "My son is 8.\nHe has hay fever."},
		{"last sentences that fit", "We met in 2019. My son is 8. He likes trains.", "My son is 8. He likes trains.\nHe has hay fever."},
		{"a long last sentence cut from its start", "Then " + strings.Repeat("very ", 10) + "long.", strings.Repeat("very ", 7) + "long.\nHe has hay fever."},
		{"cut at a rune's start", "é" + strings.Repeat("é", 25), strings.Repeat("é", 20) + "\nHe has hay fever."},
	} {
		if got := contextText(cfg, tc.before, "He has hay fever."); got != tc.want {
			t.Errorf("%s: contextText = %q, want %q", tc.name, got, tc.want)
		}
	}
}
