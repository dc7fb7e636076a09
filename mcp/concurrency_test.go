package mcp_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestConcurrentClients runs 10 Streamable HTTP clients making 100 mixed
// calls each (store, recall, block append/replace/read), two clients per
// agent so that they contend on the same agent's memory and blocks. No
// call may fail, and everything stored must be recallable afterwards.
func TestConcurrentClients(t *testing.T) {
	const clients, calls = 10, 100
	e := newEnv(t)
	sessions := make([]*sdk.ClientSession, clients)
	for i := range sessions {
		sessions[i] = e.connect("streamable")
	}
	agent := func(i int) string { return fmt.Sprintf("agent-%d", i%5) }
	// Every word is unique to its memory, so an exact query finds it first.
	content := func(i, j int) string { return fmt.Sprintf("c%dn%d alpha%d beta%d", i, j, i*1000+j, j*7+i) }
	line := func(i, j int) string { return fmt.Sprintf("[c%d-j%d]", i, j) }

	start := time.Now()
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		errs   []string
		stored [clients][]string
	)
	fail := func(format string, args ...any) {
		mu.Lock()
		errs = append(errs, fmt.Sprintf(format, args...))
		mu.Unlock()
	}
	for i := range clients {
		wg.Go(func() {
			cs, a := sessions[i], agent(i)
			for j := range calls {
				var name string
				args := map[string]any{"agent_id": a}
				switch j % 10 {
				case 0, 1, 5, 6:
					name, args["content"] = "store_memory", content(i, j)
					stored[i] = append(stored[i], content(i, j))
				case 2, 7:
					name, args["query"], args["limit"] = "recall_memories", stored[i][len(stored[i])-1], 5
				case 3, 8:
					name, args["key"], args["text"] = "append_memory_block", "journal", line(i, j)
				case 4:
					name, args["key"], args["old_text"], args["new_text"] = "replace_memory_block", "journal",
						line(i, j-1), strings.TrimSuffix(line(i, j-1), "]")+" done]"
				case 9:
					name, args["key"] = "recall_memory_block", "journal"
				}
				r, err := try(cs, name, args)
				switch {
				case err != nil:
					fail("client %d call %d %s: %v", i, j, name, err)
					continue
				case r.IsError:
					fail("client %d call %d %s: error result %s", i, j, name, r.Text)
					continue
				}
				switch name {
				case "recall_memories":
					if !strings.Contains(r.Text, stored[i][len(stored[i])-1]) {
						fail("client %d call %d: recall lacks %q: %s", i, j, stored[i][len(stored[i])-1], r.Text)
					}
				case "recall_memory_block":
					if !strings.Contains(r.Text, line(i, j-1)) {
						fail("client %d call %d: journal lacks %s", i, j, line(i, j-1))
					}
				}
			}
		})
	}
	wg.Wait()
	t.Logf("%d calls by %d clients in %v", clients*calls, clients, time.Since(start).Round(time.Millisecond))
	for _, err := range errs {
		t.Error(err)
	}
	errs = nil

	// Afterwards: every memory is found by its own content, first; every
	// journal line is there, replaced where it should be.
	for i := range clients {
		wg.Go(func() {
			cs := sessions[i]
			for _, c := range stored[i] {
				r, err := try(cs, "recall_memories", map[string]any{"agent_id": agent(i), "query": c, "limit": 1})
				if err != nil || r.IsError {
					fail("recall %q: %v %s", c, err, r.Text)
					continue
				}
				res := r.Details["results"].([]any)
				if len(res) != 1 || res[0].(map[string]any)["content"] != c {
					fail("recall %q: %s", c, r.Text)
				}
			}
			r, err := try(cs, "recall_memory_block", map[string]any{"agent_id": agent(i), "key": "journal"})
			if err != nil {
				fail("journal of %s: %v", agent(i), err)
				return
			}
			for j := range calls {
				want := ""
				switch j % 10 {
				case 3:
					want = strings.TrimSuffix(line(i, j), "]") + " done]"
				case 8:
					want = line(i, j)
				default:
					continue
				}
				if !strings.Contains("\n"+r.Text+"\n", "\n"+want+"\n") {
					fail("journal of %s lacks %s", agent(i), want)
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		t.Error(err)
	}
	if n := strings.Count(fmt.Sprint(stored), "alpha"); n != clients*calls*4/10 {
		t.Errorf("%d memories stored, want %d", n, clients*calls*4/10)
	}
}
