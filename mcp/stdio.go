package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// JSON-RPC error codes for lines the server cannot take.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
)

// ServeStdio serves one client over newline-delimited JSON-RPC, as in
// s.ServeStdio(ctx, os.Stdin, os.Stdout): requests are read from in,
// responses written to out, and nothing else is ever written to out (logs
// go to Config.Logger). It returns nil when in ends or ctx is cancelled.
// It closes in when it is an io.ReadCloser, never out. Tool calls from the
// client run concurrently.
//
// A line that is not one JSON-RPC message (not JSON, nested too deep,
// longer than Config.MaxBodyBytes, not a JSON-RPC message, a batch) gets
// an error reply, parse error -32700 or invalid request -32600, and the
// server goes on with the next line.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	rc, ok := in.(io.ReadCloser)
	if !ok {
		rc = io.NopCloser(in)
	}
	w := &lineWriter{w: out}
	pr, pw := io.Pipe()
	go s.filterLines(rc, pw, w)
	ss, err := s.newMCP().Connect(ctx, &sdk.IOTransport{Reader: pr, Writer: nopWriteCloser{w}}, nil)
	if err != nil {
		rc.Close()
		pr.Close()
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
	rc.Close()
	pr.Close()
	if err != nil && !errors.Is(err, io.EOF) && ctx.Err() == nil {
		return fmt.Errorf("mcp: stdio: %w", err)
	}
	return nil
}

// filterLines copies the lines of in that are one JSON-RPC message each
// to pw, for the SDK, and answers the others on w itself: the SDK ends
// the session on the first line it cannot decode. It closes pw when in
// ends, and in when pw is closed.
func (s *Server) filterLines(in io.ReadCloser, pw *io.PipeWriter, w *lineWriter) {
	defer in.Close()
	r := bufio.NewReaderSize(in, 64<<10)
	max := int(s.cfg.MaxBodyBytes)
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		switch {
		case len(line)+len(chunk) > max+1: // +1: the newline
			// Too long: skip to its end, and say so once.
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = r.ReadSlice('\n')
			}
			line = line[:0]
			w.reply(nil, codeInvalidRequest, fmt.Sprintf("invalid request: a message longer than %d bytes", max))
		case errors.Is(err, bufio.ErrBufferFull):
			line = append(line, chunk...)
			continue
		default:
			line = append(line, chunk...)
			if msg := bytes.TrimSpace(line); len(msg) > 0 {
				if ok, id, code, why := checkMessage(msg); !ok {
					w.reply(id, code, why)
				} else if _, werr := pw.Write(append(msg, '\n')); werr != nil {
					return // the session is over
				}
			}
			line = line[:0]
		}
		if err != nil {
			pw.CloseWithError(err) // io.EOF: the client is done
			return
		}
	}
}

// checkMessage reports whether line is one JSON-RPC message the SDK can
// take, and if not, the ID to answer with (when one can be read), the
// error code and why.
func checkMessage(line []byte) (ok bool, id any, code int, why string) {
	if !json.Valid(line) {
		var v any
		err := json.Unmarshal(line, &v) // says where and why
		return false, nil, codeParseError, fmt.Sprintf("parse error: %v", err)
	}
	if line[0] != '{' {
		if line[0] == '[' {
			return false, nil, codeInvalidRequest, "invalid request: batches are not accepted; send one message per line"
		}
		return false, nil, codeInvalidRequest, "invalid request: a message must be a JSON object"
	}
	if _, err := jsonrpc.DecodeMessage(line); err != nil {
		var m struct {
			ID any `json:"id"`
		}
		json.Unmarshal(line, &m)
		switch m.ID.(type) {
		case string, float64:
			id = m.ID
		}
		return false, id, codeInvalidRequest, fmt.Sprintf("invalid request: %v", err)
	}
	return true, nil, 0, ""
}

// lineWriter writes whole lines to w, one at a time: the SDK's messages
// and filterLines' error replies.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// reply writes a JSON-RPC error response.
func (l *lineWriter) reply(id any, code int, message string) {
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": message}})
	if err != nil {
		return
	}
	l.Write(append(b, '\n'))
}

// nopWriteCloser leaves closing out to its owner.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
