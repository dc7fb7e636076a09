package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hippo-mem/hippo"
)

// RecallConversationInput is the input of recall_conversation.
type RecallConversationInput struct {
	Query string `json:"query" jsonschema:"Words to look for in past messages: names, numbers, distinctive terms."`
	Limit *int   `json:"limit,omitempty" jsonschema:"How many messages to return at most."`
}

// conversationDetails is the Details of recall_conversation.
type conversationDetails struct {
	Query    string                  `json:"query"`
	Messages []hippo.ConversationHit `json:"messages"`
}

func recallConversation(r resolver, cfg hippo.Config) Tool {
	schema := inputSchema[RecallConversationInput](func(p map[string]*jsonschema.Schema) {
		textSchema(p["query"], cfg.MaxFactText)
		limitSchema(p["limit"], cfg)
	})
	return newTool(r, Tool{
		Name:         "recall_conversation",
		OutputSchema: outputSchema[conversationDetails](),
		ReadOnly:     true,
		Description: fmt.Sprintf(`Search past conversation messages by keywords (full-text search, not by meaning), for the exact wording of something said earlier: a name, a number, a quote, a link. A message matches when it contains any of the query's words; messages containing more of them rank first. Punctuation and search operators in the query are ignored.

limit is 1 to %d, default %d. Returns the matching messages, best first, with their role and time. For what was learned from past conversations (preferences, decisions, facts) recall_memories is usually the better tool.`, cfg.MaxLimit, cfg.DefaultLimit),
	}, schema, func(ctx context.Context, svc hippo.MemoryService, in RecallConversationInput) (*Result, error) {
		limit, err := checkLimit(in.Limit, cfg)
		if err != nil {
			return nil, err
		}
		hits, err := svc.SearchConversation(ctx, in.Query, limit)
		if err != nil {
			return nil, err
		}
		if hits == nil {
			hits = []hippo.ConversationHit{}
		}
		return &Result{Text: conversationText(in.Query, hits), Details: conversationDetails{Query: in.Query, Messages: hits}}, nil
	})
}

func conversationText(query string, hits []hippo.ConversationHit) string {
	if len(hits) == 0 {
		return fmt.Sprintf("No past messages match %q.", query)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Found %s matching %q:", plural(len(hits), "message", "messages"), query)
	for i, h := range hits {
		var about []string
		if h.Role != "" {
			about = append(about, h.Role)
		}
		if h.CreatedAt != "" {
			about = append(about, h.CreatedAt)
		}
		fmt.Fprintf(&b, "\n%d. ", i+1)
		if len(about) > 0 {
			fmt.Fprintf(&b, "[%s] ", strings.Join(about, ", "))
		}
		b.WriteString(h.Content)
	}
	return b.String()
}
