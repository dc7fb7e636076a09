package eval_test

import (
	"bytes"
	"context"
	"encoding/gob"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/internal/pgtest"
	"github.com/hippo-mem/hippo/local"
	"github.com/hippo-mem/hippo/local/minilm"
	"github.com/hippo-mem/hippo/postgres"
	"github.com/hippo-mem/hippo/sqlite"
)

// Flags of the evaluations that do not run with every go test.
var (
	flagEmbedder = flag.String("embedder", quickEmbedder, "embedder of the evaluations: "+strings.Join(embedderNames(), "|"))
	flagFull     = flag.Bool("eval", false, "run the full evaluation of the own set and print its tables")
	flagLME      = flag.Bool("longmemeval", false, "run LongMemEval through the library and print its tables")
	flagRealMem  = flag.Bool("realmem", false, "run RealMem through the library and print its tables")
	flagBefore   = flag.Bool("before", false, "run the library evaluations with recall as it was before issue 28 (every result boosted, no weak results, weights 0.6/0.3/0.1), for before-and-after tables")
	flagNewer    = flag.Bool("newer", true, "rank a newer memory that says something changed above an older one on its topic (Config.NewerTopic); false turns it off, for before-and-after tables")
	flagLink     = flag.Bool("newer-link", true, "let a shared rare word put two memories on one topic (Config.NewerLink); false leaves it to the cosine, for before-and-after tables")
	flagLMEMCP   = flag.Bool("longmemeval-mcp", false, "run LongMemEval through `hippo serve` over MCP Streamable HTTP")
	flagStore    = flag.String("store", "sqlite", "the store the own set and LongMemEval runs recall from: sqlite, or postgres (a database per run, at $HIPPO_TEST_POSTGRES or the local server)")
	flagBin      = flag.Bool("bin", false, "run the first-contact check through the hippo binary too (CLI and MCP)")
	flagTarget   = flag.Bool("firstcontact-target", false, "assert the first-contact target (also HIPPO_EVAL_TARGET=1)")
)

// defaultEmbedder names the default offline embedder (hippo init's and
// the CLI's for new databases): the first-contact check uses it.
const defaultEmbedder = "minilm"

// quickEmbedder is the embedder of the own set's quick check and
// -embedder's default: GloVe, which embeds the set in a fraction of a
// second even under -race.
const quickEmbedder = "glove"

// embedders are the embedders the evaluations can use, by flag name.
var embedders = map[string]func() hippo.Embedder{
	"glove":  func() hippo.Embedder { return local.NewEmbedder() },
	"minilm": func() hippo.Embedder { return minilm.NewEmbedder() },
}

func embedderNames() []string {
	var names []string
	for n := range embedders {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// newEmbedder is the embedder of -embedder.
func newEmbedder(t testing.TB) (string, hippo.Embedder) {
	t.Helper()
	mk, ok := embedders[*flagEmbedder]
	if !ok {
		t.Fatalf("-embedder %q: want one of %v", *flagEmbedder, embedderNames())
	}
	return *flagEmbedder, mk()
}

// embedderFlagSet reports whether -embedder was given.
func embedderFlagSet() bool {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "embedder" })
	return set
}

// defaultAlpha is the hybrid weight recall uses with e when none is asked.
func defaultAlpha(e hippo.Embedder) float64 {
	return hippo.DefaultConfig().ForEmbedder(e).HybridAlpha
}

// half is where a query falls: the tune half, which α is chosen on, or the
// held-out half, which is reported.
type half int

const (
	tune half = iota
	heldOut
)

func (h half) String() string {
	if h == tune {
		return "tune"
	}
	return "held-out"
}

// splitOf assigns an ID to a half by the parity of its 32-bit FNV-1a hash:
// the same ID always falls in the same half, whatever else the set holds.
func splitOf(id string) half {
	h := fnv.New32a()
	io.WriteString(h, id)
	return half(h.Sum32() & 1)
}

// metrics accumulate a method's scores over queries: recall at 5 and 10
// (the share of a query's relevant items in the first k results), hit at
// 10 (any relevant item in the first 10) and reciprocal rank of the first
// relevant result within 10.
type metrics struct {
	r5, r10, hit10, mrr float64
	n                   int
}

