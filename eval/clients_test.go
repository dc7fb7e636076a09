package eval_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/local"
	"github.com/hippo-mem/hippo/sqlite"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// client is one way to reach an agent's memory: the library, the CLI
// binary, or `hippo serve` over MCP. The first-contact check and the
// LongMemEval runs go through it the same way.
type client interface {
	// remember learns facts from text.
	remember(ctx context.Context, text string) (*hippo.RememberResult, error)
	// store stores content verbatim and returns its chunk's ID.
	store(ctx context.Context, content string) (id string, duplicate bool, err error)
	// recall ranks the memory against query; alpha and minRelevance nil
	// are the defaults.
	recall(ctx context.Context, query string, limit int, alpha, minRelevance *float64) ([]recalled, error)
	close() error
}

// recalled is one recall result as every client reports it.
type recalled struct {
	ID        string  `json:"id"`
	Content   string  `json:"content"`
	BM25      float64 `json:"bm25"`
	Relevance float64 `json:"relevance"`
	Weak      bool    `json:"weak"`
}

// libClient is the library: sqlite.Open and db.Memory.
type libClient struct {
	db  *sqlite.DB
	mem *sqlite.Memory
}

func newLibClient(ctx context.Context, path, agent string, e hippo.Embedder) (*libClient, error) {
	db, err := sqlite.Open(ctx, path, sqlite.Options{NoSync: true})
	if err != nil {
		return nil, err
	}
	mem, err := db.Memory(sqlite.MemoryOptions{AgentID: agent, Embedder: e,
		Extractor: local.NewExtractor(), Classifier: local.NewClassifier()})
	if err != nil {
		db.Close()
		return nil, err
	}
	return &libClient{db, mem}, nil
}

func (c *libClient) remember(ctx context.Context, text string) (*hippo.RememberResult, error) {
	return c.mem.RememberFacts(ctx, text)
}

func (c *libClient) store(ctx context.Context, content string) (string, bool, error) {
	res, err := c.mem.StoreMemory(ctx, hippo.StoreInput{Content: content})
	if err != nil {
		return "", false, err
	}
	return res.Chunk.ID, res.Duplicate, nil
}

func (c *libClient) recall(ctx context.Context, query string, limit int, alpha, minRelevance *float64) ([]recalled, error) {
	res, err := c.mem.Recall(ctx, hippo.RecallInput{Query: query, Limit: limit, Alpha: alpha, MinRelevance: minRelevance})
	if err != nil {
		return nil, err
	}
	return asRecalled(res), nil
}

func (c *libClient) close() error { return c.db.Close() }

