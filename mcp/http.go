package mcp

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/hippo-mem/hippo"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Handler serves the server over HTTP:
//
//	/mcp                           Streamable HTTP (the current transport)
//	GET /sse                       legacy HTTP+SSE: opens a session; its
//	                               first event is the endpoint
//	                               /messages?sessionId=<id>
//	POST /messages?sessionId=<id>  a message for that session; the reply
//	                               arrives on the stream (POST /sse with
//	                               the same query works too)
//	GET /health                    {"status":"ok","version":...,"db":"ok","decay_model":"hippo"}
//	/ui/                           Config.UI, when set
//
// Every MCP endpoint checks the Origin and Host headers and, when
// Config.AuthToken is set, the bearer token, and bounds the request body.
// The same Handler must serve every request: sessions live in it.
func (s *Server) Handler() http.Handler { return s.handler }

func (s *Server) newHandler() http.Handler {
	// A call's answer is the POST's application/json body, which the
	// specification lets a server choose and every client must accept:
	// one write, where an event stream takes a flushed event and a closing
	// chunk. Hippo's tools send nothing before their result; a
	// subscriptions/listen stream stays an event stream (the SDK keeps it
	// so), as do GET streams and the legacy transport.
	streamable := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.mcp },
		&sdk.StreamableHTTPOptions{JSONResponse: true, Logger: s.sdkLog, MaxRequestBodyBytes: s.cfg.MaxBodyBytes, SessionTimeout: s.cfg.SessionTimeout})
	s.sse = newSSEHandler(s)

	mux := http.NewServeMux()
	mux.Handle("/mcp", s.guard(s.oneCall(s.boundSessions(streamable))))
	mux.Handle("/sse", s.guard(http.HandlerFunc(s.sse.stream)))
	mux.Handle("/messages", s.guard(http.HandlerFunc(s.sse.message)))
	mux.HandleFunc("GET /health", s.health)
	if s.cfg.Metrics != nil {
		mux.Handle("GET /metrics", s.guard(s.cfg.Metrics.Handler()))
	}
	if s.cfg.UI != nil {
		// The UI signs browsers in and checks CSRF tokens itself.
		mux.Handle("/ui/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if s.checkOriginHost(w, r) {
				s.cfg.UI.ServeHTTP(w, r)
			}
		}))
	}
	return mux
}

// guard applies the checks every MCP endpoint needs, cheapest first:
// Origin, bearer token, body size. It reads the body whole (it is small),
// so an oversized one is refused with 413 whatever the transport does
// with it. (Once the body is read, net/http lifts the read deadline: the
// server's ReadTimeout does not cut SSE streams or long tool calls.)
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.checkOriginHost(w, r) {
			return
		}
		if !s.checkToken(w, r) {
			return
		}
		r.Header.Del(callHeader) // only oneCall sets it
		max := s.cfg.MaxBodyBytes
		if r.ContentLength > max {
			tooLarge(w, max)
			return
		}
		var body []byte
		if r.Body != nil && r.Body != http.NoBody {
			var err error
			body, err = io.ReadAll(http.MaxBytesReader(w, r.Body, max))
			if err != nil {
				var mbe *http.MaxBytesError
				if errors.As(err, &mbe) {
					tooLarge(w, max)
					return
				}
				http.Error(w, "cannot read request body", http.StatusBadRequest)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			r = r.WithContext(context.WithValue(r.Context(), bodyKey{}, body))
		}
		if r.Method != http.MethodGet && !isListen(body) {
			// Calls are answered within their POST (Streamable HTTP), or
			// counted by their SSE session; streams are not work.
			s.requests.Add(1)
			defer s.requests.Add(-1)
		}
		next.ServeHTTP(w, r)
	})
}

// bodyKey is the context key of a request's body, once guard has read it.
type bodyKey struct{}

// callHeader carries, from a Streamable HTTP POST to the tool calls it
// holds, the key under which oneCall keeps the request's context.
const callHeader = "X-Hippo-Call"

// oneCall bounds what one Streamable HTTP request costs and ties its call
// to it. A JSON-RPC batch of more than one request is refused whole (400,
// error -32600): one POST runs at most one call. And the POST's context,
// which ends when the client goes away, is kept under a fresh key that
// the call's handler finds in the request's headers (toolHandler): the
// SDK runs calls under the session's context, so a call whose client gave
// up would otherwise run on for nobody.
func (s *Server) oneCall(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		body, _ := r.Context().Value(bodyKey{}).([]byte)
		if n := batchRequests(body); n > 1 {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{
				"code":    -32600,
				"message": fmt.Sprintf("invalid request: a batch of %d calls; Hippo runs one call per request: send each in a POST of its own", n),
			}})
			return
		}
		key := rand.Text()
		s.calls.Store(key, r.Context())
		defer s.calls.Delete(key)
		r.Header.Set(callHeader, key)
		next.ServeHTTP(w, r)
	})
}

