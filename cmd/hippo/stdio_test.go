package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"
)

// TestServeStdioBadLines: `hippo serve --transport stdio` answers lines it
// cannot take with a JSON-RPC error and goes on; it exits 0 when its input
// ends.
func TestServeStdioBadLines(t *testing.T) {
	c := newCLI(t)
	in := strings.Join([]string{
		"not json at all",
		`{"hello":1}`,
		strings.Repeat("[", 100000),
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`,
	}, "\n") + "\n"
	cmd := exec.Command(hippoBin, "serve", "--transport", "stdio")
	cmd.Env = c.env
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go io.WriteString(stdin, in)
	want := []float64{-32700, -32600, -32700, 0}
	sc := bufio.NewScanner(stdout)
	var lines []string
	for len(lines) < len(want) && sc.Scan() {
		lines = append(lines, sc.Text())
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Errorf("serve --transport stdio after its input ended: %v", err)
	}
	if len(lines) != len(want) {
		t.Fatalf("%d replies, want %d:\n%s", len(lines), len(want), strings.Join(lines, "\n"))
	}
	for i, line := range lines {
		var m struct {
			Error *struct {
				Code float64 `json:"code"`
			} `json:"error"`
			Result any `json:"result"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("reply %d is not JSON: %q", i, line)
		}
		switch {
		case want[i] == 0 && m.Result == nil:
			t.Errorf("reply %d: %s, want the initialize result", i, line)
		case want[i] != 0 && (m.Error == nil || m.Error.Code != want[i]):
			t.Errorf("reply %d: %s, want error %v", i, line, want[i])
		}
	}
}
