package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/internal/pgtest"
	"github.com/hippo-mem/hippo/llm"
	"github.com/hippo-mem/hippo/mcp"
	"github.com/hippo-mem/hippo/mock"
	"github.com/hippo-mem/hippo/openai"
	"github.com/hippo-mem/hippo/postgres"
	"github.com/hippo-mem/hippo/sqlite"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

const testDim = 64

// env is a database, a fake OpenAI server, the MCP server over them and an
// httptest server of its Handler.
type env struct {
	t      *testing.T
	ai     *mock.Server
	db     testStore
	lite   *sqlite.DB // db when it is SQLite, else nil
	server *mcp.Server
	http   *httptest.Server
}

// newEnv builds an env; edit may change the server's Config.
func newEnv(t *testing.T, edit ...func(*mcp.Config)) *env {
	t.Helper()
	ai := mock.NewServer(t, testDim)
	client := openai.Config{BaseURL: ai.BaseURL(), APIKey: "sk-test", MaxRetries: -1}
	embCfg, chatCfg := client, client
	embCfg.Model, chatCfg.Model = "mock-embed", "mock-chat"
	emb, err := openai.NewEmbedder(embCfg)
	if err != nil {
		t.Fatal(err)
	}
	chat, err := openai.NewLLM(chatCfg)
	if err != nil {
		t.Fatal(err)
	}
	db, lite := openTestStore(t)

	cfg := mcp.Config{
		DB: db, Embedder: emb, Extractor: llm.NewExtractor(chat), Classifier: llm.NewClassifier(chat),
		Version: "1.2.3-test",
	}
	for _, f := range edit {
		f(&cfg)
	}
	server, err := mcp.NewServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(server.Handler())
	t.Cleanup(hs.Close)
	return &env{t: t, ai: ai, db: db, lite: lite, server: server, http: hs}
}

// testStore is what the tests need of the server's store.
type testStore interface {
	hippo.Store
	hippo.Admin
	hippo.Exporter
}

// openTestStore opens the store the suite runs on: a new SQLite file, or
// with HIPPO_TEST_STORE=postgres a PostgreSQL database of its own
// (internal/pgtest), so that the same suite checks both stores:
//
//	HIPPO_TEST_STORE=postgres go test ./mcp/
func openTestStore(t *testing.T) (testStore, *sqlite.DB) {
	t.Helper()
	ctx := context.Background()
	if os.Getenv("HIPPO_TEST_STORE") == "postgres" {
		db, err := postgres.Open(ctx, pgtest.New(t), postgres.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db, nil
	}
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "hippo.db"), sqlite.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, db
}

// transports names the ways a test client can reach the server.
var transports = []string{"streamable", "sse", "stdio"}

// connect opens a client session over the named transport; headers are
// added to every HTTP request.
func (e *env) connect(transport string, headers ...string) *sdk.ClientSession {
	e.t.Helper()
	var t sdk.Transport
	hc := &http.Client{Transport: headerTransport(headers)}
	switch transport {
	case "streamable":
		t = &sdk.StreamableClientTransport{Endpoint: e.http.URL + "/mcp", HTTPClient: hc, MaxRetries: -1}
	case "sse":
		t = &sdk.SSEClientTransport{Endpoint: e.http.URL + "/sse", HTTPClient: hc}
	case "stdio":
		t = e.stdio(nil)
	default:
		e.t.Fatalf("unknown transport %q", transport)
	}
	cs, err := e.client(t)
	if err != nil {
		e.t.Fatalf("connect over %s: %v", transport, err)
	}
	return cs
}

func (e *env) client(t sdk.Transport) (*sdk.ClientSession, error) {
	// Not a context with a timeout: the SSE transport ties its stream to
	// the context it connects with.
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "hippo-test", Version: "0"}, nil).Connect(context.Background(), t, nil)
	if err == nil {
		e.t.Cleanup(func() { cs.Close() })
	}
	return cs, err
}

// stdio runs ServeStdio over a pair of pipes and returns the client's
// side. Everything the server writes is also copied to out, when set.
// The test fails if ServeStdio returns an error.
func (e *env) stdio(out io.Writer) sdk.Transport {
	e.t.Helper()
	clientR, serverW := io.Pipe()
	serverR, clientW := io.Pipe()
	var w io.Writer = serverW
	if out != nil {
		w = io.MultiWriter(out, serverW) // out first: the client may act on what it reads at once
	}
	done := make(chan error, 1)
	go func() {
		err := e.server.ServeStdio(context.Background(), serverR, w)
		serverW.Close()
		done <- err
	}()
	e.t.Cleanup(func() {
		clientW.Close()
		select {
		case err := <-done:
			if err != nil {
				e.t.Errorf("ServeStdio: %v", err)
			}
		case <-time.After(5 * time.Second):
			e.t.Error("ServeStdio did not return after its input closed")
		}
	})
	return &sdk.IOTransport{Reader: clientR, Writer: clientW}
}

