package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfigurationMistakes: a mistake in the command line or the
// environment is named as what it is, never as an "internal error", and
// never echoes a password.
func TestConfigurationMistakes(t *testing.T) {
	c := newCLI(t)
	c.seed()
	missing := filepath.Join(c.dir, "no-such-export.json")
	tests := []struct {
		name string
		env  []string
		args []string
		code int
		want string
	}{
		{"bad --allow-origin", nil, []string{"serve", "--allow-origin", "not an origin"}, 2, `--allow-origin "not an origin"`},
		{"--allow-origin with a path", nil, []string{"serve", "--allow-origin", "https://app.example/path"}, 2, "scheme://host[:port]"},
		{"missing import file", nil, []string{"import", missing}, 1, "cannot read " + missing},
		{"import file a directory", nil, []string{"import", c.dir}, 1, "cannot read " + c.dir},
		{"keyword DSN by flag", nil, []string{"stats", "--db", "host=db.example user=hippo password=KWSECRET dbname=hippo"}, 1, "postgres://"},
		{"keyword DSN by HIPPO_DB", []string{"HIPPO_DB=host=db.example password='KW SECRET' dbname=hippo"}, []string{"store", "--agent", "a", "x"}, 1, "postgres://"},
	}
	for _, tt := range tests {
		r := c.runIn("", tt.env, tt.args...)
		if r.code != tt.code || !strings.Contains(r.stderr, tt.want) || strings.Contains(r.stderr, "internal error") {
			t.Errorf("%s: want exit %d saying %q, not an internal error; got %s", tt.name, tt.code, tt.want, r)
		}
		if strings.Contains(r.stdout+r.stderr, "KWSECRET") || strings.Contains(r.stdout+r.stderr, "KW SECRET") {
			t.Errorf("%s: the password is shown: %s", tt.name, r)
		}
	}
	entries, _ := os.ReadDir(c.dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "host=") {
			t.Errorf("a keyword DSN became the file %s", e.Name())
		}
	}
}
