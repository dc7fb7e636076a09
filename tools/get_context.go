package tools

import (
	"context"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hippo-mem/hippo"
)

// GetContextInput is the input of get_context.
type GetContextInput struct {
	Query     string `json:"query,omitempty" jsonschema:"What the conversation is about; adds the most relevant memories after the blocks."`
	MaxChars  *int   `json:"max_chars,omitempty" jsonschema:"Budget in characters."`
	MaxTokens *int   `json:"max_tokens,omitempty" jsonschema:"Budget in tokens (about four characters each), instead of max_chars."`
	Limit     *int   `json:"limit,omitempty" jsonschema:"How many memories to consider at most."`
}

func getContext(r resolver, cfg hippo.Config) Tool {
	schema := inputSchema[GetContextInput](func(p map[string]*jsonschema.Schema) {
		p["query"].MaxLength = jsonschema.Ptr(cfg.MaxContent)
		p["max_chars"].Minimum = jsonschema.Ptr(1.0)
		p["max_chars"].Default = []byte(fmt.Sprint(hippo.DefaultContextChars))
		p["max_tokens"].Minimum = jsonschema.Ptr(1.0)
		limitSchema(p["limit"], cfg)
	})
	return newTool(r, Tool{
		Name:         "get_context",
		OutputSchema: outputSchema[hippo.Context](),
		ReadOnly:     true,
		Description: fmt.Sprintf(`Assemble your working memory for a system prompt in one bounded call: every memory block first, then, for a query, the facts and memories relevant to it by score (none that are unrelated), cut to fit a budget (max_chars, or max_tokens at about 4 characters a token; default %d characters). Says what was left out, so nothing overflows the context window silently.

Use it at the start of a conversation or task instead of reading blocks and recalling one by one.`, hippo.DefaultContextChars),
	}, schema, func(ctx context.Context, svc hippo.MemoryService, in GetContextInput) (*Result, error) {
		limit, err := checkLimit(in.Limit, cfg)
		if err != nil {
			return nil, err
		}
		maxChars, err := positive(in.MaxChars, "max_chars")
		if err != nil {
			return nil, err
		}
		maxTokens, err := positive(in.MaxTokens, "max_tokens")
		if err != nil {
			return nil, err
		}
		c, err := svc.Context(ctx, hippo.ContextInput{Query: in.Query, MaxChars: maxChars, MaxTokens: maxTokens, Limit: limit})
		if err != nil {
			return nil, err
		}
		text := c.Text
		if len(c.OmittedBlocks) > 0 || c.OmittedRecalls > 0 {
			text += fmt.Sprintf("\n(Left out to fit %d characters: %d blocks %v, %d memories.)",
				c.Budget, len(c.OmittedBlocks), c.OmittedBlocks, c.OmittedRecalls)
		}
		if text == "" {
			text = "No memory blocks, and no memories for the query."
		}
		return &Result{Text: text, Details: c}, nil
	})
}

// positive is *p, 0 when p is nil; an explicit value must be at least 1.
func positive(p *int, field string) (int, error) {
	if p == nil {
		return 0, nil
	}
	if *p < 1 {
		return 0, hippo.Invalidf(field, "must be at least 1, got %d", *p)
	}
	return *p, nil
}
