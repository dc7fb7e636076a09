// Package mcp serves Hippo's agent tools over the Model Context Protocol,
// with the official Go SDK: over stdio, Streamable HTTP (/mcp) and the
// legacy HTTP+SSE transport (/sse, /messages), to any number of clients at
// once on one database.
//
// The tools are those of package tools, with two arguments added to each:
// a required agent_id, which selects whose memory the call works on, and
// an optional scope:
//
//   - scope set: writes (store_memory, remember_facts, the block tools) go
//     to that scope, and recall_memories and forget_memory search only it.
//   - scope omitted, null or "": writes go to the global scope "", and
//     recall_memories and forget_memory search every scope of the agent.
//
// Either way the write scope is the one that counts for deduplication,
// for supersession of facts and for blocks: a block, like a fact, lives in
// exactly one scope. recall_conversation ignores scope.
//
// Every result carries text and structuredContent, and every tool declares
// an outputSchema: the structuredContent of a successful call, or, for a
// result with isError set, an object with the error code ("invalid",
// "not_found", "conflict", "internal"), the offending field when there is
// one, and the message.
//
// # Calls written for the TypeScript Hippo
//
// Agents prompted for the MCP server of the TypeScript Hippo (release
// 0.2.1: remember_facts, store_memory, recall_memories, forget_memory,
// recall_memory_block, replace_memory_block, append_memory_block) work
// unchanged, with the same meaning:
//
//   - append_memory_block takes content as another name for text; the
//     schema lists only text, and giving both is an error. The text goes
//     on a new line, as there.
//   - store_memory takes metadata as a JSON object or as a string holding
//     one ("{\"source\": \"pdf\"}"); a string holding anything else is an
//     error naming it.
//   - forget_memory takes a threshold up to 1, by default the embedder's
//     calibrated one (0.7 for embedders without a calibration).
//   - recall_memories takes query, kind ("fact" or "memory") and limit (1
//     to 50, default 10), as there.
//
// Calls that server accepts and this one refuses, each with an error
// naming the argument: a forget_memory threshold of 0 (there, delete
// everything at all similar), extra arguments no tool knows (that server
// drops them), an empty agent_id, key, text or content, and a fractional
// limit.
package mcp

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/metrics"
	"github.com/hippo-mem/hippo/tools"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultMaxBodyBytes bounds HTTP request bodies when Config.MaxBodyBytes
// is zero.
const DefaultMaxBodyBytes = 4 << 20

// DefaultShutdownTimeout is how long a graceful shutdown waits for
// in-flight calls when Config.ShutdownTimeout is zero.
const DefaultShutdownTimeout = 10 * time.Second

// DefaultSessionTimeout is how long an idle Streamable HTTP session
// lives when Config.SessionTimeout is zero.
const DefaultSessionTimeout = 30 * time.Minute

// DefaultMaxSessions bounds the sessions open at once when
// Config.MaxSessions is zero: a session costs a few kilobytes, so the
// bound keeps abandoned ones from growing the server without end.
const DefaultMaxSessions = 1000

