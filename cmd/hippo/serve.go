package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/coalesce"
	"github.com/hippo-mem/hippo/internal/gcfloor"
	"github.com/hippo-mem/hippo/mcp"
	"github.com/hippo-mem/hippo/metrics"
	"github.com/hippo-mem/hippo/ui"
	"github.com/spf13/cobra"
)

// serveFlags are hippo serve's own flags.
type serveFlags struct {
	transport, addr, token, messages  string
	origins                           []string
	insecure                          bool
	embedWindow, sessionTimeout       time.Duration
	maxSessions                       int
	logFormat, pprofAddr, indexMemory string
}

func (a *app) newServeCommand() *cobra.Command {
	var o serveFlags
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the memory tools over MCP (stdio, Streamable HTTP and SSE)",
		Long: `Serve Hippo's tools to MCP clients (Claude, Cursor, ...). Every tool call
names its agent_id (and optionally a scope), so one server serves many agents.

--transport http (default) serves Streamable HTTP at /mcp, the legacy SSE
transport at GET /sse + POST /messages?sessionId=, GET /health and a web
UI at /ui/ (with --auth-token, open the one-time sign-in link it prints), on
127.0.0.1:3100 unless --addr says otherwise. --transport stdio speaks MCP on
standard input and output. With no HIPPO_EMBED_* / HIPPO_LLM_* settings the
offline defaults are used: no key, no network.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.serve(cmd.Context(), &o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.transport, "transport", envOr("HIPPO_TRANSPORT", "http"), "http or stdio (env HIPPO_TRANSPORT)")
	f.StringVar(&o.addr, "addr", defaultAddr(), "listen address (env HIPPO_PORT sets the port)")
	f.StringVar(&o.token, "auth-token", "", "require Authorization: Bearer <token> (env HIPPO_AUTH_TOKEN)")
	f.StringSliceVar(&o.origins, "allow-origin", nil, "browser origins allowed besides loopback")
	f.BoolVar(&o.insecure, "insecure", false, "allow a non-loopback address without --auth-token")
	f.StringVar(&o.logFormat, "log-format", "text", "log lines as text or json")
	f.StringVar(&o.indexMemory, "index-memory", "auto", "bound the agents' vector indexes held in memory, e.g. 256MB; the least recently used are dropped and reloaded on demand (auto: a quarter of the machine's or the container's memory; 0: no bound)")
	f.StringVar(&o.pprofAddr, "pprof", "", "serve net/http/pprof on this loopback address (e.g. 127.0.0.1:6060)")
	f.DurationVar(&o.sessionTimeout, "session-timeout", mcp.DefaultSessionTimeout, "close a Streamable HTTP session idle this long (0: never)")
	f.IntVar(&o.maxSessions, "max-sessions", mcp.DefaultMaxSessions, "MCP sessions open at once (Streamable HTTP and SSE); past it new sessions are refused with 503")
	f.DurationVar(&o.embedWindow, "embed-window", coalesce.DefaultWindow, "how long concurrent calls wait to share one embedding request (0 turns it off)")
	f.StringVar(&o.messages, "messages-table", os.Getenv("HIPPO_MESSAGES_TABLE"), "enable recall_conversation over this table and its <table>_fts index")
	return cmd
}

// serve opens the database and the models and serves them over MCP until
// ctx ends.
func (a *app) serve(ctx context.Context, o *serveFlags) error {
	memLimit, err := a.checkServeFlags(o)
	if err != nil {
		return err
	}
	gcfloor.Keep(heapFloor)
	defer gcfloor.Keep(0)
	a.metrics = metrics.New()
	models, err := a.memoryModels()
	if err != nil {
		return err
	}
	a.serving, a.adopt = true, o.messages != ""
	db, err := a.openDBFor(ctx, models.Embedder, createDB)
	if err != nil {
		return err
	}
	defer db.Close()
	if models.Embedder, err = a.servingEmbedder(ctx, db, o.embedWindow); err != nil {
		return err
	}
	models.MessagesTable = o.messages
	a.reportStore(db)
	if o.messages != "" {
		if err := hippo.ValidateTableName(o.messages); err != nil {
			return usageErrorf("%v", err)
		}
	}
	log := newLogger(a.stderr, o.logFormat)
	if c, ok := db.(interface{ CheckIntegrity(context.Context) error }); ok {
		// Damage found here makes /health say so and refuses writes.
		go func() {
			if err := c.CheckIntegrity(ctx); err != nil && ctx.Err() == nil {
				log.Error("database check failed", "error", err)
			}
		}()
	}
	embedDesc, llmDesc := a.describeProviders(models.Embedder)
	log.Info("hippo serve", "version", buildVersion().String(), "db", db.Location(), "embedder", embedDesc, "llm", llmDesc,
		"transport", o.transport, "auth", o.token != "", "embed_window", o.embedWindow, "index_memory", a.indexMemory, "memory_limit", memLimit,
		"agent_text_statistics", db.Config().AgentTextStatistics)
	go func() { // what async remember_facts calls left queued
		out, err := learnQueued(ctx, db, models, hippo.CallerMCP, nil)
		if err != nil {
			log.Error("learning queued texts", "error", err)
			return
		}
		for _, ag := range out.Agents {
			log.Info("learned queued texts", "agent", ag.AgentID, "texts", ag.Learned, "error", ag.Error)
		}
	}()
	web, err := webUI(db, o.token, log, models)
	if err != nil {
		return err
	}
	s, err := mcp.NewServer(mcp.Config{
		DB: db, Embedder: models.Embedder, Extractor: models.Extractor, Classifier: models.Classifier,
		FallbackExtractor: models.FallbackExtractor, DiscardText: models.DiscardText,
		MessagesTable: o.messages, AuthToken: o.token, AllowedOrigins: o.origins, Insecure: o.insecure,
		Logger: log, Version: buildVersion().Version, Metrics: a.metrics, UI: web,
		SessionTimeout: o.sessionTimeout, MaxSessions: o.maxSessions,
	})
	if err != nil {
		return err
	}
	if o.pprofAddr != "" {
		if err := servePprof(ctx, o.pprofAddr, s.Protect, a.stderr); err != nil {
			return err
		}
	}
	if o.transport == "stdio" {
		return s.ServeStdio(ctx, a.stdin, a.stdout)
	}
	return a.listen(ctx, s, o.addr, o.token, web)
}

// checkServeFlags refuses flags out of range, sets a.indexMemory from
// --index-memory and returns the Go memory limit it sets with it.
func (a *app) checkServeFlags(o *serveFlags) (memLimit int64, err error) {
	if o.transport != "http" && o.transport != "stdio" {
		return 0, usageErrorf("--transport must be http or stdio, got %q", o.transport)
	}
	if o.logFormat != "text" && o.logFormat != "json" {
		return 0, usageErrorf("--log-format must be text or json, got %q", o.logFormat)
	}
	switch o.indexMemory {
	case "auto":
		a.indexMemory = autoIndexMemory(readFile("/proc/meminfo"), readFile("/sys/fs/cgroup/memory.max"))
	case "", "0":
	default:
		n, err := humanize.ParseBytes(o.indexMemory)
		if err != nil || n > 1<<50 {
			return 0, usageErrorf("--index-memory must be a size such as 256MB or 2GiB, auto (a quarter of the memory), or 0 (no bound), got %q", o.indexMemory)
		}
		a.indexMemory = int64(n)
	}
	memLimit = applyMemoryLimit(a.indexMemory)
	if o.pprofAddr != "" {
		if err := checkPprofAddr(o.pprofAddr); err != nil {
			return 0, err
		}
	}
	if o.embedWindow < 0 || o.embedWindow > time.Second {
		return 0, usageErrorf("--embed-window must be between 0 (off) and 1s, got %v", o.embedWindow)
	}
	for _, origin := range o.origins {
		if _, err := mcp.ParseOrigin(origin); err != nil {
			return 0, usageErrorf("--allow-origin %q: %v", origin, err)
		}
	}
	if o.sessionTimeout < 0 {
		return 0, usageErrorf("--session-timeout must not be negative (0 never closes idle sessions), got %v", o.sessionTimeout)
	}
	if o.maxSessions < 1 {
		return 0, usageErrorf("--max-sessions must be at least 1, got %d", o.maxSessions)
	}
	if o.sessionTimeout == 0 {
		o.sessionTimeout = -1 // mcp.Config: never
	}
	if o.token == "" {
		o.token = os.Getenv("HIPPO_AUTH_TOKEN")
	}
	return memLimit, nil
}

// servingEmbedder returns the embedder db is locked to, counted by the
// server's metrics and, with a window, shared by concurrent calls.
func (a *app) servingEmbedder(ctx context.Context, db database, window time.Duration) (hippo.Embedder, error) {
	emb, err := a.embedderFor(ctx, db)
	if err != nil {
		return nil, err
	}
	if err := db.VerifyEmbeddingModel(ctx, emb.Model(), emb.Dimension()); err != nil {
		return nil, err
	}
	emb = a.metrics.WrapEmbedder(emb) // counts the embedder's own calls
	if window > 0 {
		// Concurrent calls share embedding requests.
		c, err := coalesce.New(emb, coalesce.Options{Window: window})
		if err != nil {
			return nil, err
		}
		a.metrics.Coalesced(func() (int64, int64) { st := c.Stats(); return st.Calls, st.Requests })
		emb = &shareWhenBusy{Wrapped: hippo.Wrapped{Embedder: emb}, shared: c}
	}
	return emb, nil
}

// shareWhenBusy sends an Embed call straight to the embedder when no other
// call is embedding, and through shared (the coalescer) when one is. A
// lone call has no one to share a request with: waiting out the window
// would add it to every store and recall of a single client (2 ms of
// latency, and an idle wake-up's CPU), and share nothing.
type shareWhenBusy struct {
	hippo.Wrapped // the embedder itself: model, dimension, calibration
	shared        hippo.Embedder
	busy          atomic.Int64 // Embed calls in progress
}

func (e *shareWhenBusy) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	defer e.busy.Add(-1)
	if e.busy.Add(1) == 1 {
		return e.Wrapped.Embed(ctx, texts)
	}
	return e.shared.Embed(ctx, texts)
}

// reportStore has the server's metrics report what db can tell of its
// indexes, its size and its commits.
func (a *app) reportStore(db database) {
	if r, ok := db.(hippo.IndexReporter); ok {
		a.metrics.Indexes(r.IndexUsage)
	}
	if r, ok := db.(hippo.SizeReporter); ok {
		a.metrics.DatabaseSize(r.DiskBytes)
	}
	if r, ok := db.(hippo.CommitReporter); ok {
		a.metrics.Commits(r)
	}
	a.metrics.Pending(func() int {
		s, err := db.Stats(context.Background())
		if err != nil {
			return 0
		}
		return s.Pending
	})
}

// newLogger logs to w, as text or JSON (format).
func newLogger(w io.Writer, format string) *slog.Logger {
	var handler slog.Handler = slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelInfo})
	if format == "json" {
		handler = slog.NewJSONHandler(w, &slog.HandlerOptions{Level: slog.LevelInfo})
	}
	return slog.New(handler)
}

// webUI returns the web UI over db, or nil when db has no browsing
// queries. Its memory services use models.
func webUI(db database, token string, log *slog.Logger, models hippo.MemoryOptions) (http.Handler, error) {
	st, ok := db.(ui.Store)
	if !ok {
		return nil, nil
	}
	h, err := ui.New(ui.Config{Store: st, Token: token, Logger: log,
		Memory: func(agent, scope string, look bool) (hippo.MemoryService, error) {
			opts := models
			opts.AgentID, opts.Scope, opts.Look = agent, scope, look
			return db.Service(opts)
		}})
	if err != nil {
		return nil, err
	}
	return h, nil
}

// listen serves s over HTTP on addr, saying where on standard error.
func (a *app) listen(ctx context.Context, s *mcp.Server, addr, token string, web http.Handler) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	url := "http://" + ln.Addr().String()
	fmt.Fprintf(a.stderr, "Hippo MCP server on %s/mcp (SSE: %s/sse, health: %s/health)\n", url, url, url)
	fmt.Fprintf(a.stderr, "Client configuration:\n  {\"mcpServers\": {\"hippo\": {\"url\": \"%s/mcp\"%s}}}\n", url, authHint(token))
	if h, ok := web.(*ui.Handler); ok {
		fmt.Fprintf(a.stderr, "Web UI: %s%s\n", url, h.SignInPath())
	}
	return s.Serve(ctx, ln)
}

func authHint(token string) string {
	if token == "" {
		return ""
	}
	return `, "headers": {"Authorization": "Bearer $HIPPO_AUTH_TOKEN"}`
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// defaultAddr is 127.0.0.1:3100, or 127.0.0.1:$HIPPO_PORT. HIPPO_PORT may
// also be a full host:port.
func defaultAddr() string {
	p := os.Getenv("HIPPO_PORT")
	switch {
	case p == "":
		return mcp.DefaultAddr
	case strings.Contains(p, ":"):
		return p
	}
	return "127.0.0.1:" + p
}

// checkPprofAddr refuses a --pprof address that is not loopback: profiles
// show memory contents and cost CPU to make.
func checkPprofAddr(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return usageErrorf("--pprof %q: %v", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return usageErrorf("--pprof must be a loopback address (127.0.0.1:6060), got %q", addr)
	}
	return nil
}

// servePprof serves net/http/pprof's handlers on addr (checkPprofAddr),
// behind protect: the MCP server's Host and Origin checks and its token,
// since /debug/pprof/cmdline shows every flag, keys and tokens included.
// It stops with ctx.
func servePprof(ctx context.Context, addr string, protect func(http.Handler) http.Handler, stderr io.Writer) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("pprof: listen on %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: protect(mux), ReadHeaderTimeout: 10 * time.Second, MaxHeaderBytes: 64 << 10}
	go srv.Serve(ln)
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	fmt.Fprintf(stderr, "pprof on http://%s/debug/pprof/\n", ln.Addr())
	return nil
}

// memoryOverhead is what a server needs beside its agents' indexes: the
// Go runtime, SQLite's page caches, the offline model's weights and
// activations, requests in flight and the index being loaded.
const memoryOverhead = 192 << 20

// heapFloor is how far the heap may grow past what is live before a
// collection, however little is live (gcfloor): most of a server's
// garbage is the MCP SDK's read buffers, one per JSON message, and a
// small heap paced by GOGC alone collected after every few hundred
// calls. It fits in memoryOverhead.
const heapFloor = 64 << 20

// applyMemoryLimit sets the Go runtime's soft memory limit to the index
// bound plus memoryOverhead, unless GOMEMLIMIT sets one or nothing bounds
// the indexes, and returns the limit in force (math.MaxInt64: none). The
// collector otherwise lets the heap grow to twice what is live before it
// runs, so a server bounded to 256 MB of indexes held nearly 600 MB.
func applyMemoryLimit(indexMemory int64) int64 {
	if indexMemory <= 0 || os.Getenv("GOMEMLIMIT") != "" {
		return debug.SetMemoryLimit(-1)
	}
	limit := indexMemory + memoryOverhead
	debug.SetMemoryLimit(limit)
	return limit
}

// autoIndexMemory is --index-memory auto: a quarter of the memory the
// server may use, the smaller of the machine's (/proc/meminfo's MemTotal)
// and its cgroup's limit (memory.max), so that the indexes, the runtime's
// slack and the page cache fit beside each other. 0 (no bound) when
// neither can be read, as on systems other than Linux.
func autoIndexMemory(meminfo, cgroupMax string) int64 {
	var total int64
	for _, line := range strings.Split(meminfo, "\n") {
		if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err == nil {
				total = kb << 10
			}
		}
	}
	if limit, err := strconv.ParseInt(strings.TrimSpace(cgroupMax), 10, 64); err == nil && limit > 0 && (total == 0 || limit < total) {
		total = limit
	}
	return total / 4
}

// readFile is a file's content, "" when it cannot be read.
func readFile(path string) string {
	b, _ := os.ReadFile(path)
	return string(b)
}