// headerTransport adds header pairs ("Authorization", "Bearer x", ...) to
// every request.
type headerTransport []string

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(h) > 0 {
		r = r.Clone(r.Context())
		for i := 0; i+1 < len(h); i += 2 {
			r.Header.Set(h[i], h[i+1])
		}
	}
	return http.DefaultTransport.RoundTrip(r)
}

// result is a tool call's outcome as a client sees it.
type result struct {
	Text    string
	Details map[string]any
	IsError bool
}

// call runs a tool and fails the test on a protocol error.
func call(t testing.TB, cs *sdk.ClientSession, name string, args map[string]any) result {
	t.Helper()
	r, err := try(cs, name, args)
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	return r
}

// try runs a tool; it is safe to use outside the test's goroutine.
func try(cs *sdk.ClientSession, name string, args map[string]any) (result, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return result{}, fmt.Errorf("protocol error: %w", err)
	}
	r := result{IsError: res.IsError}
	if len(res.Content) != 1 {
		return r, fmt.Errorf("%d content items, want 1", len(res.Content))
	}
	text, ok := res.Content[0].(*sdk.TextContent)
	if !ok {
		return r, fmt.Errorf("content is %T, want text", res.Content[0])
	}
	r.Text = text.Text
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(b, &r.Details); err != nil || r.Details == nil {
		return r, fmt.Errorf("structuredContent %s is not an object", b)
	}
	return r, nil
}

// ok is call that also requires success.
func ok(t testing.TB, cs *sdk.ClientSession, name string, args map[string]any) result {
	t.Helper()
	r := call(t, cs, name, args)
	if r.IsError {
		t.Fatalf("%s %v: unexpected error result: %s", name, args, r.Text)
	}
	return r
}

// fails is call that requires an error result with the given code.
func fails(t testing.TB, cs *sdk.ClientSession, name string, args map[string]any, code string, text ...string) result {
	t.Helper()
	r := call(t, cs, name, args)
	if !r.IsError {
		t.Fatalf("%s %v: succeeded (%s), want an error result", name, args, r.Text)
	}
	if r.Details["error"] != code {
		t.Errorf("%s %v: error code %v, want %q (%s)", name, args, r.Details["error"], code, r.Text)
	}
	for _, p := range text {
		if !strings.Contains(r.Text, p) {
			t.Errorf("%s: error text %q lacks %q", name, r.Text, p)
		}
	}
	return r
}

// recalled returns the contents recall_memories finds for query.
func recalled(t testing.TB, cs *sdk.ClientSession, args map[string]any) []string {
	t.Helper()
	args["limit"] = 50
	r := ok(t, cs, "recall_memories", args)
	var out []string
	for _, x := range r.Details["results"].([]any) {
		out = append(out, x.(map[string]any)["content"].(string))
	}
	return out
}

// post sends a raw JSON-RPC body to path with header pairs and returns
// the response.
func (e *env) post(path, body string, headers ...string) *http.Response {
	e.t.Helper()
	req, err := http.NewRequest(http.MethodPost, e.http.URL+path, strings.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i] == "Host" {
			req.Host = headers[i+1]
		} else {
			req.Header.Set(headers[i], headers[i+1])
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { resp.Body.Close() })
	return resp
}

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`

type sdkTool = sdk.Tool

// logBuffer collects log output; safe for concurrent use.
type logBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// newTestLogger logs text lines at every level into a buffer.
func newTestLogger() (*slog.Logger, *logBuffer) {
	var b logBuffer
	return slog.New(slog.NewTextHandler(&b, &slog.HandlerOptions{Level: slog.LevelDebug})), &b
}

// stubEmbedder satisfies NewServer's checks; it is never called.
type stubEmbedder struct{}

func (stubEmbedder) Embed(context.Context, []string) ([][]float32, error) { return nil, nil }
func (stubEmbedder) Model() string                                        { return "stub" }
func (stubEmbedder) Dimension() int                                       { return 0 }
