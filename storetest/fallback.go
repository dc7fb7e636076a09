package storetest

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/llm"
	"github.com/hippo-mem/hippo/local"
	"github.com/hippo-mem/hippo/mock"
	"github.com/hippo-mem/hippo/openai"
)

// llmTimeout is the fallback tests' LLM timeout: short, since a stalled
// request costs that long.
const llmTimeout = 200 * time.Millisecond

// fallbackMemory is agent's memory with the LLM extractor and classifier
// on the fake server (timeout llmTimeout, default retries) and the
// offline extractor as the fallback, as the CLI and `hippo serve` wire it.
func (e *env) fallbackMemory(agent string) hippo.AgentMemory {
	e.t.Helper()
	client, err := openai.NewLLM(openai.Config{BaseURL: e.srv.BaseURL(), Model: "mock-llm", Timeout: llmTimeout})
	if err != nil {
		e.t.Fatal(err)
	}
	return e.memory(agent, func(o *hippo.MemoryOptions) {
		o.Extractor, o.Classifier = llm.NewExtractor(client), llm.NewClassifier(client)
		o.FallbackExtractor = local.NewExtractor()
	})
}

// testRememberFactsLLMFallback: an LLM that stalls past its timeout,
// rambles past max_tokens or answers prose costs no fact: the offline
// extractor's facts are stored and the result says so, after one request.
// 429 and 500 are retried once and the LLM's facts stored; 400 is not
// retried and fails the call.
func testRememberFactsLLMFallback(t *testing.T, b Backend) {
	const text = "I live in Lisbon and I play the cello."
	ramble := `{"facts":[{"fact":"User lives in Lisbon","intensity":0.5},{"fact":"User plays the cello","intensity":0.5},{"fact":"User` +
		strings.Repeat(" really", 2000)
	tests := []llmFallbackCase{
		{"stalls past the timeout", func(s *mock.Server, _ func() int) { s.ChatStall = func(int) bool { return true } }, 1, "did not answer within its timeout", ""},
		{"rambles to max_tokens", func(s *mock.Server, _ func() int) {
			s.FinishReason = "length"
			s.Reply(ramble)
		}, 1, "could not be read", ""},
		{"thinks until max_tokens, answers nothing", func(s *mock.Server, _ func() int) {
			s.FinishReason = "length"
			s.Reply("")
		}, 1, "could not be read", ""},
		{"answers prose", func(s *mock.Server, _ func() int) {
			s.Reply("Sure! The user lives in Lisbon, and they play the cello. " + strings.Repeat("Let me know if you need more. ", 500))
		}, 1, "could not be read", ""},
		{"429 then success", func(s *mock.Server, n func() int) {
			s.Chat = func(mock.ChatRequest) (string, int) {
				if n() == 1 {
					return "", http.StatusTooManyRequests
				}
				return facts("User lives in Lisbon", 0.5), http.StatusOK
			}
		}, 2, "", ""},
		{"500 then success", func(s *mock.Server, n func() int) {
			s.Chat = func(mock.ChatRequest) (string, int) {
				if n() == 1 {
					return "", http.StatusInternalServerError
				}
				return facts("User lives in Lisbon", 0.5), http.StatusOK
			}
		}, 2, "", ""},
		{"400 fails without a retry", func(s *mock.Server, _ func() int) {
			s.Chat = func(mock.ChatRequest) (string, int) { return "", http.StatusBadRequest }
		}, 1, "", "400"},
	}
	offline, _, err := local.NewExtractor().ExtractFacts(context.Background(), text)
	if err != nil || len(offline) == 0 {
		t.Fatalf("offline extractor: %v, %v", offline, err)
	}
	var want []string
	for _, f := range offline {
		want = append(want, f.Content)
	}
	slices.Sort(want)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkLLMFallback(t, b, text, tt, want) })
	}
}

// llmFallbackCase is an LLM's behaviour in testRememberFactsLLMFallback
// and what RememberFacts must make of it.
type llmFallbackCase struct {
	name     string
	setup    func(s *mock.Server, n func() int) // n counts the chat requests
	requests int
	fallback string // in RememberResult.Fallback; "" for none
	wantErr  string
}

