// Package metrics counts what a Hippo server does, for Prometheus.
//
// A Metrics holds its own registry (never the global one, so that two
// servers in one process, as in tests, do not collide) with the Go runtime
// and process collectors, and the families below. `hippo serve` exposes it
// at GET /metrics behind the same checks as the MCP endpoints; see
// docs/OPERATIONS.md for each family and the alerts worth having.
//
//	hippo_tool_calls_total{tool, outcome}          outcome: ok, error (an isError result), internal
//	hippo_tool_call_duration_seconds{tool}         histogram
//	hippo_provider_requests_total{provider, outcome} provider: embedder, llm; outcome: ok, error
//	hippo_provider_request_duration_seconds{provider}
//	hippo_provider_retries_total{provider}
//	hippo_provider_tokens_total{provider, kind}    kind: prompt, completion (from the responses' usage)
//	hippo_embedded_texts_total                     texts sent to the embedder
//	hippo_embed_coalesced_calls_total              calls answered by shared requests (see package coalesce)
//	hippo_embed_coalesced_requests_total           the requests they shared
//	hippo_database_bytes                           the database file, with its WAL
//	hippo_remember_pending                         texts queued by async remember_facts
//	hippo_index_agents, _rows, _bytes, _limit_bytes the in-memory indexes resident and their bound
//	hippo_index_loads_total, _hits_total, _evictions_total  how the cache of indexes fares
//	hippo_recall_stage_duration_seconds{stage}     histogram; stage: embed, sync, text, scan, boost (hippo.Stage*)
//	hippo_commit_group_calls                       histogram: writes per group commit
//	hippo_commit_wait_seconds_total                the writes' summed wait for their group
package metrics

import (
	"context"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/hippo-mem/hippo"
)

// Tool call outcomes.
const (
	OutcomeOK       = "ok"       // a result
	OutcomeError    = "error"    // an expected failure, reported to the caller (isError)
	OutcomeInternal = "internal" // a failure of Hippo's, logged
)

// Providers.
const (
	Embedder = "embedder"
	LLM      = "llm"
)

// Metrics is the server's registry and families. Safe for concurrent use.
type Metrics struct {
	reg           *prometheus.Registry
	toolCalls     *prometheus.CounterVec
	toolSeconds   *prometheus.HistogramVec
	requests      *prometheus.CounterVec
	reqSeconds    *prometheus.HistogramVec
	retries       *prometheus.CounterVec
	tokens        *prometheus.CounterVec
	embeddedTexts prometheus.Counter
	stageSeconds  *prometheus.HistogramVec
}

// New returns a Metrics with every family registered.
func New() *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry()}
	m.toolCalls = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "hippo_tool_calls_total", Help: "Tool calls by tool and outcome (ok, error: an isError result, internal: a failure of Hippo's).",
	}, []string{"tool", "outcome"})
	m.toolSeconds = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "hippo_tool_call_duration_seconds", Help: "Tool call latency.",
		Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
	}, []string{"tool"})
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "hippo_provider_requests_total", Help: "Calls of the embedder and the LLM, by outcome.",
	}, []string{"provider", "outcome"})
	m.reqSeconds = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "hippo_provider_request_duration_seconds", Help: "Latency of embedder and LLM calls, retries included.",
		Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60},
	}, []string{"provider"})
	m.retries = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "hippo_provider_retries_total", Help: "Requests to an API provider sent again after a 429, 408, 5xx or network error.",
	}, []string{"provider"})
	m.tokens = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "hippo_provider_tokens_total", Help: "Tokens API providers reported spending (usage), by kind: prompt or completion.",
	}, []string{"provider", "kind"})
	m.embeddedTexts = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "hippo_embedded_texts_total", Help: "Texts sent to the embedder.",
	})
	m.stageSeconds = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "hippo_recall_stage_duration_seconds", Help: "Time recall_memories calls spent in each stage: embed (the query), sync (the index from the change feed), text (BM25 scores), scan (the index, fusion included), boost.",
		Buckets: []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5},
	}, []string{"stage"})
	m.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.toolCalls, m.toolSeconds, m.requests, m.reqSeconds, m.retries, m.tokens, m.embeddedTexts, m.stageSeconds)
	return m
}

// Handler serves the registry in Prometheus' text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// Registry is the registry, for collectors of the caller's own.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// ObserveTool counts one tool call that took d.
func (m *Metrics) ObserveTool(tool, outcome string, d time.Duration) {
	m.toolCalls.WithLabelValues(tool, outcome).Inc()
	m.toolSeconds.WithLabelValues(tool).Observe(d.Seconds())
}

// ObserveRecallStage records that a recall spent d in stage; it is a
// hippo.StageFunc.
func (m *Metrics) ObserveRecallStage(stage string, d time.Duration) {
	m.stageSeconds.WithLabelValues(stage).Observe(d.Seconds())
}