// hippoBinary builds ./cmd/hippo once per test process into a temporary
// directory and returns its path.
func hippoBinary(t testing.TB) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "hippo-eval-bin")
		if err != nil {
			binErr = err
			return
		}
		binDir = dir
		binPath = filepath.Join(dir, "hippo")
		cmd := exec.Command("go", "build", "-o", binPath, "./cmd/hippo")
		cmd.Dir = repoRoot(t)
		if out, err := cmd.CombinedOutput(); err != nil {
			binErr = fmt.Errorf("go build ./cmd/hippo: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

var (
	binOnce         sync.Once
	binDir, binPath string
	binErr          error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// cliClient runs `hippo remember|store|recall --json` with HIPPO_DB and
// HIPPO_AGENT set, one process per call, as a shell user would.
type cliClient struct {
	bin string
	env []string
}

func newCLIClient(t testing.TB, path, agent string) *cliClient {
	return &cliClient{bin: hippoBinary(t), env: append(os.Environ(), "HIPPO_DB="+path, "HIPPO_AGENT="+agent)}
}

func (c *cliClient) run(ctx context.Context, v any, args ...string) error {
	cmd := exec.CommandContext(ctx, c.bin, append([]string{"--json"}, args...)...)
	cmd.Env = c.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("hippo %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	if err := json.Unmarshal(stdout.Bytes(), v); err != nil {
		return fmt.Errorf("hippo %s: %v in %q", strings.Join(args, " "), err, stdout.String())
	}
	return nil
}

func (c *cliClient) remember(ctx context.Context, text string) (*hippo.RememberResult, error) {
	var res hippo.RememberResult
	return &res, c.run(ctx, &res, "remember", "--", text)
}

func (c *cliClient) store(ctx context.Context, content string) (string, bool, error) {
	var res struct {
		Duplicate bool `json:"duplicate"`
		Chunk     struct {
			ID string `json:"id"`
		} `json:"chunk"`
	}
	err := c.run(ctx, &res, "store", "--", content)
	return res.Chunk.ID, res.Duplicate, err
}

func (c *cliClient) recall(ctx context.Context, query string, limit int, alpha, minRelevance *float64) ([]recalled, error) {
	args := []string{"recall", "--limit", strconv.Itoa(limit)}
	if alpha != nil {
		args = append(args, "--alpha", strconv.FormatFloat(*alpha, 'g', -1, 64))
	}
	if minRelevance != nil {
		args = append(args, "--min-relevance", strconv.FormatFloat(*minRelevance, 'g', -1, 64))
	}
	var res struct {
		Results []recalled `json:"results"`
	}
	err := c.run(ctx, &res, append(args, "--", query)...)
	return res.Results, err
}

func (c *cliClient) close() error { return nil }

// server is a running `hippo serve` on a loopback port.
type server struct {
	cmd  *exec.Cmd
	base string
	done chan error
}

// startServer runs `hippo serve --addr 127.0.0.1:0` on the database at
// path, with env added to its environment, and waits for the URL it
// prints.
func startServer(t testing.TB, path string, env ...string) *server {
	t.Helper()
	cmd := exec.Command(hippoBinary(t), "serve", "--addr", "127.0.0.1:0")
	cmd.Env = append(append(os.Environ(), "HIPPO_DB="+path), env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &server{cmd: cmd, done: make(chan error, 1)}
	urlRe := regexp.MustCompile(`http://127\.0\.0\.1:\d+`)
	sc := bufio.NewScanner(stderr)
	var logs strings.Builder
	for sc.Scan() {
		logs.WriteString(sc.Text() + "\n")
		if m := urlRe.FindString(sc.Text()); m != "" {
			s.base = m
			break
		}
	}
	go func() {
		io.Copy(io.Discard, stderr)
		s.done <- cmd.Wait()
	}()
	if s.base == "" {
		s.stop()
		t.Fatalf("hippo serve printed no URL:\n%s", logs.String())
	}
	return s
}

// stop interrupts the server and waits for it, killing it after 20 s.
func (s *server) stop() error {
	s.cmd.Process.Signal(os.Interrupt)
	select {
	case err := <-s.done:
		return err
	case <-time.After(20 * time.Second):
		s.cmd.Process.Kill()
		return fmt.Errorf("hippo serve did not stop on SIGINT")
	}
}

// mcpClient calls the tools of a running server over Streamable HTTP with
// the official MCP Go SDK, as one agent.
type mcpClient struct {
	session *sdk.ClientSession
	agent   string
}

func newMCPClient(ctx context.Context, base, agent string) (*mcpClient, error) {
	c := sdk.NewClient(&sdk.Implementation{Name: "hippo-eval", Version: "1"}, nil)
	session, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: base + "/mcp", MaxRetries: -1}, nil)
	if err != nil {
		return nil, err
	}
	return &mcpClient{session, agent}, nil
}

func (c *mcpClient) call(ctx context.Context, tool string, args map[string]any, v any) error {
	args["agent_id"] = c.agent
	res, err := c.session.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return fmt.Errorf("%s: %w", tool, err)
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return err
	}
	if res.IsError {
		return fmt.Errorf("%s: %s", tool, b)
	}
	return json.Unmarshal(b, v)
}

func (c *mcpClient) remember(ctx context.Context, text string) (*hippo.RememberResult, error) {
	var res hippo.RememberResult
	return &res, c.call(ctx, "remember_facts", map[string]any{"text": text}, &res)
}

func (c *mcpClient) store(ctx context.Context, content string) (string, bool, error) {
	var res struct {
		Duplicate bool `json:"duplicate"`
		Memory    struct {
			ID string `json:"id"`
		} `json:"memory"`
	}
	err := c.call(ctx, "store_memory", map[string]any{"content": content}, &res)
	return res.Memory.ID, res.Duplicate, err
}

func (c *mcpClient) recall(ctx context.Context, query string, limit int, alpha, minRelevance *float64) ([]recalled, error) {
	args := map[string]any{"query": query, "limit": limit}
	if alpha != nil {
		args["alpha"] = *alpha
	}
	if minRelevance != nil {
		args["min_relevance"] = *minRelevance
	}
	var res struct {
		Results []recalled `json:"results"`
	}
	err := c.call(ctx, "recall_memories", args, &res)
	return res.Results, err
}

func (c *mcpClient) close() error { return c.session.Close() }
