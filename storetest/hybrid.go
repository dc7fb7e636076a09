package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/local"
	"github.com/hippo-mem/hippo/mock"
)

// offlineEnv is a database with the offline embedder, whose default α is
// hybrid.
type offlineEnv struct {
	s     Store
	clock *clock
	emb   *local.Embedder
}

// newOfflineEnv opens a new store without a relevance floor (as newEnv),
// its configuration changed further by tweaks.
func newOfflineEnv(t *testing.T, b Backend, tweaks ...func(*hippo.Config)) *offlineEnv {
	t.Helper()
	clk := newClock()
	cfg := hippo.DefaultConfig()
	cfg.MinRelevance = 0
	for _, f := range tweaks {
		f(&cfg)
	}
	return &offlineEnv{s: openWith(t, b, b.New(t), Options{Now: clk.Now, Config: &cfg}), clock: clk, emb: local.NewEmbedder()}
}

func (e *offlineEnv) memory(t *testing.T, agent string, scopes ...string) hippo.AgentMemory {
	t.Helper()
	o := hippo.MemoryOptions{AgentID: agent, Embedder: e.emb}
	if len(scopes) > 0 {
		o.Scope, o.RecallScopes = scopes[0], scopes
	}
	m, err := e.s.Service(o)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// insert stores texts for agent with assorted ages, strengths and access
// counts, as they would be after months of use.
func (e *offlineEnv) insert(t *testing.T, agent string, r *rand.Rand, texts ...string) []*hippo.Chunk {
	t.Helper()
	vecs, err := e.emb.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	chunks := make([]*hippo.Chunk, len(texts))
	for i, text := range texts {
		age := time.Duration(r.Float64() * float64(200*24*time.Hour))
		created := e.clock.Now().Add(-age)
		chunks[i] = &hippo.Chunk{Content: text, Embedding: vecs[i], CreatedAt: created,
			LastAccessedAt:   created.Add(time.Duration(r.Float64() * float64(age))),
			RunningIntensity: 0.3 + 0.7*r.Float64(), EncounterCount: 1, AccessCount: r.IntN(10)}
	}
	plant(t, e.s, agent, "", e.emb.Model(), e.clock.Now(), chunks...)
	return chunks
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

// testHybridAlphaZeroIsVectorRecall checks α = 0 against seed 000's score
// computed here from the stored chunks: 0.6·cosine + 0.3·strength +
// 0.1·recency over every chunk above the strength floor.
func testHybridAlphaZeroIsVectorRecall(t *testing.T, b Backend) {
	ctx := context.Background()
	e := newOfflineEnv(t, b)
	e.insert(t, "agent-a", rand.New(rand.NewPCG(1, 2)), hybridTexts...)
	m := e.memory(t, "agent-a")
	cfg := m.Config()
	if cfg.HybridAlpha != local.HybridAlpha || local.HybridAlpha == 0 {
		t.Fatalf("offline embedder's α = %v, want local.HybridAlpha %v > 0", cfg.HybridAlpha, local.HybridAlpha)
	}
	for _, query := range []string{"coffee", "which database for billing", "how do I restart the alerting service", "dog"} {
		chunks, err := e.s.ListChunks(ctx, hippo.ChunkFilter{AgentID: "agent-a"})
		if err != nil {
			t.Fatal(err)
		}
		qv, _ := e.emb.Embed(ctx, []string{query})
		type scored struct {
			id    string
			score float64
		}
		var want []scored
		now := e.clock.Now()
		for _, c := range chunks {
			if c, err = e.s.Chunk(ctx, "agent-a", c.ID); err != nil { // with its embedding
				t.Fatal(err)
			}
			st := c.Strength(cfg, now)
			if st < cfg.StrengthFloor {
				continue
			}
			want = append(want, scored{c.ID, cfg.Score(cfg.CosineRelevance(cosine(qv[0], c.Embedding)), st, cfg.Recency(now.Sub(c.CreatedAt)))})
		}
		sort.Slice(want, func(i, j int) bool { return want[i].score > want[j].score })
		want = want[:min(len(want), 10)]

		got, err := m.Recall(ctx, hippo.RecallInput{Query: query, Limit: 10, Alpha: ptr(0.0)})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("%q: %d results, want %d", query, len(got), len(want))
		}
		for i, r := range got {
			if r.Chunk.ID != want[i].id || math.Abs(r.Score-want[i].score) > 1e-6 {
				t.Errorf("%q #%d: %s %.6f, want %s %.6f", query, i, r.Chunk.Content, r.Score, want[i].id, want[i].score)
			}
			if r.BM25 != 0 || r.Relevance != cfg.CosineRelevance(r.Similarity) {
				t.Errorf("%q #%d: bm25 %v, relevance %v; want 0 and the similarity's calibrated relevance %v", query, i, r.BM25, r.Relevance, r.Similarity)
			}
		}
	}
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

// testHybridAlphaOneRanksByBM25 gives every chunk the same strength and
// recency and random vectors: with α = 1 only BM25 orders the matches.
func testHybridAlphaOneRanksByBM25(t *testing.T, b Backend) {
	ctx := context.Background()
	e := newEnv(t, b)
	m := e.memory("agent-a")
	texts := []string{
		"zebra",                             // one word, all of it the query's
		"zebra zebra crossing",              // the word twice in three
		"a zebra crossing near the station", // once in six
		"a long note that mentions a zebra once among many other unrelated words about trains and maps", // once in many
		"nothing relevant here",
		"trains and maps",
	}
	for i, text := range texts {
		e.srv.Set(text, mock.Axis(testDim, i+1))
		store(t, m, text)
	}
	e.srv.Set("zebra", mock.Axis(testDim, 0)) // orthogonal to every chunk
	got, err := m.Recall(ctx, hippo.RecallInput{Query: "zebra", Limit: 10, Alpha: ptr(1.0)})
	if err != nil {
		t.Fatal(err)
	}
	var matched []hippo.Recalled
	for i, r := range got {
		if r.BM25 > 0 {
			if i != len(matched) {
				t.Errorf("match %q ranks after a chunk without the word", r.Chunk.Content)
			}
			matched = append(matched, r)
		}
	}
	if len(matched) != 4 {
		t.Fatalf("%d matches, want the 4 chunks with the word: %+v", len(matched), got)
	}
	for i := 1; i < len(matched); i++ {
		if matched[i].BM25 > matched[i-1].BM25 || matched[i].Relevance > matched[i-1].Relevance {
			t.Errorf("#%d %q (bm25 %.3f) after #%d %q (bm25 %.3f)", i, matched[i].Chunk.Content, matched[i].BM25,
				i-1, matched[i-1].Chunk.Content, matched[i-1].BM25)
		}
	}
	cfg := m.Config()
	for _, r := range matched {
		if r.Relevance != cfg.BM25Relevance(r.BM25) {
			t.Errorf("%q: relevance %v at α 1, want BM25Relevance(%v) = %v", r.Chunk.Content, r.Relevance, r.BM25, cfg.BM25Relevance(r.BM25))
		}
	}
	if matched[len(matched)-1].Chunk.Content != texts[3] {
		t.Errorf("last match %q; want the long note", matched[len(matched)-1].Chunk.Content)
	}
}

// testHybridExplainFields checks that each result explains its score.
func testHybridExplainFields(t *testing.T, b Backend) {
	ctx := context.Background()
	e := newOfflineEnv(t, b)
	e.insert(t, "agent-a", rand.New(rand.NewPCG(3, 4)), hybridTexts...)
	m := e.memory(t, "agent-a")
	cfg := m.Config()
	page, err := m.RecallPage(ctx, hippo.RecallInput{Query: "Terraform repository owner", Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Results) != 5 || page.Results[0].BM25 <= 0 {
		t.Fatalf("results %+v: want 5, the first a BM25 match", page.Results)
	}
	if page.Alpha != cfg.HybridAlpha { // every word searched
		t.Errorf("page α = %v, want %v", page.Alpha, cfg.HybridAlpha)
	}
	for _, r := range page.Results {
		if math.Abs(r.Score-cfg.Score(r.Relevance, r.Strength, r.Recency)) > 1e-9 {
			t.Errorf("%q: score %v is not 0.6·%v + 0.3·%v + 0.1·%v", r.Chunk.Content, r.Score, r.Relevance, r.Strength, r.Recency)
		}
		if r.Relevance < 0 || r.Relevance > 1 || r.BM25 == 0 && math.Abs(r.Relevance-hippo.Fuse(cfg.CosineRelevance(r.Similarity), 0, page.Alpha)) > 1e-9 {
			t.Errorf("%q: relevance %v, bm25 %v, similarity %v", r.Chunk.Content, r.Relevance, r.BM25, r.Similarity)
		}
		if r.Strength <= 0 || r.Recency <= 0 || r.Similarity == 0 {
			t.Errorf("%q: strength %v, recency %v, similarity %v", r.Chunk.Content, r.Strength, r.Recency, r.Similarity)
		}
	}
	// Words that match nothing: the cosine's side alone, fused with a BM25
	// relevance of 0, so that relevance does not depend on what else is
	// stored.
	none, err := m.RecallPage(ctx, hippo.RecallInput{Query: "zzyzx qwxv", Limit: 5})
	if err != nil || none.Alpha != cfg.HybridAlpha || len(none.Results) == 0 {
		t.Fatalf("unmatched words: α %v, results %+v, %v", none.Alpha, none.Results, err)
	}
	for _, r := range none.Results {
		if r.BM25 != 0 || math.Abs(r.Relevance-hippo.Fuse(cfg.CosineRelevance(r.Similarity), 0, none.Alpha)) > 1e-12 {
			t.Errorf("unmatched words: %q bm25 %v relevance %v, want 0 and Fuse(%v, 0)", r.Chunk.Content, r.BM25, r.Relevance, cfg.CosineRelevance(r.Similarity))
		}
	}
	data, _ := json.Marshal(page.Results[0])
	var fields map[string]any
	json.Unmarshal(data, &fields)
	for _, k := range []string{"bm25", "bm25_relevance", "cosine_relevance", "relevance", "similarity", "strength", "recency", "score"} {
		if _, ok := fields[k]; !ok {
			t.Errorf("JSON %s has no %q", data, k)
		}
	}
}

// testHybridKeepsToTheAgent gives two agents the same words, one agent
// far more chunks than the other, so that one is searched through its
// agent token and the other through the join: neither sees the other's
// chunks, nor another scope's.
func testHybridKeepsToTheAgent(t *testing.T, b Backend) {
	ctx := context.Background()
	e := newOfflineEnv(t, b)
	r := rand.New(rand.NewPCG(5, 6))
	mine := map[string]map[string]bool{"small": {}, "large": {}}
	for _, c := range e.insert(t, "small", r, "zebra migration for the small agent", "another small note") {
		mine["small"][c.ID] = true
	}
	var large []string
	for i := range 40 {
		large = append(large, fmt.Sprintf("zebra zebra migration %d for the large agent", i))
	}
	for _, c := range e.insert(t, "large", r, large...) {
		mine["large"][c.ID] = true
	}
	scoped := e.memory(t, "small", "work")
	elsewhere := store(t, scoped, "zebra migration in the work scope")
	global := e.memory(t, "small", "")

	for agent, ids := range mine {
		m := e.memory(t, agent)
		for _, a := range []float64{local.HybridAlpha, 1} {
			for offset := 0; offset < 60; offset += 10 {
				got, err := m.Recall(ctx, hippo.RecallInput{Query: "zebra migration", Limit: 10, Offset: offset, Alpha: &a})
				if err != nil {
					t.Fatal(err)
				}
				for _, res := range got {
					if !ids[res.Chunk.ID] && res.Chunk.ID != elsewhere.ID || res.Chunk.AgentID != agent {
						t.Errorf("%s (α %v) recalled %q of %s", agent, a, res.Chunk.Content, res.Chunk.AgentID)
					}
				}
			}
		}
	}
	for _, tt := range []struct {
		m    hippo.AgentMemory
		want bool
	}{{scoped, true}, {global, false}} {
		got, err := tt.m.Recall(ctx, hippo.RecallInput{Query: "zebra migration", Limit: 50, Alpha: ptr(1.0)})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, res := range got {
			found = found || res.Chunk.ID == elsewhere.ID
			if tt.want && res.Chunk.Scope != "work" {
				t.Errorf("scope work recalled %q of scope %q", res.Chunk.Content, res.Chunk.Scope)
			}
		}
		if found != tt.want {
			t.Errorf("scoped chunk found = %v, want %v", found, tt.want)
		}
	}
}

// testHybridScoresAreTheAgents checks that with
// Config.AgentTextStatistics an agent's BM25 scores are its own: the same
// whether or not another agent's memories share the database. The other
// agent's memories are the agent's with every letter and digit rotated
// (no word in common), some of them three times over, so that the
// database's word statistics and mean length both differ from the
// agent's.
func testHybridScoresAreTheAgents(t *testing.T, b Backend) {
	ctx := context.Background()
	rot := func(s string) string {
		return strings.Map(func(r rune) rune {
			switch {
			case r >= 'a' && r <= 'z':
				return 'a' + (r-'a'+13)%26
			case r >= 'A' && r <= 'Z':
				return 'A' + (r-'A'+13)%26
			case r >= '0' && r <= '9':
				return '0' + (r-'0'+5)%10
			}
			return r
		}, s)
	}
	queries := []string{"billing database", "Terraform repository", "coffee after dinner", "Maya dashboard service"}
	scores := func(neighbour bool) map[string]map[string]float64 {
		e := newOfflineEnv(t, b, func(c *hippo.Config) { c.AgentTextStatistics = true })
		if neighbour {
			other := e.memory(t, "other")
			for _, text := range hybridTexts {
				store(t, other, rot(text))
			}
		}
		m := e.memory(t, "mine")
		for _, text := range hybridTexts {
			store(t, m, text)
		}
		if neighbour { // and more of them after
			other := e.memory(t, "other")
			for _, text := range hybridTexts[:5] {
				store(t, other, strings.Repeat(rot(text)+" ", 3))
			}
			for _, text := range hybridTexts[:5] {
				store(t, m, text+" "+text)
			}
		} else {
			for _, text := range hybridTexts[:5] {
				store(t, m, text+" "+text)
			}
		}
		out := map[string]map[string]float64{}
		for _, q := range queries {
			got, err := m.Recall(ctx, hippo.RecallInput{Query: q, Limit: 50, Alpha: ptr(1.0), DryRun: true})
			if err != nil {
				t.Fatal(err)
			}
			out[q] = map[string]float64{}
			for _, res := range got {
				if res.Chunk.AgentID != "mine" {
					t.Fatalf("%q recalled another agent's %q", q, res.Chunk.Content)
				}
				out[q][res.Chunk.Content] = res.BM25
			}
		}
		return out
	}
	alone, shared := scores(false), scores(true)
	for _, q := range queries {
		if len(alone[q]) == 0 {
			t.Fatalf("%q matched nothing", q)
		}
		for content, want := range alone[q] {
			if got, ok := shared[q][content]; !ok || math.Abs(got-want) > 1e-9*max(1, want) {
				t.Errorf("%q: BM25 of %q is %v beside another agent, %v alone", q, content, got, want)
			}
		}
		if len(shared[q]) != len(alone[q]) {
			t.Errorf("%q: %d results beside another agent, %d alone", q, len(shared[q]), len(alone[q]))
		}
	}
}

// testHybridQueriesWithFTSSyntax recalls with text that FTS5 would read as
// syntax: none is an error.
func testHybridQueriesWithFTSSyntax(t *testing.T, b Backend) {
	ctx := context.Background()
	e := newOfflineEnv(t, b)
	e.insert(t, "agent-a", rand.New(rand.NewPCG(7, 8)), hybridTexts...)
	m := e.memory(t, "agent-a")
	for _, q := range []string{
		`"`, `"unbalanced`, `AND`, `OR NOT AND`, `NEAR(coffee tea, 1)`, `content:coffee`, `agent:x`,
		`{content}: coffee`, `coffee*`, `^coffee`, `-coffee`, `(coffee`, `coffee)`, `coffee AND`, `a:b:c`,
		`'; DROP TABLE chunks_fts; --`, `日本語`, `🦛`, `\`, `LUM-482`, `events.created_at`, `"PostgreSQL 16"`,
	} {
		for _, a := range []float64{local.HybridAlpha, 1} {
			if _, err := m.Recall(ctx, hippo.RecallInput{Query: q, Alpha: &a}); err != nil {
				t.Errorf("recall %q (α %v): %v", q, a, err)
			}
		}
	}
	got, err := m.Recall(ctx, hippo.RecallInput{Query: `LUM-482 "idempotency"`, Limit: 1, Alpha: ptr(1.0)})
	if err != nil || len(got) != 1 || got[0].Chunk.Content != hybridTexts[11] {
		t.Errorf("quoted ticket query = %+v, %v", got, err)
	}
}

// testHybridFiltersMatchVectorRecall checks that hybrid recall applies the
// filters, the strength floor, as_of and paging exactly as vector recall:
// with room for every result, both return the same chunks.
func testHybridFiltersMatchVectorRecall(t *testing.T, b Backend) {
	ctx := context.Background()
	e := newOfflineEnv(t, b)
	now := e.clock.Now()
	plantHybridHistory(t, e, now)
	m := e.memory(t, "agent-a")
	since, until, asOf := now.Add(-200*24*time.Hour), now.Add(-60*24*time.Hour), now.Add(-100*24*time.Hour)
	tests := []struct {
		name string
		in   hippo.RecallInput
	}{
		{"none", hippo.RecallInput{}},
		{"kind", hippo.RecallInput{Kind: hippo.KindFact}},
		{"tags", hippo.RecallInput{Tags: []string{"t1"}}},
		{"category", hippo.RecallInput{Category: "c2"}},
		{"since until", hippo.RecallInput{Since: &since, Until: &until}},
		{"min strength", hippo.RecallInput{MinStrength: 0.3}},
		{"min score", hippo.RecallInput{MinScore: 0.3}},
		{"as of", hippo.RecallInput{AsOf: &asOf}},
	}
	ids := func(in hippo.RecallInput, a float64) ([]string, int) {
		t.Helper()
		// A dry run: recalls here must not revive faded chunks for the
		// next ones (only the first results of a recall are boosted).
		in.Query, in.Limit, in.Alpha, in.DryRun = "billing database dashboard", 50, &a, true
		page, err := m.RecallPage(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range page.Results {
			out = append(out, r.Chunk.ID)
		}
		slices.Sort(out)
		return out, page.Total
	}
	for _, tt := range tests {
		want, wantTotal := ids(tt.in, 0)
		if tt.name != "min score" && len(want) == 0 {
			t.Fatalf("%s: vector recall found nothing", tt.name)
		}
		for _, a := range []float64{0.3, 1} {
			got, total := ids(tt.in, a)
			if tt.name == "min score" {
				continue // the scores differ, so the cut does
			}
			if !slices.Equal(got, want) || total != wantTotal {
				t.Errorf("%s, α %v: %d chunks (total %d), want %d (total %d)", tt.name, a, len(got), total, len(want), wantTotal)
			}
		}
	}
	all, total := ids(hippo.RecallInput{}, 0)
	checkHybridPaging(t, m, len(all), total)
}

// plantHybridHistory plants hybridTexts for agent-a, a month apart up to
// now, of random intensities, every third a fact, with tags and
// categories that alternate; the last fact superseded by the first, 50
// days ago.
func plantHybridHistory(t *testing.T, e *offlineEnv, now time.Time) {
	r := rand.New(rand.NewPCG(9, 10))
	chunks := make([]*hippo.Chunk, len(hybridTexts))
	vecs, _ := e.emb.Embed(context.Background(), hybridTexts)
	for i, text := range hybridTexts {
		created := now.Add(-time.Duration(i) * 30 * 24 * time.Hour)
		c := &hippo.Chunk{Content: text, Embedding: vecs[i], CreatedAt: created, LastAccessedAt: created,
			RunningIntensity: 0.2 + 0.8*r.Float64(), EncounterCount: 1, Kind: hippo.KindMemory}
		if i%3 == 0 {
			c.Kind = hippo.KindFact
		}
		c.Metadata = json.RawMessage(fmt.Sprintf(`{"tags":["t%d"],"category":"c%d"}`, i%2, i%4))
		chunks[i] = c
	}
	supAt := now.Add(-50 * 24 * time.Hour)
	chunks[15].Kind, chunks[0].ID = hippo.KindFact, ulid.MustNew(ulid.Timestamp(now), ulid.DefaultEntropy()).String()
	chunks[15].SupersededBy, chunks[15].SupersededAt = chunks[0].ID, &supAt
	plant(t, e.s, "agent-a", "", e.emb.Model(), now, chunks...)
}

// checkHybridPaging checks that paging through hybrid results meets every
// one of the n chunks above the floor once, best first, and that each
// page's distribution adds up to the total.
func checkHybridPaging(t *testing.T, m hippo.AgentMemory, n, total int) {
	ctx := context.Background()
	seen := map[string]bool{}
	last := math.Inf(1)
	for offset := 0; offset < 20; offset += 3 {
		page, err := m.RecallPage(ctx, hippo.RecallInput{Query: "billing database dashboard", Limit: 3, Offset: offset, Alpha: ptr(0.5), DryRun: true})
		if err != nil {
			t.Fatal(err)
		}
		d := page.Distribution
		if sum := d.Below02 + d.From02To04 + d.From04To06 + d.From06To08 + d.From08To10; sum != page.Total || page.Total != total {
			t.Errorf("offset %d: distribution sums to %d, total %d, want %d", offset, sum, page.Total, total)
		}
		for _, r := range page.Results {
			if seen[r.Chunk.ID] || r.Score > last+1e-9 {
				t.Errorf("offset %d: %q repeated or out of order", offset, r.Chunk.Content)
			}
			seen[r.Chunk.ID], last = true, r.Score
		}
	}
	if len(seen) != n || n < 4 { // two pages of 3 at least
		t.Errorf("paged through %d chunks, want the %d above the floor", len(seen), n)
	}
}

func testHybridAlphaInput(t *testing.T, b Backend) {
	e := newEnv(t, b)
	m := e.memory("agent-a")
	if got := m.Config().HybridAlpha; got != 0 {
		t.Errorf("API embedder's α = %v, want 0 (seed 000's vector recall)", got)
	}
	store(t, m, "something to recall")
	for _, a := range []float64{-0.1, 1.01, math.NaN(), math.Inf(1)} {
		_, err := m.Recall(context.Background(), hippo.RecallInput{Query: "something", Alpha: &a})
		mustCode(t, err, hippo.EINVALID)
	}
	for _, a := range []float64{0, 0.5, 1} {
		if _, err := m.Recall(context.Background(), hippo.RecallInput{Query: "something", Alpha: &a}); err != nil {
			t.Errorf("α %v: %v", a, err)
		}
	}
}