// checkLLMFallback remembers text with tt's LLM and the offline extractor
// as fallback, and checks the requests made, the error or the fallback
// reported, and the facts stored: the LLM's, or want (the offline
// extractor's).
func checkLLMFallback(t *testing.T, b Backend, text string, tt llmFallbackCase, want []string) {
	e := newEnv(t, b)
	var mu sync.Mutex
	calls := 0
	tt.setup(e.srv, func() int {
		mu.Lock()
		defer mu.Unlock()
		calls++
		return calls
	})
	res, err := e.fallbackMemory("agent-a").RememberFacts(context.Background(), text)
	if _, chats := e.srv.Counts(); chats != tt.requests {
		t.Errorf("chat requests = %d, want %d", chats, tt.requests)
	}
	if tt.wantErr != "" {
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Fatalf("err = %v, want one mentioning %q", err, tt.wantErr)
		}
		if live := e.liveFacts("agent-a"); len(live) != 0 {
			t.Errorf("live facts = %v, want none", keys(live))
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	live := keys(e.liveFacts("agent-a"))
	slices.Sort(live)
	// Each fact records which extractor stated it.
	stated := hippo.ExtractorOffline
	if tt.fallback == "" {
		stated = hippo.ExtractorLLM
	}
	for _, f := range res.Facts {
		if p := e.mustChunk("agent-a", f.ChunkID).Provenance; p == nil || p.Extractor != stated {
			t.Errorf("fact %q provenance %+v, want extractor %q", f.Content, p, stated)
		}
	}
	if tt.fallback == "" {
		if res.Fallback != "" || !slices.Equal(live, []string{"User lives in Lisbon"}) {
			t.Errorf("fallback %q, live facts %q; want none and the LLM's fact", res.Fallback, live)
		}
		return
	}
	if !strings.Contains(res.Fallback, tt.fallback) || !strings.Contains(res.Fallback, "offline extractor") ||
		!strings.HasSuffix(res.Summary, res.Fallback) {
		t.Errorf("fallback %q, summary %q; want the fallback (%q) at the summary's end", res.Fallback, res.Summary, tt.fallback)
	}
	if !slices.Equal(live, want) {
		t.Errorf("live facts = %q, want the offline extractor's %q", live, want)
	}
}

// testRememberFactsNoFallback: without a FallbackExtractor an unreadable
// reply fails the call, and the error says why.
func testRememberFactsNoFallback(t *testing.T, b Backend) {
	e := newEnv(t, b)
	e.srv.Reply("I could not find any facts, sorry.")
	_, err := e.factMemory("agent-a").RememberFacts(context.Background(), "I live in Lisbon")
	if !errors.Is(err, hippo.ErrUnreadableReply) {
		t.Errorf("err = %v, want one wrapping hippo.ErrUnreadableReply", err)
	}
}

// testRememberFactsClassifyFallback: a classification that stalls or
// answers prose keeps the new fact beside the one it may have replaced,
// DISTINCT, and the result says so.
func testRememberFactsClassifyFallback(t *testing.T, b Backend) {
	for _, stall := range []bool{false, true} {
		t.Run(map[bool]string{false: "prose", true: "stalls"}[stall], func(t *testing.T) {
			e := newEnv(t, b)
			ctx := context.Background()
			m := e.fallbackMemory("agent-a")
			e.srv.Set("User lives in Berlin", mock.Axis(testDim, 0))
			e.srv.Set("User lives in Bangkok", mock.AtCosine(testDim, 0, 1, 0.85)) // ambiguous: asks the classifier
			e.srv.Reply(facts("User lives in Berlin", 0.5))
			if _, err := m.RememberFacts(ctx, "I live in Berlin"); err != nil {
				t.Fatal(err)
			}
			// The extraction answers; the classification, the request
			// after it, stalls or answers prose.
			e.srv.Reply(facts("User lives in Bangkok", 0.5), "Hmm, these two facts seem related in some way.")
			if stall {
				e.srv.ChatStall = func(n int) bool { return n == 3 }
			}
			res, err := m.RememberFacts(ctx, "I live in Bangkok")
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Facts) != 1 || res.Facts[0].Action != hippo.ActionDistinct || !strings.Contains(res.Fallback, "kept as distinct") {
				t.Errorf("facts %+v, fallback %q; want Bangkok distinct and the fallback said", res.Facts, res.Fallback)
			}
			if _, chats := e.srv.Counts(); chats != 3 {
				t.Errorf("chat requests = %d, want 3: two extractions, one classification", chats)
			}
			if live := e.liveFacts("agent-a"); len(live) != 2 {
				t.Errorf("live facts = %v, want Berlin and Bangkok", keys(live))
			}
		})
	}
}
