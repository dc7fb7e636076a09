package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/postgres"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// pgServer is a `hippo serve` process on PostgreSQL.
type pgServer struct {
	name string
	base string
	cmd  *exec.Cmd
	mu   sync.Mutex
	log  strings.Builder
}

func (s *pgServer) logs() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.log.String()
}

// startPGServer starts `hippo serve` on a free loopback port with env; it
// is killed when the test ends.
func startPGServer(t *testing.T, name string, env []string) *pgServer {
	t.Helper()
	s := &pgServer{name: name, cmd: exec.Command(hippoBin, "serve", "--addr", "127.0.0.1:0")}
	s.cmd.Env = env
	stderr, err := s.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.cmd.Process.Kill(); s.cmd.Wait() })
	urlRe := regexp.MustCompile(`http://127\.0\.0\.1:\d+`)
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		s.log.WriteString(sc.Text() + "\n")
		if m := urlRe.FindString(sc.Text()); m != "" {
			s.base = m
			break
		}
	}
	if s.base == "" {
		t.Fatalf("server %s printed no URL:\n%s", name, s.logs())
	}
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			s.mu.Lock()
			s.log.WriteString(sc.Text() + "\n")
			s.mu.Unlock()
		}
		io.Copy(io.Discard, stderr)
	}()
	return s
}

