package eval_test

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/sqlite"
)

// Tags of the own set's queries.
const (
	tagLexical      = "lexical"
	tagParaphrase   = "paraphrase"
	tagDistractor   = "distractor-heavy"
	tagMultiSession = "multi-session"
)

// ownQuery is one labelled question of the own set.
type ownQuery struct {
	id, tag, text string
	relevant      map[string]bool // memory IDs of the set
}

// ownSet is testdata/memories.tsv and testdata/queries.tsv.
type ownSet struct {
	ids     []string          // memory IDs in file order
	content map[string]string // by memory ID
	queries []ownQuery
}

func loadOwnSet(t testing.TB) *ownSet {
	t.Helper()
	s := &ownSet{content: map[string]string{}}
	seen := map[string]bool{}
	for _, f := range readTSV(t, "memories.tsv", 2) {
		if s.content[f[0]] != "" || seen[f[1]] {
			t.Fatalf("memory %s is a duplicate", f[0])
		}
		s.content[f[0]], seen[f[1]] = f[1], true
		s.ids = append(s.ids, f[0])
	}
	qids := map[string]bool{}
	for _, f := range readTSV(t, "queries.tsv", 4) {
		q := ownQuery{id: f[0], tag: f[1], text: f[3], relevant: map[string]bool{}}
		if qids[q.id] {
			t.Fatalf("query %s is a duplicate", q.id)
		}
		qids[q.id] = true
		switch q.tag {
		case tagLexical, tagParaphrase, tagDistractor, tagMultiSession:
		default:
			t.Fatalf("query %s: unknown tag %q", q.id, q.tag)
		}
		for _, id := range strings.Split(f[2], ",") {
			if s.content[id] == "" {
				t.Fatalf("query %s: no memory %s", q.id, id)
			}
			q.relevant[id] = true
		}
		s.queries = append(s.queries, q)
	}
	return s
}

func readTSV(t testing.TB, name string, fields int) [][]string {
	t.Helper()
	rows := readTSVAtLeast(t, name, fields)
	for _, parts := range rows {
		if len(parts) != fields {
			t.Fatalf("%s: %q has %d fields, want %d", name, strings.Join(parts, "\t"), len(parts), fields)
		}
	}
	return rows
}

