package mcp_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hippo-mem/hippo/mcp"
	"github.com/hippo-mem/hippo/mock"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// serve runs Serve on a fresh loopback listener and returns its base URL
// and the channel Serve's result arrives on.
func serve(t *testing.T, ctx context.Context, s *mcp.Server) (string, <-chan error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	return "http://" + ln.Addr().String(), done
}

// TestGracefulShutdown cancels Serve's context while a tool call runs
// and SSE and Streamable HTTP sessions are open: new connections are
// refused, the call completes, the streams end and Serve returns nil.
func TestGracefulShutdown(t *testing.T) {
	e := newEnv(t)
	// Streams must outlive the read timeout; guard lifts it.
	e.server.SetReadTimeout(300 * time.Millisecond)
	started, release := make(chan struct{}, 2), make(chan struct{})
	e.ai.Chat = func(mock.ChatRequest) (string, int) {
		started <- struct{}{}
		<-release
		return `{"facts":[{"fact":"User finishes what they start","intensity":0.6}]}`, http.StatusOK
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	url, done := serve(t, ctx, e.server)

	sse, err := e.client(&sdk.SSEClientTransport{Endpoint: url + "/sse"})
	if err != nil {
		t.Fatal(err)
	}
	stream, err := e.client(&sdk.StreamableClientTransport{Endpoint: url + "/mcp", MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(700 * time.Millisecond) // past the read timeout
	ok(t, sse, "store_memory", map[string]any{"agent_id": "a", "content": "still connected after the read timeout"})
	ok(t, stream, "store_memory", map[string]any{"agent_id": "a", "content": "streamable still connected too"})

	type outcome struct {
		r   result
		err error
	}
	// One call in flight on each transport.
	inflight := make(chan outcome, 2)
	for i, cs := range []*sdk.ClientSession{sse, stream} {
		go func() {
			r, err := try(cs, "remember_facts", map[string]any{"agent_id": fmt.Sprint("agent-", i), "text": "I always finish what I start"})
			inflight <- outcome{r, err}
		}()
	}
	<-started
	<-started
	cancel()

	// Serve waits for the call; meanwhile nothing new is accepted.
	time.Sleep(200 * time.Millisecond)
	select {
	case err := <-done:
		t.Fatalf("Serve returned %v with a call in flight", err)
	default:
	}
	if resp, err := http.Get(url + "/health"); err == nil {
		resp.Body.Close()
		t.Errorf("a new connection was served during shutdown: %d", resp.StatusCode)
	}

	close(release)
	for range 2 {
		if o := <-inflight; o.err != nil || o.r.IsError || !strings.Contains(o.r.Text, "Learned 1 fact") {
			t.Errorf("in-flight call: %+v %v", o.r, o.err)
		}
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return after the in-flight call finished")
	}
}

func TestBindRefused(t *testing.T) {
	e := newEnv(t)
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0"} {
		err := e.server.ListenAndServe(context.Background(), addr)
		if err == nil || !strings.Contains(err.Error(), "without an auth token") {
			t.Errorf("ListenAndServe(%q) without a token: %v", addr, err)
		}
	}
	ln, err := net.Listen("tcp", "0.0.0.0:0")
	if err != nil {
		t.Skip("cannot listen on all interfaces:", err)
	}
	if err := e.server.Serve(context.Background(), ln); err == nil || !strings.Contains(err.Error(), "refusing") {
		t.Errorf("Serve on %s without a token: %v", ln.Addr(), err)
	}

	// A token or Insecure allows it.
	for name, edit := range map[string]func(*mcp.Config){
		"token":    func(c *mcp.Config) { c.AuthToken = "t0ken" },
		"insecure": func(c *mcp.Config) { c.Insecure = true },
	} {
		s := newEnv(t, edit).server
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- s.ListenAndServe(ctx, "0.0.0.0:0") }()
		time.Sleep(100 * time.Millisecond)
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("%s: %v", name, err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: ListenAndServe did not return", name)
		}
	}
}

func TestHTTPServer(t *testing.T) {
	srv := newEnv(t).server.HTTPServer(mcp.DefaultAddr)
	if srv.Addr != "127.0.0.1:3100" || srv.ReadHeaderTimeout == 0 || srv.ReadTimeout == 0 ||
		srv.IdleTimeout == 0 || srv.MaxHeaderBytes == 0 || srv.WriteTimeout != 0 || srv.Handler == nil {
		t.Errorf("HTTPServer = %+v", srv)
	}
}
