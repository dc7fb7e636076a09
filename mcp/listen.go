package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// DefaultAddr is where the HTTP server listens unless told otherwise:
// loopback only.
const DefaultAddr = "127.0.0.1:3100"

// HTTP server limits. There is no write timeout: SSE streams and
// streamed responses stay open as long as their sessions.
const (
	readHeaderTimeout = 10 * time.Second
	// readTimeout bounds reading a request and its body; net/http lifts
	// it once the body is read, so streams outlive it.
	readTimeout    = 60 * time.Second
	idleTimeout    = 120 * time.Second
	maxHeaderBytes = 64 << 10
	// streamLinger is how long streams stay open at shutdown after the
	// last answer was written.
	streamLinger = 100 * time.Millisecond
)

// HTTPServer returns an http.Server serving Handler on addr, with header,
// read and idle timeouts and a header size limit.
func (s *Server) HTTPServer(addr string) *http.Server {
	return &http.Server{
		Addr:              addr,
		Handler:           s.handler,
		ReadHeaderTimeout: s.readHeaderTimeout,
		ReadTimeout:       s.readTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
}

// ListenAndServe listens on addr ("" means DefaultAddr) and serves until
// ctx is cancelled; see Serve.
func (s *Server) ListenAndServe(ctx context.Context, addr string) error {
	if addr == "" {
		addr = DefaultAddr
	}
	if err := s.checkBind(addr); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("mcp: listen on %s: %w", addr, err)
	}
	return s.Serve(ctx, ln)
}

// Serve serves HTTP on ln until ctx is cancelled, then shuts down
// gracefully: it stops accepting connections, waits until every call in
// flight has been answered (at most Config.ShutdownTimeout), ends the open
// streams and returns nil. It refuses a listener on a non-loopback address
// when no AuthToken is set, unless Config.Insecure. Serve closes ln.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	if !isLoopbackAddr(ln.Addr()) {
		if err := s.checkBind(ln.Addr().String()); err != nil {
			ln.Close()
			return err
		}
	}
	// Requests run under streams, cancelled once the calls are answered:
	// Shutdown alone would wait forever on streams.
	streams, endStreams := context.WithCancel(context.WithoutCancel(ctx))
	defer endStreams()
	srv := s.HTTPServer(ln.Addr().String())
	srv.BaseContext = func(net.Listener) context.Context { return streams }

	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	s.log.Info("serving MCP over HTTP", "addr", ln.Addr().String(), "auth", s.cfg.AuthToken != "")

	select {
	case err := <-served:
		return fmt.Errorf("mcp: serve: %w", err)
	case <-ctx.Done():
	}
	s.log.Info("shutting down: finishing in-flight calls", "timeout", s.cfg.ShutdownTimeout)
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.ShutdownTimeout)
	defer cancel()
	shut := make(chan error, 1)
	go func() { shut <- srv.Shutdown(sctx) }()
	if err := s.waitIdle(sctx); err != nil {
		s.log.Warn("shutdown: abandoning calls in flight", "error", err)
	} else {
		// Answers are on the wire; give clients a moment to take them in
		// before their streams end (the SDK's own SSE client drops a
		// message that arrives together with the end of its stream).
		select {
		case <-time.After(streamLinger):
		case <-sctx.Done():
		}
	}
	s.sse.closeAll()
	endStreams()
	if err := <-shut; err != nil {
		srv.Close()
		s.log.Warn("shutdown: closed remaining connections", "error", err)
	}
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("mcp: serve: %w", err)
	}
	s.log.Info("HTTP server stopped")
	return nil
}

// waitIdle waits until no HTTP request but streams is in progress and no
// SSE session has a message to answer, or ctx is done.
func (s *Server) waitIdle(ctx context.Context) error {
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		n := s.requests.Load() + int64(s.sse.busy())
		if n == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%d requests or messages unanswered: %w", n, ctx.Err())
		case <-tick.C:
		}
	}
}

// checkBind refuses to expose an unauthenticated server beyond this
// machine.
func (s *Server) checkBind(addr string) error {
	if s.cfg.AuthToken != "" || s.cfg.Insecure {
		return nil
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("mcp: bad listen address %q: %w", addr, err)
	}
	if isLoopbackHost(host) {
		return nil
	}
	if host == "" {
		host = "all interfaces"
	}
	return fmt.Errorf("mcp: refusing to listen on %s (%s) without an auth token: anyone who can reach it "+
		"could read and erase every agent's memory; set an auth token, listen on 127.0.0.1, "+
		"or pass the insecure option if something else guards access", addr, host)
}
