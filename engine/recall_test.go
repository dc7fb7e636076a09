package engine

import (
	"slices"
	"testing"

	"github.com/hippo-mem/hippo"
)

// TestGroupFilterKeep: one chunk of each group with a kept text comes
// back, the best ranked, except that a fact the offline extractor cut
// from an unflagged text does not stand for it: it comes back after the
// rest, and only when its text does not.
func TestGroupFilterKeep(t *testing.T) {
	const plain, flagged, none = 1, 2, 3 // groups: an unflagged text, a flagged one, none kept
	ai := &Index{texts: map[uint32]int32{plain: 1, flagged: 1}, flaggedTexts: map[uint32]int32{flagged: 1}}
	fact := func(id string, g uint32, offline bool) hit {
		return hit{ID: id, Meta: Meta{Kind: hippo.KindFact, Group: g, Offline: offline}}
	}
	text := func(id string, g uint32) hit {
		return hit{ID: id, Meta: Meta{Kind: hippo.KindMemory, Group: g}}
	}
	other := hit{ID: "other", Meta: Meta{Kind: hippo.KindMemory}}
	tests := []struct {
		name string
		kind hippo.Kind
		hits []hit
		want []string
	}{
		{"an extracted fact stands for its text", "", []hit{fact("f", plain, false), other, text("t", plain)}, []string{"f", "other"}},
		{"an offline fact ranks as its text", "", []hit{fact("f", plain, true), other, text("t", plain)}, []string{"other", "t"}},
		{"an offline fact whose text is not among the hits comes last", "",
			[]hit{fact("f", plain, true), fact("g", plain, true), other}, []string{"other", "f"}},
		{"an offline fact of a flagged text stands for it", "", []hit{fact("f", flagged, true), other}, []string{"f", "other"}},
		{"offline siblings with no text kept all stay", "", []hit{fact("f", none, true), other, fact("g", none, true)}, []string{"f", "other", "g"}},
		{"facts alone asked for: offline siblings all stay", hippo.KindFact,
			[]hit{fact("f", plain, true), other, fact("g", plain, true)}, []string{"f", "other", "g"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newGroupFilter(ai, &rowFilter{Kind: tt.kind})
			var got []string
			for _, h := range g.keep(slices.Clone(tt.hits), nil) {
				got = append(got, h.ID)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("keep = %v, want %v", got, tt.want)
			}
		})
	}
}
