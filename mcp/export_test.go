package mcp

import "time"

// SetReadTimeout shortens the HTTP read timeout, to show that streams
// outlive it.
func (s *Server) SetReadTimeout(d time.Duration) { s.readTimeout = d }
