package sqlite_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/local"
	"github.com/hippo-mem/hippo/sqlite"
)

// offlineMemory opens a fresh database with the offline defaults: the
// GloVe embedder, the rule-based extractor and the offline classifier.
func offlineMemory(t *testing.T) (*sqlite.DB, *sqlite.Memory) {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "offline.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	m, err := db.Memory(sqlite.MemoryOptions{AgentID: "me", Embedder: local.NewEmbedder(),
		Extractor: local.NewExtractor(), Classifier: local.NewClassifier()})
	if err != nil {
		t.Fatal(err)
	}
	return db, m
}

// factContents returns the contents of the agent's facts, current or
// superseded, sorted.
func factContents(t *testing.T, db *sqlite.DB, superseded bool) []string {
	t.Helper()
	all, err := db.ListChunks(context.Background(), sqlite.ChunkFilter{AgentID: "me", Kind: hippo.KindFact, Superseded: superseded})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range all {
		if (c.SupersededBy != "") == superseded {
			out = append(out, c.Content)
		}
	}
	slices.Sort(out)
	return out
}

// TestRememberFactsChangesOfStateOffline runs changes of state through the
// real offline pipeline: the former state stops being current, whether it
// was stored before, stated earlier in the same text or never stored, and
// a move to the place already known supersedes nothing.
func TestRememberFactsChangesOfStateOffline(t *testing.T) {
	tests := []struct {
		name       string
		before     []string // remembered first, one call each
		text       string
		current    []string // live facts afterwards
		superseded []string // superseded facts afterwards
		action     hippo.Action
	}{
		{
			name:       "used to, stored before",
			before:     []string{"I prefer VS Code."},
			text:       "I used to prefer VS Code, but now I use Neovim.",
			current:    []string{"User uses Neovim"},
			superseded: []string{"User prefers VS Code"},
			action:     hippo.ActionSupersedes,
		},
		{
			name:       "used to, never stored: kept as history",
			text:       "I used to prefer VS Code, but now I use Neovim.",
			current:    []string{"User uses Neovim"},
			superseded: []string{"User prefers VS Code"},
			action:     hippo.ActionSupersedes,
		},
		{
			name:       "used to, stated earlier in the same text",
			text:       "I live in Paris. Well, I used to live in Paris, but now I live in Lyon.",
			current:    []string{"User lives in Lyon"},
			superseded: []string{"User lives in Paris"},
		},
		{
			name:       "moved from A to B with B stored: consistent",
			before:     []string{"I live in Berlin."},
			text:       "I moved from Paris to Berlin last year.",
			current:    []string{"User lives in Berlin"},
			superseded: []string{"User lives in Paris"},
			action:     hippo.ActionDuplicate,
		},
		{
			name:       "moved from A to B with A stored: A superseded",
			before:     []string{"I live in Paris."},
			text:       "I moved from Paris to Berlin last year.",
			current:    []string{"User moved to Berlin last year"},
			superseded: []string{"User lives in Paris"},
			action:     hippo.ActionSupersedes,
		},
		{
			name:       "moved to B with another place stored",
			before:     []string{"I live in Rome."},
			text:       "I moved to Berlin last year.",
			current:    []string{"User moved to Berlin last year"},
			superseded: []string{"User lives in Rome"},
			action:     hippo.ActionSupersedes,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			db, m := offlineMemory(t)
			for _, text := range tt.before {
				if _, err := m.RememberFacts(ctx, text); err != nil {
					t.Fatal(err)
				}
			}
			res, err := m.RememberFacts(ctx, tt.text)
			if err != nil {
				t.Fatal(err)
			}
			t.Log(res.Summary)
			if got := factContents(t, db, false); !slices.Equal(got, tt.current) {
				t.Errorf("current facts %q, want %q", got, tt.current)
			}
			if got := factContents(t, db, true); !slices.Equal(got, tt.superseded) {
				t.Errorf("superseded facts %q, want %q", got, tt.superseded)
			}
			if tt.action != "" {
				if len(res.Facts) != 1 || res.Facts[0].Action != tt.action {
					t.Errorf("outcomes %+v, want one %s", res.Facts, tt.action)
				}
			}
			for _, f := range res.Facts {
				if f.FormerContent != "" && !strings.Contains(res.Summary, f.FormerContent) {
					t.Errorf("summary %q does not say %q was replaced", res.Summary, f.FormerContent)
				}
			}
		})
	}
}

// TestRememberFactsFormerHistory checks that a former state recorded from
// the text is in the new fact's history, before it.
func TestRememberFactsFormerHistory(t *testing.T) {
	ctx := context.Background()
	_, m := offlineMemory(t)
	res, err := m.RememberFacts(ctx, "I used to work at Amazon, but now I work at a startup.")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Facts) != 1 || !res.Facts[0].FormerRecorded || res.Facts[0].FormerContent != "User works at Amazon" {
		t.Fatalf("outcomes %+v, want one fact recording the former employer", res.Facts)
	}
	hist, err := m.FactHistory(ctx, "", res.Facts[0].ChunkID)
	if err != nil {
		t.Fatal(err)
	}
	var chain []string
	for _, h := range hist {
		chain = append(chain, h.Content)
	}
	if want := []string{"User works at Amazon", "User works at a startup"}; !slices.Equal(chain, want) {
		t.Errorf("history %q, want %q", chain, want)
	}
}

// TestRememberFactsNoFactsReasonOffline checks that a call storing nothing
// says why and where raw content goes instead.
func TestRememberFactsNoFactsReasonOffline(t *testing.T) {
	tests := []struct{ text, reason string }{
		{"How do I reverse a linked list?", "text is a question, not a statement"},
		{"Thanks!", "text is empty after removing greetings, thanks and filler"},
		{"He said he would call.", "no first-person or third-person statement of a fact found"},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			_, m := offlineMemory(t)
			res, err := m.RememberFacts(context.Background(), tt.text)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Facts) != 0 || res.Reason != tt.reason {
				t.Errorf("result %+v, want no fact and reason %q", res, tt.reason)
			}
			if !strings.Contains(res.Summary, tt.reason) || !strings.Contains(res.Summary, "store_memory") {
				t.Errorf("summary %q: want the reason and store_memory", res.Summary)
			}
		})
	}
}
