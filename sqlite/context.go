package sqlite

import (
	"context"
	"database/sql"
	"strings"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/engine"
)

// maxContextChars bounds get_context's budget.
const maxContextChars = 400_000

// Context assembles the agent's blocks (global scope and the write scope)
// and, for a query, its best memories into text for a system prompt,
// within a budget (engine.AssembleContext).
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
	scopes := []string{""}
	if m.opts.Scope != "" {
		scopes = append(scopes, m.opts.Scope)
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
	var recalled []hippo.Recalled
	if strings.TrimSpace(in.Query) != "" {
		var err error
		if recalled, err = m.Recall(ctx, hippo.RecallInput{Query: in.Query, Limit: in.Limit}); err != nil {
			return nil, err
		}
	}
	return engine.AssembleContext(budget, blocks, recalled), nil
}
