package storetest

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/local"
	"github.com/hippo-mem/hippo/mock"
	"github.com/hippo-mem/hippo/openai"
)

// lifeFacts are facts about a person's life, the first stated strongly.
var lifeFacts = []string{
	"User absolutely loves their dog Max",
	"User lives in Berlin",
	"User is a vegetarian",
	"User's wife is called Ana",
	"User drinks coffee every morning",
	"User runs every weekend",
	"User works remotely",
	"User is allergic to peanuts",
	"User has two children",
	"User prefers tabs over spaces",
}

// offlineFacts stores lifeFacts as facts with the offline embedder in a
// database with the default relevance floor, the first at intensity 0.6
// and the others at 0.3.
func offlineFacts(t *testing.T, b Backend) (Store, hippo.AgentMemory, []*hippo.Chunk) {
	t.Helper()
	ctx := context.Background()
	clk := newClock()
	db := openWith(t, b, b.New(t), Options{Now: clk.Now})
	emb := local.NewEmbedder()
	vecs, err := emb.Embed(ctx, lifeFacts)
	if err != nil {
		t.Fatal(err)
	}
	chunks := make([]*hippo.Chunk, len(lifeFacts))
	for i, f := range lifeFacts {
		chunks[i] = &hippo.Chunk{Kind: hippo.KindFact, Content: f, Embedding: vecs[i], RunningIntensity: 0.3, EncounterCount: 1,
			CreatedAt: clk.Now().Add(-time.Hour), LastAccessedAt: clk.Now().Add(-time.Hour)}
	}
	chunks[0].RunningIntensity = 0.6
	plant(t, db, "agent-a", "", emb.Model(), clk.Now(), chunks...)
	m, err := db.Service(hippo.MemoryOptions{AgentID: "agent-a", Embedder: emb})
	if err != nil {
		t.Fatal(err)
	}
	return db, m, chunks
}

// testRecallUnrelatedFindsNothing asks questions that nothing stored is
// about: the default floor returns nothing, not the strongest facts, and
// boosts nothing; with min_relevance 0 every fact is eligible, as before
// recall had a floor, and is boosted.
func testRecallUnrelatedFindsNothing(t *testing.T, b Backend) {
	ctx := context.Background()
	db, m, chunks := offlineFacts(t, b)
	if got := m.Config().MinRelevance; got != hippo.DefaultMinRelevance {
		t.Fatalf("default floor %v, want %v", got, hippo.DefaultMinRelevance)
	}
	state := func() map[string][2]float64 {
		out := map[string][2]float64{}
		for _, c := range chunks {
			got, err := db.Chunk(ctx, "agent-a", c.ID)
			if err != nil {
				t.Fatal(err)
			}
			out[c.ID] = [2]float64{got.RunningIntensity, float64(got.AccessCount)}
		}
		return out
	}
	before := state()
	for _, q := range []string{"quantum chromodynamics lecture", "zzzz qqq", "medieval castle architecture", "how do volcanoes form"} {
		page, err := m.RecallPage(ctx, hippo.RecallInput{Query: q})
		if err != nil {
			t.Fatal(err)
		}
		// Nothing relevant: only the closest few, each marked weak, and
		// none boosted (checked below).
		weak := 0
		for _, r := range page.Results {
			if r.Weak {
				weak++
			}
		}
		if weak != len(page.Results) || len(page.Results) > hippo.DefaultWeakResults || page.Total != 0 || page.MinRelevance != hippo.DefaultMinRelevance {
			for _, r := range page.Results {
				t.Logf("%q: %q relevance %.3f (cosine %.3f, bm25 %.3g)", q, r.Chunk.Content, r.Relevance, r.Similarity, r.BM25)
			}
			t.Errorf("%q: %d results (%d weak), total %d, floor %v; want at most %d, all weak", q, len(page.Results), weak, page.Total, page.MinRelevance, hippo.DefaultWeakResults)
		}
	}
	after := state()
	for id, b := range before {
		if after[id] != b {
			t.Errorf("chunk %s: intensity and access count %v after unrelated recalls, %v before", id, after[id], b)
		}
	}

	// min_relevance 0: everything is eligible, the strong fact first, and
	// the first results (Config.BoostResults) are boosted, the rest not.
	all, err := m.Recall(ctx, hippo.RecallInput{Query: "quantum chromodynamics lecture", Limit: 50, MinRelevance: ptr(0.0)})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != len(chunks) {
		t.Fatalf("min_relevance 0: %d results, want all %d", len(all), len(chunks))
	}
	boosted := state()
	for i, r := range all {
		id, b := r.Chunk.ID, before[r.Chunk.ID]
		want := b[1]
		if i < hippo.DefaultBoostResults {
			want++
		}
		if boosted[id][1] != want {
			t.Errorf("chunk %s, rank %d: access count %v after a recall with no floor, want %v", id, i+1, boosted[id][1], want)
		}
	}

	// A related question still finds its fact.
	res, err := m.Recall(ctx, hippo.RecallInput{Query: "what is the name of the user's dog", Limit: 3})
	if err != nil || len(res) == 0 || res[0].Chunk.ID != chunks[0].ID {
		t.Errorf("related question: %+v, %v; want %q first", res, err, lifeFacts[0])
	}
}

