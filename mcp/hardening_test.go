package mcp_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hippo-mem/hippo/mcp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The hardening tests run the real http.Server (Serve on a loopback
// listener), with its timeouts shortened, against clients that misbehave
// at the TCP level. Auth, Origin and body limits on the handler are in
// http_test.go.

// dialRaw opens a TCP connection to the server at url (http://host:port).
func dialRaw(t *testing.T, url string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// cutOff reports how long the server took to close conn, or fails the test
// if it is still open after limit. Anything the server sends (such as a
// 408) is read and returned.
func cutOff(t *testing.T, conn net.Conn, limit time.Duration) (time.Duration, string) {
	t.Helper()
	start := time.Now()
	conn.SetReadDeadline(start.Add(limit))
	got, err := io.ReadAll(conn)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatalf("the connection is still open after %v", limit)
	}
	return time.Since(start), string(got)
}

// TestSlowloris sends request headers a byte at a time: the server drops
// the connection once ReadHeaderTimeout passes, however steadily bytes
// trickle in, while other clients are served meanwhile.
func TestSlowloris(t *testing.T) {
	e := newEnv(t)
	e.server.SetReadHeaderTimeout(500 * time.Millisecond)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	url, _ := serve(t, ctx, e.server)

	const slow = 40
	var wg sync.WaitGroup
	took := make(chan time.Duration, slow)
	for range slow {
		conn := dialRaw(t, url)
		wg.Add(1)
		go func() {
			defer wg.Done()
			header := "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: " + strings.Repeat("a", 1000)
			go func() {
				for i := 0; i < len(header); i++ {
					if _, err := conn.Write([]byte{header[i]}); err != nil {
						return // cut off
					}
					time.Sleep(20 * time.Millisecond)
				}
			}()
			d, _ := cutOff(t, conn, 5*time.Second)
			took <- d
		}()
	}
	// A well-behaved client is served while the slow ones hang on.
	cs, err := e.client(&sdk.StreamableClientTransport{Endpoint: url + "/mcp", MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	ok(t, cs, "store_memory", map[string]any{"agent_id": "a", "content": "served during a slowloris attack"})
	resp, err := http.Get(url + "/health")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("health during the attack: %v %v", resp, err)
	}
	resp.Body.Close()
	wg.Wait()
	close(took)
	var longest time.Duration
	for d := range took {
		longest = max(longest, d)
	}
	if longest > 2*time.Second {
		t.Errorf("a slow client held its connection for %v with a 500 ms header timeout", longest)
	}
	t.Logf("%d slow-header clients cut off, the longest after %v", slow, longest.Round(time.Millisecond))
}

// TestSlowBody sends headers promptly and the body a byte at a time: the
// read timeout ends the request.
func TestSlowBody(t *testing.T) {
	e := newEnv(t)
	e.server.SetReadTimeout(700 * time.Millisecond)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	url, _ := serve(t, ctx, e.server)
	conn := dialRaw(t, url)
	body := `{"jsonrpc":"2.0","id":1,"method":"ping"}` + strings.Repeat(" ", 500)
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n", len(body))
	go func() {
		for i := 0; i < len(body); i++ {
			if _, err := conn.Write([]byte{body[i]}); err != nil {
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	d, reply := cutOff(t, conn, 5*time.Second)
	if d > 3*time.Second {
		t.Errorf("a slow body held the connection for %v with a 700 ms read timeout", d)
	}
	if strings.HasPrefix(reply, "HTTP/1.1 200") {
		t.Errorf("a body sent too slowly was served: %q", reply)
	}
}

// TestHeaderLimit sends 100 KB of headers: refused with 431, not read on.
func TestHeaderLimit(t *testing.T) {
	e := newEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	url, _ := serve(t, ctx, e.server)
	req, _ := http.NewRequest(http.MethodPost, url+"/mcp", strings.NewReader(initialize))
	for i := range 100 {
		req.Header.Set(fmt.Sprintf("X-Pad-%d", i), strings.Repeat("h", 1000))
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("100 KB of headers: %d, want 431", resp.StatusCode)
	}
}

// TestAuthBeforeBody: without the token, a request is refused before its
// body is read, however large it claims to be; with a token configured,
// every MCP path and method wants it.
func TestAuthBeforeBody(t *testing.T) {
	e := newEnv(t, func(c *mcp.Config) { c.AuthToken = "t0ken" })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	url, _ := serve(t, ctx, e.server)
	conn := dialRaw(t, url)
	// Claims 1 GB and sends none of it: the answer comes at once.
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", 1<<30)
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "HTTP/1.1 401") {
		t.Errorf("unauthenticated 1 GB request: %q %v, want 401 at once", line, err)
	}
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodDelete} {
		for _, path := range []string{"/mcp", "/sse", "/messages?sessionId=x"} {
			req, _ := http.NewRequest(m, url+path, strings.NewReader(initialize))
			req.Header.Set("Authorization", "Bearer t0ken-not")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusUnauthorized {
				t.Errorf("%s %s with a wrong token: %d, want 401", m, path, resp.StatusCode)
			}
		}
	}
}
