// Package openai implements hippo.Embedder and hippo.LLM over any
// OpenAI-compatible HTTP API: OpenAI, OpenRouter, Ollama, vLLM, LM Studio
// and the like.
//
// Both clients share one HTTP core: a timeout per attempt, retries with
// exponential backoff and jitter on 429, 408, 5xx and transient network
// errors (and, for embeddings only, timeouts), Retry-After honoured up to
// 30s, and error messages that name the endpoint and status, quote the
// server's error message and never contain the API key.
package openai

import (
	"net/http"
	"strings"
	"time"

	"github.com/hippo-mem/hippo"
)

// Defaults used for the empty fields of a Config.
const (
	DefaultEmbeddingBaseURL = "https://api.openai.com/v1"
	DefaultEmbeddingModel   = "text-embedding-3-small"
	DefaultChatBaseURL      = "https://openrouter.ai/api/v1"
	DefaultChatModel        = "openai/gpt-4o-mini"
	DefaultMaxTokens        = 1024
	DefaultTimeout          = 60 * time.Second
	DefaultMaxRetries       = 3
	// DefaultChatTimeout is an LLM's timeout per attempt: a full reply of
	// DefaultMaxTokens at a hosted model's ~50 tokens/s fits in it.
	DefaultChatTimeout = 30 * time.Second
)

// Config configures an Embedder or an LLM. The zero value works: each empty
// field takes the default of the constructor it is passed to.
type Config struct {
	// BaseURL is the API root, such as "https://api.openai.com/v1" or
	// "http://localhost:11434/v1" for Ollama. A trailing slash is fine.
	BaseURL string
	// APIKey is sent as a Bearer token. Empty sends no Authorization
	// header, which local servers expect.
	APIKey string
	// Model names the model.
	Model string
	// Dimensions asks the embedding model for vectors of this length and
	// is checked against every response. 0 sends no "dimensions" field and
	// accepts the model's native length. Embedder only.
	Dimensions int
	// MaxTokens caps the length of a completion; 0 means 1024. LLM only.
	MaxTokens int
	// Temperature is the sampling temperature. The default 0 keeps fact
	// extraction repeatable. LLM only.
	Temperature float64
	// Timeout bounds each HTTP attempt, not the call with its retries
	// (the caller's context bounds that); 0 means 60s for an Embedder and
	// 30s for an LLM. An LLM attempt that times out is not retried, and
	// its error wraps context.DeadlineExceeded.
	Timeout time.Duration
	// MaxRetries is how many times a request is retried after a 429, 408,
	// 5xx or network error; 0 means 3 and a negative value means never.
	MaxRetries int
	// HTTPClient sends the requests; nil means http.DefaultClient.
	HTTPClient *http.Client
	// OnUsage, if set, receives the token counts of every successful
	// response that reports them ("usage"; some servers omit it).
	OnUsage func(Usage)
	// OnRetry, if set, is called before each retry of a request.
	OnRetry func()
}

// Usage is what one response says it cost.
type Usage struct {
	Model            string
	PromptTokens     int
	CompletionTokens int
	TotalTokens      int
}

// usageField is the "usage" object of a response.
type usageField struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// report passes u to onUsage when both are there.
func (u *usageField) report(onUsage func(Usage), model string) {
	if u == nil || onUsage == nil {
		return
	}
	onUsage(Usage{Model: model, PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, TotalTokens: u.TotalTokens})
}

var (
	_ hippo.Embedder = (*Embedder)(nil)
	_ hippo.LLM      = (*LLM)(nil)
)

// modelOr is model, or def when model is empty; a blank name is an error.
func modelOr(model, def string) (string, error) {
	if model == "" {
		model = def
	}
	if strings.TrimSpace(model) == "" {
		return "", hippo.Invalidf("model", "must not be blank")
	}
	return model, nil
}