// testRecallSharedWordIsNotFullRelevance: one word in common, the meaning
// unrelated, is partial relevance, not 1 as per-query min-max made it.
func testRecallSharedWordIsNotFullRelevance(t *testing.T, b Backend) {
	ctx := context.Background()
	e := newOfflineEnv(t, b)
	e.insert(t, "agent-a", rand.New(rand.NewPCG(5, 6)), "We chose SQLite because it needs no server.", "The user's cat is called Miso.")
	m := e.memory(t, "agent-a")
	res, err := m.Recall(ctx, hippo.RecallInput{Query: "the weather on the chose day", MinRelevance: ptr(0.0)})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if r.BM25 > 0 && (r.Relevance >= 0.5 || r.Relevance != m.Config().Relevance(r.Similarity, r.BM25, local.HybridAlpha)) {
			t.Errorf("%q: relevance %v (cosine %v, bm25 %v) for one shared word; want the formula's, below 0.5", r.Chunk.Content, r.Relevance, r.Similarity, r.BM25)
		}
		if r.Relevance >= 0.9 {
			t.Errorf("%q: relevance %v for an unrelated question", r.Chunk.Content, r.Relevance)
		}
	}
}

// calibratedEmbedder is the mock API embedder with relevance levels.
type calibratedEmbedder struct {
	*openai.Embedder
	unrelated, strong float64
}

func (c calibratedEmbedder) RelevanceLevels() (float64, float64) { return c.unrelated, c.strong }

