package mcp_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hippo-mem/hippo/mcp"
	"github.com/hippo-mem/hippo/sqlite"
)

// slowEmbedder embeds as a long query does, for up to a minute, and stops
// when its context ends, counting what it saw.
type slowEmbedder struct {
	started, cancelled atomic.Int32
}

func (e *slowEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	e.started.Add(1)
	select {
	case <-ctx.Done():
		e.cancelled.Add(1)
		return nil, ctx.Err()
	case <-time.After(time.Minute):
	}
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = make([]float32, testDim)
		out[i][0] = 1
	}
	return out, nil
}
func (e *slowEmbedder) Model() string  { return "slow" }
func (e *slowEmbedder) Dimension() int { return testDim }

// TestAbandonedCallStops: a client that gives up on a tool call (its HTTP
// request ends) stops the call's work, embedding included, instead of
// leaving it to burn CPU for nobody.
func TestAbandonedCallStops(t *testing.T) {
	emb := &slowEmbedder{}
	e := newEnv(t, func(c *mcp.Config) { c.Embedder = emb })
	session := e.rawSession()
	for i := range 3 {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, e.http.URL+"/mcp",
			strings.NewReader(`{"jsonrpc":"2.0","id":`+strconv.Itoa(2+i)+`,"method":"tools/call","params":{"name":"recall_memories","arguments":{"agent_id":"a","query":"`+strings.Repeat("long query ", 1000)+`"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", session)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
		cancel()
	}
	deadline := time.Now().Add(5 * time.Second)
	for emb.cancelled.Load() < 3 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if s, c := emb.started.Load(), emb.cancelled.Load(); s != 3 || c != 3 {
		t.Errorf("%d embeddings started, %d stopped when their clients left; want 3 and 3", s, c)
	}
}

// TestBatchBounded: one POST runs at most one call. A JSON-RPC batch of
// calls is refused as a whole, with a JSON-RPC error saying why, and none
// of its calls runs.
func TestBatchBounded(t *testing.T) {
	e := newEnv(t)
	session := e.rawSession()
	call := func(id int) string {
		return `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"name":"store_memory","arguments":{"agent_id":"a","content":"note ` + strconv.Itoa(id) + `"}}}`
	}
	batch := "[" + call(2) + "," + call(3) + "," + call(4) + "]"
	resp := e.post("/mcp", batch, "Mcp-Session-Id", session)
	var body strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := resp.Body.Read(buf)
		body.Write(buf[:n])
		if err != nil {
			break
		}
	}
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body.String(), "-32600") || !strings.Contains(body.String(), "one call per request") {
		t.Errorf("batch of 3 calls: %d %s, want 400 with a JSON-RPC invalid request error", resp.StatusCode, body.String())
	}
	if e.lite != nil {
		if n, err := e.lite.CountChunks(t.Context(), sqlite.ChunkFilter{Superseded: true}); err != nil || n != 0 {
			t.Errorf("%d chunks stored by the refused batch (%v)", n, err)
		}
	}
}
