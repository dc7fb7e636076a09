package mcp

import "time"

// SetReadTimeout shortens the HTTP read timeout, to show that streams
// outlive it.
func (s *Server) SetReadTimeout(d time.Duration) { s.readTimeout = d }

// SetReadHeaderTimeout shortens the time a client has to send its request
// headers, to show that slow clients are cut off.
func (s *Server) SetReadHeaderTimeout(d time.Duration) { s.readHeaderTimeout = d }

// IsListen exposes isListen, whose shortcut must not change its answer.
var IsListen = isListen