// batchRequests is the number of requests (messages with a method and an
// ID, not notifications) in body when it is a JSON-RPC batch, else 0.
func batchRequests(body []byte) int {
	body = bytes.TrimSpace(body)
	if len(body) == 0 || body[0] != '[' {
		return 0
	}
	var batch []struct {
		Method string          `json:"method"`
		ID     json.RawMessage `json:"id"`
	}
	if json.Unmarshal(body, &batch) != nil {
		return 0 // the SDK answers what does not parse
	}
	n := 0
	for _, m := range batch {
		if m.Method != "" && len(m.ID) > 0 && string(m.ID) != "null" {
			n++
		}
	}
	return n
}

// requestContext is ctx, ended also when the HTTP request that carried
// the call ends (oneCall), when there is one.
func (s *Server) requestContext(ctx context.Context, extra *sdk.RequestExtra) (context.Context, context.CancelFunc) {
	if extra == nil || extra.Header == nil {
		return ctx, func() {}
	}
	v, ok := s.calls.Load(extra.Header.Get(callHeader))
	if !ok {
		return ctx, func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(v.(context.Context), cancel)
	return ctx, func() { stop(); cancel() }
}

// boundSessions admits a request that opens a Streamable HTTP session (an
// initialize, or a batch, posted without Mcp-Session-Id) only while fewer
// than Config.MaxSessions are open (admitSession).
func (s *Server) boundSessions(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := r.Context().Value(bodyKey{}).([]byte)
		if r.Method != http.MethodPost || r.Header.Get("Mcp-Session-Id") != "" || !opensSession(body) {
			next.ServeHTTP(w, r)
			return
		}
		release, ok := s.admitSession(w)
		if !ok {
			return
		}
		defer release()
		next.ServeHTTP(w, r)
	})
}

// opensSession reports whether body, posted without a session ID, may
// open a session that outlives its request: an initialize request, or a
// batch (which may hold one).
func opensSession(body []byte) bool {
	body = bytes.TrimSpace(body)
	if len(body) > 0 && body[0] == '[' {
		return true
	}
	var req struct {
		Method string `json:"method"`
	}
	return json.Unmarshal(body, &req) == nil && req.Method == "initialize"
}

// admitSession lets one session open, when fewer than Config.MaxSessions
// are: the caller opens it, then calls release. Sessions open one at a
// time (an initialize takes no database work), so the bound holds under
// concurrent clients. Past the bound it answers 503, saying why.
func (s *Server) admitSession(w http.ResponseWriter) (release func(), ok bool) {
	s.sessionMu.Lock()
	n := 0
	for range s.mcp.Sessions() {
		n++
	}
	if n < s.cfg.MaxSessions {
		return s.sessionMu.Unlock, true
	}
	s.sessionMu.Unlock()
	if now := time.Now().Unix(); s.refusedAt.Swap(now) < now-60 { // at most once a minute
		s.log.Warn("refusing new MCP sessions: the bound is reached", "sessions", n, "max_sessions", s.cfg.MaxSessions,
			"session_timeout", s.cfg.SessionTimeout)
	}
	idle := "idle ones are never closed (the session timeout is off)"
	if s.cfg.SessionTimeout > 0 {
		idle = fmt.Sprintf("idle ones close after %v", s.cfg.SessionTimeout)
	}
	w.Header().Set("Retry-After", "60")
	http.Error(w, fmt.Sprintf("too many sessions: %d MCP sessions are open, the most this server allows (--max-sessions); "+
		"close the sessions you no longer use (DELETE /mcp with their Mcp-Session-Id) or try again later: %s", n, idle),
		http.StatusServiceUnavailable)
	return nil, false
}

// Protect wraps h, served on a listener of its own (hippo serve --pprof
// serves net/http/pprof, which shows the command line and memory), in the
// checks of the MCP endpoints: the Origin and Host headers (DNS
// rebinding) and, when Config.AuthToken is set, the bearer token.
func (s *Server) Protect(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.checkOriginHost(w, r) && s.checkToken(w, r) {
			h.ServeHTTP(w, r)
		}
	})
}

// checkToken refuses, with 401, a request without the bearer token when
// Config.AuthToken is set.
func (s *Server) checkToken(w http.ResponseWriter, r *http.Request) bool {
	if s.cfg.AuthToken == "" || s.authorized(r) {
		return true
	}
	w.Header().Set("WWW-Authenticate", `Bearer realm="hippo"`)
	http.Error(w, "unauthorized: a valid bearer token is required", http.StatusUnauthorized)
	return false
}

