package eval_test

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/sqlite"
)

// lmeTurn is one dialogue turn of LongMemEval, stored as one memory.
type lmeTurn struct {
	ID        string `json:"id"`
	SessionID string `json:"session_id"`
	Turn      int    `json:"turn"`
	Role      string `json:"role"`
	Text      string `json:"text"`
	Date      string `json:"date"`
}

// lmeQuery is one LongMemEval question.
type lmeQuery struct {
	QID              string   `json:"qid"`
	Type             string   `json:"type"`
	Abstention       bool     `json:"abstention"`
	Question         string   `json:"question"`
	EvidenceSessions []string `json:"evidence_session_ids"`
	EvidenceTurns    []string `json:"evidence_turn_ids"`
}

// sessionLevel reports whether q is scored by session: it names no turns.
func (q lmeQuery) sessionLevel() bool { return len(q.EvidenceTurns) == 0 }

// relevant are the items a result must stand for to count.
func (q lmeQuery) relevant() map[string]bool {
	ids := q.EvidenceTurns
	if q.sessionLevel() {
		ids = q.EvidenceSessions
	}
	m := map[string]bool{}
	for _, id := range ids {
		m[id] = true
	}
	return m
}

// lmeData is the oracle set: every turn, and the questions scored (the
// abstention questions left out).
type lmeData struct {
	turns   []lmeTurn
	queries []lmeQuery
	skipped int // abstention questions
	session map[string]string
}