// add scores one query. ranked holds, per result in rank order, the
// relevant items that result stands for (a stored chunk may stand for
// several items, as when identical turns were stored once); want is the
// number of relevant items.
func (m *metrics) add(ranked [][]string, relevant map[string]bool) {
	found5, found10 := map[string]bool{}, map[string]bool{}
	rr := 0.0
	for i, items := range ranked {
		if i >= 10 {
			break
		}
		for _, it := range items {
			if !relevant[it] {
				continue
			}
			if rr == 0 {
				rr = 1 / float64(i+1)
			}
			found10[it] = true
			if i < 5 {
				found5[it] = true
			}
		}
	}
	m.r5 += float64(len(found5)) / float64(len(relevant))
	m.r10 += float64(len(found10)) / float64(len(relevant))
	if len(found10) > 0 {
		m.hit10++
	}
	m.mrr += rr
	m.n++
}

// merge adds o's queries to m.
func (m *metrics) merge(o metrics) {
	m.r5, m.r10, m.hit10, m.mrr, m.n = m.r5+o.r5, m.r10+o.r10, m.hit10+o.hit10, m.mrr+o.mrr, m.n+o.n
}

func (m metrics) mean(v float64) float64 { return v / float64(max(m.n, 1)) }

func (m metrics) R5() float64    { return m.mean(m.r5) }
func (m metrics) R10() float64   { return m.mean(m.r10) }
func (m metrics) Hit10() float64 { return m.mean(m.hit10) }
func (m metrics) MRR() float64   { return m.mean(m.mrr) }

// table prints aligned columns.
type table struct {
	b  strings.Builder
	tw *tabwriter.Writer
}

func newTable(header ...string) *table {
	t := &table{}
	t.tw = tabwriter.NewWriter(&t.b, 0, 0, 2, ' ', tabwriter.AlignRight)
	t.row(header...)
	return t
}

func (t *table) row(cells ...string) { fmt.Fprintln(t.tw, strings.Join(cells, "\t")+"\t") }

func (t *table) String() string {
	t.tw.Flush()
	return t.b.String()
}

func f3(v float64) string { return fmt.Sprintf("%.3f", v) }

// method is a way of recalling: a name and the α it passes.
type method struct {
	name  string
	alpha float64
	bm25  bool // count only results with a full-text match (α = 1)
	// serverDefault sends no α over MCP: the server's embedder's own.
	serverDefault bool
	// noFloor asks for no relevance floor (MinRelevance 0) instead of the
	// calibrated default.
	noFloor bool
}

// methods are vector only, BM25 only and hybrid at the embedder's α.
func methods(e hippo.Embedder) []method {
	return []method{
		{name: "vector (α=0)", alpha: 0},
		{name: "bm25 (α=1)", alpha: 1, bm25: true},
		{name: fmt.Sprintf("hybrid (α=%.2g, default)", defaultAlpha(e)), alpha: defaultAlpha(e), serverDefault: true},
		{name: fmt.Sprintf("hybrid (α=%.2g, no floor)", defaultAlpha(e)), alpha: defaultAlpha(e), serverDefault: true, noFloor: true},
	}
}

// minRelevance is the relevance floor to ask for: nil for the default.
func (m method) minRelevance() *float64 {
	if !m.noFloor {
		return nil
	}
	zero := 0.0
	return &zero
}

// alphaArg is the α to send: nil for the server's default.
func (m method) alphaArg() *float64 {
	if m.serverDefault {
		return nil
	}
	a := m.alpha
	return &a
}

// sweep is the α grid searched on the tune half.
var sweep = []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9}

// counted reports whether a result counts as retrieved by m: results with
// no relevance at all are ranked by strength and recency alone, an order
// that says nothing about the query, unless they are weak results, which
// follow by cosine; with α = 1 only full-text matches count, so that the
// row measures BM25 alone.
func (m method) counted(relevance, bm25 float64, weak bool) bool {
	return (relevance > 0 || weak) && (!m.bm25 || bm25 > 0)
}

// evalClock is the fixed time of the evaluations: every memory is stored
// and recalled at it, so strength changes only through duplicates and the
// retrieval boost, and runs are reproducible.
var evalClock = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// configTweak, when set, changes the configuration of every run: the
// library sweep (TestLibrarySweep) sets it per variant.
var configTweak func(*hippo.Config)

// evalConfig is the configuration of a run: the default, the retrieval
// boost on or off, -before, -newer, -agent-statistics and configTweak.
func evalConfig(boost bool) hippo.Config {
	cfg := hippo.DefaultConfig()
	if *flagBefore {
		beforeConfig(&cfg)
	}
	if !*flagNewer {
		cfg.NewerTopic = 0
	}
	if !*flagLink {
		cfg.NewerLink = 0
	}
	cfg.AgentTextStatistics = *flagAgentStats
	if configTweak != nil {
		configTweak(&cfg)
	}
	if !boost {
		cfg.RetrievalBoost = 0
	}
	return cfg
}

