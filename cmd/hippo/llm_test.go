package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/mock"
)

// TestLLMLimits: --llm-timeout and HIPPO_LLM_TIMEOUT bound the LLM's
// answer (a model that answers after 2 s is given up on after 200 ms,
// once, and remember stores the offline extractor's facts and says so),
// --llm-max-tokens and HIPPO_LLM_MAX_TOKENS reach the request, and bad
// values are usage errors.
func TestLLMLimits(t *testing.T) {
	c := newCLI(t)
	const text = "I live in Lisbon and I play the cello."
	// slow is a chat endpoint that answers after 2 s, longer than the
	// timeouts under test and far shorter than the default; it counts
	// the requests it sees.
	slow := func(t *testing.T) (*httptest.Server, *atomic.Int32) {
		var n atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			n.Add(1)
			io.Copy(io.Discard, r.Body) // so that the server sees the client hang up
			select {
			case <-time.After(2 * time.Second):
			case <-r.Context().Done():
				return
			}
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant",`+
				`"content":"[{\"fact\":\"User is slow to answer\",\"intensity\":0.5}]"}}]}`)
		}))
		t.Cleanup(srv.Close)
		return srv, &n
	}
	for _, tt := range []struct {
		name string
		env  []string
		args []string
	}{
		{"flag", nil, []string{"--llm-timeout", "200ms"}},
		{"variable", []string{"HIPPO_LLM_TIMEOUT=200ms"}, nil},
		{"variable in seconds", []string{"HIPPO_LLM_TIMEOUT=0.2"}, nil},
		{"flag over variable", []string{"HIPPO_LLM_TIMEOUT=10m"}, []string{"--llm-timeout", "200ms"}},
	} {
		t.Run("timeout by "+tt.name, func(t *testing.T) {
			srv, requests := slow(t)
			args := append([]string{"remember", "--json", "--agent", "a", "--llm-url", srv.URL + "/v1", text}, tt.args...)
			r := c.runIn("", tt.env, args...)
			if r.code != 0 {
				t.Fatal(r)
			}
			var res hippo.RememberResult
			if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
				t.Fatalf("%v: %s", err, r.stdout)
			}
			if !strings.Contains(res.Fallback, "timeout") || len(res.Facts) == 0 || strings.Contains(r.stdout, "slow to answer") {
				t.Errorf("want the offline extractor's facts and the fallback said; got %s", r.stdout)
			}
			if n := requests.Load(); n != 1 {
				t.Errorf("chat requests = %d, want 1: a timeout is not retried", n)
			}
		})
	}
	t.Run("fallback in the text output", func(t *testing.T) {
		srv := mock.NewServer(t, 8)
		srv.Reply("I'm sorry, I can only answer in prose.")
		r := c.runIn("", []string{"HIPPO_LLM_URL=" + srv.BaseURL()}, "remember", "--agent", "b", text)
		if r.code != 0 || !strings.Contains(r.stdout, "the offline extractor extracted the facts") {
			t.Errorf("want the fallback said; got %s", r)
		}
	})
	t.Run("max tokens", func(t *testing.T) {
		srv := mock.NewServer(t, 8)
		srv.Reply("[]", "[]", "[]")
		c.ok("remember", "--agent", "c", "--llm-url", srv.BaseURL(), "--llm-max-tokens", "77", text)
		c.runIn("", []string{"HIPPO_LLM_URL=" + srv.BaseURL(), "HIPPO_LLM_MAX_TOKENS=55"}, "remember", "--agent", "c", text)
		c.runIn("", []string{"HIPPO_LLM_MAX_TOKENS=55"}, "remember", "--agent", "c", "--llm-url", srv.BaseURL(), "--llm-max-tokens", "66", text)
		var got []int
		for _, b := range srv.ChatBodies() {
			got = append(got, b.MaxTokens)
		}
		if len(got) != 3 || got[0] != 77 || got[1] != 55 || got[2] != 66 {
			t.Errorf("max_tokens sent = %v, want [77 55 66]", got)
		}
	})
	t.Run("bad values", func(t *testing.T) {
		for _, tt := range []struct {
			env  []string
			args []string
			want string
		}{
			{[]string{"HIPPO_LLM_TIMEOUT=soon"}, nil, "HIPPO_LLM_TIMEOUT must be a duration"},
			{[]string{"HIPPO_LLM_MAX_TOKENS=lots"}, nil, "HIPPO_LLM_MAX_TOKENS must be a whole number"},
			{nil, []string{"--llm-timeout", "-1s"}, "--llm-timeout must not be negative"},
			{nil, []string{"--llm-max-tokens", "-5"}, "--llm-max-tokens must not be negative"},
			{nil, []string{"--llm-timeout", "soon"}, "--llm-timeout"},
		} {
			env := append([]string{"HIPPO_LLM_URL=http://127.0.0.1:1/v1"}, tt.env...)
			r := c.runIn("", env, append([]string{"remember", "--agent", "d", text}, tt.args...)...)
			if r.code != 2 || !strings.Contains(r.stderr, tt.want) {
				t.Errorf("%v %v: want exit 2 saying %q; got %s", tt.env, tt.args, tt.want, r)
			}
		}
	})
}
