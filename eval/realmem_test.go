package eval_test

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/sqlite"
)

// rmTurn is one dialogue turn of RealMem, stored as one memory of its
// persona's agent.
type rmTurn struct {
	ID      string `json:"id"`
	Conv    string `json:"conv"`
	Speaker string `json:"speaker"`
	Text    string `json:"text"`
	session int    // from the ID: <persona>/s<session>/t<turn>
	turn    int
}

// rmQuery is one RealMem query: a user request that needs remembered
// context, asked when the sessions before CutoffSession are stored.
type rmQuery struct {
	QID           string   `json:"qid"`
	Conv          string   `json:"conv"`
	Question      string   `json:"question"`
	Evidence      []string `json:"evidence"`
	CutoffSession int      `json:"cutoff_session"`
	Category      string   `json:"category"`
}

// rmData is the RealMem set: every turn in order (persona, session,
// turn), and the queries with turn-level evidence.
type rmData struct {
	turns    []rmTurn
	queries  []rmQuery
	noTurns  int // queries without turn-level evidence, skipped
	personas []string
}

// realMemDir is ../shared/eval/realmem, skipping the test when it is
// missing, or failing under CI.
func realMemDir(t testing.TB) string {
	t.Helper()
	if dir := sharedEvalDir(t); dir != "" {
		dir = filepath.Join(dir, "realmem")
		if _, err := os.Stat(filepath.Join(dir, "queries.jsonl.gz")); err == nil {
			return dir
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("RealMem data missing (looked for ../shared/eval/realmem beside the repository); CI must have it")
	}
	t.Skip("RealMem data not found beside the repository (../shared/eval/realmem)")
	return ""
}

// readGzipJSONL decodes every line of a gzipped JSONL file with each.
func readGzipJSONL(t testing.TB, path string, each func(*json.Decoder) error) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	dec := json.NewDecoder(bufio.NewReaderSize(gz, 1<<20))
	for dec.More() {
		if err := each(dec); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
}

// sessionTurn parses "<persona>/s<session>/t<turn>".
func sessionTurn(id string) (session, turn int, ok bool) {
	parts := strings.Split(id, "/")
	if len(parts) != 3 || !strings.HasPrefix(parts[1], "s") || !strings.HasPrefix(parts[2], "t") {
		return 0, 0, false
	}
	s, err1 := strconv.Atoi(parts[1][1:])
	tn, err2 := strconv.Atoi(parts[2][1:])
	return s, tn, err1 == nil && err2 == nil
}

func loadRealMem(t testing.TB, dir string) *rmData {
	t.Helper()
	d := &rmData{}
	seen := map[string]bool{}
	readGzipJSONL(t, filepath.Join(dir, "memories.jsonl.gz"), func(dec *json.Decoder) error {
		var tr rmTurn
		if err := dec.Decode(&tr); err != nil {
			return err
		}
		var ok bool
		if tr.session, tr.turn, ok = sessionTurn(tr.ID); !ok {
			return fmt.Errorf("turn ID %q is not <persona>/s<n>/t<n>", tr.ID)
		}
		if !seen[tr.Conv] {
			seen[tr.Conv] = true
			d.personas = append(d.personas, tr.Conv)
		}
		d.turns = append(d.turns, tr)
		return nil
	})
	sort.SliceStable(d.turns, func(i, j int) bool {
		a, b := d.turns[i], d.turns[j]
		if a.Conv != b.Conv {
			return a.Conv < b.Conv
		}
		if a.session != b.session {
			return a.session < b.session
		}
		return a.turn < b.turn
	})
	sort.Strings(d.personas)
	readGzipJSONL(t, filepath.Join(dir, "queries.jsonl.gz"), func(dec *json.Decoder) error {
		var q rmQuery
		if err := dec.Decode(&q); err != nil {
			return err
		}
		if len(q.Evidence) == 0 {
			d.noTurns++
			return nil
		}
		d.queries = append(d.queries, q)
		return nil
	})
	// Queries in the order they are asked: by persona, then cutoff
	// session, then file order.
	sort.SliceStable(d.queries, func(i, j int) bool {
		a, b := d.queries[i], d.queries[j]
		if a.Conv != b.Conv {
			return a.Conv < b.Conv
		}
		return a.CutoffSession < b.CutoffSession
	})
	return d
}

// TestRealMemData checks the shared RealMem data quickly: the counts its
// README states and every evidence turn present.
func TestRealMemData(t *testing.T) {
	if raceEnabled {
		t.Skip("reading 14,028 turns takes long under -race; checked without it")
	}
	d := loadRealMem(t, realMemDir(t))
	if len(d.turns) != 14028 || len(d.personas) != 10 {
		t.Errorf("%d turns of %d personas, want 14028 of 10", len(d.turns), len(d.personas))
	}
	if len(d.queries)+d.noTurns != 1415 || len(d.queries) != 1360 {
		t.Errorf("%d queries with turn evidence of %d, want 1360 of 1415", len(d.queries), len(d.queries)+d.noTurns)
	}
	ids := map[string]rmTurn{}
	for _, tr := range d.turns {
		ids[tr.ID] = tr
	}
	for _, q := range d.queries {
		for _, id := range q.Evidence {
			tr, ok := ids[id]
			switch {
			case !ok:
				t.Errorf("%s: evidence turn %s is not among the turns", q.QID, id)
			case tr.session >= q.CutoffSession:
				t.Errorf("%s: evidence turn %s is not before the cutoff session %d", q.QID, id, q.CutoffSession)
			}
		}
	}
}

// storable reports whether store_memory takes a turn: 2 turns are over
// its size limit and a few are empty.
func storable(text string) bool {
	return strings.TrimSpace(text) != "" && len(text) <= hippo.DefaultConfig().MaxContent
}

// rmAgent is the agent a persona's turns belong to.
func rmAgent(persona string) string {
	return "realmem-" + strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, persona)
}

