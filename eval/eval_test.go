// Package eval measures recall quality on a labelled retrieval set:
// testdata/memories.tsv holds one agent's memories, testdata/queries.tsv
// questions with the IDs of the memories that answer them, some sharing
// words with their answers (lexical), some not (paraphrase).
//
// The quick check runs with every go test. The full evaluation prints
// Recall@5, Recall@10 and MRR of vector-only recall (α = 0), BM25-only
// (α = 1) and hybrid recall over a sweep of α, with the offline embedder:
//
//	go test ./eval/ -run Eval -eval -v
package eval_test

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/local"
	"github.com/hippo-mem/hippo/sqlite"
)

var full = flag.Bool("eval", false, "run the full retrieval evaluation and print its table")

// query is one labelled question.
type query struct {
	text       string
	relevant   map[string]bool // memory IDs of the set
	paraphrase bool
}

// metrics are a method's averages over queries.
type metrics struct {
	r5, r10, mrr float64
	n            int
}

func (m *metrics) add(ranked []string, relevant map[string]bool) {
	var at5, at10 int
	rr := 0.0
	for i, id := range ranked {
		if !relevant[id] {
			continue
		}
		if i < 5 {
			at5++
		}
		if i < 10 {
			at10++
		}
		if rr == 0 {
			rr = 1 / float64(i+1)
		}
	}
	m.r5 += float64(at5) / float64(len(relevant))
	m.r10 += float64(at10) / float64(len(relevant))
	m.mrr += rr
	m.n++
}

func (m metrics) String() string {
	n := float64(max(m.n, 1))
	return fmt.Sprintf("R@5 %.3f  R@10 %.3f  MRR %.3f", m.r5/n, m.r10/n, m.mrr/n)
}

func (m metrics) recall10() float64 { return m.r10 / float64(max(m.n, 1)) }
func (m metrics) meanRR() float64   { return m.mrr / float64(max(m.n, 1)) }

// set is the retrieval set stored in a fresh database.
type set struct {
	mem     *sqlite.Memory
	queries []query
	chunkOf map[string]string // set ID by chunk ID
	content map[string]string // content by set ID
}

// load reads the set and stores its memories for one agent, once for all
// tests, with the retrieval boost off and the clock stopped so that
// recalls do not change later scores: every memory has the same strength
// and recency, and the ranking is by relevance alone.
func load(t testing.TB) *set {
	t.Helper()
	loadOnce.Do(func() { loaded, loadErr = loadSet() })
	if loadErr != nil {
		t.Fatal(loadErr)
	}
	return loaded
}

var (
	loadOnce sync.Once
	loaded   *set
	loadErr  error
	dbDir    string
)

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if dbDir != "" {
		os.RemoveAll(dbDir)
	}
	os.Exit(code)
}

func loadSet() (*set, error) {
	ctx := context.Background()
	cfg := hippo.DefaultConfig()
	cfg.RetrievalBoost = 0
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	var err error
	if dbDir, err = os.MkdirTemp("", "hippo-eval"); err != nil {
		return nil, err
	}
	db, err := sqlite.Open(ctx, filepath.Join(dbDir, "eval.db"),
		sqlite.Options{Config: &cfg, Now: func() time.Time { return now }, NoSync: true})
	if err != nil {
		return nil, err
	}
	emb := local.NewEmbedder()
	mem, err := db.Memory(sqlite.MemoryOptions{AgentID: "maya-assistant", Embedder: emb})
	if err != nil {
		return nil, err
	}
	s := &set{mem: mem, chunkOf: map[string]string{}, content: map[string]string{}}
	memories, err := readTSV("memories.tsv", 2)
	if err != nil {
		return nil, err
	}
	texts := make([]string, len(memories))
	seen := map[string]bool{}
	for i, f := range memories {
		if s.content[f[0]] != "" || seen[f[1]] {
			return nil, fmt.Errorf("memory %s is a duplicate", f[0])
		}
		s.content[f[0]], seen[f[1]], texts[i] = f[1], true, f[1]
	}
	vecs, err := emb.Embed(ctx, texts)
	if err != nil {
		return nil, err
	}
	chunks := make([]*hippo.Chunk, len(texts))
	for i := range texts {
		chunks[i] = &hippo.Chunk{Content: texts[i], Embedding: vecs[i]}
	}
	if err := db.InsertChunks(ctx, "maya-assistant", "", emb.Model(), chunks); err != nil {
		return nil, err
	}
	for i, c := range chunks {
		s.chunkOf[c.ID] = memories[i][0]
	}
	queries, err := readTSV("queries.tsv", 3)
	if err != nil {
		return nil, err
	}
	for _, f := range queries {
		q := query{text: f[2], relevant: map[string]bool{}, paraphrase: f[0] == "paraphrase"}
		if f[0] != "lexical" && f[0] != "paraphrase" {
			return nil, fmt.Errorf("query %q: type %q is neither lexical nor paraphrase", f[2], f[0])
		}
		for _, id := range strings.Split(f[1], ",") {
			if s.content[id] == "" {
				return nil, fmt.Errorf("query %q: no memory %s", f[2], id)
			}
			q.relevant[id] = true
		}
		s.queries = append(s.queries, q)
	}
	return s, nil
}