// Config configures NewServer.
type Config struct {
	// DB is the store every agent's memory lives in; required. The
	// Server does not close it.
	DB hippo.Store
	// Embedder embeds stored content and queries; required.
	Embedder hippo.Embedder
	// Extractor and Classifier serve remember_facts; without an Extractor
	// remember_facts returns an error result. FallbackExtractor extracts
	// when the Extractor's LLM fails (hippo.MemoryOptions).
	Extractor         hippo.Extractor
	Classifier        hippo.Classifier
	FallbackExtractor hippo.Extractor
	// DiscardText makes remember_facts keep the facts alone, not the text
	// (hippo.MemoryOptions.DiscardText).
	DiscardText bool
	// MessagesTable, if set, enables recall_conversation over that table
	// and its <table>_fts index.
	MessagesTable string

	// AuthToken, if set, is required as "Authorization: Bearer <token>" on
	// every MCP endpoint (/mcp, /sse, /messages). /health stays open.
	AuthToken string
	// AllowedOrigins are browser origins ("https://app.example.com")
	// accepted besides loopback ones. A request with any other Origin
	// header is refused.
	AllowedOrigins []string
	// Insecure allows listening on a non-loopback address without an
	// AuthToken.
	Insecure bool
	// MaxBodyBytes bounds HTTP request bodies; 0 means DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// ShutdownTimeout bounds a graceful shutdown; 0 means
	// DefaultShutdownTimeout.
	ShutdownTimeout time.Duration
	// SessionTimeout closes a Streamable HTTP session that has received
	// no request for that long, so that sessions clients abandon (never
	// DELETEd) are freed; 0 means DefaultSessionTimeout, a negative value
	// never closes them. A legacy SSE session lasts as long as its stream.
	SessionTimeout time.Duration
	// MaxSessions bounds the sessions open at once, Streamable HTTP and
	// SSE together: past it a new session is refused with 503 until one
	// closes or times out. 0 means DefaultMaxSessions.
	MaxSessions int

	// UI, if set, is served under /ui/ behind the Origin and Host checks;
	// it does its own authentication (see package ui).
	UI http.Handler

	// Logger receives server events and the details of internal errors;
	// nil discards them. Tool arguments, tokens and keys are never logged.
	Logger *slog.Logger
	// Version is reported to clients and by /health.
	Version string
	// Metrics, if set, counts every tool call and is served at GET
	// /metrics behind the same checks as the MCP endpoints.
	Metrics *metrics.Metrics
}

// Server is the MCP server: Hippo's tools on an SDK server shared by every
// HTTP session (each stdio connection gets its own). It is safe for
// concurrent use.
type Server struct {
	cfg     Config
	log     *slog.Logger
	sdkLog  *slog.Logger // for the SDK: quieter
	mcp     *sdk.Server  // shared by every HTTP session
	tools   tools.Set
	origins map[string]bool
	handler http.Handler
	sse     *sseHandler
	// requests counts HTTP requests in progress other than streams.
	requests atomic.Int64
	// sessionMu makes opening a session one at a time, so that
	// MaxSessions holds (admitSession); refusedAt is when a refusal was
	// last logged, in Unix seconds.
	sessionMu sync.Mutex
	refusedAt atomic.Int64
	// calls holds the context of each Streamable HTTP request in
	// progress, by the key oneCall gives it.
	calls sync.Map
	// readTimeout and readHeaderTimeout are the http.Server's; tests
	// shorten them.
	readTimeout, readHeaderTimeout time.Duration
}

// NewServer checks cfg and builds the server and its tools.
func NewServer(cfg Config) (*Server, error) {
	if cfg.DB == nil {
		return nil, errors.New("mcp: Config.DB is required")
	}
	if cfg.Embedder == nil {
		return nil, errors.New("mcp: Config.Embedder is required")
	}
	if cfg.MessagesTable != "" {
		if err := hippo.ValidateTableName(cfg.MessagesTable); err != nil {
			return nil, fmt.Errorf("mcp: %w", err)
		}
	}
	if cfg.AuthToken != "" && strings.IndexFunc(cfg.AuthToken, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r) || r > unicode.MaxASCII
	}) >= 0 {
		return nil, errors.New("mcp: the auth token must be printable ASCII without spaces")
	}
	origins, err := parseOrigins(cfg.AllowedOrigins)
	if err != nil {
		return nil, err
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if cfg.ShutdownTimeout <= 0 {
		cfg.ShutdownTimeout = DefaultShutdownTimeout
	}
	switch {
	case cfg.SessionTimeout == 0:
		cfg.SessionTimeout = DefaultSessionTimeout
	case cfg.SessionTimeout < 0:
		cfg.SessionTimeout = 0 // the SDK's "never"
	}
	switch {
	case cfg.MaxSessions == 0:
		cfg.MaxSessions = DefaultMaxSessions
	case cfg.MaxSessions < 0:
		return nil, fmt.Errorf("mcp: the session bound must not be negative, got %d", cfg.MaxSessions)
	}
	if cfg.Version == "" {
		cfg.Version = "dev"
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}

	s := &Server{cfg: cfg, log: log, origins: origins, readTimeout: readTimeout, readHeaderTimeout: readHeaderTimeout,
		sdkLog: slog.New(quietHandler{log.Handler()}).With("component", "mcp-sdk")}
	// Each call finds its memory from its agent_id and scope (Tool.Serve),
	// so one set serves every agent and scope.
	s.tools = tools.NewResolved(nil, tools.Options{Conversation: cfg.MessagesTable != "", Config: cfg.DB.Config().ForEmbedder(cfg.Embedder)})
	s.mcp = s.newMCP()
	s.handler = s.newHandler()
	return s, nil
}