// openDB opens (creating) a database at path with the default
// configuration, the retrieval boost on or off, and the evaluation clock.
func openDB(ctx context.Context, path string, boost bool) (*sqlite.DB, error) {
	cfg := evalConfig(boost)
	return sqlite.Open(ctx, path, sqlite.Options{Config: &cfg, Now: func() time.Time { return evalClock }, NoSync: true})
}

// runMemory opens agent's memory with e on a fresh copy of the stored
// database at base, for one run of method m; done closes and removes the
// copy. With -store postgres the copy is a new PostgreSQL database the
// SQLite base is exported into (hippo export | hippo import), so that
// both stores answer the same questions over the same chunks.
func runMemory(t testing.TB, ctx context.Context, base string, m method, boost bool, agent string, e hippo.Embedder) (mem hippo.AgentMemory, done func()) {
	t.Helper()
	if *flagStore == "postgres" {
		return runPostgres(t, ctx, base, boost, agent, e)
	}
	path := filepath.Join(filepath.Dir(base), fmt.Sprintf("run-%v-%v-%v.db", m.alpha, boost, m.noFloor))
	if err := copyDB(base, path); err != nil {
		t.Fatal(err)
	}
	db, err := openDB(ctx, path, boost)
	if err != nil {
		os.Remove(path)
		t.Fatal(err)
	}
	done = func() { db.Close(); os.Remove(path) }
	if mem, err = db.Memory(sqlite.MemoryOptions{AgentID: agent, Embedder: e}); err != nil {
		done()
		t.Fatal(err)
	}
	return mem, done
}

// exports holds each SQLite base exported, for runPostgres.
var exports sync.Map // base path → []byte

// runPostgres is runMemory on a new PostgreSQL database holding the
// export of the SQLite base.
func runPostgres(t testing.TB, ctx context.Context, base string, boost bool, agent string, e hippo.Embedder) (hippo.AgentMemory, func()) {
	t.Helper()
	data, ok := exports.Load(base)
	if !ok {
		db, err := openDB(ctx, base, true)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		_, err = db.Export(ctx, &buf, hippo.ExportOptions{})
		db.Close()
		if err != nil {
			t.Fatal(err)
		}
		data = buf.Bytes()
		exports.Store(base, data)
	}
	cfg := evalConfig(boost)
	pdb, err := postgres.Open(ctx, pgtest.New(t), postgres.Options{Config: &cfg, Now: func() time.Time { return evalClock }})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pdb.Import(ctx, bytes.NewReader(data.([]byte)), hippo.ImportOptions{}); err != nil {
		pdb.Close()
		t.Fatal(err)
	}
	mem, err := pdb.Service(hippo.MemoryOptions{AgentID: agent, Embedder: e})
	if err != nil {
		pdb.Close()
		t.Fatal(err)
	}
	return mem, func() { pdb.Close() }
}

// recall asks query as method m does: limit 10, m's α and relevance floor.
func (m method) recall(ctx context.Context, mem hippo.AgentMemory, query string) ([]hippo.Recalled, error) {
	alpha := m.alpha
	return mem.Recall(ctx, hippo.RecallInput{Query: query, Limit: 10, Alpha: &alpha, MinRelevance: m.minRelevance()})
}

// copyDB copies a closed database file (and its WAL, if any) to dst.
func copyDB(src, dst string) error {
	for _, suffix := range []string{"", "-wal"} {
		b, err := os.ReadFile(src + suffix)
		if os.IsNotExist(err) && suffix != "" {
			continue
		}
		if err != nil {
			return err
		}
		if err := os.WriteFile(dst+suffix, b, 0o600); err != nil {
			return err
		}
	}
	return nil
}

// cachedEmbedder embeds texts ahead in batches, on every core, and answers
// the one-text calls StoreMemory makes from its cache. hippo.Wrapped passes
// its embedder's thresholds, hybrid weight and relevance levels through,
// so recall is configured as with the embedder itself.
type cachedEmbedder struct {
	hippo.Wrapped
	mu    sync.Mutex
	cache map[string][]float32
}

func newCachedEmbedder(e hippo.Embedder) *cachedEmbedder {
	return &cachedEmbedder{Wrapped: hippo.Wrapped{Embedder: e}, cache: map[string][]float32{}}
}

