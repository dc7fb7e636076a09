package metrics_test

import (
	"context"
	"errors"
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/local"
	"github.com/hippo-mem/hippo/metrics"
)

type failingLLM struct{}

func (failingLLM) Complete(context.Context, string, []hippo.Message) (string, *hippo.LLMCall, error) {
	return "", nil, errors.New("down")
}

// TestWrappers: the embedder wrapper keeps the configuration an embedder
// gives (thresholds, α, levels) and counts calls and texts; the LLM
// wrapper counts failures as errors.
func TestWrappers(t *testing.T) {
	m := metrics.New()
	e := local.NewEmbedder()
	w := m.WrapEmbedder(e)
	base := hippo.DefaultConfig()
	if base.ForEmbedder(w) != base.ForEmbedder(e) || w.Model() != e.Model() || w.Dimension() != e.Dimension() {
		t.Error("the wrapped embedder configures recall differently")
	}
	if _, err := w.Embed(context.Background(), []string{"a", "b", "c"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := m.WrapLLM(failingLLM{}).Complete(context.Background(), "", nil); err == nil {
		t.Fatal("the wrapper hid the LLM's error")
	}
	m.Tokens(metrics.LLM, 10, 0)
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	for _, want := range []string{
		`hippo_provider_requests_total{outcome="ok",provider="embedder"} 1`,
		`hippo_embedded_texts_total 3`,
		`hippo_provider_requests_total{outcome="error",provider="llm"} 1`,
		`hippo_provider_tokens_total{kind="prompt",provider="llm"} 10`,
	} {
		if !strings.Contains(string(body), want+"\n") {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	if strings.Contains(string(body), `kind="completion",provider="llm"`) {
		t.Error("zero completion tokens made a series")
	}
}

func TestIndexGauges(t *testing.T) {
	m := metrics.New()
	m.Indexes(func() hippo.IndexUsage {
		return hippo.IndexUsage{Agents: 3, Rows: 1200, Bytes: 98765, Limit: 1 << 20, Loads: 7, Hits: 40, Evictions: 4}
	})
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body := rec.Body.String()
	for _, want := range []string{"hippo_index_agents 3\n", "hippo_index_rows 1200\n", "hippo_index_bytes 98765\n",
		"hippo_index_limit_bytes 1.048576e+06\n", "hippo_index_loads_total 7\n", "hippo_index_hits_total 40\n", "hippo_index_evictions_total 4\n"} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}