func readTSV(name string, fields int) ([][]string, error) {
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out [][]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.Split(line, "\t")
		if len(parts) != fields {
			return nil, fmt.Errorf("%s: %q has %d fields, want %d", name, line, len(parts), fields)
		}
		out = append(out, parts)
	}
	return out, sc.Err()
}

// run recalls every query at alpha and averages the metrics, over all
// queries and over each type. Results with no relevance at all are not
// counted as retrieved: their order is arbitrary. BM25 alone (α = 1)
// retrieves the chunks whose words match only: recall falls back to the
// vectors when nothing matches.
func (s *set) run(t testing.TB, alpha float64, queries []query) (all, lexical, paraphrase metrics) {
	t.Helper()
	for _, q := range queries {
		res, err := s.mem.Recall(context.Background(), hippo.RecallInput{Query: q.text, Limit: 50, Alpha: &alpha})
		if err != nil {
			t.Fatalf("recall %q: %v", q.text, err)
		}
		var ranked []string
		for _, r := range res {
			if r.Relevance > 0 && (alpha < 1 || r.BM25 > 0) {
				ranked = append(ranked, s.chunkOf[r.Chunk.ID])
			}
		}
		all.add(ranked, q.relevant)
		if q.paraphrase {
			paraphrase.add(ranked, q.relevant)
		} else {
			lexical.add(ranked, q.relevant)
		}
	}
	return all, lexical, paraphrase
}

// TestRetrievalSet checks the set's size and that paraphrase queries share
// at most one content word with each of their answers.
func TestRetrievalSet(t *testing.T) {
	s := load(t)
	var para int
	for _, q := range s.queries {
		if !q.paraphrase {
			continue
		}
		para++
		for id := range q.relevant {
			if shared := sharedWords(q.text, s.content[id]); len(shared) > 1 {
				t.Errorf("paraphrase %q shares %v with %s", q.text, shared, id)
			}
		}
	}
	if len(s.content) < 300 || len(s.queries) < 100 || para < 25 {
		t.Errorf("%d memories, %d queries, %d paraphrases; want at least 300, 100, 25", len(s.content), len(s.queries), para)
	}
}

// TestHybridBeatsSingleMethods is the quick check: on every third query,
// hybrid recall at the offline embedder's α finds at least as much as
// vector-only and BM25-only recall, and ranks it better than both.
func TestHybridBeatsSingleMethods(t *testing.T) {
	s := load(t)
	var sample []query
	for i, q := range s.queries {
		if i%3 == 0 {
			sample = append(sample, q)
		}
	}
	vec, _, _ := s.run(t, 0, sample)
	bm25, _, _ := s.run(t, 1, sample)
	hybrid, _, _ := s.run(t, local.HybridAlpha, sample)
	t.Logf("vector  %v\nbm25    %v\nhybrid  %v", vec, bm25, hybrid)
	for _, single := range []metrics{vec, bm25} {
		if hybrid.recall10() < single.recall10() || hybrid.meanRR() <= single.meanRR() {
			t.Errorf("hybrid (%v) does not beat %v", hybrid, single)
		}
	}
}

// TestEval prints the evaluation table (go test ./eval/ -run Eval -eval -v).
func TestEval(t *testing.T) {
	if !*full {
		t.Skip("the full evaluation runs with -eval")
	}
	s := load(t)
	var b strings.Builder
	fmt.Fprintf(&b, "%d memories, %d queries, offline embedder %s\n", len(s.content), len(s.queries), local.Model)
	fmt.Fprintf(&b, "%-16s %-34s %-34s %s\n", "method", "all", "lexical", "paraphrase")
	for _, alpha := range []float64{0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1} {
		name := fmt.Sprintf("hybrid α=%.1f", alpha)
		switch alpha {
		case 0:
			name = "vector (α=0)"
		case 1:
			name = "bm25 (α=1)"
		}
		all, lex, para := s.run(t, alpha, s.queries)
		fmt.Fprintf(&b, "%-16s %-34v %-34v %v\n", name, all, lex, para)
	}
	t.Log("\n" + b.String())
}

// sharedWords are the words, lower-cased and without a plural s, that a and
// b share, stop words left out.
func sharedWords(a, b string) []string {
	inB := map[string]bool{}
	for _, w := range contentWords(b) {
		inB[w] = true
	}
	var shared []string
	for _, w := range contentWords(a) {
		if inB[w] {
			shared = append(shared, w)
			delete(inB, w)
		}
	}
	return shared
}

func contentWords(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if !stop[w] {
			out = append(out, strings.TrimSuffix(w, "s"))
		}
	}
	return out
}

var stop = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an the is are was were be been do does did what which who whom when where why how
		she her he his it its they them their we our us you your i me my of in on at to for from with by as and or not no
		any there that this these those can could should would will much many some so up into about than then now`) {
		stop[w] = true
	}
}