// prepareRealMem embeds every turn and query ahead, through the vector
// cache of the embedder's model.
func prepareRealMem(t testing.TB, ctx context.Context, ce *cachedEmbedder, model string, d *rmData) {
	t.Helper()
	var texts []string
	for _, q := range d.queries {
		texts = append(texts, q.Question)
	}
	for _, tr := range d.turns {
		if storable(tr.Text) {
			texts = append(texts, tr.Text)
		}
	}
	embedCached(t, ctx, ce, cacheFile(model, "realmem"), texts, 1000)
}

// embedCached embeds texts through ce, with the vectors saved at cache
// (unless "") loaded first and saved again after every step texts, so
// that a run stopped half way does not lose what it embedded.
func embedCached(t testing.TB, ctx context.Context, ce *cachedEmbedder, cache string, texts []string, step int) {
	t.Helper()
	if n, err := ce.load(cache); err != nil {
		t.Logf("embedding cache not used: %v", err)
	} else if n > 0 {
		t.Logf("%d vectors from %s", n, cache)
	}
	start := time.Now()
	for i := 0; i < len(texts); i += step {
		if err := ce.prepare(ctx, texts[i:min(i+step, len(texts))]); err != nil {
			t.Fatal(err)
		}
		if cache != "" {
			if err := ce.save(cache); err != nil {
				t.Logf("embedding cache not saved: %v", err)
			}
		}
		t.Logf("embedded %d of %d texts in %v", min(i+step, len(texts)), len(texts), time.Since(start).Round(time.Second))
	}
}

// playRealMem walks the protocol's order on db with e: for each persona,
// begin with its agent's memory, then its turns stored in order (stored
// told the chunk each went to), each query asked (ask) once the sessions
// before its cutoff are stored.
func playRealMem(t testing.TB, ctx context.Context, db *sqlite.DB, e hippo.Embedder, d *rmData,
	begin func(persona string, mem *sqlite.Memory), stored func(chunkID string, tr rmTurn), ask func(q rmQuery)) {
	t.Helper()
	qi := 0
	for _, persona := range d.personas {
		mem, err := db.Memory(sqlite.MemoryOptions{AgentID: rmAgent(persona), Embedder: e})
		if err != nil {
			t.Fatal(err)
		}
		begin(persona, mem)
		askBefore := func(session int) {
			for ; qi < len(d.queries) && d.queries[qi].Conv == persona && d.queries[qi].CutoffSession <= session; qi++ {
				ask(d.queries[qi])
			}
		}
		for _, tr := range d.turns {
			if tr.Conv != persona {
				continue
			}
			askBefore(tr.session)
			if !storable(tr.Text) {
				continue
			}
			res, err := mem.StoreMemory(ctx, hippo.StoreInput{Content: tr.Text})
			if err != nil {
				t.Fatalf("store %s: %v", tr.ID, err)
			}
			stored(res.Chunk.ID, tr)
		}
		askBefore(1 << 30)
	}
}