// newMCP returns an SDK server with the tools. HTTP sessions share one;
// each ServeStdio has its own, so that shutting HTTP down leaves it alone.
func (s *Server) newMCP() *sdk.Server {
	srv := sdk.NewServer(&sdk.Implementation{Name: "hippo", Title: "Hippo", Version: s.cfg.Version}, &sdk.ServerOptions{
		Instructions: instructions,
		Logger:       s.sdkLog,
		// No logging capability: the server sends no log messages. The
		// tool list never changes: no list-changed notifications.
		Capabilities: &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{}},
	})
	for _, t := range s.tools {
		srv.AddTool(sdkTool(t), s.toolHandler(t))
	}
	return srv
}

// instructions tell clients what every tool call needs.
const instructions = `Hippo is persistent memory. Every tool takes agent_id, which names whose memory to use: pass the same agent_id in every call. The optional scope partitions an agent's memory (a project, a user, a channel): with a scope, writes go to it and recall_memories and forget_memory search only it; without one, writes go to the global scope and searches cover all of the agent's scopes.`

// Tools returns the names of the tools the server exposes.
func (s *Server) Tools() []string { return s.tools.Names() }

// sdkTool describes t to MCP: its schema with agent_id and scope added.
func sdkTool(t tools.Tool) *sdk.Tool {
	closed := false
	destructive := t.Destructive
	return &sdk.Tool{
		Name:         t.Name,
		Description:  t.Description,
		InputSchema:  withAgentArgs(t.InputSchema),
		OutputSchema: resultSchema(t.OutputSchema),
		Annotations: &sdk.ToolAnnotations{
			ReadOnlyHint:    t.ReadOnly,
			DestructiveHint: &destructive,
			OpenWorldHint:   &closed,
		},
	}
}

// resultSchema is the outputSchema of a tool whose successful calls return
// structuredContent of the shape out: that, or the tools.ErrorDetails
// that a result with isError set carries. Nil for a tool without one.
func resultSchema(out *jsonschema.Schema) *jsonschema.Schema {
	if out == nil {
		return nil
	}
	return &jsonschema.Schema{
		Type:  "object",
		AnyOf: []*jsonschema.Schema{out.CloneSchemas(), tools.ErrorSchema()},
	}
}

// withAgentArgs returns a copy of schema with a required agent_id and an
// optional scope in front of the tool's own properties.
func withAgentArgs(schema *jsonschema.Schema) *jsonschema.Schema {
	s := schema.CloneSchemas()
	props := make(map[string]*jsonschema.Schema, len(s.Properties)+2)
	for k, v := range s.Properties {
		props[k] = v
	}
	props["agent_id"] = &jsonschema.Schema{
		Type:        "string",
		Description: "Whose memory to use: a stable identifier of the agent, the same in every call. At most 128 characters, no control characters.",
		MinLength:   jsonschema.Ptr(1),
		MaxLength:   jsonschema.Ptr(hippo.MaxIDLength),
	}
	props["scope"] = &jsonschema.Schema{
		Type:        "string",
		Description: "Optional partition of the agent's memory, such as a project or a user. Given: writes go to this scope and searches cover only it. Omitted: writes go to the global scope and searches cover all of the agent's scopes.",
		MaxLength:   jsonschema.Ptr(hippo.MaxIDLength),
	}
	s.Properties = props
	s.PropertyOrder = append([]string{"agent_id", "scope"}, s.PropertyOrder...)
	s.Required = append([]string{"agent_id"}, slices.DeleteFunc(slices.Clone(s.Required), func(n string) bool {
		return n == "agent_id" || n == "scope"
	})...)
	return s
}

