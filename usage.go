package hippo

import (
	"context"
	"sync"
)

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

type usageKey struct{}

type purposeKey struct{}

// usageSink collects the LLM calls made under one context.
type usageSink struct {
	mu    sync.Mutex
	calls []LLMCall
}

// WithUsageSink returns a context under which LLM clients record their
// calls (RecordLLMCall), and a function returning the calls recorded so
// far, in order; never nil.
func WithUsageSink(ctx context.Context) (context.Context, func() []LLMCall) {
	s := &usageSink{}
	return context.WithValue(ctx, usageKey{}, s), func() []LLMCall {
		s.mu.Lock()
		defer s.mu.Unlock()
		return append([]LLMCall{}, s.calls...)
	}
}

// WithLLMPurpose returns a context whose LLM calls are recorded as made
// for purpose.
func WithLLMPurpose(ctx context.Context, purpose string) context.Context {
	return context.WithValue(ctx, purposeKey{}, purpose)
}

// RecordLLMCall records c in ctx's usage sink, if it has one, with the
// purpose ctx carries when c has none. LLM clients call it once per call
// whose response reported usage.
func RecordLLMCall(ctx context.Context, c LLMCall) {
	s, _ := ctx.Value(usageKey{}).(*usageSink)
	if s == nil {
		return
	}
	if c.Purpose == "" {
		c.Purpose, _ = ctx.Value(purposeKey{}).(string)
	}
	s.mu.Lock()
	s.calls = append(s.calls, c)
	s.mu.Unlock()
}