// cacheFile is where the vectors of a long run are kept between runs, by
// model name (which changes whenever a model's vectors do): under
// $HIPPO_EVAL_CACHE, else the user's cache directory.
func cacheFile(model, set string) string {
	dir := os.Getenv("HIPPO_EVAL_CACHE")
	if dir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return ""
		}
		dir = filepath.Join(base, "hippo-eval")
	}
	return filepath.Join(dir, set+"-"+model+".gob")
}

// load adds the vectors saved at path, if any, to the cache.
func (c *cachedEmbedder) load(path string) (int, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var saved map[string][]float32
	if err := gob.NewDecoder(f).Decode(&saved); err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for t, v := range saved {
		c.cache[t] = v
	}
	return len(saved), nil
}

// save writes the cache to path.
func (c *cachedEmbedder) save(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	c.mu.Lock()
	err = gob.NewEncoder(f).Encode(c.cache)
	c.mu.Unlock()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}

// prepare embeds texts not cached yet, in batches of 32 over two workers.
func (c *cachedEmbedder) prepare(ctx context.Context, texts []string) error {
	var todo []string
	seen := map[string]bool{}
	c.mu.Lock()
	for _, t := range texts {
		if _, ok := c.cache[t]; !ok && !seen[t] {
			seen[t] = true
			todo = append(todo, t)
		}
	}
	c.mu.Unlock()
	const batch = 32
	jobs := make(chan []string)
	errs := make(chan error, 2)
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range jobs {
				vecs, err := c.Embedder.Embed(ctx, b)
				if err != nil {
					errs <- err
					return
				}
				c.mu.Lock()
				for i, t := range b {
					c.cache[t] = vecs[i]
				}
				c.mu.Unlock()
			}
		}()
	}
	var err error
feed:
	for i := 0; i < len(todo); i += batch {
		select {
		case jobs <- todo[i:min(i+batch, len(todo))]:
		case err = <-errs:
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	if err != nil {
		return err
	}
	select {
	case err = <-errs:
	default:
	}
	return err
}

func (c *cachedEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	var miss []int
	c.mu.Lock()
	for i, t := range texts {
		if v, ok := c.cache[t]; ok {
			out[i] = v
		} else {
			miss = append(miss, i)
		}
	}
	c.mu.Unlock()
	if len(miss) == 0 {
		return out, nil
	}
	batch := make([]string, len(miss))
	for j, i := range miss {
		batch[j] = texts[i]
	}
	vecs, err := c.Embedder.Embed(ctx, batch)
	if err != nil {
		return nil, err
	}
	for j, i := range miss {
		out[i] = vecs[j]
	}
	return out, nil
}

// repoRoot is the directory of go.mod above the test's directory.
func repoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test directory")
		}
		dir = parent
	}
}

// sharedEvalDir is ../shared/eval beside the repository: $HIPPO_EVAL_DATA
// when set, else beside this checkout, else, in a git worktree, beside the
// main checkout the worktree belongs to. "" when none exists.
func sharedEvalDir(t testing.TB) string {
	if d := os.Getenv("HIPPO_EVAL_DATA"); d != "" {
		return d
	}
	root := repoRoot(t)
	candidates := []string{filepath.Join(root, "..", "shared", "eval")}
	// A worktree's .git is a file: "gitdir: <main>/.git/worktrees/<name>".
	if b, err := os.ReadFile(filepath.Join(root, ".git")); err == nil {
		if gitdir, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: "); ok {
			main := filepath.Dir(filepath.Dir(filepath.Dir(gitdir)))
			candidates = append(candidates, filepath.Join(main, "..", "shared", "eval"))
		}
	}
	for _, c := range candidates {
		if st, err := os.Stat(c); err == nil && st.IsDir() {
			return c
		}
	}
	return ""
}

// needData returns the LongMemEval directory, skipping the test when the
// data is missing, or failing under CI, where it must be present.
func needData(t testing.TB) string {
	t.Helper()
	dir := sharedEvalDir(t)
	if dir != "" {
		dir = filepath.Join(dir, "longmemeval-oracle")
		if _, err := os.Stat(filepath.Join(dir, "queries.jsonl")); err == nil {
			return dir
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("LongMemEval data missing (looked for ../shared/eval/longmemeval-oracle beside the repository); CI must have it")
	}
	t.Skip("LongMemEval data not found beside the repository (../shared/eval/longmemeval-oracle)")
	return ""
}
