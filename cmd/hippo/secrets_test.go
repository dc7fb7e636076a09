package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestCredentialsNotShown gives every setting that may hold a credential
// through the environment (a postgres:// password, provider URLs with a
// userinfo password and a key in their query) and finds none of them in
// any command's --help, in the server's startup log or in the errors of a
// provider that refuses the call.
func TestCredentialsNotShown(t *testing.T) {
	c := newCLI(t)
	ai := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":{"message":"bad key"}}`, http.StatusUnauthorized)
	}))
	defer ai.Close()
	host := strings.TrimPrefix(ai.URL, "http://")
	secrets := []string{"PGSECRET", "EMBEDPASS", "EMBEDKEY", "LLMPASS", "LLMKEY", "TOKENSECRET"}
	providers := []string{
		"HIPPO_EMBED_URL=http://user:EMBEDPASS@" + host + "/v1?key=EMBEDKEY&model=x",
		"HIPPO_LLM_URL=http://user:LLMPASS@" + host + "/v1?api_key=LLMKEY",
		"HIPPO_EMBED_MODEL=m", "HIPPO_EMBED_DIMENSIONS=8",
	}
	leaks := func(what string, r result) {
		t.Helper()
		for _, s := range secrets {
			if strings.Contains(r.stdout+r.stderr, s) {
				t.Errorf("%s shows %s:\n%s", what, s, r)
			}
		}
	}

	pg := append([]string{"HIPPO_DB=postgres://hippo:PGSECRET@127.0.0.1:1/hippo?password=PGSECRET&sslmode=disable",
		"HIPPO_AUTH_TOKEN=TOKENSECRET"}, providers...)
	for _, cmd := range append(runnableCommands(), (&app{}).newRootCommand()) {
		args := append(strings.Fields(cmd.CommandPath())[1:], "--help")
		r := c.runIn("", pg, args...)
		if r.code != 0 {
			t.Errorf("hippo %s: %s", strings.Join(args, " "), r)
		}
		leaks("hippo "+strings.Join(args, " "), r)
	}
	// The redacted values are still shown, so that one can see what is set.
	if r := c.runIn("", pg, "--help"); !strings.Contains(r.stdout, "postgres://hippo:xxxxx@127.0.0.1:1/hippo") ||
		!strings.Contains(r.stdout, "key=xxxxx") {
		t.Errorf("--help does not show the redacted settings:\n%s", r.stdout)
	}

	// The startup log names the providers, redacted.
	r := c.runIn("", providers, "serve", "--transport", "stdio")
	leaks("hippo serve", r)
	if !strings.Contains(r.stderr, "user:xxxxx@"+host) {
		t.Errorf("hippo serve does not log the redacted provider URL:\n%s", r)
	}
	// Errors of a provider that refuses the call.
	for _, args := range [][]string{
		{"store", "--agent", "a", "a note"},
		{"remember", "--agent", "a", "I live in Berlin."},
		{"recall", "--agent", "a", "Berlin"},
	} {
		r := c.runIn("", providers, args...)
		if r.code == 0 {
			t.Errorf("hippo %v succeeded against a provider that refuses: %s", args, r)
		}
		leaks("hippo "+strings.Join(args, " "), r)
	}
}
