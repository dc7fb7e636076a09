package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/hippo-mem/hippo/local"
	"github.com/hippo-mem/hippo/local/minilm"
)

// TestDefaultEmbedder covers the choice of embedder: MiniLM for a new
// database, GloVe kept for a database locked to it when nothing is
// configured, reembed moving it to MiniLM, and bad settings refused.
func TestDefaultEmbedder(t *testing.T) {
	c := newCLI(t)
	def := []string{"HIPPO_EMBEDDER="} // nothing configured
	lock := func() string { t.Helper(); return lockedModel(c) }

	// A database written with GloVe keeps opening with GloVe by default.
	c.ok("store", "--agent", "a", "The staging server runs Debian on port 8443")
	if got := lock(); got != local.Model {
		t.Fatalf("lock after a GloVe store = %q, want %q", got, local.Model)
	}
	r := c.runIn("", def, "recall", "--agent", "a", "--json", "staging server port")
	if r.code != 0 || !strings.Contains(r.stdout, "8443") {
		t.Fatalf("default recall on a GloVe database: %s", r)
	}
	// Naming MiniLM on it is a mismatch that names both models.
	r = c.runIn("", []string{"HIPPO_EMBEDDER=minilm"}, "recall", "--agent", "a", "staging")
	if r.code != 1 || !strings.Contains(r.stderr, local.Model) || !strings.Contains(r.stderr, minilm.Model) {
		t.Fatalf("minilm on a GloVe database: want exit 1 naming both models, got %s", r)
	}
	// reembed with nothing configured moves it to MiniLM.
	if r := c.runIn("", def, "reembed", "--force"); r.code != 0 {
		t.Fatalf("reembed: %s", r)
	}
	if got := lock(); got != minilm.Model {
		t.Fatalf("lock after reembed = %q, want %q", got, minilm.Model)
	}
	r = c.runIn("", def, "recall", "--agent", "a", "--json", "which port does the test machine listen on")
	if r.code != 0 || !strings.Contains(r.stdout, "8443") {
		t.Fatalf("default recall after reembed: %s", r)
	}

	// A new database gets MiniLM.
	fresh := &cli{t: t, dir: t.TempDir()}
	fresh.db = filepath.Join(fresh.dir, "new.db")
	fresh.env = cleanEnv(fresh.dir, fresh.db)
	if r := fresh.runIn("", def, "store", "--agent", "a", "hello"); r.code != 0 {
		t.Fatalf("store on a new database: %s", r)
	}
	if got := lockedModel(fresh); got != minilm.Model {
		t.Fatalf("new database locked to %q, want %q", got, minilm.Model)
	}
}

// lockedModel is the embedding model c's database is locked to.
func lockedModel(c *cli) string {
	c.t.Helper()
	var st map[string]any
	c.json(&st, "stats")
	m, _ := st["embedding_model"].(map[string]any)
	s, _ := m["model"].(string)
	return s
}

func TestEmbedderFlagErrors(t *testing.T) {
	c := newCLI(t)
	for _, tc := range []struct {
		env  []string
		args []string
		want string
	}{
		{nil, []string{"--embedder", "bert", "recall", "--agent", "a", "x"}, `--embedder must be minilm or glove, got "bert"`},
		{[]string{"HIPPO_EMBEDDER=GloVe"}, []string{"recall", "--agent", "a", "x"}, `got "GloVe"`},
		{[]string{"HIPPO_EMBED_URL=http://127.0.0.1:1/v1"}, []string{"--embedder", "glove", "store", "--agent", "a", "x"}, "cannot be combined with --embed-url"},
	} {
		r := c.runIn("", tc.env, tc.args...)
		if r.code != 2 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("hippo %v with %v: want exit 2 mentioning %q, got %s", tc.args, tc.env, tc.want, r)
		}
	}
}
