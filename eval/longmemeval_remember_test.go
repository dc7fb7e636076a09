package eval_test

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/local"
	"github.com/hippo-mem/hippo/sqlite"
)

var flagLMERemember = flag.Bool("longmemeval-remember", false, "run LongMemEval with every turn learned by remember_facts, beside the turns stored verbatim")

var flagLMERememberModes = flag.String("longmemeval-remember-modes", "", "with -longmemeval-remember, the modes to run, comma-separated: verbatim (stored verbatim), kept (remember_facts, text kept), alone (facts alone); all when empty")

// TestLongMemEvalRemember learns every LongMemEval turn with RememberFacts
// (the offline extractor and classifier; the text kept, or not) and asks
// the questions with the default recall, boost on, as TestLongMemEval asks
// the turns stored verbatim. A kept text counts for every turn it is, as
// a verbatim repeat does; a fact for the turn that first gave it.
func TestLongMemEvalRemember(t *testing.T) {
	if !*flagLMERemember {
		t.Skip("runs with -longmemeval-remember")
	}
	ctx := context.Background()
	d, name, emb, ce := lmeEmbedded(t, ctx)
	def := methods(emb)[2]
	dir := t.TempDir()
	for i, mode := range []string{"stored verbatim", "remember_facts, text kept", "remember_facts, facts alone"} {
		if *flagLMERememberModes != "" && !slices.Contains(strings.Split(*flagLMERememberModes, ","), []string{"verbatim", "kept", "alone"}[i]) {
			continue
		}
		start := time.Now()
		base := filepath.Join(dir, fmt.Sprint(len(mode))+".db")
		var store *lmeStore
		if mode == "stored verbatim" {
			store = ingestLME(t, ctx, base, ce, d)
		} else {
			store = learnLME(t, ctx, base, ce, d, mode == "remember_facts, facts alone")
		}
		mem, done := runMemory(t, ctx, base, def, true, lmeAgent, ce)
		r := result{method: def, boost: true}
		for _, q := range d.queries {
			res, err := def.recall(ctx, mem, q.Question)
			if err != nil {
				t.Fatalf("recall %s: %v", q.QID, err)
			}
			r.add(splitOf(q.QID), "", store.ranked(d, q, def, asRecalled(res)), q.relevant())
		}
		done()
		for h, label := range []string{"tune half", "held-out half"} {
			m := r.by[h]
			t.Logf("LongMemEval %s, %s (%s), %s: R@5 %.3f, R@10 %.3f, Hit@10 %.3f, MRR@10 %.3f (%d questions; %v)",
				label, mode, name, def.name, m.R5(), m.R10(), m.Hit10(), m.MRR(), m.n, time.Since(start).Round(time.Second))
		}
	}
}

// learnLME learns every turn with RememberFacts into a new database at
// path, keeping no text when discard is set, and closes it.
func learnLME(t testing.TB, ctx context.Context, path string, e hippo.Embedder, d *lmeData, discard bool) *lmeStore {
	t.Helper()
	db, err := openDB(ctx, path, true)
	if err != nil {
		t.Fatal(err)
	}
	mem, err := db.Memory(sqlite.MemoryOptions{AgentID: lmeAgent, Embedder: e,
		Extractor: local.NewExtractor(), Classifier: local.NewClassifier(), DiscardText: discard})
	if err != nil {
		t.Fatal(err)
	}
	store := &lmeStore{}
	seen := map[string]bool{}
	for _, tr := range d.turns {
		res, err := mem.RememberFacts(ctx, tr.Text)
		if err != nil {
			t.Fatalf("remember %s: %v", tr.ID, err)
		}
		if m := res.Message; m != nil { // as a verbatim repeat, for every turn it is
			store.add(m.ID, tr.ID, !m.New)
		}
		for _, f := range res.Facts {
			if !seen[f.ChunkID] { // a fact counts for the turn that first gave it
				seen[f.ChunkID] = true
				store.add(f.ChunkID, tr.ID, false)
			}
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return store
}