// mcpClient connects to a server's MCP endpoint, closed when the test ends.
func mcpClient(t *testing.T, s *pgServer) *sdk.ClientSession {
	t.Helper()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "pg-test", Version: "0"}, nil).
		Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: s.base + "/mcp", MaxRetries: -1}, nil)
	if err != nil {
		t.Fatalf("connect to %s: %v", s.name, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call calls a tool and decodes its structured result into out (nil:
// ignored); an error result is an error.
func call(cs *sdk.ClientSession, tool string, args map[string]any, out any) error {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return fmt.Errorf("%s: %w", tool, err)
	}
	if res.IsError {
		return fmt.Errorf("%s: error result: %s", tool, toolText(res))
	}
	if out != nil {
		return remarshal(res.StructuredContent, out)
	}
	return nil
}

// recalled is what recall_memories returns, as the test reads it.
type recalled struct {
	Results []struct {
		ID      string `json:"id"`
		Content string `json:"content"`
	} `json:"results"`
}

func recallIDs(t *testing.T, cs *sdk.ClientSession, agent, query string) []string {
	t.Helper()
	var r recalled
	if err := call(cs, "recall_memories", map[string]any{"agent_id": agent, "query": query, "min_relevance": 0, "limit": 50}, &r); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, x := range r.Results {
		ids = append(ids, x.ID)
	}
	return ids
}

// TestPostgresServers runs three `hippo serve` processes on one
// PostgreSQL database and drives them with MCP clients: a write through
// one is recalled through another on the next call, the same fact sent
// through all three at once is stored once, a forget through one is
// honoured by the others, 10 clients × 100 mixed calls spread over the
// servers give no error and lose nothing, and a server killed with
// SIGKILL under load loses no acknowledged write.
func TestPostgresServers(t *testing.T) {
	c := newPGCLI(t)
	c.ok("init")
	servers := []*pgServer{startPGServer(t, "A", c.env), startPGServer(t, "B", c.env), startPGServer(t, "C", c.env)}
	a, b, cc := mcpClient(t, servers[0]), mcpClient(t, servers[1]), mcpClient(t, servers[2])
	clients := []*sdk.ClientSession{a, b, cc}
	ctx := context.Background()
	db, err := postgres.Open(ctx, c.db, postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()

	t.Run("StoreThroughARecallThroughB", func(t *testing.T) {
		for i, text := range []string{"The staging database lives in Frankfurt", "Standup moves to 9:30 on Mondays"} {
			var res struct {
				Memory struct {
					ID string `json:"id"`
				} `json:"memory"`
			}
			// B and C recall first, so that they hold the agent's index.
			recallIDs(t, clients[(i+1)%3], "alice", "staging database")
			recallIDs(t, clients[(i+2)%3], "alice", "staging database")
			if err := call(clients[i%3], "store_memory", map[string]any{"agent_id": "alice", "content": text}, &res); err != nil {
				t.Fatal(err)
			}
			for _, other := range []int{(i + 1) % 3, (i + 2) % 3} {
				if ids := recallIDs(t, clients[other], "alice", text); !slices.Contains(ids, res.Memory.ID) {
					t.Errorf("stored through %s, not recalled through %s on the next call: %v", servers[i%3].name, servers[other].name, ids)
				}
			}
		}
	})

	t.Run("SameFactThroughThreeServers", func(t *testing.T) {
		for round := range 3 {
			agent := fmt.Sprintf("facts-%d", round)
			var wg sync.WaitGroup
			errs := make([]error, 3)
			results := make([]hippo.RememberResult, 3)
			for i, cs := range clients {
				wg.Add(1)
				go func() {
					defer wg.Done()
					errs[i] = call(cs, "remember_facts", map[string]any{"agent_id": agent, "text": "I'm allergic to peanuts!"}, &results[i])
				}()
			}
			wg.Wait()
			news := 0
			for i, err := range errs {
				if err != nil {
					t.Fatal(err)
				}
				for _, f := range results[i].Facts {
					if f.Action == hippo.ActionNew {
						news++
					}
				}
			}
			facts, err := db.ListChunks(ctx, hippo.ChunkFilter{AgentID: agent, Kind: hippo.KindFact})
			if err != nil {
				t.Fatal(err)
			}
			if len(facts) != 1 || news != 1 || facts[0].EncounterCount != 3 {
				t.Errorf("round %d: the same fact through A, B and C stored %d times (%d new)", round, len(facts), news)
			}
		}
	})

	t.Run("ForgetThroughCHonouredByAAndB", func(t *testing.T) {
		var res struct {
			Memory struct {
				ID string `json:"id"`
			} `json:"memory"`
		}
		if err := call(a, "store_memory", map[string]any{"agent_id": "bob", "content": "Bob's locker code is 4711"}, &res); err != nil {
			t.Fatal(err)
		}
		for _, cs := range []*sdk.ClientSession{a, b} {
			if ids := recallIDs(t, cs, "bob", "locker code"); !slices.Contains(ids, res.Memory.ID) {
				t.Fatalf("not recalled before the forget: %v", ids)
			}
		}
		var f struct {
			Deleted []hippo.Forgotten `json:"deleted"`
		}
		if err := call(cc, "forget_memory", map[string]any{"agent_id": "bob", "description": "Bob's locker code is 4711"}, &f); err != nil {
			t.Fatal(err)
		}
		if len(f.Deleted) != 1 {
			t.Fatalf("forget deleted %v", f.Deleted)
		}
		for i, cs := range []*sdk.ClientSession{a, b} {
			if ids := recallIDs(t, cs, "bob", "locker code"); slices.Contains(ids, res.Memory.ID) {
				t.Errorf("server %s recalls a memory forgotten through C", servers[i].name)
			}
		}
	})

	t.Run("MixedLoad", func(t *testing.T) {
		acks, errs := pgLoad(t, servers, 10, 100, nil)
		if len(acks) < 300 {
			t.Errorf("only %d writes acknowledged", len(acks))
		}
		for _, err := range errs {
			t.Error(err)
		}
		checkAcked(t, db, acks)
	})

	t.Run("KillOneServerUnderLoad", func(t *testing.T) {
		victim := servers[2]
		acks, errs := pgLoad(t, servers, 9, 150, &pgKill{server: victim, after: 40})
		if len(errs) == 0 {
			t.Fatal("no call to the killed server failed: the kill came after the load")
		}
		for _, err := range errs {
			if !strings.HasPrefix(err.Error(), victim.name+":") {
				t.Errorf("a surviving server failed: %v", err)
			}
		}
		checkAcked(t, db, acks)
		t.Logf("%d writes acknowledged; %d calls to the killed server failed after the kill", len(acks), len(errs))
	})
}

// pgAck is an acknowledged write of the load.
type pgAck struct{ agent, id string }

// pgKill kills server with SIGKILL once its clients have had after
// writes acknowledged.
type pgKill struct {
	server *pgServer
	after  int
	acked  int
}

// pgLoad runs n clients of calls mixed calls each, client i on server
// i%3, writing to agents of their own and one they share, killing a
// server midway when kill is set. Errors are prefixed by the server's
// name; a client stops at its first error.
func pgLoad(t *testing.T, servers []*pgServer, n, calls int, kill *pgKill) ([]pgAck, []error) {
	var (
		mu   sync.Mutex
		acks []pgAck
		errs []error
		wg   sync.WaitGroup
	)
	acked := func(s *pgServer, a ...pgAck) {
		mu.Lock()
		defer mu.Unlock()
		acks = append(acks, a...)
		if kill != nil && kill.server == s {
			if kill.acked < kill.after && kill.acked+len(a) >= kill.after {
				kill.server.cmd.Process.Kill() // SIGKILL, mid-load
			}
			kill.acked += len(a)
		}
	}
	for i := range n {
		s := servers[i%len(servers)]
		cs := mcpClient(t, s)
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(i), 17))
			for j := range calls {
				agent := fmt.Sprintf("load-%d", i)
				if j%5 == 0 {
					agent = "load-shared"
				}
				var err error
				switch k := r.IntN(10); {
				case k < 5:
					var res struct {
						Memory struct {
							ID string `json:"id"`
						} `json:"memory"`
					}
					content := fmt.Sprintf("client %d call %d: %s", i, j, helperMemoryText(r, j))
					if err = call(cs, "store_memory", map[string]any{"agent_id": agent, "content": content}, &res); err == nil {
						acked(s, pgAck{agent, res.Memory.ID})
					}
				case k < 6:
					var res hippo.RememberResult
					if err = call(cs, "remember_facts", map[string]any{"agent_id": agent, "text": helperFactText(r)}, &res); err == nil {
						for _, f := range res.Facts {
							acked(s, pgAck{agent, f.ChunkID})
						}
					}
				case k < 9:
					err = call(cs, "recall_memories", map[string]any{"agent_id": agent, "query": helperFactText(r)}, nil)
				default:
					err = call(cs, "get_context", map[string]any{"agent_id": agent, "query": "what does the user love"}, nil)
				}
				if err != nil {
					mu.Lock()
					errs = append(errs, fmt.Errorf("%s: client %d call %d: %w", s.name, i, j, err))
					mu.Unlock()
					return
				}
			}
		}()
	}
	wg.Wait()
	return acks, errs
}

// checkAcked checks that every acknowledged write is stored.
func checkAcked(t *testing.T, db *postgres.DB, acks []pgAck) {
	t.Helper()
	missing := 0
	for _, a := range acks {
		if _, err := db.Chunk(context.Background(), a.agent, a.id); err != nil {
			missing++
			if missing < 5 {
				t.Errorf("acknowledged write %s of %s: %v", a.id, a.agent, err)
			}
		}
	}
	if missing > 0 {
		t.Errorf("%d of %d acknowledged writes lost", missing, len(acks))
	}
}
