package tools

import (
	"strings"
	"testing"

	"github.com/hippo-mem/hippo"
)

// TestRecallTextMarks: the text reply says why a result ranks above one
// below it, for a fact that superseded a kept text and for a newer memory
// that says something changed.
func TestRecallTextMarks(t *testing.T) {
	found := []hippo.Recalled{
		{Chunk: &hippo.Chunk{ID: "n", Kind: hippo.KindMemory, Content: "the gig got moved to the 13th"}, Updates: "o"},
		{Chunk: &hippo.Chunk{ID: "o", Kind: hippo.KindMemory, Content: "first gig is on dec 6"}},
		{Chunk: &hippo.Chunk{ID: "f", Kind: hippo.KindFact, Content: "User's office is in Kilimani"}, Corrects: "t"},
		{Chunk: &hippo.Chunk{ID: "t", Kind: hippo.KindMemory, Content: "Our office is in Westlands"}},
	}
	text := recallText("gig", "", found, 0)
	for _, want := range []string{
		"1. [memory] the gig got moved to the 13th (score 0.00, id n) [updates o, an older memory below on the same topic]",
		"2. [memory] first gig is on dec 6 (score 0.00, id o)\n",
		"3. [fact] User's office is in Kilimani (score 0.00, id f) [corrects t, an older message below]",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("recall text lacks %q:\n%s", want, text)
		}
	}
}