// growStack grows the calling goroutine's stack to 64 KiB at once. The SDK
// runs each call on a new goroutine, whose stack the store's SQLite code
// (translated from C, with large frames) otherwise doubles several times
// deep inside a query, each copy walking every frame: growing it while
// the stack is shallow costs a small part of that.
//
//go:noinline
func growStack(i int) byte {
	var frame [32 << 10]byte
	frame[i] = 1
	return frame[len(frame)-1-i]
}

// toolHandler runs t for one call: it takes agent_id and scope out of the
// arguments, binds the agent's memory to the context and passes the rest
// to the tool. It never returns a protocol error: every failure is a
// result with isError set.
func (s *Server) toolHandler(t tools.Tool) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (res *sdk.CallToolResult, _ error) {
		growStack(0)
		start := time.Now()
		// Every log line of the call carries its request ID, which an
		// internal error's result shows as its reference.
		rid := strings.ToLower(rand.Text()[:8])
		defer func() {
			if p := recover(); p != nil {
				res = s.internalError(t.Name, rid, fmt.Errorf("panic: %v\n%s", p, debug.Stack()))
			}
		}()

		var raw json.RawMessage
		if req != nil && req.Params != nil {
			raw = req.Params.Arguments
		}
		if req != nil {
			// The call stops when its client leaves.
			var cancel context.CancelFunc
			ctx, cancel = s.requestContext(ctx, req.Extra)
			defer cancel()
		}
		if m := s.cfg.Metrics; m != nil {
			defer func() {
				outcome := metrics.OutcomeOK
				switch {
				case res == nil || internalResult(res):
					outcome = metrics.OutcomeInternal
				case res.IsError:
					outcome = metrics.OutcomeError
				}
				m.ObserveTool(t.Name, outcome, time.Since(start))
			}()
		}
		var agent string
		out, err := t.Serve(ctx, raw, agentArgs, func(values []json.RawMessage) (hippo.MemoryService, error) {
			a, opts, err := parseAgentArgs(values[0], values[1])
			if err != nil {
				return nil, err
			}
			agent = a
			mo := hippo.MemoryOptions{
				AgentID: a, Scope: opts.Scope, RecallScopes: opts.RecallScopes,
				MessagesTable: s.cfg.MessagesTable, Caller: hippo.CallerMCP,
				Embedder: s.cfg.Embedder, Extractor: s.cfg.Extractor, Classifier: s.cfg.Classifier,
				FallbackExtractor: s.cfg.FallbackExtractor, DiscardText: s.cfg.DiscardText,
			}
			if m := s.cfg.Metrics; m != nil && t.Name == "recall_memories" {
				mo.Stages = m.ObserveRecallStage
			}
			return s.cfg.DB.Service(mo)
		})
		if err != nil {
			return s.internalError(t.Name, rid, err), nil
		}
		s.log.Debug("tool call", "request_id", rid, "tool", t.Name, "agent_id", agent, "is_error", out.IsError,
			"duration", time.Since(start).Round(time.Millisecond))
		return &sdk.CallToolResult{
			Content:           []sdk.Content{&sdk.TextContent{Text: out.Text}},
			StructuredContent: out.Details,
			IsError:           out.IsError,
		}, nil
	}
}

// scopeOptions is how a call's scope argument binds the memory.
type scopeOptions struct {
	Scope        string
	RecallScopes []string // nil: every scope of the agent
}

// agentArgs are the arguments the server adds to every tool's, in the
// order parseAgentArgs takes their values.
var agentArgs = []string{"agent_id", "scope"}

