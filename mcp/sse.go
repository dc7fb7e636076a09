package mcp

import (
	"context"
	"crypto/rand"
	"mime"
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// sseHandler serves the legacy HTTP+SSE transport (MCP 2024-11-05) as
// seed 002 lays it out: GET /sse opens a session whose first event is the
// endpoint "/messages?sessionId=<id>", where the client POSTs its
// messages; replies arrive on the stream. It is the SDK's SSEHandler with
// the seed's endpoint and with each session's unanswered messages
// counted, so that a shutdown can wait for them.
type sseHandler struct {
	s *Server

	mu       sync.Mutex
	sessions map[string]*sseSession
}

// sseSession is one open SSE stream.
type sseSession struct {
	transport *sdk.SSEServerTransport
	session   *sdk.ServerSession // set once connected, under sseHandler.mu

	mu sync.Mutex
	// busy counts messages posted but not yet read, plus calls read but
	// not yet answered.
	busy int
}

func newSSEHandler(s *Server) *sseHandler {
	return &sseHandler{s: s, sessions: map[string]*sseSession{}}
}

// stream serves GET /sse; a POST there is taken as a message.
func (h *sseHandler) stream(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodGet:
	case http.MethodPost:
		h.message(w, r)
		return
	default:
		w.Header().Set("Allow", "GET, POST")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	release, ok := h.s.admitSession(w)
	if !ok {
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("Connection", "keep-alive")
	w.Header().Set("X-Accel-Buffering", "no") // let proxies pass events at once

	id := rand.Text()
	sess := &sseSession{transport: &sdk.SSEServerTransport{
		Endpoint:            "/messages?sessionId=" + id,
		Response:            w,
		MaxRequestBodyBytes: h.s.cfg.MaxBodyBytes,
	}}
	// Registered before Connect sends the endpoint: the client may POST
	// as soon as it reads it.
	h.mu.Lock()
	h.sessions[id] = sess
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		delete(h.sessions, id)
		h.mu.Unlock()
	}()
	ss, err := h.s.mcp.Connect(r.Context(), &countedTransport{sess}, nil)
	release()
	if err != nil {
		h.s.log.Warn("SSE session failed to start", "error", err)
		http.Error(w, "cannot start the session", http.StatusInternalServerError)
		return
	}
	defer ss.Close()
	h.mu.Lock()
	sess.session = ss
	h.mu.Unlock()

	ended := make(chan struct{})
	go func() {
		ss.Wait()
		close(ended)
	}()
	select {
	case <-r.Context().Done(): // the client went away
	case <-ended: // the server closed the session
	}
}

// message serves POST /messages?sessionId=<id> (and sessionid=<id>).
func (h *sseHandler) message(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "method not allowed: POST messages here, open the stream with GET /sse", http.StatusMethodNotAllowed)
		return
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		http.Error(w, "Content-Type must be application/json", http.StatusUnsupportedMediaType)
		return
	}
	q := r.URL.Query()
	id := q.Get("sessionId")
	if id == "" {
		id = q.Get("sessionid")
	}
	if id == "" {
		http.Error(w, "sessionId is required", http.StatusBadRequest)
		return
	}
	h.mu.Lock()
	sess := h.sessions[id]
	h.mu.Unlock()
	if sess == nil {
		http.Error(w, "session not found", http.StatusNotFound)
		return
	}
	sess.add(1)
	sw := &statusWriter{ResponseWriter: w}
	sess.transport.ServeHTTP(sw, r)
	if sw.status != http.StatusAccepted {
		sess.add(-1) // refused: nothing was queued
	}
}

// busy reports how many messages the open sessions have yet to answer.
func (h *sseHandler) busy() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, sess := range h.sessions {
		sess.mu.Lock()
		n += sess.busy
		sess.mu.Unlock()
	}
	return n
}

// closeAll closes every session, which ends its stream.
func (h *sseHandler) closeAll() {
	h.mu.Lock()
	var open []*sdk.ServerSession
	for _, sess := range h.sessions {
		if sess.session != nil {
			open = append(open, sess.session)
		}
	}
	h.mu.Unlock()
	for _, ss := range open {
		ss.Close()
	}
}

func (s *sseSession) add(n int) {
	s.mu.Lock()
	s.busy += n
	s.mu.Unlock()
}

// countedTransport is the session's SSE transport, counting what its
// connection reads and answers.
type countedTransport struct{ sess *sseSession }

func (t *countedTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	conn, err := t.sess.transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &countedConn{Connection: conn, sess: t.sess}, nil
}

// SupportsProtocolVersion keeps the SSE transport's own answer: it cannot
// serve the newest protocol revisions.
func (t *countedTransport) SupportsProtocolVersion(version string) bool {
	return t.sess.transport.SupportsProtocolVersion(version)
}

type countedConn struct {
	sdk.Connection
	sess *sseSession
}

func (c *countedConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if err == nil {
		n := -1 // read off the queue
		if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
			n = 0 // and now a call awaiting its answer
		}
		c.sess.add(n)
	}
	return msg, err
}

func (c *countedConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	err := c.Connection.Write(ctx, msg)
	if _, ok := msg.(*jsonrpc.Response); ok {
		c.sess.add(-1)
	}
	return err
}

// statusWriter records the status of a response.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}
