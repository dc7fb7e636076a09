package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hippo-mem/hippo/mock"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkServeStores measures `hippo serve` end to end: clients MCP
// sessions over Streamable HTTP store b.N memories in all, as fast as the
// server acknowledges them (durably), through a scripted OpenAI-compatible
// embedder of 1536 dimensions or the offline default (MiniLM). A probe
// recalls every 20 ms meanwhile; recall p50/p95 under that load and on the
// idle server afterwards are reported beside memories/s.
//
//	go test -run '^$' -bench ServeStores -benchtime 2000x -timeout 30m ./cmd/hippo/
//
// HIPPO_BENCH_EMBED_WINDOW=0 runs the server without sharing embedding
// requests between calls, for comparison.
func BenchmarkServeStores(b *testing.B) {
	for _, embedder := range []string{"api-1536", "offline"} {
		for _, clients := range []int{1, 8, 32} {
			b.Run(fmt.Sprintf("embedder=%s/clients=%d", embedder, clients), func(b *testing.B) {
				benchServeStores(b, embedder, clients, "")
			})
		}
	}
}

// benchServeStores runs the benchmark on the database db, a new SQLite
// file when "".
func benchServeStores(b *testing.B, embedder string, clients int, db string) {
	ctx := context.Background()
	dir := b.TempDir()
	if db == "" {
		db = filepath.Join(dir, "hippo.db")
	}
	env := cleanEnv(dir, db)
	if embedder == "api-1536" {
		srv := mock.NewServer(b, 1536)
		env = withEnv(env, []string{"HIPPO_EMBED_URL=" + srv.BaseURL(), "HIPPO_EMBED_KEY=sk-test", "HIPPO_EMBED_MODEL=mock-embed"})
	} else {
		env = withEnv(env, []string{"HIPPO_EMBEDDER="})
	}
	args := []string{"serve", "--addr", "127.0.0.1:0"}
	if w := os.Getenv("HIPPO_BENCH_EMBED_WINDOW"); w != "" {
		args = append(args, "--embed-window", w) // 0 compares without coalescing
	}
	if a := os.Getenv("HIPPO_BENCH_PPROF"); a != "" {
		args = append(args, "--pprof", a) // profile the server while it runs
	}
	cmd, base := startServe(b, env, args...)
	// One kept-alive connection per session: the default transport keeps
	// two idle connections per host, and the others would reconnect on
	// every call.
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients + 1}}
	connect := func() *sdk.ClientSession {
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "0"}, nil).Connect(ctx,
			&sdk.StreamableClientTransport{Endpoint: base + "/mcp", HTTPClient: hc, MaxRetries: -1}, nil)
		if err != nil {
			b.Fatal(err)
		}
		return cs
	}
	call := func(cs *sdk.ClientSession, tool string, args map[string]any) error {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
		if err == nil && res.IsError {
			err = fmt.Errorf("%s: error result", tool)
		}
		return err
	}
	sessions := make([]*sdk.ClientSession, clients)
	for i := range sessions {
		sessions[i] = connect()
		defer sessions[i].Close()
	}
	probe := connect()
	defer probe.Close()
	recall := func() time.Duration {
		start := time.Now()
		if err := call(probe, "recall_memories", map[string]any{"agent_id": "bench", "query": "the deploy of service 7"}); err != nil {
			b.Error(err)
		}
		return time.Since(start)
	}
	// Warm up: the model loads, the agent's index exists.
	if err := call(probe, "store_memory", map[string]any{"agent_id": "bench", "content": "warm-up memory"}); err != nil {
		b.Fatal(err)
	}
	recall()

	var next atomic.Int64
	var loaded []time.Duration
	stop := make(chan struct{})
	probed := make(chan struct{})
	go func() {
		defer close(probed)
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
				loaded = append(loaded, recall())
			}
		}
	}()
	cpuBefore := procCPU(b, cmd.Process.Pid)
	harnessBefore := procCPU(b, os.Getpid())
	b.ResetTimer()
	var wg sync.WaitGroup
	for _, cs := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1)
				if i > int64(b.N) {
					return
				}
				content := fmt.Sprintf("Note %d: the deploy of service %d moved to slot %d", i, i%50, i%7)
				if err := call(cs, "store_memory", map[string]any{"agent_id": "bench", "content": content}); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	elapsed := b.Elapsed()
	serverCPU := procCPU(b, cmd.Process.Pid) - cpuBefore
	harnessCPU := procCPU(b, os.Getpid()) - harnessBefore
	close(stop)
	<-probed
	var idle []time.Duration
	for range 30 {
		idle = append(idle, recall())
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "memories/s")
	// The server's own CPU per memory stored (its recall probe
	// included): the clients and the fake embedder share the machine.
	b.ReportMetric(ms(serverCPU)/float64(b.N), "server-cpu-ms/memory")
	// The benchmark's own: its MCP clients and the fake embedder (with
	// PostgreSQL, its server processes are neither).
	b.ReportMetric(ms(harnessCPU)/float64(b.N), "harness-cpu-ms/memory")
	if len(loaded) > 0 {
		b.ReportMetric(ms(pct(loaded, 50)), "load-recall-p50-ms")
		b.ReportMetric(ms(pct(loaded, 95)), "load-recall-p95-ms")
	}
	b.ReportMetric(ms(pct(idle, 50)), "idle-recall-p50-ms")
	b.ReportMetric(ms(pct(idle, 95)), "idle-recall-p95-ms")
}

