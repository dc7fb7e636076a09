package sqlite_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/local"
	"github.com/hippo-mem/hippo/mock"
	"github.com/hippo-mem/hippo/sqlite"
)

// Hybrid recall's behaviour is checked on every store by storetest
// (hybrid.go). The tests here check it against a brute-force ranking that
// reads each chunk's BM25 from FTS5 itself (bm25()): PostgreSQL tokenises
// with the english configuration (stemming), so its BM25 is its own.

// offlineEnv is a database with the offline embedder, whose default α is
// hybrid.
type offlineEnv struct {
	db    *sqlite.DB
	clock *clock
	emb   *local.Embedder
}

func newOfflineEnv(t testing.TB, tweaks ...func(*hippo.Config)) *offlineEnv {
	t.Helper()
	clk := &clock{t: time.Date(2026, 1, 10, 12, 0, 0, 0, time.UTC)}
	return &offlineEnv{db: openDB(t, filepath.Join(t.TempDir(), "hippo.db"), clk, tweaks...), clock: clk, emb: local.NewEmbedder()}
}

func (e *offlineEnv) memory(t testing.TB, agent string) *sqlite.Memory {
	t.Helper()
	m, err := e.db.Memory(sqlite.MemoryOptions{AgentID: agent, Embedder: e.emb})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

var hybridTexts = []string{
	"The user prefers dark roast coffee, black, no sugar.",
	"Maya drinks green tea after 3 pm because coffee keeps her awake.",
	"Decided to use PostgreSQL 16 for the new billing database instead of MongoDB.",
	"The billing service runs nightly invoice generation at 02:00 UTC.",
	"Beacon is the internal alerting service written in Go.",
	"Use kubectl rollout restart deployment/beacon -n monitoring to restart Beacon.",
	"Maya's dog is a border collie named Pixel.",
	"Pixel is terrified of fireworks, so New Year's Eve needs planning.",
	"Jonas Weber handles DevOps and owns the Terraform repository.",
	"We chose Terraform over Pulumi because Jonas already knows it well.",
	"The search service uses Elasticsearch 7 and needs an upgrade to version 8.",
	"Ticket LUM-482 covers the idempotency key fix for billing.",
	"Maya is training for the Amsterdam half marathon in October.",
	"The staging environment is reset every Sunday night.",
	"Atlas is the new customer dashboard, built with React and TypeScript.",
	"Acme's dashboard slowness was caused by an unindexed query on events.created_at.",
}

func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	return dot / math.Sqrt(na*nb)
}

// bruteRow is one chunk scored by the formula, computed from the
// stored rows.
type bruteRow struct {
	id                        string
	cosine, bm25              float64
	relevance, score          float64
	inBM25                    bool // its words match: recall reports its BM25
	strength, recency, nc, nb float64
}

// brute computes hybrid recall's expected results by brute force over
// every chunk of one agent: the chunks' state (cached, and updated from
// what each recall reads back after boosting it) and each query's BM25 of
// every matching chunk, straight from FTS5.
type brute struct {
	t      testing.TB
	db     *sqlite.DB
	emb    hippo.Embedder
	cfg    hippo.Config
	now    time.Time
	agent  string
	chunks map[string]*hippo.Chunk
	bm25   map[string]map[string]float64 // by query, by chunk ID
	fts    *sql.DB
}

