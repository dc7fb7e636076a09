package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/mock"
	"github.com/hippo-mem/hippo/sqlite"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkIndexMemoryRSS measures the resident memory of `hippo serve
// --index-memory 256MB` holding many agents: HIPPO_RSS_AGENTS agents (200)
// of HIPPO_RSS_CHUNKS memories (5,000) of 384 dimensions, recalled in
// random order, every agent twice, so that the least recently used
// indexes are evicted and loaded again. It reports the server's peak
// resident set (VmHWM), its resident set at the end, the largest index
// bytes /metrics showed, and the loads and evictions.
//
//	go test -run '^$' -bench IndexMemoryRSS -benchtime 1x -timeout 30m ./cmd/hippo/
func BenchmarkIndexMemoryRSS(b *testing.B) {
	agents, chunks := envInt("HIPPO_RSS_AGENTS", 200), envInt("HIPPO_RSS_CHUNKS", 5000)
	const dim = 384
	limit := os.Getenv("HIPPO_RSS_LIMIT")
	if limit == "" {
		limit = "256MB"
	}
	ctx := context.Background()
	dir := b.TempDir()
	path := filepath.Join(dir, "rss.db")
	srv := mock.NewServer(b, dim)

	// The database, written directly: 200 × 5,000 rows through MCP would
	// take the benchmark's time on the embedder.
	start := time.Now()
	db, err := sqlite.Open(ctx, path, sqlite.Options{Dimension: dim})
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for a := range agents {
		batch := make([]*hippo.Chunk, chunks)
		for i := range batch {
			v := make([]float32, dim)
			for j := range v {
				v[j] = float32(r.NormFloat64())
			}
			batch[i] = &hippo.Chunk{Content: fmt.Sprintf("agent %d note %d about service %d", a, i, i%50), Embedding: v}
		}
		if err := db.InsertChunks(ctx, fmt.Sprintf("agent-%03d", a), "", "mock-embed", batch); err != nil {
			b.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		b.Fatal(err)
	}
	b.Logf("%d agents × %d chunks × %d dims written in %v", agents, chunks, dim, time.Since(start).Round(time.Second))

	env := withEnv(cleanEnv(dir, path), []string{"HIPPO_EMBED_URL=" + srv.BaseURL(), "HIPPO_EMBED_KEY=sk-test", "HIPPO_EMBED_MODEL=mock-embed"})
	cmd, base := startServe(b, env, "serve", "--addr", "127.0.0.1:0", "--index-memory", limit)
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "rss", Version: "0"}, nil).Connect(ctx,
		&sdk.StreamableClientTransport{Endpoint: base + "/mcp", HTTPClient: &http.Client{}, MaxRetries: -1}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	metric := func(name string) float64 {
		resp, err := http.Get(base + "/metrics")
		if err != nil {
			b.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		m := regexp.MustCompile(`(?m)^` + name + ` (\S+)$`).FindSubmatch(body)
		if m == nil {
			b.Fatalf("no %s in /metrics", name)
		}
		v, _ := strconv.ParseFloat(string(m[1]), 64)
		return v
	}

	b.ResetTimer()
	var maxIndex float64
	var recalls int
	order := r.Perm(agents)
	for range b.N {
		for pass := range 2 {
			for i, a := range order {
				res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "recall_memories", Arguments: map[string]any{
					"agent_id": fmt.Sprintf("agent-%03d", a), "query": fmt.Sprintf("service %d", i%50)}})
				if err != nil || res.IsError {
					b.Fatalf("recall: %v %v", err, res)
				}
				recalls++
				if i%20 == 0 {
					maxIndex = max(maxIndex, metric("hippo_index_bytes"))
				}
			}
			r.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
			_ = pass
		}
	}
	b.StopTimer()
	hwm, rss := procStatus(b, cmd.Process.Pid, "VmHWM"), procStatus(b, cmd.Process.Pid, "VmRSS")
	b.ReportMetric(float64(hwm)/(1<<20), "peak-rss-MB")
	b.ReportMetric(float64(rss)/(1<<20), "end-rss-MB")
	b.ReportMetric(maxIndex/(1<<20), "max-index-MB")
	b.ReportMetric(metric("hippo_index_loads_total"), "loads")
	b.ReportMetric(metric("hippo_index_evictions_total"), "evictions")
	b.ReportMetric(b.Elapsed().Seconds()*1000/float64(recalls), "ms/recall")
}

// procStatus reads a memory line of /proc/<pid>/status, in bytes.
func procStatus(b *testing.B, pid int, field string) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			return kb << 10
		}
	}
	b.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}