// readTSVAtLeast reads testdata/name's rows, each of at least fields
// tab-separated fields; blank lines and # comments are skipped.
func readTSVAtLeast(t testing.TB, name string, fields int) [][]string {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
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
		if len(parts) < fields {
			t.Fatalf("%s: %q has %d fields, want at least %d", name, line, len(parts), fields)
		}
		out = append(out, parts)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestOwnSetProperties keeps the set as hard as it was written: its size,
// each tag on both halves, paraphrases sharing no content word with any of
// their answers, distractor-heavy queries having a wrong memory that shares
// at least as many content words with them as their best answer does, and
// multi-session answers being turns of a conversation.
func TestOwnSetProperties(t *testing.T) {
	s := loadOwnSet(t)
	count := map[string]*[2]int{}
	for _, q := range s.queries {
		if count[q.tag] == nil {
			count[q.tag] = &[2]int{}
		}
		count[q.tag][splitOf(q.id)]++
		switch q.tag {
		case tagParaphrase:
			for id := range q.relevant {
				if shared := sharedWords(q.text, s.content[id]); len(shared) > 0 {
					t.Errorf("paraphrase %s %q shares %v with %s", q.id, q.text, shared, id)
				}
			}
		case tagDistractor:
			best := 0
			for id := range q.relevant {
				best = max(best, len(sharedWords(q.text, s.content[id])))
			}
			var rival string
			for _, id := range s.ids {
				if !q.relevant[id] && len(sharedWords(q.text, s.content[id])) >= best {
					rival = id
					break
				}
			}
			if rival == "" {
				t.Errorf("distractor-heavy %s %q: no other memory shares %d content words with it", q.id, q.text, best)
			}
		case tagMultiSession:
			for id := range q.relevant {
				if !strings.HasPrefix(id, "c") {
					t.Errorf("multi-session %s: answer %s is not a conversation turn", q.id, id)
				}
			}
		}
	}
	for _, tag := range []string{tagLexical, tagParaphrase, tagDistractor, tagMultiSession} {
		n := count[tag]
		if n == nil {
			n = &[2]int{}
		}
		t.Logf("%-16s tune %3d  held-out %3d", tag, n[tune], n[heldOut])
		if n[tune] < 5 || n[heldOut] < 5 {
			t.Errorf("tag %s has %v queries in the tune and held-out halves; want 5 each at least", tag, *n)
		}
	}
	if len(s.content) < 400 || len(s.queries) < 150 || count[tagParaphrase][0]+count[tagParaphrase][1] < 50 ||
		count[tagDistractor][0]+count[tagDistractor][1] < 20 || count[tagMultiSession][0]+count[tagMultiSession][1] < 20 {
		t.Errorf("%d memories, %d queries; want at least 400 and 150, with 50 paraphrase, 20 distractor-heavy and 20 multi-session", len(s.content), len(s.queries))
	}
	// The checker itself: a shared stem is found, stop words are not.
	for _, c := range []struct{ a, b, want string }{
		{"Where does she live?", "Maya lives in Berlin.", "liv"},
		{"Who booked it?", "She books flights", "book"},
		{"When does he run?", "Running on Tuesdays", "run"},
		{"Which matches?", "The match is on.", "match"},
	} {
		if got := sharedWords(c.a, c.b); len(got) != 1 || got[0] != c.want {
			t.Errorf("sharedWords(%q, %q) = %v, want [%s]", c.a, c.b, got, c.want)
		}
	}
}

// ownStore is the own set stored for one agent with StoreMemory.
type ownStore struct {
	path    string            // the closed database, to copy per run
	chunkOf map[string]string // set ID by chunk ID
	emb     hippo.Embedder
}

const ownAgent = "maya-assistant"

// storeOwnSet stores the set for one agent with StoreMemory, as an agent
// would, or, for the quick check, with one InsertChunks call (the same
// chunks, strengths and times, in one transaction).
func storeOwnSet(t testing.TB, ctx context.Context, s *ownSet, e hippo.Embedder, dir string, bulk bool) *ownStore {
	t.Helper()
	ce := newCachedEmbedder(e)
	texts := make([]string, len(s.ids))
	for i, id := range s.ids {
		texts[i] = s.content[id]
	}
	if err := ce.prepare(ctx, texts); err != nil {
		t.Fatal(err)
	}
	st := &ownStore{path: filepath.Join(dir, "own.db"), chunkOf: map[string]string{}, emb: ce}
	db, err := openDB(ctx, st.path, true)
	if err != nil {
		t.Fatal(err)
	}
	mem, err := db.Memory(sqlite.MemoryOptions{AgentID: ownAgent, Embedder: ce})
	if err != nil {
		t.Fatal(err)
	}
	if bulk {
		vecs, err := ce.Embed(ctx, texts)
		if err != nil {
			t.Fatal(err)
		}
		chunks := make([]*hippo.Chunk, len(texts))
		for i := range texts {
			chunks[i] = &hippo.Chunk{Content: texts[i], Embedding: vecs[i]}
		}
		if err := db.InsertChunks(ctx, ownAgent, "", ce.Model(), chunks); err != nil {
			t.Fatal(err)
		}
		for i, c := range chunks {
			st.chunkOf[c.ID] = s.ids[i]
		}
	}
	for _, id := range s.ids {
		if bulk {
			break
		}
		res, err := mem.StoreMemory(ctx, hippo.StoreInput{Content: s.content[id]})
		if err != nil {
			t.Fatalf("store %s: %v", id, err)
		}
		st.chunkOf[res.Chunk.ID] = id
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return st
}

// run recalls the queries (one half when only is set) in file order on a
// fresh copy of the stored set, as one user asking them all would, with
// limit 10.
func (st *ownStore) run(t testing.TB, ctx context.Context, s *ownSet, m method, boost bool, only *half) result {
	t.Helper()
	mem, done := runMemory(t, ctx, st.path, m, boost, ownAgent, st.emb)
	defer done()
	r := result{method: m, boost: boost}
	for _, q := range s.queries {
		h := splitOf(q.id)
		if only != nil && h != *only {
			continue
		}
		res, err := m.recall(ctx, mem, q.text)
		if err != nil {
			t.Fatalf("recall %s: %v", q.id, err)
		}
		var ranked [][]string
		for _, x := range res {
			if m.counted(x.Relevance, x.BM25, x.Weak) {
				ranked = append(ranked, []string{st.chunkOf[x.Chunk.ID]})
			}
		}
		r.add(h, q.tag, ranked, q.relevant)
	}
	return r
}

// TestOwnSetQuick is the check of every go test, on the held-out half with
// -embedder's embedder (GloVe unless told) and no boost: hybrid recall at
// the embedder's α finds at least as much as vector-only and BM25-only
// recall and ranks it better than both, and paraphrases are not left to
// BM25 (vector recall beats it on them: it shares no word with their
// answers). With -embedder minilm it fails today: at MiniLM's α of 0.4,
// hybrid recall ranks below vector recall alone (MRR 0.616 against 0.667).
func TestOwnSetQuick(t *testing.T) {
	ctx := context.Background()
	s := loadOwnSet(t)
	_, emb := newEmbedder(t)
	st := storeOwnSet(t, ctx, s, emb, t.TempDir(), true)
	held := heldOut
	var got []result
	quick := methods(emb)[:3] // vector, BM25, hybrid at the default α
	for _, m := range quick {
		got = append(got, st.run(t, ctx, s, m, false, &held))
	}
	vec, bm25, hybrid := got[0].by[heldOut], got[1].by[heldOut], got[2].by[heldOut]
	for i, r := range got {
		m := r.by[heldOut]
		t.Logf("%-26s R@5 %.3f  R@10 %.3f  MRR %.3f", quick[i].name, m.R5(), m.R10(), m.MRR())
	}
	for i, single := range []metrics{vec, bm25} {
		if hybrid.R10() < single.R10() || hybrid.MRR() <= single.MRR() {
			t.Errorf("hybrid (R@10 %.3f, MRR %.3f) does not beat %s (R@10 %.3f, MRR %.3f)", hybrid.R10(), hybrid.MRR(), quick[i].name, single.R10(), single.MRR())
		}
	}
	if pv, pb := got[0].tags[heldOut][tagParaphrase], got[1].tags[heldOut][tagParaphrase]; pv.R10() <= pb.R10() {
		t.Errorf("on paraphrases vector recall (R@10 %.3f) does not beat BM25 (%.3f)", pv.R10(), pb.R10())
	}
}

// TestOwnSetEval prints the own set's tables:
//
//	go test ./eval/ -run OwnSetEval -eval -v [-embedder glove|minilm]
func TestOwnSetEval(t *testing.T) {
	if !*flagFull {
		t.Skip("runs with -eval")
	}
	ctx := context.Background()
	s := loadOwnSet(t)
	name, emb := newEmbedder(t)
	st := storeOwnSet(t, ctx, s, emb, t.TempDir(), false)
	report := runMethods(t, name, methods(emb), []bool{true, false}, func(m method, boost bool, only *half) result {
		return st.run(t, ctx, s, m, boost, only)
	})
	t.Logf("\nown set: %d memories, %d queries, embedder %s (%s)\n%s", len(s.content), len(s.queries), name, emb.Model(), report)
}

// sharedWords are the content words of a that b has too, compared by stem.
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

// contentWords are the words of s, lower-cased, stop words left out, each
// cut to a crude stem so that "lives" and "live", "booked" and "book" or
// "running" and "run" count as one word.
func contentWords(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' && r != '’'
	}) {
		w = strings.Trim(w, "'’")
		w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s")
		if w == "" || stop[w] {
			continue
		}
		if !stop[w] {
			out = append(out, stem(w))
		}
	}
	return out
}

// stem drops one of -ing, -ed, -es, -s, -ly (keeping three letters), then
// a final e and a doubled final letter. It errs towards merging words,
// which makes the paraphrase check stricter.
func stem(w string) string {
	for _, suffix := range []string{"ing", "ed", "es", "s", "ly"} {
		if len(w)-len(suffix) >= 3 && strings.HasSuffix(w, suffix) {
			w = strings.TrimSuffix(w, suffix)
			break
		}
	}
	if len(w) > 3 {
		w = strings.TrimSuffix(w, "e")
	}
	if n := len(w); n > 3 && w[n-1] == w[n-2] {
		w = w[:n-1]
	}
	return w
}

var stop = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an the is are was were be been being am do does did doing done has have had having
		what which who whom whose when where why how she her hers herself he him his himself it its itself they them their
		theirs we our ours us you your yours i me my mine myself of in on at to for from with by as and or but not no nor if
		so than then too very just also any there that this these those can could should would will shall may might must
		much many some all each every up down out off over under into onto about again once here own same other such only
		both few more most now ever get got go going s t don didn doesn isn wasn let lets`) {
		stop[w] = true
	}
}