func newBrute(t testing.TB, db *sqlite.DB, emb hippo.Embedder, cfg hippo.Config, now time.Time, agent string) *brute {
	t.Helper()
	ctx := context.Background()
	b := &brute{t: t, db: db, emb: emb, cfg: cfg, now: now, agent: agent, chunks: map[string]*hippo.Chunk{}, bm25: map[string]map[string]float64{}}
	list, err := db.ListChunks(ctx, sqlite.ChunkFilter{AgentID: agent, Superseded: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range list {
		if b.chunks[c.ID], err = db.Chunk(ctx, agent, c.ID); err != nil { // with its embedding
			t.Fatal(err)
		}
	}
	if b.fts, err = sql.Open("sqlite", db.Path()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.fts.Close() })
	return b
}

// bm25Of returns the BM25 of every chunk of the agent matching any word of
// query (plain lower-case words), as FTS5 computes it for the content
// column.
func (b *brute) bm25Of(query string) map[string]float64 {
	if m, ok := b.bm25[query]; ok {
		return m
	}
	var quoted []string
	for _, w := range strings.Fields(query) {
		quoted = append(quoted, `"`+w+`"`)
	}
	rows, err := b.fts.Query(`SELECT c.id, -bm25(chunks_fts, 1.0, 0.0) FROM chunks_fts AS f
		JOIN chunks AS c ON c.rowid = f.rowid WHERE chunks_fts MATCH ? AND c.agent_id = ?`,
		"content:("+strings.Join(quoted, " OR ")+")", b.agent)
	if err != nil {
		b.t.Fatal(err)
	}
	defer rows.Close()
	m := map[string]float64{}
	for rows.Next() {
		var id string
		var score float64
		if err := rows.Scan(&id, &score); err != nil {
			b.t.Fatal(err)
		}
		m[id] = score
	}
	if err := rows.Err(); err != nil {
		b.t.Fatal(err)
	}
	b.bm25[query] = m
	return m
}

// eligible applies the recall's filters and strength floor to c.
func (b *brute) eligible(c *hippo.Chunk, in hippo.RecallInput) bool {
	floor := b.cfg.StrengthFloor
	if in.AsOf != nil {
		floor = 0
		if c.CreatedAt.After(*in.AsOf) || c.SupersededAt != nil && !c.SupersededAt.After(*in.AsOf) {
			return false
		}
	} else if c.SupersededBy != "" {
		return false
	}
	var md struct {
		Tags     []string `json:"tags"`
		Category string   `json:"category"`
	}
	json.Unmarshal(c.Metadata, &md)
	switch {
	case in.Kind != "" && c.Kind != in.Kind,
		in.Category != "" && md.Category != in.Category,
		len(in.Tags) > 0 && !slices.ContainsFunc(md.Tags, func(t string) bool { return slices.Contains(in.Tags, t) }),
		in.Since != nil && c.CreatedAt.Before(*in.Since),
		in.Until != nil && c.CreatedAt.After(*in.Until):
		return false
	}
	return c.Strength(b.cfg, b.now) >= max(floor, in.MinStrength)
}

// rank scores every eligible chunk reaching min_score and the relevance
// floor, best first (ties by ID), with the α recall reports.
func (b *brute) rank(in hippo.RecallInput, alpha float64) ([]bruteRow, float64) {
	qv, err := b.emb.Embed(context.Background(), []string{in.Query})
	if err != nil {
		b.t.Fatal(err)
	}
	bm := b.bm25Of(in.Query)
	var rows []bruteRow
	for id, c := range b.chunks {
		if b.eligible(c, in) {
			rows = append(rows, bruteRow{id: id, cosine: cosine(qv[0], c.Embedding), bm25: bm[id],
				strength: c.Strength(b.cfg, b.now), recency: b.cfg.Recency(b.now.Sub(c.CreatedAt))})
		}
	}
	floor, err := b.cfg.RelevanceFloor(in)
	if err != nil {
		b.t.Fatal(err)
	}
	out := rows[:0]
	for _, r := range rows {
		r.nc, r.nb = b.cfg.CosineRelevance(r.cosine), b.cfg.BM25Relevance(r.bm25)
		if alpha == 0 {
			r.bm25, r.nb = 0, 0 // pure vector recall reads no BM25
		}
		r.inBM25 = r.bm25 > 0
		r.relevance = hippo.Fuse(r.nc, r.nb, alpha)
		r.score = b.cfg.Score(r.relevance, r.strength, r.recency)
		if r.score >= in.MinScore && r.relevance >= floor {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].score != out[j].score {
			return out[i].score > out[j].score
		}
		return out[i].id < out[j].id
	})
	return out, alpha
}

