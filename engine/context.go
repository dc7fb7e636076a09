package engine

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/hippo-mem/hippo"
)

// assembleContext is get_context's text within budget characters: the
// blocks first, under "# Memory blocks", then the recalled memories in
// recall's order, under "# Relevant memories". What does not fit is listed as left
// out (blocks by key, memories by count).
func assembleContext(budget int, blocks []*hippo.Block, recalled []hippo.Recalled) *hippo.Context {
	out := &hippo.Context{Budget: budget, Blocks: []string{}, Memories: []string{}, OmittedBlocks: []string{}}
	var b strings.Builder
	used := 0
	add := func(s string) bool {
		n := utf8.RuneCountInString(s)
		if used+n > budget {
			return false
		}
		b.WriteString(s)
		used += n
		return true
	}
	if len(blocks) > 0 && add("# Memory blocks\n") {
		for _, blk := range blocks {
			title := blk.Key
			if blk.Description != "" {
				title += " (" + blk.Description + ")"
			}
			if add(fmt.Sprintf("\n## %s\n%s\n", title, blk.Value)) {
				out.Blocks = append(out.Blocks, blk.Key)
			} else {
				out.OmittedBlocks = append(out.OmittedBlocks, blk.Key)
			}
		}
	} else {
		for _, blk := range blocks {
			out.OmittedBlocks = append(out.OmittedBlocks, blk.Key)
		}
	}
	res := recalled // in recall's order: by score, a correction above what it corrects
	header := "\n# Relevant memories\n"
	if len(blocks) == 0 {
		header = "# Relevant memories\n"
	}
	if len(res) > 0 && !add(header) {
		out.OmittedRecalls = len(res)
		res = nil
	}
	for i, r := range res {
		if !add(fmt.Sprintf("- %s\n", r.Chunk.Content)) {
			out.OmittedRecalls = len(res) - i
			break
		}
		out.Memories = append(out.Memories, r.Chunk.ID)
	}
	out.Text, out.Chars = b.String(), used
	return out
}
