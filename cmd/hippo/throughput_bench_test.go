package main

import (
	"bufio"
	"context"
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
// embedder of 1536 or 384 dimensions or the offline default (MiniLM). A probe
// recalls every 20 ms meanwhile; recall p50/p95 under that load and on the
// idle server afterwards are reported beside memories/s. The server's CPU
// per memory is reported with the probe's recalls (server-cpu-ms/memory)
// and without them (net-server-cpu-ms/memory), the probe's share taken
// from the CPU of idle recalls before and after the stores.
//
//	go test -run '^$' -bench ServeStores -benchtime 2000x -timeout 30m ./cmd/hippo/
//
// HIPPO_BENCH_EMBED_WINDOW=0 runs the server without sharing embedding
// requests between calls, for comparison.
func BenchmarkServeStores(b *testing.B) {
	for _, embedder := range []string{"api-1536", "api-384", "offline"} {
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
	dir := b.TempDir()
	if db == "" {
		db = filepath.Join(dir, "hippo.db")
	}
	env := cleanEnv(dir, db)
	if dim, ok := strings.CutPrefix(embedder, "api-"); ok {
		n, err := strconv.Atoi(dim)
		if err != nil {
			b.Fatal(err)
		}
		srv := mock.NewServer(b, n)
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
	sessions := connectSessions(b, base, clients+1)
	probe, sessions := sessions[clients], sessions[:clients]
	recall := func() time.Duration {
		start := time.Now()
		if err := mcpCall(probe, "recall_memories", map[string]any{"agent_id": "bench", "query": "the deploy of service 7"}); err != nil {
			b.Error(err)
		}
		return time.Since(start)
	}
	// Warm up: the model loads, the agent's index exists.
	if err := mcpCall(probe, "store_memory", map[string]any{"agent_id": "bench", "content": "warm-up memory"}); err != nil {
		b.Fatal(err)
	}
	recall()
	// recallCPU is the server's CPU per idle recall, over enough of them
	// for the clock's 10 ms ticks.
	recallCPU := func() time.Duration {
		const n = 200
		before := procCPU(b, cmd.Process.Pid)
		for range n {
			recall()
		}
		return (procCPU(b, cmd.Process.Pid) - before) / n
	}
	recallCPUFirst := recallCPU()

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
	callsN(b, sessions, func(cs *sdk.ClientSession, i int64) error {
		content := fmt.Sprintf("Note %d: the deploy of service %d moved to slot %d", i, i%50, i%7)
		return mcpCall(cs, "store_memory", map[string]any{"agent_id": "bench", "content": content})
	})
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
	// A probe recall costs what an idle one does on the index of its
	// moment, which grows from the first memory to the last: the mean of
	// an idle recall's cost at either end.
	probeCPU := (recallCPUFirst + recallCPU()) / 2
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "memories/s")
	// The server's own CPU per memory stored (its recall probe
	// included): the clients and the fake embedder share the machine.
	b.ReportMetric(ms(serverCPU)/float64(b.N), "server-cpu-ms/memory")
	// The same net of the probe's recalls: what a store_memory costs.
	b.ReportMetric(ms(serverCPU-time.Duration(len(loaded))*probeCPU)/float64(b.N), "net-server-cpu-ms/memory")
	b.ReportMetric(ms(probeCPU), "probe-cpu-ms/recall")
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
func procCPU(b testing.TB, pid int) time.Duration {
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
			dir := b.TempDir()
			env := withEnv(cleanEnv(dir, filepath.Join(dir, "hippo.db")), []string{"HIPPO_EMBEDDER=glove"})
			args := []string{"serve", "--addr", "127.0.0.1:0"}
			if a := os.Getenv("HIPPO_BENCH_PPROF"); a != "" {
				args = append(args, "--pprof", a) // profile the server while it runs
			}
			cmd, base := startServe(b, env, args...)
			sessions := connectSessions(b, base, clients)
			call := map[string]any{"agent_id": "bench"}
			if err := mcpCall(sessions[0], "list_memory_blocks", call); err != nil {
				b.Fatal(err)
			}
			cpuBefore, harnessBefore := procCPU(b, cmd.Process.Pid), procCPU(b, os.Getpid())
			b.ResetTimer()
			callsN(b, sessions, func(cs *sdk.ClientSession, _ int64) error {
				return mcpCall(cs, "list_memory_blocks", call)
			})
			b.StopTimer()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
			b.ReportMetric(ms(procCPU(b, cmd.Process.Pid)-cpuBefore)/float64(b.N), "server-cpu-ms/call")
			b.ReportMetric(ms(procCPU(b, os.Getpid())-harnessBefore)/float64(b.N), "harness-cpu-ms/call")
		})
	}
}

// connectSessions opens n MCP sessions to the `hippo serve` at base,
// closed when b ends. They share one client with a kept-alive connection
// each: the default transport keeps two idle connections per host, and
// the others would reconnect on every call.
func connectSessions(b *testing.B, base string, n int) []*sdk.ClientSession {
	b.Helper()
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: n}}
	sessions := make([]*sdk.ClientSession, n)
	for i := range sessions {
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "0"}, nil).Connect(context.Background(),
			&sdk.StreamableClientTransport{Endpoint: base + "/mcp", HTTPClient: hc, MaxRetries: -1}, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { cs.Close() })
		sessions[i] = cs
	}
	return sessions
}

// mcpCall calls tool with args on cs; an error result is an error.
func mcpCall(cs *sdk.ClientSession, tool string, args map[string]any) error {
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err == nil && res.IsError {
		err = fmt.Errorf("%s: error result", tool)
	}
	return err
}

// callsN makes b.N calls in all through sessions (see callsNOf).
func callsN(b *testing.B, sessions []*sdk.ClientSession, call func(cs *sdk.ClientSession, i int64) error) {
	callsNOf(b, b.N, sessions, call)
}

// callsNOf makes n calls in all through sessions, each session calling
// call in a loop of its own, and returns when they are done; call gets
// the call's number, from 1.
func callsNOf(b *testing.B, n int, sessions []*sdk.ClientSession, call func(cs *sdk.ClientSession, i int64) error) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for _, cs := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1); i <= int64(n); i = next.Add(1) {
				if err := call(cs, i); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
}