// testRelevanceFloorFromEmbedder: the floor's meaning comes from the
// embedder's levels; an API embedder without them gets the documented
// defaults.
func testRelevanceFloorFromEmbedder(t *testing.T, b Backend) {
	ctx := context.Background()
	srv := mock.NewServer(t, testDim)
	api, err := openai.NewEmbedder(openai.Config{BaseURL: srv.BaseURL(), APIKey: "sk-test", Model: "mock-embed"})
	if err != nil {
		t.Fatal(err)
	}
	clk := newClock()
	db := openWith(t, b, b.New(t), Options{Now: clk.Now})
	chunks := []*hippo.Chunk{
		{Content: "close", Embedding: mock.AtCosine(testDim, 0, 1, 0.6)},
		{Content: "middling", Embedding: mock.AtCosine(testDim, 0, 2, 0.4)},
		{Content: "far", Embedding: mock.AtCosine(testDim, 0, 3, 0.1)},
	}
	plant(t, db, "agent-a", "", "mock-embed", clk.Now(), chunks...)
	srv.Set("the query", mock.Axis(testDim, 0))
	tests := []struct {
		name              string
		emb               hippo.Embedder
		unrelated, strong float64
		want              []string
	}{
		// API defaults: 0.2 and 0.75. Relevance of 0.4 is 0.9·0.2/0.55.
		{"API embedder, documented defaults", api, hippo.DefaultCosineUnrelated, hippo.DefaultCosineStrong, []string{"close", "middling"}},
		// Its own levels: 0.4 is its unrelated level.
		{"calibrated embedder", calibratedEmbedder{api, 0.4, 0.8}, 0.4, 0.8, []string{"close"}},
	}
	for _, tt := range tests {
		m, err := db.Service(hippo.MemoryOptions{AgentID: "agent-a", Embedder: tt.emb})
		if err != nil {
			t.Fatal(err)
		}
		cfg := m.Config()
		if cfg.CosineUnrelated != tt.unrelated || cfg.CosineStrong != tt.strong || cfg.MinRelevance != hippo.DefaultMinRelevance {
			t.Errorf("%s: levels %v, %v, floor %v; want %v, %v, %v", tt.name, cfg.CosineUnrelated, cfg.CosineStrong,
				cfg.MinRelevance, tt.unrelated, tt.strong, hippo.DefaultMinRelevance)
		}
		res, err := m.Recall(ctx, hippo.RecallInput{Query: "the query", Alpha: ptr(0.0)})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range res {
			if r.Weak {
				continue // under the floor: the closest of the rest
			}
			got = append(got, r.Chunk.Content)
			if want := cfg.CosineRelevance(r.Similarity); math.Abs(r.Relevance-want) > 1e-12 || r.CosineRelevance != r.Relevance {
				t.Errorf("%s: %q relevance %v, cosine relevance %v; want %v", tt.name, r.Chunk.Content, r.Relevance, r.CosineRelevance, want)
			}
		}
		if len(got) != len(tt.want) || len(got) > 0 && got[0] != tt.want[0] || len(got) > 1 && got[1] != tt.want[1] {
			t.Errorf("%s: recalled %q, want %q", tt.name, got, tt.want)
		}
	}
}

// testRecallMinRelevanceInput checks the floor given per call, and that a
// bad one is refused naming min_relevance.
func testRecallMinRelevanceInput(t *testing.T, b Backend) {
	ctx := context.Background()
	_, m, chunks := offlineFacts(t, b)
	for _, bad := range []float64{-0.1, 1.01, math.NaN(), math.Inf(1)} {
		_, err := m.Recall(ctx, hippo.RecallInput{Query: "dog", MinRelevance: ptr(bad)})
		var he *hippo.Error
		if !errors.As(err, &he) || he.Code != hippo.EINVALID || he.Field != "min_relevance" {
			t.Errorf("min_relevance %v: %v, want EINVALID naming min_relevance", bad, err)
		}
	}
	for _, tt := range []struct {
		floor   float64
		atLeast int
		atMost  int
	}{{0, len(chunks), len(chunks)}, {0.05, 1, len(chunks)}, {0.95, 0, 0}} {
		page, err := m.RecallPage(ctx, hippo.RecallInput{Query: "the user's dog Max", Limit: 50, MinRelevance: ptr(tt.floor)})
		if err != nil {
			t.Fatal(err)
		}
		if n := len(page.Results); n < tt.atLeast || n > tt.atMost || page.MinRelevance != tt.floor {
			t.Errorf("min_relevance %v: %d results (floor %v), want %d to %d", tt.floor, n, page.MinRelevance, tt.atLeast, tt.atMost)
		}
		for _, r := range page.Results {
			if r.Relevance < tt.floor {
				t.Errorf("min_relevance %v: %q at relevance %v", tt.floor, r.Chunk.Content, r.Relevance)
			}
		}
	}
}

