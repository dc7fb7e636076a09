package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hippo-mem/hippo/internal/pgtest"
	"github.com/hippo-mem/hippo/mock"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkServeBatch measures bulk ingest through `hippo serve`: 4
// clients store b.N memories in all with store_memories, 100 a call,
// through a scripted OpenAI-compatible embedder of 384 or 1,536
// dimensions. Each batch repeats one item that every batch holds, which
// must be stored once. Afterwards every memory is counted and a sample is
// recalled by its content. server-peak-rss-MB is the largest server's
// peak resident set (VmHWM).
//
//	go test -run '^$' -bench 'ServeBatch$' -benchtime 50000x -timeout 30m ./cmd/hippo/
func BenchmarkServeBatch(b *testing.B) {
	for _, dim := range []int{384, 1536} {
		b.Run(fmt.Sprintf("dim=%d/clients=4", dim), func(b *testing.B) {
			dir := b.TempDir()
			benchServeBatch(b, dim, 4, 1, filepath.Join(dir, "hippo.db"))
		})
	}
}

// BenchmarkServeBatchPostgres is BenchmarkServeBatch with 3 servers
// sharing a PostgreSQL database, the clients spread over them.
//
//	go test -run '^$' -bench 'ServeBatchPostgres' -benchtime 50000x -timeout 30m ./cmd/hippo/
func BenchmarkServeBatchPostgres(b *testing.B) {
	b.Run("dim=384/clients=4/servers=3", func(b *testing.B) {
		benchServeBatch(b, 384, 4, 3, pgtest.New(b))
	})
}

// batchSize is how many items a store_memories call of the benchmark
// carries.
const batchSize = 100

func benchServeBatch(b *testing.B, dim, clients, servers int, db string) {
	dir := b.TempDir()
	srv := mock.NewServer(b, dim)
	env := withEnv(cleanEnv(dir, db), []string{"HIPPO_EMBED_URL=" + srv.BaseURL(), "HIPPO_EMBED_KEY=sk-test", "HIPPO_EMBED_MODEL=mock-embed"})
	var sessions []*sdk.ClientSession
	var pids []int
	for i := range servers {
		cmd, base := startServe(b, env, "serve", "--addr", "127.0.0.1:0")
		pids = append(pids, cmd.Process.Pid)
		per := clients / servers
		if i < clients%servers {
			per++
		}
		sessions = append(sessions, connectSessions(b, base, per)...)
	}
	const repeated = "A note that every batch repeats"
	if err := mcpCall(sessions[0], "store_memory", map[string]any{"agent_id": "bench", "content": repeated}); err != nil {
		b.Fatal(err)
	}
	batches := (b.N + batchSize - 1) / batchSize
	cpuBefore := cpuOf(b, pids)
	harnessBefore := procCPU(b, os.Getpid())
	b.ResetTimer()
	callsNOf(b, batches, sessions, func(cs *sdk.ClientSession, k int64) error {
		first := (k - 1) * batchSize
		items := []map[string]any{{"content": repeated}}
		for i := first; i < min(first+batchSize-1, int64(b.N)); i++ {
			items = append(items, map[string]any{"content": fmt.Sprintf("Note %d: the deploy of service %d moved to slot %d", i, i%50, i%7)})
		}
		return mcpCall(cs, "store_memories", map[string]any{"agent_id": "bench", "items": items})
	})
	b.StopTimer()
	elapsed := b.Elapsed()
	serverCPU := cpuOf(b, pids) - cpuBefore
	harnessCPU := procCPU(b, os.Getpid()) - harnessBefore
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "memories/s")
	b.ReportMetric(ms(serverCPU)/float64(b.N), "server-cpu-ms/memory")
	b.ReportMetric(ms(harnessCPU)/float64(b.N), "harness-cpu-ms/memory")
	var peak int64
	for _, pid := range pids {
		peak = max(peak, procStatus(b, pid, "VmHWM"))
	}
	b.ReportMetric(float64(peak)/(1<<20), "server-peak-rss-MB")

	// Every memory is there once, the repeated one too, and a sample of
	// them comes first for its own content.
	var unique int64
	for k := int64(1); k <= int64(batches); k++ {
		first := (k - 1) * batchSize
		unique += min(first+batchSize-1, int64(b.N)) - first
	}
	cmd := exec.Command(hippoBin, "stats", "--json")
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		b.Fatalf("hippo stats: %v", err)
	}
	var stats struct{ Memories int64 }
	if err := json.Unmarshal(out, &stats); err != nil {
		b.Fatal(err)
	}
	if stats.Memories != unique+1 {
		b.Errorf("%d memories stored, want %d (%d distinct and the repeated one once)", stats.Memories, unique+1, unique)
	}
	for _, i := range []int64{0, unique / 3, unique / 2, unique - 1} {
		content := fmt.Sprintf("Note %d: the deploy of service %d moved to slot %d", i, i%50, i%7)
		got := callJSON(b, sessions[len(sessions)-1], "recall_memories", map[string]any{"agent_id": "bench", "query": content, "limit": 1})
		if !strings.Contains(got, content) {
			b.Errorf("memory %d not recalled by its content: %.300s", i, got)
		}
	}
}

// cpuOf is the CPU time the processes pids have used.
func cpuOf(b *testing.B, pids []int) (sum time.Duration) {
	for _, pid := range pids {
		sum += procCPU(b, pid)
	}
	return sum
}

// callJSON calls tool and returns its result as JSON text.
func callJSON(b *testing.B, cs *sdk.ClientSession, tool string, args map[string]any) string {
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		b.Fatal(err)
	}
	out, _ := json.Marshal(res)
	return string(out)
}
