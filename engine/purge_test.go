package engine_test

import (
	"maps"
	"testing"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/engine"
)

// TestPurgeSuccessors checks that each purged chunk's successors are
// re-pointed past the chunks purged with it, and that a cycle ends.
func TestPurgeSuccessors(t *testing.T) {
	chunk := func(id, by string) *hippo.Chunk { return &hippo.Chunk{ID: id, SupersededBy: by} }
	tests := []struct {
		name   string
		purged []*hippo.Chunk
		want   map[string]string
	}{
		{"one", []*hippo.Chunk{chunk("a", "b")}, map[string]string{"a": "b"}},
		{"chain", []*hippo.Chunk{chunk("a", "b"), chunk("b", "c"), chunk("c", "d")},
			map[string]string{"a": "d", "b": "d", "c": "d"}},
		{"two chains", []*hippo.Chunk{chunk("a", "b"), chunk("x", "y")}, map[string]string{"a": "b", "x": "y"}},
		{"cycle ends", []*hippo.Chunk{chunk("a", "b"), chunk("b", "a")}, map[string]string{"a": "b", "b": "a"}},
		{"none", nil, map[string]string{}},
	}
	for _, tt := range tests {
		if got := engine.PurgeSuccessors(tt.purged); !maps.Equal(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}
