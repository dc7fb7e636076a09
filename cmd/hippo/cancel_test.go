package main

import (
	"context"
	"net/http"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestAbandonedRecallStopsCPU: three recalls of 50,000 characters (each
// seconds of CPU on the offline model) abandoned by a client with a
// one-second timeout stop using the server's CPU within a few seconds.
func TestAbandonedRecallStopsCPU(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads the server's CPU time from /proc")
	}
	c := newCLI(t)
	lines, cmd := serveCmd(t, c, "--embedder", "minilm")
	base := regexp.MustCompile(`http://127\.0\.0\.1:\d+`).FindString(strings.Join(lines, "\n"))
	if base == "" {
		t.Fatalf("no URL printed:\n%s", strings.Join(lines, "\n"))
	}
	session := mcpSession(t, base)
	words := strings.Fields("deploy review budget garden train meeting notes release cluster invoice design lunch")
	var q strings.Builder
	for i := 0; q.Len() < 49_900; i++ {
		q.WriteString(words[i*7%len(words)] + " ")
	}
	for i := range 3 {
		body := `{"jsonrpc":"2.0","id":` + strconv.Itoa(10+i) + `,"method":"tools/call","params":{"name":"recall_memories","arguments":{"agent_id":"a","query":"` + q.String() + strconv.Itoa(i) + `"}}}`
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+"/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", session)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
		cancel()
	}
	// Give the calls a few seconds to notice, then measure.
	time.Sleep(3 * time.Second)
	before := procCPU(t, cmd.Process.Pid)
	time.Sleep(2 * time.Second)
	if used := procCPU(t, cmd.Process.Pid) - before; used > 500*time.Millisecond {
		t.Errorf("the server used %v of CPU in the 2 s after its clients left, want next to none", used)
	}
}
