package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/hippo-mem/hippo"
)

// maxContextChars bounds get_context's budget.
const maxContextChars = 400_000

// Context assembles the agent's blocks (global scope and the write scope)
// and, for a query, its best memories into text for a system prompt,
// within a budget: blocks first, then memories by score. What does not fit
// is listed as left out.
func (m *Memory) Context(ctx context.Context, in hippo.ContextInput) (*hippo.Context, error) {
	if err := m.touch(ctx); err != nil {
		return nil, err
	}
	budget := in.MaxChars
	switch {
	case in.MaxChars < 0 || in.MaxTokens < 0:
		return nil, hippo.Invalidf("max_chars", "and max_tokens must not be negative")
	case in.MaxChars > 0 && in.MaxTokens > 0:
		return nil, hippo.Invalidf("max_tokens", "give max_chars or max_tokens, not both")
	case in.MaxTokens > 0:
		budget = in.MaxTokens * 4
	case budget == 0:
		budget = hippo.DefaultContextChars
	}
	if budget > maxContextChars {
		return nil, hippo.Invalidf("max_chars", "must be at most %d characters (%d tokens)", maxContextChars, maxContextChars/4)
	}
	out := &hippo.Context{Budget: budget, Blocks: []string{}, Memories: []string{}, OmittedBlocks: []string{}}
	scopes := []string{""}
	if m.opts.Scope != "" {
		scopes = append(scopes, m.opts.Scope)
	}
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
	var blocks []*hippo.Block
	for _, scope := range scopes {
		infos, err := m.db.ListBlocks(ctx, m.opts.AgentID, &scope)
		if err != nil {
			return nil, err
		}
		for _, info := range infos {
			blk, err := getBlock(ctx, m.db.read, m.opts.AgentID, scope, info.Key)
			if err == sql.ErrNoRows {
				continue
			} else if err != nil {
				return nil, err
			}
			blocks = append(blocks, blk)
		}
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
	if strings.TrimSpace(in.Query) != "" {
		res, err := m.Recall(ctx, hippo.RecallInput{Query: in.Query, Limit: in.Limit})
		if err != nil {
			return nil, err
		}
		sort.SliceStable(res, func(i, j int) bool { return res[i].Score > res[j].Score })
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
	}
	out.Text, out.Chars = b.String(), used
	return out, nil
}