// check recalls in at alpha and compares the results with the
// brute-force ranking: the same scores position by position, every result
// scored and explained as the formula says, and with stats (RecallPage)
// the total and distribution of every eligible chunk. Recall without
// stats is checked too: its scan skips what cannot make the cut. Then it
// folds the recall's boosts into its chunks.
func (b *brute) check(m *sqlite.Memory, label string, in hippo.RecallInput, alpha float64, stats bool) (*hippo.RecallPage, []bruteRow) {
	b.t.Helper()
	want, wantAlpha := b.rank(in, alpha)
	in.Alpha = &alpha
	if in.MinRelevance == nil {
		// The default floor, given: no weak results (searchWeak), which
		// the brute-force ranking leaves out.
		floor := m.Config().MinRelevance
		in.MinRelevance = &floor
	}
	var (
		page = &hippo.RecallPage{Alpha: wantAlpha}
		err  error
	)
	if stats {
		page, err = m.RecallPage(context.Background(), in)
	} else {
		page.Results, err = m.Recall(context.Background(), in)
	}
	if err != nil {
		b.t.Fatalf("%s: %v", label, err)
	}
	defer func() {
		for _, r := range page.Results {
			c := b.chunks[r.Chunk.ID]
			c.RunningIntensity, c.AccessCount, c.LastAccessedAt = r.Chunk.RunningIntensity, r.Chunk.AccessCount, r.Chunk.LastAccessedAt
		}
	}()
	const tol = 1e-6
	if math.Abs(page.Alpha-wantAlpha) > 1e-12 {
		b.t.Errorf("%s: α %v, want %v", label, page.Alpha, wantAlpha)
	}
	byID := map[string]bruteRow{}
	var dist hippo.ScoreDistribution
	for _, w := range want {
		byID[w.id] = w
		dist.Add(w.score)
	}
	// Totals use the first pass's cosine, within about 0.01 of exact: a
	// chunk at a band's edge or at the relevance floor may be counted on
	// the other side of it.
	if stats && !nearDistribution(page.Total, page.Distribution, len(want), dist) {
		b.t.Errorf("%s: total %d %+v, want %d %+v", label, page.Total, page.Distribution, len(want), dist)
	}
	limit := in.Limit
	if limit == 0 {
		limit = b.cfg.DefaultLimit
	}
	if n := min(limit, max(0, len(want)-in.Offset)); len(page.Results) != n {
		b.t.Fatalf("%s: %d results, want %d", label, len(page.Results), n)
	}
	for i, r := range page.Results {
		w, ok := byID[r.Chunk.ID]
		pos := want[in.Offset+i]
		switch {
		case !ok:
			b.t.Errorf("%s #%d: %q is not eligible", label, i, r.Chunk.Content)
		case math.Abs(r.Score-pos.score) > tol:
			b.t.Errorf("%s #%d: %q scores %.6f, want #%d's %.6f (%q at %.6f)", label, in.Offset+i, r.Chunk.Content, r.Score,
				in.Offset+i, pos.score, b.chunks[pos.id].Content, w.score)
		case math.Abs(r.Score-w.score) > tol || math.Abs(r.Relevance-w.relevance) > tol ||
			math.Abs(r.Similarity-w.cosine) > 1e-5 || math.Abs(r.Strength-w.strength) > tol || math.Abs(r.Recency-w.recency) > tol:
			b.t.Errorf("%s: %q score %.6f relevance %.6f cosine %.6f strength %.6f recency %.6f, want %.6f %.6f %.6f %.6f %.6f",
				label, r.Chunk.Content, r.Score, r.Relevance, r.Similarity, r.Strength, r.Recency, w.score, w.relevance, w.cosine, w.strength, w.recency)
		case w.inBM25 && math.Abs(r.BM25-w.bm25) > tol*max(1, w.bm25) || !w.inBM25 && r.BM25 != 0:
			b.t.Errorf("%s: %q bm25 %v, want %v (in the window: %v)", label, r.Chunk.Content, r.BM25, w.bm25, w.inBM25)
		}
	}
	return page, want
}

// hybridVocabulary is the words of hybridTexts, for generated chunks that
// share words with many others.
func hybridVocabulary() []string {
	seen := map[string]bool{}
	var words []string
	for _, text := range hybridTexts {
		for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) }) {
			if len(w) > 3 && !seen[w] {
				seen[w] = true
				words = append(words, w)
			}
		}
	}
	return words
}

