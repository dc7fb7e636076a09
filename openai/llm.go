package openai

import (
	"context"
	"encoding/json"
	"math"
	"strings"

	"github.com/hippo-mem/hippo"
)

// maxChatBody bounds a chat completion response; a completion of
// MaxTokens tokens is a tiny fraction of it.
const maxChatBody = 8 << 20

// The TypeScript Hippo's default chat model, and OpenRouter's name for it.
const (
	typeScriptChatModel             = "google/gemini-flash-2.0"
	typeScriptChatModelOnOpenRouter = "google/gemini-2.0-flash-001"
)

// LLM is a hippo.LLM over POST {BaseURL}/chat/completions. It is safe for
// concurrent use.
type LLM struct {
	c           *client
	model       string
	maxTokens   int
	temperature float64
}

// NewLLM returns an LLM for cfg. Empty fields default to OpenRouter,
// openai/gpt-4o-mini, 1024 max tokens, a 30s timeout and temperature 0.
//
// A request that timed out is not sent again: the same request asks for
// the same long reply, so it would time out again. Hippo's engine falls
// back to its fallback extractor instead (hippo.MemoryOptions).
//
// The model name "google/gemini-flash-2.0", the TypeScript Hippo's default,
// is not one OpenRouter knows; sent to OpenRouter it is replaced by
// "google/gemini-2.0-flash-001", the model it means, so configurations
// carried over from the TypeScript Hippo keep working.
func NewLLM(cfg Config) (*LLM, error) {
	if cfg.MaxTokens < 0 {
		return nil, hippo.Invalidf("max_tokens", "must not be negative, got %d", cfg.MaxTokens)
	}
	if math.IsNaN(cfg.Temperature) || cfg.Temperature < 0 {
		return nil, hippo.Invalidf("temperature", "must be zero or more, got %v", cfg.Temperature)
	}
	model, err := modelOr(cfg.Model, DefaultChatModel)
	if err != nil {
		return nil, err
	}
	c, err := newClient(cfg, DefaultChatBaseURL, "chat/completions", maxChatBody)
	if err != nil {
		return nil, err
	}
	c.noRetryOnTimeout = true
	if cfg.Timeout == 0 {
		c.timeout = DefaultChatTimeout
	}
	if model == typeScriptChatModel && strings.HasPrefix(c.url, DefaultChatBaseURL+"/") {
		model = typeScriptChatModelOnOpenRouter
	}
	l := &LLM{c: c, model: model, maxTokens: cfg.MaxTokens, temperature: cfg.Temperature}
	if l.maxTokens == 0 {
		l.maxTokens = DefaultMaxTokens
	}
	return l, nil
}

// Model returns the chat model's name.
func (l *LLM) Model() string { return l.model }

// Complete sends the system prompt, when not empty, followed by messages
// and returns the first choice's content and the response's usage (nil
// when it has none). An empty reply is an error wrapping
// hippo.ErrUnreadableReply.
func (l *LLM) Complete(ctx context.Context, system string, messages []hippo.Message) (string, *hippo.LLMCall, error) {
	msgs := make([]hippo.Message, 0, len(messages)+1)
	if system != "" {
		msgs = append(msgs, hippo.Message{Role: "system", Content: system})
	}
	msgs = append(msgs, messages...)
	body, err := l.c.post(ctx, chatRequest{
		Model:       l.model,
		Messages:    msgs,
		Temperature: l.temperature,
		MaxTokens:   l.maxTokens,
	})
	if err != nil {
		return "", nil, err
	}
	var resp chatResponse
	if err := json.Unmarshal(body, &resp); err != nil {
		return "", nil, l.c.errorf(hippo.EINTERNAL, "response is not a chat completion (%v): %s", err, l.c.excerpt(body))
	}
	if len(resp.Choices) == 0 {
		// OpenRouter reports some upstream failures as a 200 with an error.
		if msg := errorField(resp.Error); msg != "" {
			return "", nil, l.c.errorf(hippo.EINTERNAL, "no choices returned: %s", l.c.excerpt([]byte(msg)))
		}
		return "", nil, l.c.errorf(hippo.EINTERNAL, "no choices returned")
	}
	resp.Usage.report(l.c.onUsage, l.model)
	var usage *hippo.LLMCall
	if u := resp.Usage; u != nil {
		usage = &hippo.LLMCall{Model: l.model, PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens}
	}
	ch := resp.Choices[0]
	if strings.TrimSpace(ch.Message.Content) == "" {
		// A reasoning model can spend every token before it answers.
		return "", usage, l.c.wrap(hippo.ErrUnreadableReply, "empty completion (finish_reason %q)", ch.FinishReason)
	}
	return ch.Message.Content, usage, nil
}

// chatRequest always sends temperature and max_tokens, even when zero.
type chatRequest struct {
	Model       string          `json:"model"`
	Messages    []hippo.Message `json:"messages"`
	Temperature float64         `json:"temperature"`
	MaxTokens   int             `json:"max_tokens"`
}

// chatResponse's usage is nil when the server omits it.
type chatResponse struct {
	Usage   *usageField `json:"usage"`
	Choices []struct {
		Message struct {
			Content string `json:"content"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Error json.RawMessage `json:"error"`
}
