package local

import (
	"context"
	"testing"

	"github.com/hippo-mem/hippo"
)

// The fuzz targets check that no input makes the offline components panic
// or return something malformed. Their seeds run with the unit tests.

var fuzzSeeds = []string{
	"", " ", "!!!", "?", "I", "I'm", "my", "User's", "User's 's 's", "and and and", "I and",
	"I NEVER want to use Redux again, it was a nightmare. Oh and I tried that new café on Sukhumvit.",
	"User is called", "User is", "User has a", "User's wife's name is", "the user", "I guess I",
	"Remember this:", "I have two kids and", "I'm 34.", "—", "I ' m", "can't won't don't",
	"12,000.5", "ÉÉÉ ÅÅÅ", "日本語のテキスト", "I love love LOVE Svelte!!!", "User is no longer",
	"User", "Call me", "call me Sam", "St.", "U.S.", "e.g. etc. I", "K. ", "a.b.c.d.", "The user", "The user's",
	"I used to", "I used to X, but now", "I used to prefer VS Code, but now I use Neovim.",
	"I moved from", "I moved from Paris to", "moved from to Berlin", "Alice's", "Alice is my",
	"User moved from Paris to Berlin last year", "my mine myself",
	"Noor is eight years old and Fleur is five.", "My husband is called Pieter and he is a carpenter.",
	"and he", "he is", "I have a dog and he", "My cat's name is and she", "her", "Her 's", "There is",
	"That is mine", "The and the is", "X is A and Y is B, and Z", "My brother is Ruben. He", "'s 's is and it",
}

func FuzzExtractFacts(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		facts, _, err := NewExtractor().ExtractFacts(context.Background(), text)
		if err != nil {
			t.Fatal(err)
		}
		for _, fact := range facts {
			if fact.Content == "" || fact.Intensity < 0 || fact.Intensity > 1 {
				t.Fatalf("%q: malformed fact %+v", text, fact)
			}
		}
	})
}

func FuzzClassifyFacts(f *testing.F) {
	for _, a := range fuzzSeeds {
		f.Add(a, "User lives in Berlin")
		f.Add("User lives in Berlin", a)
	}
	f.Fuzz(func(t *testing.T, existing, new string) {
		got, _, err := NewClassifier().ClassifyFacts(context.Background(), []hippo.FactPair{{New: new, Existing: existing}})
		if err != nil || len(got) != 1 {
			t.Fatalf("got %v, %v", got, err)
		}
		switch got[0] {
		case hippo.Duplicate, hippo.Supersedes, hippo.Distinct:
		default:
			t.Fatalf("verdict %q", got[0])
		}
	})
}

func FuzzEmbed(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		v, err := NewEmbedder().Embed(context.Background(), []string{text})
		if err != nil {
			t.Fatal(err)
		}
		var sq float64
		for _, x := range v[0] {
			sq += float64(x) * float64(x)
		}
		if sq < 0.999 || sq > 1.001 {
			t.Fatalf("%q: squared norm %v", text, sq)
		}
	})
}