// insertMixed stores hybridTexts and n sentences of their words for agent:
// memories and facts, tagged and categorised, of assorted ages and
// strengths (some under the floor), some facts superseded.
func (e *offlineEnv) insertMixed(t testing.TB, agent string, r *rand.Rand, n int) {
	t.Helper()
	words := hybridVocabulary()
	texts := append([]string{}, hybridTexts...)
	seen := map[string]bool{}
	for len(texts) < len(hybridTexts)+n {
		s := make([]string, 4+r.IntN(8))
		for j := range s {
			s[j] = words[r.IntN(len(words))]
		}
		if text := strings.Join(s, " "); !seen[text] {
			seen[text] = true
			texts = append(texts, text)
		}
	}
	vecs, err := e.emb.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	now := e.clock.Now()
	chunks := make([]*hippo.Chunk, len(texts))
	for i, text := range texts {
		age := time.Duration(r.Float64() * float64(200*24*time.Hour))
		created := now.Add(-age)
		c := &hippo.Chunk{ID: sqlite.NewID(now), Content: text, Embedding: vecs[i], CreatedAt: created, Kind: hippo.KindMemory,
			LastAccessedAt:   created.Add(time.Duration(r.Float64() * float64(age))),
			RunningIntensity: 0.03 + 0.97*r.Float64(), EncounterCount: 1, AccessCount: r.IntN(10),
			Metadata: json.RawMessage(fmt.Sprintf(`{"tags":["t%d"],"category":"c%d"}`, r.IntN(2), r.IntN(4)))}
		if i%3 == 0 {
			c.Kind = hippo.KindFact
		}
		chunks[i] = c
	}
	for i := 3; i+3 < len(chunks); i += 21 { // a fact superseded by the next one
		at := chunks[i+3].CreatedAt
		if chunks[i].CreatedAt.After(at) {
			at = chunks[i].CreatedAt
		}
		chunks[i].SupersededBy, chunks[i].SupersededAt = chunks[i+3].ID, &at
	}
	if err := e.db.InsertChunks(context.Background(), agent, "", e.emb.Model(), chunks); err != nil {
		t.Fatal(err)
	}
}

// TestHybridMatchesBruteForce checks hybrid recall against the formula
// computed over every chunk, with filters, min_score and paging, at α
// from vector-leaning to BM25 alone, on queries whose words match fewer
// and more chunks than the window holds.
func TestHybridMatchesBruteForce(t *testing.T) {
	// By the score alone: the reordering of corrections (NewerTopic) is
	// storetest's NewerCorrectionFirst.
	e := newOfflineEnv(t, func(c *hippo.Config) { c.NewerTopic = 0 })
	e.insertMixed(t, "agent-a", rand.New(rand.NewPCG(11, 12)), 400)
	m := e.memory(t, "agent-a")
	b := newBrute(t, e.db, e.emb, m.Config(), e.clock.Now(), "agent-a")
	now := e.clock.Now()
	since, until, asOf := now.Add(-150*24*time.Hour), now.Add(-20*24*time.Hour), now.Add(-60*24*time.Hour)
	filters := []struct {
		name string
		in   hippo.RecallInput
	}{
		{"none", hippo.RecallInput{}},
		{"kind", hippo.RecallInput{Kind: hippo.KindFact}},
		{"tags", hippo.RecallInput{Tags: []string{"t1"}}},
		{"category", hippo.RecallInput{Category: "c2"}},
		{"since until", hippo.RecallInput{Since: &since, Until: &until}},
		{"min strength", hippo.RecallInput{MinStrength: 0.4}},
		{"min score", hippo.RecallInput{MinScore: 0.45}},
		{"as of", hippo.RecallInput{AsOf: &asOf}},
	}
	queries := []string{
		"billing database service dashboard", // more matches than the window
		"coffee sugar",
		"pixel fireworks",
	}
	if n := len(b.bm25Of(queries[0])); n <= 2*manyMatches {
		t.Fatalf("%q matches %d chunks; want more than twice the window", queries[0], n)
	}
	pages := []struct{ offset, limit int }{{0, 10}, {8, 25}, {45, 50}}
	for _, f := range filters {
		for _, a := range []float64{local.HybridAlpha, 0.6, 1} {
			for qi, q := range queries {
				for _, p := range pages {
					in := f.in
					in.Query, in.Offset, in.Limit = q, p.offset, p.limit
					label := fmt.Sprintf("%s, α %v, %q, offset %d", f.name, a, q, p.offset)
					_, want := b.check(m, label, in, a, p.offset == 0)
					if qi == 0 && p.offset == 0 && f.name == "none" && len(want) <= manyMatches {
						t.Errorf("%s: %d chunks eligible, want more than the window", label, len(want))
					}
				}
			}
		}
	}
}