// loadLME reads the questions and, unless questionsOnly, the turns.
func loadLME(t testing.TB, dir string, questionsOnly bool) *lmeData {
	t.Helper()
	d := &lmeData{session: map[string]string{}}
	f, err := os.Open(filepath.Join(dir, "memories.jsonl.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("memories.jsonl.gz: %v", err)
	}
	dec := json.NewDecoder(bufio.NewReaderSize(gz, 1<<20))
	for !questionsOnly && dec.More() {
		var tr lmeTurn
		if err := dec.Decode(&tr); err != nil {
			t.Fatalf("memories.jsonl.gz: %v", err)
		}
		d.turns = append(d.turns, tr)
		d.session[tr.ID] = tr.SessionID
	}
	qf, err := os.Open(filepath.Join(dir, "queries.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer qf.Close()
	dec = json.NewDecoder(bufio.NewReader(qf))
	for dec.More() {
		var q lmeQuery
		if err := dec.Decode(&q); err != nil {
			t.Fatalf("queries.jsonl: %v", err)
		}
		if q.Abstention {
			d.skipped++
			continue
		}
		d.queries = append(d.queries, q)
	}
	return d
}

// TestLongMemEvalData checks the shared data the LongMemEval run reads,
// quickly, with every go test: the counts the protocol states, every
// evidence turn present, and both halves of the split populated. Under
// -race, which makes reading the turns take seconds, only the questions
// are checked (and the turns' file opened).
func TestLongMemEvalData(t *testing.T) {
	d := loadLME(t, needData(t), raceEnabled)
	if len(d.queries)+d.skipped != 500 || d.skipped != 30 {
		t.Errorf("%d questions (%d abstention); want 500 (30)", len(d.queries)+d.skipped, d.skipped)
	}
	if !raceEnabled && len(d.turns) != 10866 {
		t.Errorf("%d turns, want 10866", len(d.turns))
	}
	sessions := map[string]bool{}
	for _, s := range d.session {
		sessions[s] = true
	}
	var bySession, halves [2]int
	for _, q := range d.queries {
		if q.sessionLevel() {
			bySession[0]++
		}
		for _, id := range q.EvidenceTurns {
			if _, ok := d.session[id]; !ok && !raceEnabled {
				t.Errorf("%s: evidence turn %s is not among the turns", q.QID, id)
			}
		}
		for _, id := range q.EvidenceSessions {
			if !sessions[id] && !raceEnabled {
				t.Errorf("%s: evidence session %s is not among the turns", q.QID, id)
			}
		}
		halves[splitOf(q.QID)]++
	}
	t.Logf("%d turns, %d questions scored (%d at session level), tune %d, held-out %d", len(d.turns), len(d.queries), bySession[0], halves[tune], halves[heldOut])
	if halves[tune] < 200 || halves[heldOut] < 200 {
		t.Errorf("split %v is lopsided", halves)
	}
}

// lmeStore maps stored chunks to the turns they stand for: StoreMemory
// keeps one chunk for verbatim repeats, and LongMemEval repeats turns
// across sessions.
type lmeStore struct {
	turnsOf map[string][]string // turn IDs by chunk ID
	dups    int
}

func (s *lmeStore) add(chunkID, turnID string, duplicate bool) {
	if s.turnsOf == nil {
		s.turnsOf = map[string][]string{}
	}
	if duplicate {
		s.dups++
	}
	s.turnsOf[chunkID] = append(s.turnsOf[chunkID], turnID)
}

// ranked turns a recall into, per counted result, the items it stands
// for: turn IDs, or session IDs for session-level questions.
func (s *lmeStore) ranked(d *lmeData, q lmeQuery, m method, res []recalled) [][]string {
	var out [][]string
	for _, r := range res {
		if !m.counted(r.Relevance, r.BM25, r.Weak) {
			continue
		}
		items := s.turnsOf[r.ID]
		if q.sessionLevel() {
			sess := make([]string, len(items))
			for i, id := range items {
				sess[i] = d.session[id]
			}
			items = sess
		}
		out = append(out, items)
	}
	return out
}

// result is one method's figures on each half, overall and by tag.
type result struct {
	method method
	boost  bool
	by     [2]metrics
	tags   [2]map[string]*metrics // nil when the set has no tags
}

// add scores one query of half h, tagged tag unless "".
func (r *result) add(h half, tag string, ranked [][]string, relevant map[string]bool) {
	r.by[h].add(ranked, relevant)
	if tag == "" {
		return
	}
	if r.tags[h] == nil {
		r.tags[h] = map[string]*metrics{}
	}
	if r.tags[h][tag] == nil {
		r.tags[h][tag] = &metrics{}
	}
	r.tags[h][tag].add(ranked, relevant)
}

// TestLongMemEval runs the LongMemEval oracle protocol through the library:
//
//	go test ./eval/ -run 'LongMemEval$' -longmemeval -v -timeout 2h [-embedder glove|minilm]
func TestLongMemEval(t *testing.T) {
	if !*flagLME {
		t.Skip("runs with -longmemeval")
	}
	ctx := context.Background()
	d, name, emb, ce := lmeEmbedded(t, ctx)

	dir := t.TempDir()
	base := filepath.Join(dir, "base.db")
	start := time.Now()
	store := ingestLME(t, ctx, base, ce, d)
	t.Logf("stored %d turns as %d memories (%d verbatim repeats) in %v", len(d.turns), len(store.turnsOf), store.dups, time.Since(start).Round(time.Millisecond))

	run := func(m method, boost bool, only *half) result {
		t.Helper()
		mem, done := runMemory(t, ctx, base, m, boost, lmeAgent, ce)
		defer done()
		r := result{method: m, boost: boost}
		for _, q := range d.queries {
			h := splitOf(q.QID)
			if only != nil && h != *only {
				continue
			}
			res, err := m.recall(ctx, mem, q.Question)
			if err != nil {
				t.Fatalf("recall %s: %v", q.QID, err)
			}
			r.add(h, "", store.ranked(d, q, m, asRecalled(res)), q.relevant())
		}
		return r
	}
	report := runMethods(t, name, methods(emb), []bool{true, false}, run)
	t.Log("\nLongMemEval oracle, " + fmt.Sprintf("%d questions (%d abstention skipped), %d turns, embedder %s (%s)\n", len(d.queries), d.skipped, len(d.turns), name, emb.Model()) + report)
}

// lmeEmbedded loads LongMemEval and the embedder of the run (-embedder),
// with every turn's vector in a cache on disk, embedded once.
func lmeEmbedded(t *testing.T, ctx context.Context) (d *lmeData, name string, emb hippo.Embedder, ce *cachedEmbedder) {
	d = loadLME(t, needData(t), false)
	name, emb = newEmbedder(t)
	ce = newCachedEmbedder(emb)
	texts := make([]string, len(d.turns))
	for i, tr := range d.turns {
		texts[i] = tr.Text
	}
	embedCached(t, ctx, ce, cacheFile(emb.Model(), "longmemeval"), texts, 2000)
	return d, name, emb, ce
}

// lmeAgent is the one agent all turns belong to.
const lmeAgent = "longmemeval"

// ingestLME stores every turn with StoreMemory into a new database at path
// and closes it.
func ingestLME(t testing.TB, ctx context.Context, path string, e hippo.Embedder, d *lmeData) *lmeStore {
	t.Helper()
	db, err := openDB(ctx, path, true)
	if err != nil {
		t.Fatal(err)
	}
	mem, err := db.Memory(sqlite.MemoryOptions{AgentID: lmeAgent, Embedder: e})
	if err != nil {
		t.Fatal(err)
	}
	store := &lmeStore{}
	for _, tr := range d.turns {
		res, err := mem.StoreMemory(ctx, hippo.StoreInput{Content: tr.Text})
		if err != nil {
			t.Fatalf("store %s: %v", tr.ID, err)
		}
		store.add(res.Chunk.ID, tr.ID, res.Duplicate)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return store
}

// runMethods runs every method with and without the retrieval boost on
// all questions, then the α sweep on the tune half alone, and renders the
// tables: held-out first, tune figures labelled as such. run runs one
// method on a fresh copy of the stored database (only one half when only
// is set).
func runMethods(t testing.TB, name string, ms []method, boosts []bool, run func(m method, boost bool, only *half) result) string {
	t.Helper()
	var results []result
	for _, boost := range boosts {
		for _, m := range ms {
			start := time.Now()
			results = append(results, run(m, boost, nil))
			t.Logf("%s boost=%v: %v", m.name, boost, time.Since(start).Round(time.Millisecond))
		}
	}
	// The sweep chooses α on the tune half only, with the boost on as in
	// real use; the chosen α is then run on every question.
	tuneOnly := tune
	best := -1.0
	var bestAlpha float64
	sw := newTable("α (tune half only)", "n", "R@5", "R@10", "Hit@10", "MRR@10")
	for _, a := range sweep {
		r := run(method{name: fmt.Sprintf("hybrid α=%.1f", a), alpha: a}, true, &tuneOnly)
		m := r.by[tune]
		sw.row(fmt.Sprintf("%.1f", a), fmt.Sprint(m.n), f3(m.R5()), f3(m.R10()), f3(m.Hit10()), f3(m.MRR()))
		if score := m.R10() + m.MRR()/1000; score > best {
			best, bestAlpha = score, a
		}
	}
	for _, boost := range boosts {
		results = append(results, run(method{name: fmt.Sprintf("hybrid (α=%.1f, tuned)", bestAlpha), alpha: bestAlpha}, boost, nil))
	}
	var out string
	for _, h := range []half{heldOut, tune} {
		tb := newTable("embedder", "method", "boost", "half", "n", "R@5", "R@10", "Hit@10", "MRR@10")
		for _, r := range results {
			m := r.by[h]
			tb.row(name, r.method.name, onOff(r.boost), h.String(), fmt.Sprint(m.n), f3(m.R5()), f3(m.R10()), f3(m.Hit10()), f3(m.MRR()))
		}
		label := "HELD-OUT half (report these)"
		if h == tune {
			label = "TUNE half (α chosen here: not a result)"
		}
		out += label + "\n" + tb.String() + "\n"
		if tags := tagNames(results, h); len(tags) > 0 {
			header := []string{"method", "boost"}
			for _, tag := range tags {
				header = append(header, tag+" n", "R@10", "MRR")
			}
			tt := newTable(header...)
			for _, r := range results {
				row := []string{r.method.name, onOff(r.boost)}
				for _, tag := range tags {
					m := r.tags[h][tag]
					if m == nil {
						m = &metrics{}
					}
					row = append(row, fmt.Sprint(m.n), f3(m.R10()), f3(m.MRR()))
				}
				tt.row(row...)
			}
			out += "by tag, " + h.String() + " half\n" + tt.String() + "\n"
		}
	}
	out += "α sweep, boost on, TUNE half only\n" + sw.String()
	return out
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// tagNames are the tags the results of half h carry, sorted.
func tagNames(results []result, h half) []string {
	seen := map[string]bool{}
	for _, r := range results {
		for tag := range r.tags[h] {
			seen[tag] = true
		}
	}
	var tags []string
	for tag := range seen {
		tags = append(tags, tag)
	}
	sort.Strings(tags)
	return tags
}

func asRecalled(res []hippo.Recalled) []recalled {
	out := make([]recalled, len(res))
	for i, r := range res {
		out[i] = recalled{r.Chunk.ID, r.Chunk.Content, r.BM25, r.Relevance, r.Weak}
	}
	return out
}