// testHistoryAndContextLeaveOutUnrelated: fact_history finds no fact for
// a query nothing is about instead of showing an unrelated one as
// current, and get_context does not pad with unrelated memories.
func testHistoryAndContextLeaveOutUnrelated(t *testing.T, b Backend) {
	ctx := context.Background()
	_, m, chunks := offlineFacts(t, b)
	for _, q := range []string{"zzzz qqq", "quantum chromodynamics lecture"} {
		h, err := m.FactHistory(ctx, q, "")
		if err != nil || len(h) != 0 {
			t.Errorf("history %q: %+v, %v; want no fact", q, h, err)
		}
		c, err := m.Context(ctx, hippo.ContextInput{Query: q})
		if err != nil || len(c.Memories) != 0 {
			t.Errorf("context %q: memories %v, %v; want none", q, c.Memories, err)
		}
	}
	// "where does the user live" scores 0.22 with "User lives in Berlin"
	// on the offline embedder, below its unrelated level (0.25), and
	// shares no word with it but "user": too little to tell from noise.
	h, err := m.FactHistory(ctx, "where the user lives", "")
	if err != nil || len(h) != 1 || h[0].ID != chunks[1].ID || !h[0].Current {
		t.Errorf("history of where the user lives: %+v, %v; want %q, current", h, err, lifeFacts[1])
	}
}

// testRecallDiscountsLongContent stores a short and a long memory with the
// same vector: the long one's relevance is discounted by its length
// (hippo.Config.LengthFactors), so the short one ranks first, and the
// result says by how much. With LengthPivot 0 the two tie.
func testRecallDiscountsLongContent(t *testing.T, b Backend) {
	ctx := context.Background()
	e := newEnv(t, b)
	v := make([]float32, testDim)
	v[0], v[1] = 0.7, float32(math.Sqrt(1-0.49))
	q := make([]float32, testDim)
	q[0] = 1
	short := "The deploy key lives in the team vault."
	long := short + strings.Repeat(" Background on how the team stores secrets, rotates them and audits access.", 30)
	e.srv.Set(short, v)
	e.srv.Set(long, v)
	e.srv.Set("where is the deploy key", q)
	for _, pivot := range []int{hippo.DefaultLengthPivot, 0} {
		cfg := hippo.DefaultConfig()
		cfg.MinRelevance, cfg.LengthPivot = 0, pivot
		m := e.memoryOf(e.open(b.New(t), Options{Config: &cfg}), "agent-a")
		shortC, longC := store(t, m, short), store(t, m, long)
		zero := 0.0
		res, err := m.Recall(ctx, hippo.RecallInput{Query: "where is the deploy key", Alpha: &zero, Limit: 2})
		if err != nil || len(res) != 2 {
			t.Fatalf("pivot %d: recall: %v, %d results", pivot, err, len(res))
		}
		byID := map[string]hippo.Recalled{res[0].Chunk.ID: res[0], res[1].Chunk.ID: res[1]}
		s, l := byID[shortC.ID], byID[longC.ID]
		if math.Abs(s.Similarity-l.Similarity) > 1e-6 || math.Abs(s.Similarity-0.7) > 0.01 {
			t.Fatalf("pivot %d: similarities %v and %v, want both 0.7", pivot, s.Similarity, l.Similarity)
		}
		excess := cfg.LengthExcess(len(long))
		if pivot > 0 && !(excess > 1) {
			t.Fatalf("%d bytes: length excess %v, want above 1", len(long), excess)
		}
		if s.LengthExcess != 0 || math.Abs(l.LengthExcess-excess) > 1e-9 {
			t.Errorf("pivot %d: length excess short %v long %v, want 0 and %v", pivot, s.LengthExcess, l.LengthExcess, excess)
		}
		fc, _ := cfg.LengthFactors(len(long))
		want := cfg.CosineRelevance(l.Similarity) * fc
		if math.Abs(l.CosineRelevance-want) > 1e-9 || math.Abs(l.Relevance-want) > 1e-9 {
			t.Errorf("pivot %d: long relevance %v (cosine's %v), want %v", pivot, l.Relevance, l.CosineRelevance, want)
		}
		if pivot > 0 && (res[0].Chunk.ID != shortC.ID || !(s.Relevance > l.Relevance)) {
			t.Errorf("pivot %d: relevance short %v long %v, want the short memory first", pivot, s.Relevance, l.Relevance)
		}
		if pivot == 0 && s.Relevance != l.Relevance {
			t.Errorf("no pivot: relevance %v and %v, want equal", s.Relevance, l.Relevance)
		}
	}
}