// TestHybridOneSideOnly plants a chunk only BM25 finds (the query's rare
// word, pointing away from the query) and one only the vectors find (the
// query's direction, none of its words), among chunks of middling cosine:
// each scores on its own side only, and which ranks first follows α (a
// near-identical direction outweighs one rare word until α is high).
func TestHybridOneSideOnly(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	m := e.memory("agent-a")
	var chunks []*hippo.Chunk
	for i := range 30 {
		chunks = append(chunks, &hippo.Chunk{Content: fmt.Sprintf("deployment note %d about the release train", i),
			Embedding: mock.AtCosine(testDim, 0, i%20+2, 0.3+0.4*float64(i)/30)})
	}
	lexical := &hippo.Chunk{Content: "error code XK-4471 means the license server is down", Embedding: mock.Axis(testDim, 1)}
	semantic := &hippo.Chunk{Content: "the licence host has been unreachable since noon", Embedding: mock.AtCosine(testDim, 0, 1, 0.95)}
	chunks = append(chunks, lexical, semantic)
	if err := e.db.InsertChunks(ctx, "agent-a", "", "mock-embed", chunks); err != nil {
		t.Fatal(err)
	}
	const query = "what does XK-4471 mean"
	e.srv.Set(query, mock.Axis(testDim, 0))
	b := newBrute(t, e.db, e.emb, m.Config(), e.clock.Now(), "agent-a")
	b.bm25[query] = b.bm25Of("xk 4471 mean")
	for _, tt := range []struct {
		alpha float64
		first *hippo.Chunk
	}{{0, semantic}, {0.3, semantic}, {0.7, semantic}, {0.9, lexical}, {1, lexical}} {
		label := fmt.Sprintf("α %v", tt.alpha)
		page, _ := b.check(m, label, hippo.RecallInput{Query: query, Limit: 50}, tt.alpha, true)
		if len(page.Results) == 0 || page.Results[0].Chunk.ID != tt.first.ID {
			t.Errorf("%s: first is not %q", label, tt.first.Content)
		}
		cfg := m.Config()
		for _, r := range page.Results {
			switch {
			case tt.alpha == 0:
			case r.Chunk.ID == lexical.ID && (r.BM25 <= 0 || r.Similarity != 0 || math.Abs(r.Relevance-hippo.Fuse(0, cfg.BM25Relevance(r.BM25), tt.alpha)) > 1e-9):
				t.Errorf("%s: BM25-only chunk bm25 %v, similarity %v, relevance %v; want > 0, 0, Fuse(0, BM25Relevance)", label, r.BM25, r.Similarity, r.Relevance)
			case r.Chunk.ID == semantic.ID && (r.BM25 != 0 || math.Abs(r.Relevance-hippo.Fuse(cfg.CosineRelevance(0.95), 0, tt.alpha)) > 1e-6):
				t.Errorf("%s: vector-only chunk bm25 %v, relevance %v; want 0, Fuse(CosineRelevance(0.95), 0)", label, r.BM25, r.Relevance)
			}
		}
		if tt.alpha == 0 && page.Results[len(page.Results)-1].Chunk.ID != lexical.ID {
			t.Errorf("vector recall does not rank the BM25-only chunk last")
		}
	}
}