// checkOriginHost refuses, with 403, a request from a browser origin not
// allowed or, on a loopback listener, naming another host.
func (s *Server) checkOriginHost(w http.ResponseWriter, r *http.Request) bool {
	if origin := r.Header.Get("Origin"); origin != "" && !s.originAllowed(origin) {
		http.Error(w, "forbidden: origin not allowed", http.StatusForbidden)
		return false
	}
	// A page that rebinds its own domain name to 127.0.0.1 reaches a
	// loopback listener with its domain in Host.
	if local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && isLoopbackAddr(local) && !isLoopbackHost(hostOnly(r.Host)) {
		http.Error(w, "forbidden: invalid Host header", http.StatusForbidden)
		return false
	}
	return true
}

// isListen reports whether body is a subscriptions/listen request: a
// POST that stays open as a notification stream. A body that neither
// holds the method's name nor escapes anything (JSON may write the name
// with \/ or \u escapes) cannot be one, and is not parsed: a tool call's
// arguments would be parsed whole for nothing.
func isListen(body []byte) bool {
	if !bytes.Contains(body, []byte("subscriptions/listen")) && bytes.IndexByte(body, '\\') < 0 {
		return false
	}
	var req struct {
		Method string `json:"method"`
	}
	return json.Unmarshal(body, &req) == nil && req.Method == "subscriptions/listen"
}

func tooLarge(w http.ResponseWriter, max int64) {
	http.Error(w, fmt.Sprintf("request body too large: at most %d bytes", max), http.StatusRequestEntityTooLarge)
}

// authorized reports whether r carries the bearer token. Both sides are
// hashed first so the comparison takes the same time whatever the length.
func (s *Server) authorized(r *http.Request) bool {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	got := sha256.Sum256([]byte(strings.TrimSpace(token)))
	want := sha256.Sum256([]byte(s.cfg.AuthToken))
	return subtle.ConstantTimeCompare(got[:], want[:]) == 1
}

// originAllowed reports whether a browser at origin may call the server:
// loopback origins always (a page served from this machine), others only
// when listed in Config.AllowedOrigins. This is the DNS-rebinding
// protection the MCP specification asks for.
func (s *Server) originAllowed(origin string) bool {
	o, err := normalizeOrigin(origin)
	if err != nil {
		return false
	}
	if s.origins[o] {
		return true
	}
	u, _ := url.Parse(o)
	return isLoopbackHost(u.Hostname())
}

// ParseOrigin checks an origin to allow besides loopback ones
// (Config.AllowedOrigins) and returns it normalized: scheme://host[:port],
// the default port dropped. Its error says what is wrong, for a command
// line to report as a usage error.
func ParseOrigin(origin string) (string, error) { return normalizeOrigin(origin) }

// parseOrigins normalizes the allowed origins.
func parseOrigins(list []string) (map[string]bool, error) {
	out := make(map[string]bool, len(list))
	for _, o := range list {
		n, err := normalizeOrigin(o)
		if err != nil {
			return nil, fmt.Errorf("mcp: allowed origin %q: %w", o, err)
		}
		out[n] = true
	}
	return out, nil
}

// normalizeOrigin returns origin as lower-case scheme://host[:port], with
// the default port dropped.
func normalizeOrigin(origin string) (string, error) {
	u, err := url.Parse(strings.TrimSuffix(strings.TrimSpace(origin), "/"))
	if err != nil {
		return "", err
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return "", errors.New("must be an http or https origin such as https://app.example.com")
	}
	if u.Host == "" || u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return "", errors.New("must be scheme://host[:port] with nothing after it")
	}
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	return scheme + "://" + host, nil
}

// isLoopbackHost reports whether host is localhost or a loopback address.
func isLoopbackHost(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip, err := netip.ParseAddr(strings.Trim(host, "[]"))
	return err == nil && ip.Unmap().IsLoopback()
}

// hostOnly strips the port from a Host header.
func hostOnly(hostport string) string {
	if host, _, err := net.SplitHostPort(hostport); err == nil {
		return host
	}
	return hostport
}

// isLoopbackAddr reports whether a listener address only accepts local
// connections.
func isLoopbackAddr(addr net.Addr) bool {
	switch a := addr.(type) {
	case *net.TCPAddr:
		return a.IP.IsLoopback()
	case *net.UnixAddr:
		return true
	}
	host, _, err := net.SplitHostPort(addr.String())
	return err == nil && isLoopbackHost(host)
}

// health reports that the server runs, whether the database answers, and
// the decay model it opened the database with.
func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	body := map[string]string{"status": "ok", "version": s.cfg.Version, "db": "ok", "decay_model": s.cfg.DB.Config().Decay.String()}
	status := http.StatusOK
	if err := s.cfg.DB.Ping(ctx); err != nil {
		s.log.Warn("health: database does not answer", "error", err)
		body["status"], body["db"] = "error", "error"
		if hippo.ErrorCode(err) == hippo.EUNAVAILABLE {
			// It answers but cannot serve every call: a full disk, a
			// damaged file. The message says which.
			body["db"], body["error"] = "unavailable", hippo.ErrorMessage(err)
		}
		status = http.StatusServiceUnavailable
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(body)
}