// parseAgentArgs reads the raw values of agent_id (required) and scope;
// nil is a value not given.
func parseAgentArgs(agentID, scope json.RawMessage) (agent string, opts scopeOptions, err error) {
	if agentID == nil {
		return "", opts, hippo.Invalidf("agent_id", "is required")
	}
	if agent, err = stringArg("agent_id", agentID); err != nil {
		return "", opts, err
	}
	if err := hippo.ValidateAgentID(agent); err != nil {
		return "", opts, err
	}
	if scope != nil {
		s, err := stringArg("scope", scope)
		if err != nil {
			return "", opts, err
		}
		if err := hippo.ValidateScope(s); err != nil {
			return "", opts, err
		}
		if s != "" {
			opts = scopeOptions{Scope: s, RecallScopes: []string{s}}
		}
	}
	return agent, opts, nil
}

// stringArg decodes the JSON string v of field strictly. encoding/json
// turns bytes that are not UTF-8 and escaped lone surrogates ("\udc00")
// into U+FFFD, so that different byte strings would name one agent; they
// are refused instead, as the CLI refuses them.
func stringArg(field string, v json.RawMessage) (string, error) {
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return "", hippo.Invalidf(field, "must be a string")
	}
	if !utf8.Valid(v) || loneSurrogate(v) {
		return "", hippo.Invalidf(field, "is not valid UTF-8")
	}
	return s, nil
}

// loneSurrogate reports whether the JSON string token v escapes a UTF-16
// surrogate that is not half of a high-low pair.
func loneSurrogate(v []byte) bool {
	for i := 0; i < len(v); i++ {
		if v[i] != '\\' || i+1 >= len(v) {
			continue
		}
		if v[i+1] != 'u' {
			i++ // an escaped character, \\ included
			continue
		}
		r := hex4(v[i+2:])
		switch {
		case utf16.IsSurrogate(r) && r < 0xdc00: // high: a low one must follow
			if i+7 >= len(v) || v[i+6] != '\\' || v[i+7] != 'u' {
				return true
			}
			if lo := hex4(v[i+8:]); lo < 0xdc00 || lo > 0xdfff {
				return true
			}
			i += 11
		case utf16.IsSurrogate(r):
			return true
		default:
			i += 5
		}
	}
	return false
}

// hex4 is the value of the four hex digits at the start of b, or -1.
func hex4(b []byte) rune {
	if len(b) < 4 {
		return -1
	}
	n, err := strconv.ParseUint(string(b[:4]), 16, 16)
	if err != nil {
		return -1
	}
	return rune(n)
}

// internalResult reports whether r is an internal error's result.
func internalResult(r *sdk.CallToolResult) bool {
	d, ok := r.StructuredContent.(tools.ErrorDetails)
	return ok && r.IsError && d.Error == hippo.EINTERNAL
}

// internalError logs err under a fresh reference and returns a result
// that shows only the reference: internal details (paths, provider
// replies) are for the operator, not the model.
func (s *Server) internalError(tool, ref string, err error) *sdk.CallToolResult {
	s.log.Error("tool call failed", "request_id", ref, "tool", tool, "error", err)
	msg := fmt.Sprintf("internal error in %s (ref %s): Hippo could not complete the call; try again later", tool, ref)
	if kept := (*hippo.KeptError)(nil); errors.As(err, &kept) {
		msg += fmt.Sprintf(". The text was kept as memory %s: recall_memories finds it", kept.ID)
	}
	return &sdk.CallToolResult{
		Content:           []sdk.Content{&sdk.TextContent{Text: msg}},
		StructuredContent: tools.ErrorDetails{Error: hippo.EINTERNAL, Message: msg},
		IsError:           true,
	}
}

// quietHandler turns the SDK's Info records into Debug ones: it logs
// every session's start and end, and under the newest protocol every
// request is a session.
type quietHandler struct{ slog.Handler }

func (h quietHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.Handler.Enabled(ctx, quiet(l))
}

func (h quietHandler) Handle(ctx context.Context, r slog.Record) error {
	r.Level = quiet(r.Level)
	return h.Handler.Handle(ctx, r)
}

func (h quietHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return quietHandler{h.Handler.WithAttrs(attrs)}
}

func (h quietHandler) WithGroup(name string) slog.Handler {
	return quietHandler{h.Handler.WithGroup(name)}
}

func quiet(l slog.Level) slog.Level {
	if l == slog.LevelInfo {
		return slog.LevelDebug
	}
	return l
}
