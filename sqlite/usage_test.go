package sqlite_test

import (
	"context"
	"testing"

	"github.com/hippo-mem/hippo/mock"
)

// TestRememberFactsReportsLLMCalls: a remember_facts result lists each
// LLM call it made, what for, and the tokens the provider reported
// (mock.Tokens of the messages sent and of the reply).
func TestRememberFactsReportsLLMCalls(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	m := e.factMemory("agent-a")
	reply := facts("User lives in Berlin", 0.5)
	e.srv.Reply(reply)
	res, err := m.RememberFacts(ctx, "I live in Berlin")
	if err != nil {
		t.Fatal(err)
	}
	bodies := e.srv.ChatBodies()
	if len(res.LLMCalls) != 1 || len(bodies) != 1 {
		t.Fatalf("LLM calls %+v for %d requests, want one extraction", res.LLMCalls, len(bodies))
	}
	prompt := 0
	for _, msg := range bodies[0].Messages {
		prompt += mock.Tokens(msg["content"].(string))
	}
	c := res.LLMCalls[0]
	if c.Purpose != "extract" || c.Model != "mock-llm" || c.PromptTokens != prompt || c.CompletionTokens != mock.Tokens(reply) {
		t.Errorf("LLM call %+v, want extract by mock-llm, %d prompt and %d completion tokens", c, prompt, mock.Tokens(reply))
	}

	// A fact close to a known one is classified: two calls, in order.
	e.srv.Reply(facts("User lives in Bangkok", 0.7), verdicts("supersedes"))
	res, err = m.RememberFacts(ctx, "I live in Bangkok now")
	if err != nil {
		t.Fatal(err)
	}
	var purposes []string
	for _, c := range res.LLMCalls {
		purposes = append(purposes, c.Purpose)
		if c.PromptTokens <= 0 || c.CompletionTokens <= 0 {
			t.Errorf("call %+v without tokens", c)
		}
	}
	if n := len(e.srv.ChatBodies()) - 1; len(purposes) != n || purposes[0] != "extract" || (n == 2 && purposes[1] != "classify") {
		t.Errorf("purposes %v for %d requests, want extract then classify", purposes, n)
	}
}
