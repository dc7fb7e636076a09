package engine

import (
	"slices"
	"strings"
	"testing"
)

func TestQueryWords(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"What does the user think of Redux?", []string{"user", "think", "redux"}},
		{"who is she", []string{"who", "is", "she"}}, // only stop words: keep them
		{`"quoted" AND (NEAR x*) -col:y ^z`, []string{"quoted", "near", "x", "col", "y", "z"}},
		{"Café CAFÉ café", []string{"café"}},
		{"STRIPE_API_KEY", []string{"stripe_api_key"}},
		{"?!…", nil},
	}
	for _, tt := range tests {
		if got := QueryWords(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("QueryWords(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := len(QueryWords(strings.Repeat("word ", 5) + strings.Repeat("x", 10) + " " + strings.Join(strings.Fields(strings.Repeat("a1 b2 c3 d4 e5 f6 g7 h8 ", 8)), "z "))); got > maxQueryWords {
		t.Errorf("%d words, want at most %d", got, maxQueryWords)
	}
}
