package main

import (
	"bufio"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

// serveLines starts `hippo serve` with args and returns the lines it
// printed up to the server's URL; it is interrupted when the test ends.
func serveLines(t *testing.T, c *cli, args ...string) (lines []string) {
	t.Helper()
	lines, _ = serveCmd(t, c, args...)
	return lines
}

// serveCmd is serveLines that also returns the server's process.
func serveCmd(t *testing.T, c *cli, args ...string) (lines []string, cmd *exec.Cmd) {
	t.Helper()
	cmd = exec.Command(hippoBin, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
	cmd.Env = c.env
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			t.Error("serve did not stop on SIGINT")
		}
	})
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if strings.HasPrefix(sc.Text(), "Hippo MCP server on ") {
			break
		}
	}
	go io.Copy(io.Discard, stderr)
	return lines, cmd
}

// TestPprofGuarded: the pprof listener shows the command line (flags with
// keys and tokens) and memory contents, so it gets the main listener's
// checks: a Host that is not a loopback name (DNS rebinding) and a
// foreign browser Origin are refused, and with a token so is a request
// without it.
func TestPprofGuarded(t *testing.T) {
	pprofRe := regexp.MustCompile(`pprof on (http://127\.0\.0\.1:\d+)/debug/pprof/`)
	for _, withToken := range []bool{true, false} {
		t.Run(map[bool]string{true: "token", false: "no token"}[withToken], func(t *testing.T) {
			pprofGuarded(t, pprofRe, withToken)
		})
	}
}

func pprofGuarded(t *testing.T, pprofRe *regexp.Regexp, withToken bool) {
	c := newCLI(t)
	args := []string{"--pprof", "127.0.0.1:0"}
	if withToken {
		args = append(args, "--auth-token", "s3cret")
	}
	lines := serveLines(t, c, args...)
	var base string
	for _, l := range lines {
		if m := pprofRe.FindStringSubmatch(l); m != nil {
			base = m[1]
		}
	}
	if base == "" {
		t.Fatalf("no pprof address printed:\n%s", strings.Join(lines, "\n"))
	}
	tests := []struct {
		name    string
		headers []string
		want    int
	}{
		{"foreign Host", []string{"Host", "attacker.example", "Authorization", "Bearer s3cret"}, http.StatusForbidden},
		{"foreign Host with port", []string{"Host", "attacker.example:6060", "Authorization", "Bearer s3cret"}, http.StatusForbidden},
		{"foreign Origin", []string{"Origin", "https://attacker.example", "Authorization", "Bearer s3cret"}, http.StatusForbidden},
		{"no token", nil, map[bool]int{true: http.StatusUnauthorized, false: http.StatusOK}[withToken]},
		{"wrong token", []string{"Authorization", "Bearer nope"}, map[bool]int{true: http.StatusUnauthorized, false: http.StatusOK}[withToken]},
		{"token, localhost", []string{"Host", "localhost", "Authorization", "Bearer s3cret"}, http.StatusOK},
		{"token, loopback Origin", []string{"Origin", "http://127.0.0.1:3000", "Authorization", "Bearer s3cret"}, http.StatusOK},
	}
	for _, tt := range tests {
		req, _ := http.NewRequest(http.MethodGet, base+"/debug/pprof/cmdline", nil)
		for i := 0; i+1 < len(tt.headers); i += 2 {
			if tt.headers[i] == "Host" {
				req.Host = tt.headers[i+1]
			} else {
				req.Header.Set(tt.headers[i], tt.headers[i+1])
			}
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tt.want {
			t.Errorf("token %v, %s: status %d, want %d", withToken, tt.name, resp.StatusCode, tt.want)
		}
		if resp.StatusCode != http.StatusOK && strings.Contains(string(body), "s3cret") {
			t.Errorf("token %v, %s: refused, but shows the command line: %q", withToken, tt.name, body)
		}
	}
}
