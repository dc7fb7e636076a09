package hippo_test

import (
	"testing"

	"github.com/hippo-mem/hippo"
)

func TestFold(t *testing.T) {
	for in, want := range map[string]string{
		"cafe":     "cafe",
		"Café":     "cafe",
		"CAFÉ":     "cafe",
		"ﬁnal":     "final",
		"Ångström": "angstrom",
		"naïve CV": "naive cv",
		"":         "",
		"日本語":      "日本語",
	} {
		if got := hippo.Fold(in); got != want {
			t.Errorf("Fold(%q) = %q, want %q", in, got, want)
		}
	}
}
