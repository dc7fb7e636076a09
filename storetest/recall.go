package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/local"
	"github.com/hippo-mem/hippo/mock"
)

func testRecallRanksAndBoosts(t *testing.T, b Backend) {
	e := newEnv(t, b)
	ctx := context.Background()
	m := e.memory("agent-a")
	target := store(t, m, "the deploy key lives in the vault")
	other := store(t, m, "lunch was pizza on friday")
	res, err := m.Recall(ctx, hippo.RecallInput{Query: "where does the deploy key live", Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].Chunk.ID != target.ID {
		t.Fatalf("recall = %+v, want only %s", res, target.ID)
	}
	r := res[0]
	cfg := e.s.Config()
	if math.Abs(r.Score-cfg.Score(r.Relevance, r.Strength, r.Recency)) > 1e-12 || r.Relevance != cfg.CosineRelevance(r.Similarity) {
		t.Errorf("score %v is not the weighted sum of its parts", r.Score)
	}
	if r.Chunk.AccessCount != 1 || math.Abs(r.Chunk.RunningIntensity-0.52) > 1e-9 {
		t.Errorf("returned chunk: access %d intensity %v, want 1 and 0.52", r.Chunk.AccessCount, r.Chunk.RunningIntensity)
	}
	// Only returned chunks are boosted.
	if o := e.mustChunk("agent-a", other.ID); o.AccessCount != 0 || o.RunningIntensity != 0.5 {
		t.Errorf("unreturned chunk was touched: %+v", o)
	}
}

func testRecallLimitsAndKind(t *testing.T, b Backend) {
	e := newEnv(t, b)
	ctx := context.Background()
	m := e.memory("agent-a")
	for i := range 12 {
		store(t, m, strings.Repeat("note ", i+1)+"about testing")
	}
	res, err := m.Recall(ctx, hippo.RecallInput{Query: "testing"})
	if err != nil || len(res) != 10 {
		t.Fatalf("default limit: %d results, %v; want 10", len(res), err)
	}
	for _, bad := range []int{-1, 51, 1000} {
		_, err := m.Recall(ctx, hippo.RecallInput{Query: "testing", Limit: bad})
		mustCode(t, err, hippo.EINVALID)
		if !strings.Contains(err.Error(), "limit") {
			t.Errorf("limit %d: error %q does not name the field", bad, err)
		}
	}
	_, err = m.Recall(ctx, hippo.RecallInput{Query: "testing", Kind: "fish"})
	wantCode(t, err, hippo.EINVALID)
	_, err = m.Recall(ctx, hippo.RecallInput{Query: "  "})
	wantCode(t, err, hippo.EINVALID)
	res, err = m.Recall(ctx, hippo.RecallInput{Query: "testing", Kind: hippo.KindFact})
	if err != nil || len(res) != 0 {
		t.Errorf("kind=fact over memories: %d results, %v", len(res), err)
	}
}

func testRecallExcludesChunksBelowFloor(t *testing.T, b Backend) {
	e := newEnv(t, b)
	m := e.memory("agent-a")
	low := 0.3
	old, err := m.StoreMemory(context.Background(), hippo.StoreInput{Content: "an old faint memory", Intensity: &low})
	if err != nil {
		t.Fatal(err)
	}
	// 0.3·e^(-0.001·h) < 0.05 after ln(6)/0.001 h ≈ 74.7 days.
	e.clock.Advance(74 * 24 * time.Hour)
	if !slices.Contains(recallIDs(t, m, "an old faint memory"), old.Chunk.ID) {
		t.Fatal("chunk above the floor was not recalled")
	}
	// That recall was an access: it reset the clock and raised resistance.
	// Untouched for long enough, it fades below the floor for good.
	e.clock.Advance(200 * 24 * time.Hour)
	if slices.Contains(recallIDs(t, m, "an old faint memory"), old.Chunk.ID) {
		t.Error("chunk below the 0.05 floor was recalled")
	}
	// Fading is not deletion: the row is still there.
	if _, err := e.chunk("agent-a", old.Chunk.ID); err != nil {
		t.Errorf("faded chunk is gone: %v", err)
	}
}

func testRecallConsidersEveryChunk(t *testing.T, b Backend) {
	e := newEnv(t, b)
	ctx := context.Background()
	m := e.memory("agent-a")
	target := store(t, m, "the very first memory mentions zanzibar")
	// Many later, more recently accessed chunks must not push the target
	// out of consideration.
	var chunks []*hippo.Chunk
	for i := range 3000 {
		chunks = append(chunks, &hippo.Chunk{Content: fmt.Sprintf("filler %d", i), Embedding: e.srv.Vector("filler")})
	}
	e.plant("agent-a", "", chunks...)
	res, err := m.Recall(ctx, hippo.RecallInput{Query: "zanzibar", Limit: 1})
	if err != nil || len(res) != 1 || res[0].Chunk.ID != target.ID {
		t.Fatalf("recall among 3001 = %v, %v; want %s", res, err, target.ID)
	}
}

func testScopes(t *testing.T, b Backend) {
	e := newEnv(t, b)
	ctx := context.Background()
	global := store(t, e.memory("agent-a"), "shared note about kites")
	work := store(t, e.memory("agent-a", scope("work")), "work note about kites")
	home := store(t, e.memory("agent-a", scope("home")), "home note about kites")
	tests := []struct {
		name   string
		scopes []string
		want   []string
	}{
		{"unset searches all scopes", nil, []string{global.ID, work.ID, home.ID}},
		{"empty list searches none", []string{}, nil},
		{"one scope, exactly", []string{"work"}, []string{work.ID}},
		{"global scope is named by empty string", []string{""}, []string{global.ID}},
		{"several", []string{"home", ""}, []string{global.ID, home.ID}},
		{"unknown scope", []string{"nowhere"}, nil},
	}
	for _, tt := range tests {
		got := recallIDs(t, e.memory("agent-a", recallScopes(tt.scopes)), "note about kites")
		if len(got) != len(tt.want) {
			t.Errorf("%s: recalled %d chunks, want %d", tt.name, len(got), len(tt.want))
			continue
		}
		for _, id := range tt.want {
			if !slices.Contains(got, id) {
				t.Errorf("%s: missing %s", tt.name, id)
			}
		}
	}
	// Forget obeys the recall scopes too.
	m := e.memory("agent-a", recallScopes([]string{"home"}))
	res, err := m.Forget(ctx, hippo.ForgetInput{Description: "note about kites", Threshold: 0.5})
	if err != nil || len(res.Deleted) != 1 || res.Deleted[0].ID != home.ID {
		t.Errorf("scoped forget = %+v, %v; want only %s", res, err, home.ID)
	}
	// Blocks live in the write scope.
	if _, err := e.memory("agent-a", scope("work")).AppendBlock(ctx, "objectives", "ship v1"); err != nil {
		t.Fatal(err)
	}
	if blk, _ := e.memory("agent-a").Block(ctx, "objectives"); blk != nil {
		t.Errorf("work-scope block visible in global scope: %+v", blk)
	}
}

func testRecallFilters(t *testing.T, b Backend) {
	e := newEnv(t, b)
	ctx := context.Background()
	m := e.memory("agent-a")
	put := func(content, meta string) *hippo.Chunk {
		t.Helper()
		res, err := m.StoreMemory(ctx, hippo.StoreInput{Content: content, Metadata: json.RawMessage(meta)})
		if err != nil {
			t.Fatal(err)
		}
		return res.Chunk
	}
	start := e.clock.Now()
	auth := put("debugged the auth redirect", `{"tags":["auth","bug"],"category":"error"}`)
	e.clock.Advance(24 * time.Hour)
	deploy := put("decided to deploy on fridays never", `{"tags":["ops"],"category":"decision"}`)
	e.clock.Advance(24 * time.Hour)
	note := put("plain note about the auth service", ``)
	dayTwo := start.Add(36 * time.Hour)

	tests := []struct {
		name string
		in   hippo.RecallInput
		want []string
	}{
		{"no filter", hippo.RecallInput{}, []string{auth.ID, deploy.ID, note.ID}},
		{"tag any-of", hippo.RecallInput{Tags: []string{"bug", "ops"}}, []string{auth.ID, deploy.ID}},
		{"unknown tag", hippo.RecallInput{Tags: []string{"nope"}}, nil},
		{"category", hippo.RecallInput{Category: "decision"}, []string{deploy.ID}},
		{"unknown category", hippo.RecallInput{Category: "insight"}, nil},
		{"since", hippo.RecallInput{Since: &dayTwo}, []string{note.ID}},
		{"until", hippo.RecallInput{Until: &dayTwo}, []string{auth.ID, deploy.ID}},
		{"tag and category", hippo.RecallInput{Tags: []string{"auth"}, Category: "decision"}, nil},
	}
	for _, tt := range tests {
		tt.in.Query, tt.in.Limit = "auth deploy note", 50
		page, err := m.RecallPage(ctx, tt.in)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if len(page.Results) != len(tt.want) || page.Total != len(tt.want) {
			t.Errorf("%s: %d results, total %d; want %d", tt.name, len(page.Results), page.Total, len(tt.want))
			continue
		}
		for _, r := range page.Results {
			if !slices.Contains(tt.want, r.Chunk.ID) {
				t.Errorf("%s: unexpected %s", tt.name, r.Chunk.Content)
			}
		}
	}

	for _, bad := range []hippo.RecallInput{
		{Offset: -1}, {Offset: 10_001}, {MinScore: 1.5}, {MinStrength: -0.1},
		{Since: &dayTwo, Until: &start},
	} {
		bad.Query = "x"
		_, err := m.Recall(ctx, bad)
		wantCode(t, err, hippo.EINVALID)
	}
}

func testRecallPagingAndDistribution(t *testing.T, b Backend) {
	e := newEnv(t, b)
	ctx := context.Background()
	m := e.memory("agent-a")
	for i := range 25 {
		store(t, m, fmt.Sprintf("memory number %d about paging", i))
	}
	seen := map[string]bool{}
	var total int
	for offset := 0; offset < 25; offset += 10 {
		page, err := m.RecallPage(ctx, hippo.RecallInput{Query: "paging", Limit: 10, Offset: offset})
		if err != nil {
			t.Fatal(err)
		}
		total = page.Total
		d := page.Distribution
		if sum := d.Below02 + d.From02To04 + d.From04To06 + d.From06To08 + d.From08To10; sum != page.Total {
			t.Errorf("distribution sums to %d, total %d", sum, page.Total)
		}
		for _, r := range page.Results {
			if seen[r.Chunk.ID] {
				t.Errorf("offset %d repeats %s", offset, r.Chunk.ID)
			}
			seen[r.Chunk.ID] = true
		}
	}
	if len(seen) != 25 || total != 25 {
		t.Errorf("paged through %d of %d (total %d)", len(seen), 25, total)
	}
	page, err := m.RecallPage(ctx, hippo.RecallInput{Query: "paging", Offset: 30})
	if err != nil || len(page.Results) != 0 || page.Total != 25 {
		t.Errorf("past the end: %d results, total %d, %v", len(page.Results), page.Total, err)
	}
	// min_score and min_strength drop weaker results.
	all, err := m.RecallPage(ctx, hippo.RecallInput{Query: "memory number 3 about paging", Limit: 50})
	if err != nil || len(all.Results) == 0 {
		t.Fatalf("recall: %+v, %v", all, err)
	}
	cut := all.Results[0].Score - 0.0001
	top, _ := m.RecallPage(ctx, hippo.RecallInput{Query: "memory number 3 about paging", Limit: 50, MinScore: cut})
	if len(top.Results) == 0 || len(top.Results) >= len(all.Results) {
		t.Errorf("min_score %.4f kept %d of %d", cut, len(top.Results), len(all.Results))
	}
	strong, _ := m.RecallPage(ctx, hippo.RecallInput{Query: "paging", Limit: 50, MinStrength: 0.9})
	if len(strong.Results) != 0 {
		t.Errorf("min_strength 0.9 kept %d results of strength ~0.5", len(strong.Results))
	}
}

func testRecallAsOf(t *testing.T, b Backend) {
	e := newEnv(t, b)
	ctx := context.Background()
	m := e.factMemory("agent-a")
	e.srv.Set("User lives in Berlin", mock.Axis(testDim, 0))
	e.srv.Set("User lives in Bangkok", mock.AtCosine(testDim, 0, 1, 0.85))
	e.srv.Set("User has a cat", mock.Axis(testDim, 5))
	e.srv.Set("where does the user live", mock.AtCosine(testDim, 0, 1, 0.9))
	e.srv.Reply(facts("User lives in Berlin", 0.6))
	if _, err := m.RememberFacts(ctx, "I live in Berlin"); err != nil {
		t.Fatal(err)
	}
	beforeMove := e.clock.Now().Add(24 * time.Hour)
	e.clock.Advance(400 * 24 * time.Hour) // long enough for Berlin to fade below the floor
	e.srv.Reply(facts("User lives in Bangkok", 0.6), verdicts("SUPERSEDES"))
	if _, err := m.RememberFacts(ctx, "I moved to Bangkok"); err != nil {
		t.Fatal(err)
	}
	afterMove := e.clock.Now().Add(time.Hour)
	e.clock.Advance(2 * time.Hour)
	e.srv.Reply(facts("User has a cat", 0.5))
	if _, err := m.RememberFacts(ctx, "I got a cat"); err != nil {
		t.Fatal(err)
	}

	contents := func(asOf *time.Time) []string {
		// Facts only: the texts they came from are never superseded.
		res, err := m.Recall(ctx, hippo.RecallInput{Query: "where does the user live", Kind: hippo.KindFact, AsOf: asOf, Limit: 50})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range res {
			out = append(out, r.Chunk.Content)
		}
		return out
	}
	if got := contents(&beforeMove); len(got) != 1 || got[0] != "User lives in Berlin" {
		t.Errorf("as of before the move = %v, want only Berlin (superseded later, faded, still history)", got)
	}
	if got := contents(&afterMove); len(got) != 1 || got[0] != "User lives in Bangkok" {
		t.Errorf("as of after the move = %v, want only Bangkok (the cat came later)", got)
	}
	if got := contents(nil); slices.Contains(got, "User lives in Berlin") || !slices.Contains(got, "User lives in Bangkok") {
		t.Errorf("now = %v", got)
	}
}

func testRecallDryRunChangesNothing(t *testing.T, b Backend) {
	e := newEnv(t, b)
	ctx := context.Background()
	m := e.memory("agent-a")
	target := store(t, m, "the deploy key lives in the vault")
	in := hippo.RecallInput{Query: "where does the deploy key live", Limit: 1, DryRun: true}
	for range 3 {
		res, err := m.Recall(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		if len(res) != 1 || res[0].Chunk.ID != target.ID {
			t.Fatalf("dry-run recall = %+v, want only %s", res, target.ID)
		}
		if r := res[0]; r.Chunk.AccessCount != 0 || r.Chunk.RunningIntensity != 0.5 || r.Score == 0 || r.Relevance == 0 {
			t.Fatalf("dry-run result %+v: want the stored chunk (access 0, intensity 0.5) with its score parts", r)
		}
	}
	if c := e.mustChunk("agent-a", target.ID); c.AccessCount != 0 || c.RunningIntensity != 0.5 {
		t.Errorf("dry-run boosted the chunk: access %d intensity %v", c.AccessCount, c.RunningIntensity)
	}
	in.DryRun = false
	if res, err := m.Recall(ctx, in); err != nil || len(res) != 1 || res[0].Chunk.AccessCount != 1 {
		t.Errorf("recall after dry-runs = %+v, %v: want one boosted result", res, err)
	}
}

// testRecallOneVoice checks that facts and memories are compared with the
// query as written: a fact where its rewrite into the facts' voice ("where
// does User live") points is not found, a fact where the query points is,
// whatever the kind asked for.
func testRecallOneVoice(t *testing.T, b Backend) {
	ctx := context.Background()
	e := newEnv(t, b)
	m := e.memory("agent-a")
	e.plant("agent-a", "",
		&hippo.Chunk{Kind: hippo.KindFact, Content: "User lives in Berlin", Embedding: mock.AtCosine(testDim, 0, 1, 0.9)},
		&hippo.Chunk{Kind: hippo.KindFact, Content: "User rents a flat", Embedding: mock.AtCosine(testDim, 2, 4, 0.9)},
		&hippo.Chunk{Kind: hippo.KindMemory, Content: "our flat has a balcony", Embedding: mock.AtCosine(testDim, 2, 3, 0.8)})
	floor := 0.1
	e.srv.Set("where do I live", mock.Axis(testDim, 2))
	e.srv.Set("where does User live", mock.Axis(testDim, 0))
	for _, tt := range []struct {
		kind hippo.Kind
		want []string
	}{
		{"", []string{"User rents a flat", "our flat has a balcony"}},
		{hippo.KindFact, []string{"User rents a flat"}},
		{hippo.KindMemory, []string{"our flat has a balcony"}},
	} {
		got, err := m.Recall(ctx, hippo.RecallInput{Query: "where do I live", Kind: tt.kind, Alpha: ptr(0.0), MinRelevance: &floor})
		if err != nil {
			t.Fatal(err)
		}
		var contents []string
		for _, r := range got {
			contents = append(contents, r.Chunk.Content)
		}
		if !slices.Equal(contents, tt.want) {
			t.Errorf("kind %q: got %q, want %q", tt.kind, contents, tt.want)
		}
	}
}

func testRecallAndBoost(t *testing.T, b Backend) {
	ctx := context.Background()
	s := open(t, b)
	m := memory(t, s, "alice", "", nil)
	for _, c := range []string{"The user drinks espresso every morning", "The deploy runs on Fridays", "Cats sleep most of the day"} {
		if _, err := m.StoreMemory(ctx, hippo.StoreInput{Content: c}); err != nil {
			t.Fatal(err)
		}
	}
	res, err := m.Recall(ctx, hippo.RecallInput{Query: "espresso coffee in the morning", Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].Chunk.Content != "The user drinks espresso every morning" {
		t.Fatalf("recall: %+v", res)
	}
	if res[0].Chunk.AccessCount != 1 || !(res[0].Score > 0) || !(res[0].Relevance > 0) {
		t.Errorf("recalled chunk: accesses %d (want 1, the boost), score %v, relevance %v",
			res[0].Chunk.AccessCount, res[0].Score, res[0].Relevance)
	}
	page, err := m.RecallPage(ctx, hippo.RecallInput{Query: "espresso coffee in the morning", Limit: 1, MinRelevance: noFloor()})
	if err != nil {
		t.Fatal(err)
	}
	if page.Total != 3 || len(page.Results) != 1 {
		t.Errorf("page: total %d, %d results; want 3 and 1", page.Total, len(page.Results))
	}
	if _, err := m.Recall(ctx, hippo.RecallInput{Query: "x", Offset: -1}); hippo.ErrorCode(err) != hippo.EINVALID {
		t.Errorf("negative offset: %v", err)
	}
}

// testBoostFirstResultsWeakRest checks which results a recall uses: only
// the first Config.BoostResults get the retrieval event, and up to
// Config.WeakResults of the closest of the rest follow what passed the
// floor, within the limit, marked weak and not boosted; with a floor
// given, none are added.
func testBoostFirstResultsWeakRest(t *testing.T, b Backend) {
	ctx := context.Background()
	s := open(t, b)
	m := memory(t, s, "alice", "", nil)
	contents := []string{
		"The user drinks espresso every morning", "Espresso beans come from the roaster on Main Street",
		"The user grinds coffee beans by hand", "The user takes coffee black without sugar",
		"The deploy runs on Fridays", "Cats sleep most of the day",
	}
	for _, c := range contents {
		if _, err := m.StoreMemory(ctx, hippo.StoreInput{Content: c}); err != nil {
			t.Fatal(err)
		}
	}
	accesses := func() map[string]int {
		out := map[string]int{}
		for _, c := range liveChunks(t, s, "alice", hippo.KindMemory) {
			out[c.Content] = c.AccessCount
		}
		return out
	}
	cfg := m.Config()
	res, err := m.Recall(ctx, hippo.RecallInput{Query: "espresso coffee beans", Limit: 10, MinRelevance: noFloor()})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != len(contents) {
		t.Fatalf("no floor: %d results, want %d", len(res), len(contents))
	}
	after := accesses()
	for i, r := range res {
		want := 0
		if i < cfg.BoostResults {
			want = 1
		}
		if r.Weak || after[r.Chunk.Content] != want || r.Chunk.AccessCount != want {
			t.Errorf("rank %d %q: weak %v, accesses %d stored and %d returned; want not weak, %d",
				i+1, r.Chunk.Content, r.Weak, after[r.Chunk.Content], r.Chunk.AccessCount, want)
		}
	}

	// Nothing is about the query: the closest few, all weak, none boosted.
	before := accesses()
	res, err = m.Recall(ctx, hippo.RecallInput{Query: "quantum chromodynamics lecture", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != cfg.WeakResults {
		t.Errorf("unrelated query: %d results, want the %d closest", len(res), cfg.WeakResults)
	}
	for _, r := range res {
		if !r.Weak || r.Relevance >= cfg.MinRelevance {
			t.Errorf("unrelated query: %q weak %v relevance %v, want weak under the floor %v", r.Chunk.Content, r.Weak, r.Relevance, cfg.MinRelevance)
		}
	}
	if got := accesses(); !maps.Equal(got, before) {
		t.Errorf("weak results were boosted: accesses %v, before %v", got, before)
	}
	// Some pass: the closest few of the rest follow them, within the
	// limit.
	for _, limit := range []int{10, 2} {
		if res, err = m.Recall(ctx, hippo.RecallInput{Query: "espresso every morning", Limit: limit}); err != nil {
			t.Fatal(err)
		}
		strong := 0
		for strong < len(res) && !res[strong].Weak {
			strong++
		}
		want := min(limit, strong+cfg.WeakResults, len(contents))
		if strong == 0 || len(res) != want {
			t.Errorf("limit %d: %d results, %d passing the floor; want them followed by weak ones, %d in all", limit, len(res), strong, want)
		}
		for _, r := range res[strong:] {
			if !r.Weak || r.Relevance >= cfg.MinRelevance {
				t.Errorf("limit %d: %q weak %v relevance %v after the passing results; want weak under the floor", limit, r.Chunk.Content, r.Weak, r.Relevance)
			}
		}
	}
	floor := cfg.MinRelevance
	if res, err = m.Recall(ctx, hippo.RecallInput{Query: "quantum chromodynamics lecture", MinRelevance: &floor}); err != nil || len(res) != 0 {
		t.Errorf("unrelated query, floor given: %d results, %v; want none", len(res), err)
	}
}

func testConversation(t *testing.T, b Backend) {
	s := open(t, b)
	_, err := memory(t, s, "alice", "", nil).SearchConversation(context.Background(), "hello", 5)
	wantCode(t, err, hippo.EINVALID)
}

// testBoostMatchesDomain checks a recall's boost against hippo.Boosted,
// the cap included.
func testBoostMatchesDomain(t *testing.T, b Backend) {
	ctx := context.Background()
	s := open(t, b)
	emb := local.NewEmbedder()
	boost := s.Config().RecallBoost()
	for i, intensity := range []float64{0.3, 0.5, 1 - boost/2, 1} {
		agent := fmt.Sprintf("agent%d", i)
		vecs, err := emb.Embed(ctx, []string{"the boosted memory"})
		if err != nil {
			t.Fatal(err)
		}
		plant(t, s, agent, "", emb.Model(), time.Now(),
			&hippo.Chunk{Content: "the boosted memory", Embedding: vecs[0], RunningIntensity: intensity, EncounterCount: 1})
		res, err := memory(t, s, agent, "", nil).Recall(ctx, hippo.RecallInput{Query: "the boosted memory", MinRelevance: noFloor()})
		if err != nil || len(res) != 1 {
			t.Fatalf("recall: %v %v", res, err)
		}
		if got, want := res[0].Chunk.RunningIntensity, hippo.Boosted(intensity, boost); got != want || res[0].Chunk.AccessCount != 1 {
			t.Errorf("intensity %v boosted to %v with %d accesses, want %v and 1", intensity, got, res[0].Chunk.AccessCount, want)
		}
	}
}
