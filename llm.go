package hippo

import (
	"context"
	"errors"
)

// ErrUnreadableReply marks an LLM reply that could not be read: empty,
// prose instead of JSON, or JSON cut off at max_tokens. The engine falls
// back on it (MemoryOptions.FallbackExtractor).
var ErrUnreadableReply = errors.New("unreadable LLM reply")

// Message is one turn sent to an LLM.
type Message struct {
	Role    string `json:"role"` // "user", "assistant" or "system"
	Content string `json:"content"`
}

// LLM completes a conversation given a system prompt.
type LLM interface {
	// Complete returns the reply and what the call cost as the provider
	// reported it: nil when it reported nothing.
	Complete(ctx context.Context, system string, messages []Message) (reply string, usage *LLMCall, err error)
}

// LLMCall is what one LLM call of a remember_facts cost, as the provider
// reported it (its "usage"): the agent sees its cost as well as the
// operator.
type LLMCall struct {
	// Purpose is what the call was for: "extract" or "classify".
	Purpose          string `json:"purpose"`
	Model            string `json:"model"`
	PromptTokens     int    `json:"prompt_tokens"`
	CompletionTokens int    `json:"completion_tokens"`
}
