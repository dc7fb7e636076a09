package mcp_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hippo-mem/hippo/llm"
	"github.com/hippo-mem/hippo/mcp"
	"github.com/hippo-mem/hippo/metrics"
	"github.com/hippo-mem/hippo/mock"
	"github.com/hippo-mem/hippo/openai"
	"github.com/hippo-mem/hippo/sqlite"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMetrics runs a scripted session against a server with metrics and
// scrapes /metrics: tool calls by tool and outcome with their latency,
// embedder and LLM calls with the tokens their responses reported, one
// retry, the database size, the group commits and the recall's stages.
// /metrics needs the token like /mcp.
func TestMetrics(t *testing.T) {
	ctx := context.Background()
	ai := mock.NewServer(t, testDim)
	m := metrics.New()
	base := openai.Config{BaseURL: ai.BaseURL(), APIKey: "sk-test"}
	embCfg, chatCfg := base, base
	embCfg.Model, embCfg.OnRetry = "mock-embed", m.Retry(metrics.Embedder)
	embCfg.OnUsage = func(u openai.Usage) { m.Tokens(metrics.Embedder, u.PromptTokens, u.CompletionTokens) }
	chatCfg.Model = "mock-chat"
	chatCfg.OnUsage = func(u openai.Usage) { m.Tokens(metrics.LLM, u.PromptTokens, u.CompletionTokens) }
	emb, err := openai.NewEmbedder(embCfg)
	if err != nil {
		t.Fatal(err)
	}
	chat, err := openai.NewLLM(chatCfg)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "hippo.db")
	db, err := sqlite.Open(ctx, path, sqlite.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	m.DatabaseSize(func() int64 { return 4096 })
	m.Commits(db)
	l := m.WrapLLM(chat)
	server, err := mcp.NewServer(mcp.Config{DB: db, Embedder: m.WrapEmbedder(emb), Extractor: llm.NewExtractor(l),
		Classifier: llm.NewClassifier(l), AuthToken: "s3cret", Metrics: m})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(server.Handler())
	defer hs.Close()
	hc := &http.Client{Transport: headerTransport{"Authorization", "Bearer s3cret"}}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "metrics-test", Version: "0"}, nil).Connect(ctx,
		&sdk.StreamableClientTransport{Endpoint: hs.URL + "/mcp", HTTPClient: hc, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	a := "agent-m"
	ok(t, cs, "store_memory", map[string]any{"agent_id": a, "content": "The deploy key is in the team vault"})
	ai.EmbedStatus = func(n int) int { // the next request fails once: one retry
		if n == 2 {
			return http.StatusServiceUnavailable
		}
		return 0
	}
	ok(t, cs, "store_memory", map[string]any{"agent_id": a, "content": "Standup is at nine"})
	ai.EmbedStatus = nil
	ok(t, cs, "recall_memories", map[string]any{"agent_id": a, "query": "where is the deploy key", "alpha": 0.5})
	fails(t, cs, "recall_memories", map[string]any{"agent_id": a, "query": "x", "limit": 500}, "invalid")
	ai.Reply(`{"facts":[{"fact":"User owns a cat called Miso","intensity":0.7}]}`)
	ok(t, cs, "remember_facts", map[string]any{"agent_id": a, "text": "I have a cat, Miso"})

	resp, err := http.Get(hs.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("/metrics without the token: %d, want 401", resp.StatusCode)
	}
	resp, err = hc.Get(hs.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	text := string(body)
	value := func(series string) float64 {
		t.Helper()
		re := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(series) + ` (\S+)$`)
		mm := re.FindStringSubmatch(text)
		if mm == nil {
			t.Errorf("no series %s in /metrics", series)
			return -1
		}
		v, _ := strconv.ParseFloat(mm[1], 64)
		return v
	}
	// Embedding: two stores and a recall, and remember_facts' one fact
	// with its text, in one request.
	embedTokens := float64(mock.Tokens("The deploy key is in the team vault") + mock.Tokens("Standup is at nine") +
		mock.Tokens("where is the deploy key") + mock.Tokens("User owns a cat called Miso") + mock.Tokens("I have a cat, Miso"))
	for series, want := range map[string]float64{
		`hippo_tool_calls_total{outcome="ok",tool="store_memory"}`:        2,
		`hippo_tool_calls_total{outcome="ok",tool="recall_memories"}`:     1,
		`hippo_tool_calls_total{outcome="error",tool="recall_memories"}`:  1,
		`hippo_tool_calls_total{outcome="ok",tool="remember_facts"}`:      1,
		`hippo_tool_call_duration_seconds_count{tool="store_memory"}`:     2,
		`hippo_provider_requests_total{outcome="ok",provider="embedder"}`: 4,
		`hippo_provider_requests_total{outcome="ok",provider="llm"}`:      1,
		`hippo_provider_retries_total{provider="embedder"}`:               1,
		`hippo_provider_tokens_total{kind="prompt",provider="embedder"}`:  embedTokens,
		`hippo_provider_tokens_total{kind="completion",provider="llm"}`:   float64(mock.Tokens(`{"facts":[{"fact":"User owns a cat called Miso","intensity":0.7}]}`)),
		`hippo_embedded_texts_total`:                                      5,
		`hippo_database_bytes`:                                            4096,
		// One write transaction per new memory and one for
		// remember_facts' facts, one at a time: three groups of one.
		`hippo_commit_group_calls_count`: 3,
		`hippo_commit_group_calls_sum`:   3,
		// The recall that ran (the other failed its checks first): each
		// stage once, BM25 included (hybrid, alpha 0.5).
		`hippo_recall_stage_duration_seconds_count{stage="embed"}`: 1,
		`hippo_recall_stage_duration_seconds_count{stage="sync"}`:  1,
		`hippo_recall_stage_duration_seconds_count{stage="text"}`:  1,
		`hippo_recall_stage_duration_seconds_count{stage="scan"}`:  1,
		`hippo_recall_stage_duration_seconds_count{stage="boost"}`: 1,
	} {
		if got := value(series); got != want {
			t.Errorf("%s = %v, want %v", series, got, want)
		}
	}
	if !strings.Contains(text, "go_goroutines") || !strings.Contains(text, `hippo_provider_request_duration_seconds_count{provider="llm"} 1`) {
		t.Errorf("/metrics lacks the runtime or the LLM latency families:\n%s", text)
	}
}
