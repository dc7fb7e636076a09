package openai_test

import (
	"context"
	"net/http"
	"sync"
	"testing"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/mock"
	"github.com/hippo-mem/hippo/openai"
)

// TestUsageAndRetryHooks: OnUsage gets each response's token counts, for
// embeddings and chat alike, and OnRetry each retry.
func TestUsageAndRetryHooks(t *testing.T) {
	srv := mock.NewServer(t, 8)
	var mu sync.Mutex
	var usages []openai.Usage
	retries := 0
	cfg := openai.Config{BaseURL: srv.BaseURL(), APIKey: "sk-test",
		OnUsage: func(u openai.Usage) { mu.Lock(); usages = append(usages, u); mu.Unlock() },
		OnRetry: func() { mu.Lock(); retries++; mu.Unlock() }}
	e, err := openai.NewEmbedder(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv.EmbedStatus = func(n int) int {
		if n == 1 {
			return http.StatusTooManyRequests
		}
		return 0
	}
	ctx := context.Background()
	if _, err := e.Embed(ctx, []string{"three word text", "two words"}); err != nil {
		t.Fatal(err)
	}
	cfg.Model = "mock-chat"
	l, err := openai.NewLLM(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv.Reply("four words of reply")
	_, usage, err := l.Complete(ctx, "be brief", []hippo.Message{{Role: "user", Content: "hello there"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := (hippo.LLMCall{Model: "mock-chat", PromptTokens: 4, CompletionTokens: 4}); usage == nil || *usage != want {
		t.Errorf("Complete's usage %+v, want %+v", usage, want)
	}
	want := []openai.Usage{
		{Model: e.Model(), PromptTokens: 5, TotalTokens: 5},
		{Model: "mock-chat", PromptTokens: 4, CompletionTokens: 4, TotalTokens: 8},
	}
	if len(usages) != 2 || usages[0] != want[0] || usages[1] != want[1] {
		t.Errorf("usages %+v, want %+v", usages, want)
	}
	if retries != 1 {
		t.Errorf("%d retries reported, want 1 (one 429)", retries)
	}
}
