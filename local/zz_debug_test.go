package local

import (
	"context"
	"os"
	"strings"
	"testing"
)

func TestZZDebug(t *testing.T) {
	for _, s := range strings.Split(os.Getenv("SENTS"), "|") {
		f, _ := NewExtractor().ExtractFacts(context.Background(), s)
		var c []string
		for _, x := range f {
			c = append(c, x.Content)
		}
		t.Logf("%q → %q", s, c)
	}
}

func TestZZParrot(t *testing.T) {
	body := lex("User's parrot Kiwi still bites")
	t.Log(finiteVerb(body, 1, true), verbBase("kiwi"), verbBase("parrot"))
}