// runRealMem runs the protocol once with method m: a fresh database, each
// persona's sessions stored in order, each query asked once the sessions
// before its cutoff are stored. cfg is the store's configuration (its
// RetrievalBoost decides boost on or off).
func runRealMem(t testing.TB, ctx context.Context, dir string, cfg hippo.Config, e hippo.Embedder, d *rmData, m method) result {
	t.Helper()
	db, err := sqlite.Open(ctx, filepath.Join(dir, fmt.Sprintf("realmem-%d.db", time.Now().UnixNano())),
		sqlite.Options{Config: &cfg, Now: func() time.Time { return evalClock }, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	r := result{method: m, boost: cfg.RetrievalBoost > 0}
	var (
		mem     *sqlite.Memory
		turnsOf map[string][]string // turn IDs by chunk ID
	)
	playRealMem(t, ctx, db, e, d, func(_ string, m *sqlite.Memory) {
		mem, turnsOf = m, map[string][]string{}
	}, func(chunkID string, tr rmTurn) {
		turnsOf[chunkID] = append(turnsOf[chunkID], tr.ID)
	}, func(q rmQuery) {
		res, err := m.recall(ctx, mem, q.Question)
		if err != nil {
			t.Fatalf("recall %s: %v", q.QID, err)
		}
		var ranked [][]string
		for _, x := range res {
			if m.counted(x.Relevance, x.BM25, x.Weak) {
				ranked = append(ranked, turnsOf[x.Chunk.ID])
			}
		}
		relevant := map[string]bool{}
		for _, id := range q.Evidence {
			relevant[id] = true
		}
		r.add(splitOf(q.QID), q.Category, ranked, relevant)
	})
	return r
}

// TestRealMem runs the RealMem protocol through the library:
//
//	go test ./eval/ -run 'RealMem$' -realmem -embedder minilm -v -timeout 3h
//
// RealMem is held out: no constant of recall was chosen on it. Every
// query is reported (both halves together) as well as by half.
// flagRealMemRuns keeps TestRealMem to some of its runs (a method and the
// boost on or off take 10 to 15 minutes each): a comma-separated list of
// "<word of the method's name>/<on|off>", such as "default/on,bm25/on";
// empty for all.
var flagRealMemRuns = flag.String("realmem-runs", "", "TestRealMem: the runs to make, as method/boost (default/on,bm25/on,vector/off,...); empty for all")

// realMemRuns reports whether -realmem-runs asks for the run of the method
// named name with the boost on or off.
func realMemRuns(name string, boost bool) bool {
	if *flagRealMemRuns == "" {
		return true
	}
	for _, run := range strings.Split(*flagRealMemRuns, ",") {
		word, b, _ := strings.Cut(strings.TrimSpace(run), "/")
		if strings.Contains(name, word) && (b == "" || b == onOff(boost)) {
			return true
		}
	}
	return false
}

func TestRealMem(t *testing.T) {
	if !*flagRealMem {
		t.Skip("runs with -realmem")
	}
	ctx := context.Background()
	d := loadRealMem(t, realMemDir(t))
	name, emb := newEmbedder(t)
	ce := newCachedEmbedder(emb)
	prepareRealMem(t, ctx, ce, emb.Model(), d)
	dir := t.TempDir()
	tb := newTable("embedder", "method", "boost", "n", "R@5", "R@10", "Hit@10", "MRR@10")
	cats := newTable("method", "boost", "category", "n", "R@10", "MRR@10")
	for _, boost := range []bool{true, false} {
		for _, m := range methods(emb) {
			if !realMemRuns(m.name, boost) {
				continue
			}
			cfg := evalConfig(boost)
			start := time.Now()
			r := runRealMem(t, ctx, dir, cfg, ce, d, m)
			t.Logf("%s boost=%v: %v", m.name, boost, time.Since(start).Round(time.Millisecond))
			all := r.by[tune]
			all.merge(r.by[heldOut])
			tb.row(name, m.name, onOff(boost), fmt.Sprint(all.n), f3(all.R5()), f3(all.R10()), f3(all.Hit10()), f3(all.MRR()))
			for _, c := range tagNames([]result{r}, tune) {
				m2 := *r.tags[tune][c]
				if h := r.tags[heldOut][c]; h != nil {
					m2.merge(*h)
				}
				cats.row(m.name, onOff(boost), c, fmt.Sprint(m2.n), f3(m2.R10()), f3(m2.MRR()))
			}
		}
	}
	t.Logf("\nRealMem (held out), %d queries with turn evidence (%d without skipped), %d turns of %d personas, embedder %s (%s)\n%s\nby category\n%s",
		len(d.queries), d.noTurns, len(d.turns), len(d.personas), name, emb.Model(), tb, cats)
}