// procCPU is the CPU time (user and system) process pid has used, from
// /proc/<pid>/stat in clock ticks of 10 ms.
func procCPU(b *testing.B, pid int) time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatal(err)
	}
	// Fields after the command name, which is in parentheses: state is
	// the first, utime the 12th and stime the 13th.
	f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		b.Fatalf("/proc/%d/stat: %q", pid, data)
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

// startServe starts `hippo <args>` (a serve on an HTTP port) with env
// and returns it with the base URL it printed; it is interrupted when the
// benchmark ends.
func startServe(b *testing.B, env []string, args ...string) (*exec.Cmd, string) {
	b.Helper()
	cmd := exec.Command(hippoBin, args...)
	cmd.Env = env
	stderr, err := cmd.StderrPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	})
	base := ""
	sc := bufio.NewScanner(stderr)
	urlRe := regexp.MustCompile(`MCP server on (http://127\.0\.0\.1:\d+)`)
	for sc.Scan() {
		if m := urlRe.FindStringSubmatch(sc.Text()); m != nil {
			base = m[1]
			break
		}
	}
	go io.Copy(io.Discard, stderr)
	if base == "" {
		b.Fatal("hippo serve printed no URL")
	}
	return cmd, base
}

func pct(d []time.Duration, p int) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// BenchmarkServeCalls is the floor under BenchmarkServeStores: clients
// MCP sessions call list_memory_blocks, one small read of the database and
// no embedding, b.N times in all, as fast as `hippo serve` answers. What it
// reaches is the most tool calls per second the MCP layer (the SDK's
// Streamable HTTP, JSON-RPC, the clients) leaves room for on this machine,
// whatever the store does.
//
//	go test -run '^$' -bench ServeCalls -benchtime 5000x ./cmd/hippo/
func BenchmarkServeCalls(b *testing.B) {
	for _, clients := range []int{1, 8, 32} {
		b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) {
			ctx := context.Background()
			dir := b.TempDir()
			env := withEnv(cleanEnv(dir, filepath.Join(dir, "hippo.db")), []string{"HIPPO_EMBEDDER=glove"})
			cmd, base := startServe(b, env, "serve", "--addr", "127.0.0.1:0")
			hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
			sessions := make([]*sdk.ClientSession, clients)
			for i := range sessions {
				cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "0"}, nil).Connect(ctx,
					&sdk.StreamableClientTransport{Endpoint: base + "/mcp", HTTPClient: hc, MaxRetries: -1}, nil)
				if err != nil {
					b.Fatal(err)
				}
				defer cs.Close()
				sessions[i] = cs
			}
			call := func(cs *sdk.ClientSession) error {
				res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "list_memory_blocks", Arguments: map[string]any{"agent_id": "bench"}})
				if err == nil && res.IsError {
					err = errors.New("list_memory_blocks: error result")
				}
				return err
			}
			if err := call(sessions[0]); err != nil {
				b.Fatal(err)
			}
			cpuBefore, harnessBefore := procCPU(b, cmd.Process.Pid), procCPU(b, os.Getpid())
			b.ResetTimer()
			var next atomic.Int64
			var wg sync.WaitGroup
			for _, cs := range sessions {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for next.Add(1) <= int64(b.N) {
						if err := call(cs); err != nil {
							b.Error(err)
							return
						}
					}
				}()
			}
			wg.Wait()
			b.StopTimer()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
			b.ReportMetric(ms(procCPU(b, cmd.Process.Pid)-cpuBefore)/float64(b.N), "server-cpu-ms/call")
			b.ReportMetric(ms(procCPU(b, os.Getpid())-harnessBefore)/float64(b.N), "harness-cpu-ms/call")
		})
	}
}
