package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// ServeStdio serves one client over newline-delimited JSON-RPC, as in
// s.ServeStdio(ctx, os.Stdin, os.Stdout): requests are read from in,
// responses written to out, and nothing else is ever written to out (logs
// go to Config.Logger). It returns nil when in ends or ctx is cancelled.
// It closes in when it is an io.ReadCloser, never out. Tool calls from the
// client run concurrently.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	rc, ok := in.(io.ReadCloser)
	if !ok {
		rc = io.NopCloser(in)
	}
	ss, err := s.newMCP().Connect(ctx, &sdk.IOTransport{Reader: rc, Writer: nopWriteCloser{out}}, nil)
	if err != nil {
		return fmt.Errorf("mcp: stdio: %w", err)
	}
	s.log.Info("serving MCP over stdio")
	done := make(chan error, 1)
	go func() { done <- ss.Wait() }()
	select {
	case err = <-done:
	case <-ctx.Done():
		ss.Close()
		err = <-done
	}
	if err != nil && !errors.Is(err, io.EOF) && ctx.Err() == nil {
		return fmt.Errorf("mcp: stdio: %w", err)
	}
	return nil
}

// nopWriteCloser leaves closing out to its owner.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