// Commits registers the group-commit families of a store that groups its
// writes: the histogram of writes per group, fed by r's observer, and the
// writes' summed wait.
func (m *Metrics) Commits(r hippo.CommitReporter) {
	calls := prometheus.NewHistogram(prometheus.HistogramOpts{
		Name: "hippo_commit_group_calls", Help: "Writes (tool calls' transactions) committed together in one durable commit.",
		Buckets: []float64{1, 2, 4, 8, 16, 32, 64, 128},
	})
	m.reg.MustRegister(calls, prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name: "hippo_commit_wait_seconds_total", Help: "Summed time writes waited for their group commit to start; divide by hippo_commit_group_calls_sum for the mean.",
	}, func() float64 { return r.CommitStats().Wait.Seconds() }))
	r.ObserveCommits(func(n int, _ time.Duration) { calls.Observe(float64(n)) })
}

// Retry counts one retry of a provider's request; pass it as
// openai.Config.OnRetry.
func (m *Metrics) Retry(provider string) func() {
	c := m.retries.WithLabelValues(provider)
	return c.Inc
}

// Tokens counts tokens a provider reported.
func (m *Metrics) Tokens(provider string, prompt, completion int) {
	if prompt > 0 {
		m.tokens.WithLabelValues(provider, "prompt").Add(float64(prompt))
	}
	if completion > 0 {
		m.tokens.WithLabelValues(provider, "completion").Add(float64(completion))
	}
}

// DatabaseSize registers hippo_database_bytes, read from size at each
// scrape.
func (m *Metrics) DatabaseSize(size func() int64) {
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "hippo_database_bytes", Help: "Size of the database file with its write-ahead log.",
	}, func() float64 { return float64(size()) }))
}

// Pending registers hippo_remember_pending, read from count at each
// scrape.
func (m *Metrics) Pending(count func() int) {
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "hippo_remember_pending", Help: "Texts queued by async remember_facts whose facts are not learned yet.",
	}, func() float64 { return float64(count()) }))
}

// Indexes registers the hippo_index_* families, read from usage at each
// scrape.
func (m *Metrics) Indexes(usage func() hippo.IndexUsage) {
	m.reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "hippo_index_agents", Help: "Agents whose vector index is resident in memory.",
		}, func() float64 { return float64(usage().Agents) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "hippo_index_rows", Help: "Rows of the resident indexes.",
		}, func() float64 { return float64(usage().Rows) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "hippo_index_bytes", Help: "Bytes of the resident indexes (int8 codes, scales, metadata).",
		}, func() float64 { return float64(usage().Bytes) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "hippo_index_limit_bytes", Help: "The bound on the resident indexes' bytes (--index-memory); 0 for none.",
		}, func() float64 { return float64(usage().Limit) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "hippo_index_loads_total", Help: "Agents' indexes loaded from the store (first use, or after an eviction).",
		}, func() float64 { return float64(usage().Loads) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "hippo_index_hits_total", Help: "Uses that found the agent's index resident.",
		}, func() float64 { return float64(usage().Hits) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "hippo_index_evictions_total", Help: "Agents' indexes dropped to stay under --index-memory.",
		}, func() float64 { return float64(usage().Evictions) }),
	)
}

// Coalesced registers the counts of a coalescing embedder (package
// coalesce), read from stats at each scrape.
func (m *Metrics) Coalesced(stats func() (calls, requests int64)) {
	m.reg.MustRegister(
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "hippo_embed_coalesced_calls_total", Help: "Embedding calls answered through shared requests.",
		}, func() float64 { c, _ := stats(); return float64(c) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "hippo_embed_coalesced_requests_total", Help: "Requests those calls shared (retries included).",
		}, func() float64 { _, r := stats(); return float64(r) }),
	)
}

// WrapEmbedder returns e counted: each Embed call is a request of the
// embedder, with its latency and texts. The wrapper passes e's model,
// dimension, thresholds, α and relevance levels through.
func (m *Metrics) WrapEmbedder(e hippo.Embedder) hippo.Embedder {
	return &embedder{Wrapped: hippo.Wrapped{Embedder: e}, m: m}
}

// WrapLLM returns l counted.
func (m *Metrics) WrapLLM(l hippo.LLM) hippo.LLM { return &llm{LLM: l, m: m} }

// observe counts one provider call that started at start.
func (m *Metrics) observe(provider string, start time.Time, err error) {
	outcome := OutcomeOK
	if err != nil {
		outcome = OutcomeError
	}
	m.requests.WithLabelValues(provider, outcome).Inc()
	m.reqSeconds.WithLabelValues(provider).Observe(time.Since(start).Seconds())
}

type embedder struct {
	hippo.Wrapped
	m *Metrics
}

func (e *embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	start := time.Now()
	v, err := e.Embedder.Embed(ctx, texts)
	e.m.observe(Embedder, start, err)
	e.m.embeddedTexts.Add(float64(len(texts)))
	return v, err
}

type llm struct {
	hippo.LLM
	m *Metrics
}

func (l *llm) Complete(ctx context.Context, system string, messages []hippo.Message) (string, *hippo.LLMCall, error) {
	start := time.Now()
	s, usage, err := l.LLM.Complete(ctx, system, messages)
	l.m.observe(LLM, start, err)
	return s, usage, err
}