// TestHybridDegenerateCases checks the cases that made degenerate windows
// when recall min-max normalised relevance per query: every cosine equal
// (few chunks and many), a single eligible chunk, and many BM25 matches
// tied for best. Relevance is now each chunk's own, so equal cosines give
// equal relevance and a lone chunk is not lifted to 1.
func TestHybridDegenerateCases(t *testing.T) {
	same := mock.AtCosine(testDim, 0, 1, 0.6)
	tests := []struct {
		name    string
		chunks  func(i int) (string, []float32)
		n       int
		query   string // plain words, as FTS5 gets them
		in      hippo.RecallInput
		perPage int
	}{
		{"equal cosines, fewer than the window", func(i int) (string, []float32) {
			if i%4 == 0 {
				return fmt.Sprintf("zebra sighting number %d", i), same
			}
			return fmt.Sprintf("plain note %d", i), same
		}, 12, "zebra", hippo.RecallInput{}, 50},
		{"equal cosines, more than the window", func(i int) (string, []float32) {
			if i%4 == 0 {
				return fmt.Sprintf("zebra sighting number %d", i), same
			}
			return fmt.Sprintf("plain note %d", i), same
		}, 2*manyMatches + 10, "zebra", hippo.RecallInput{}, 30},
		{"one eligible chunk, matching", func(i int) (string, []float32) {
			return fmt.Sprintf("zebra crossing %d", i), mock.AtCosine(testDim, 0, 2+i%30, 0.1+0.02*float64(i))
		}, 20, "zebra", hippo.RecallInput{Category: "c7"}, 50},
		{"one eligible chunk, not matching", func(i int) (string, []float32) {
			return fmt.Sprintf("plain note %d", i), mock.AtCosine(testDim, 0, 2+i%30, 0.1+0.02*float64(i))
		}, 20, "zebra", hippo.RecallInput{Category: "c7"}, 50},
		{"every eligible chunk matches", func(i int) (string, []float32) {
			return fmt.Sprintf("zebra n%d%s", i, strings.Repeat(" and more words", i%7)), mock.AtCosine(testDim, 0, 2+i%30, 0.1+0.02*float64(i))
		}, 20, "zebra", hippo.RecallInput{}, 50},
		{"BM25 ties past the window", func(i int) (string, []float32) {
			if i%3 != 0 {
				return fmt.Sprintf("zebra crossing n%d", i), mock.AtCosine(testDim, 0, 2+i%30, float64(i%50)/60)
			}
			return fmt.Sprintf("plain note n%d", i), mock.AtCosine(testDim, 0, 2+i%30, float64(i%50)/60)
		}, 3 * manyMatches, "zebra", hippo.RecallInput{}, 50},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			e := newEnv(t)
			m := e.memory("agent-a")
			r := rand.New(rand.NewPCG(1, uint64(tt.n)))
			now := e.clock.Now()
			var chunks []*hippo.Chunk
			for i := range tt.n {
				text, v := tt.chunks(i)
				created := now.Add(-time.Duration(r.IntN(100*24)) * time.Hour)
				chunks = append(chunks, &hippo.Chunk{Content: text, Embedding: v, CreatedAt: created, LastAccessedAt: created,
					RunningIntensity: 0.3 + 0.7*r.Float64(), Metadata: json.RawMessage(fmt.Sprintf(`{"category":"c%d"}`, i))})
			}
			if err := e.db.InsertChunks(ctx, "agent-a", "", "mock-embed", chunks); err != nil {
				t.Fatal(err)
			}
			e.srv.Set(tt.query, mock.Axis(testDim, 0))
			b := newBrute(t, e.db, e.emb, m.Config(), now, "agent-a")
			for _, a := range []float64{0.3, 0.8} {
				var all []hippo.Recalled
				for offset := 0; offset < tt.n; offset += tt.perPage {
					in := tt.in
					in.Query, in.Limit, in.Offset = tt.query, tt.perPage, offset
					page, _ := b.check(m, fmt.Sprintf("α %v, offset %d", a, offset), in, a, offset == 0)
					all = append(all, page.Results...)
				}
				cfg := m.Config()
				for _, r := range all {
					// Relevance is the chunk's own: one shared cosine, one
					// relevance from it, however many share it.
					if want := cfg.Relevance(r.Similarity, r.BM25, a); math.Abs(r.Relevance-want) > 1e-9 {
						t.Errorf("α %v: %q relevance %v, want %v", a, r.Chunk.Content, r.Relevance, want)
					}
					if strings.HasPrefix(tt.name, "equal") && r.BM25 == 0 && math.Abs(r.Relevance-hippo.Fuse(cfg.CosineRelevance(0.6), 0, a)) > 1e-6 {
						t.Errorf("α %v: %q relevance %v; want Fuse(CosineRelevance(0.6), 0)", a, r.Chunk.Content, r.Relevance)
					}
				}
				if strings.HasPrefix(tt.name, "one eligible") && len(all) != 1 {
					t.Errorf("α %v: %+v; want the one chunk", a, all)
				}
			}
		})
	}
}

// manyMatches is more chunks than one page of recall holds: the brute-force
// checks use queries matching more, so that scoring beyond the best few
// is exercised.
const manyMatches = 50

// nearDistribution reports whether a total and distribution counted with
// first-pass cosines are near the exact ones, overall and band by band:
// within 2, or 3% of the total when that is more (chunks of one cosine
// cross a band's edge together).
func nearDistribution(total int, d hippo.ScoreDistribution, wantTotal int, want hippo.ScoreDistribution) bool {
	tol := max(2, 3*wantTotal/100)
	near := func(a, b int) bool { return a-b <= tol && b-a <= tol }
	return near(total, wantTotal) && near(d.Below02, want.Below02) && near(d.From02To04, want.From02To04) &&
		near(d.From04To06, want.From04To06) && near(d.From06To08, want.From06To08) && near(d.From08To10, want.From08To10)
}
