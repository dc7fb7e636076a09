package storetest

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/llm"
	"github.com/hippo-mem/hippo/local"
	"github.com/hippo-mem/hippo/mock"
	"github.com/hippo-mem/hippo/openai"
)

func testRememberFactsSeedExample(t *testing.T, b Backend) {
	e := newEnv(t, b)
	ctx := context.Background()
	m := e.factMemory("marrow-main")
	e.srv.Set("User dislikes Redux", mock.Axis(testDim, 0))
	e.srv.Set("User strongly dislikes Redux", mock.AtCosine(testDim, 0, 1, 0.95))
	e.srv.Set("User tried a café on Sukhumvit", mock.Axis(testDim, 2))

	e.srv.Reply(facts("User dislikes Redux", 0.85))
	first, err := m.RememberFacts(ctx, "Redux is not for me.")
	if err != nil {
		t.Fatal(err)
	}
	if first.Summary != "Learned 1 fact: 1 new (User dislikes Redux)" {
		t.Errorf("first summary = %q", first.Summary)
	}

	e.srv.Reply("```json\n" + facts("User strongly dislikes Redux", 0.81, "User tried a café on Sukhumvit", 0.15) + "\n```")
	embedsBefore, chatsBefore := e.srv.Counts()
	res, err := m.RememberFacts(ctx, "I NEVER want to use Redux again, it was a nightmare. Oh and I tried that new café on Sukhumvit.")
	if err != nil {
		t.Fatal(err)
	}
	want := "Learned 2 facts: 1 new (User tried a café on Sukhumvit), 1 updated (User dislikes Redux — intensity 0.85 → running avg 0.83)"
	if res.Summary != want {
		t.Errorf("summary =\n  %q\nwant\n  %q", res.Summary, want)
	}
	embeds, chats := e.srv.Counts()
	if embeds-embedsBefore != 1 || chats-chatsBefore != 1 {
		t.Errorf("requests: %d embedding, %d chat; want 1 and 1 (no ambiguous pair)", embeds-embedsBefore, chats-chatsBefore)
	}
	if len(res.Facts) != 2 || res.Facts[0].Action != hippo.ActionDuplicate || res.Facts[1].Action != hippo.ActionNew {
		t.Fatalf("outcomes = %+v", res.Facts)
	}
	redux, err := e.chunk("marrow-main", res.Facts[0].ChunkID)
	if err != nil {
		t.Fatal(err)
	}
	if redux.Content != "User dislikes Redux" || redux.EncounterCount != 2 || redux.AccessCount != 1 ||
		math.Abs(redux.RunningIntensity-0.83) > 1e-9 || redux.Kind != hippo.KindFact {
		t.Errorf("Redux row = %+v", redux)
	}
	cafe, err := e.chunk("marrow-main", res.Facts[1].ChunkID)
	if err != nil {
		t.Fatal(err)
	}
	if cafe.RunningIntensity != 0.15 || cafe.EncounterCount != 1 || cafe.AccessCount != 0 || cafe.SupersededBy != "" {
		t.Errorf("café row = %+v", cafe)
	}
	// The extraction prompt carries the calibration bands and the text.
	body := e.srv.ChatBodies()[1]
	system, _ := body.Messages[0]["content"].(string)
	user, _ := body.Messages[len(body.Messages)-1]["content"].(string)
	if !strings.Contains(system, "0.85") || !strings.Contains(user, "Sukhumvit") {
		t.Errorf("extraction request lacks bands or text: %v", body.Messages)
	}
	if body.Temperature == nil || *body.Temperature != 0 || body.MaxTokens != 1024 {
		t.Errorf("temperature %v, max_tokens %d; want 0 and 1024", body.Temperature, body.MaxTokens)
	}
}

func testRememberFactsBands(t *testing.T, b Backend) {
	tests := []struct {
		name       string
		similarity float64
		verdict    string // classification reply, "" when no call is expected
		action     hippo.Action
		oldLive    bool
	}{
		{"above 0.93 is a duplicate without asking", 0.95, "", hippo.ActionDuplicate, true},
		{"below 0.78 is new without asking", 0.70, "", hippo.ActionNew, true},
		{"ambiguous, LLM says duplicate", 0.85, "DUPLICATE", hippo.ActionDuplicate, true},
		{"ambiguous, LLM says supersedes", 0.85, "SUPERSEDES", hippo.ActionSupersedes, false},
		{"ambiguous, LLM says distinct", 0.80, "DISTINCT", hippo.ActionDistinct, true},
		{"ambiguous, unparseable verdict is distinct", 0.90, "maybe?", hippo.ActionDistinct, true},
		{"just inside the 0.78 edge is ambiguous", 0.7801, "SUPERSEDES", hippo.ActionSupersedes, false},
		{"just outside the 0.78 edge is new", 0.7799, "", hippo.ActionNew, true},
		{"just inside the 0.93 edge is ambiguous", 0.9299, "DUPLICATE", hippo.ActionDuplicate, true},
		{"just outside the 0.93 edge is a duplicate", 0.9301, "", hippo.ActionDuplicate, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, b)
			ctx := context.Background()
			m := e.factMemory("agent-a")
			e.srv.Set("User lives in Berlin", mock.Axis(testDim, 0))
			e.srv.Set("User lives in Bangkok", mock.AtCosine(testDim, 0, 1, tt.similarity))
			e.srv.Reply(facts("User lives in Berlin", 0.5))
			old, err := m.RememberFacts(ctx, "I live in Berlin")
			if err != nil {
				t.Fatal(err)
			}
			e.srv.Reply(facts("User lives in Bangkok", 0.7))
			if tt.verdict != "" {
				if tt.verdict == "maybe?" {
					e.srv.Reply("I am not sure about this one.")
				} else {
					e.srv.Reply(verdicts(tt.verdict))
				}
			}
			_, chatsBefore := e.srv.Counts()
			res, err := m.RememberFacts(ctx, "I live in Bangkok now")
			if err != nil {
				t.Fatal(err)
			}
			_, chats := e.srv.Counts()
			wantChats := 1
			if tt.verdict != "" {
				wantChats = 2
			}
			if chats-chatsBefore != wantChats {
				t.Errorf("chat requests = %d, want %d", chats-chatsBefore, wantChats)
			}
			if got := res.Facts[0].Action; got != tt.action {
				t.Fatalf("action = %s, want %s", got, tt.action)
			}
			oldChunk, err := e.chunk("agent-a", old.Facts[0].ChunkID)
			if err != nil {
				t.Fatal(err)
			}
			if live := oldChunk.SupersededBy == ""; live != tt.oldLive {
				t.Errorf("old fact live = %v, want %v", live, tt.oldLive)
			}
			if tt.action == hippo.ActionSupersedes {
				if oldChunk.SupersededBy != res.Facts[0].ChunkID || oldChunk.SupersededAt == nil {
					t.Errorf("superseded_by = %q at %v, want %q with a time", oldChunk.SupersededBy, oldChunk.SupersededAt, res.Facts[0].ChunkID)
				}
				if res.Facts[0].SupersededID != oldChunk.ID || res.Facts[0].SupersededContent != "User lives in Berlin" {
					t.Errorf("outcome = %+v", res.Facts[0])
				}
			}
		})
	}
}

func testRememberFactsBatchCosts(t *testing.T, b Backend) {
	e := newEnv(t, b)
	ctx := context.Background()
	m := e.factMemory("agent-a")
	// Three stored facts on axes 0..2; five new facts, three ambiguous
	// against them, one duplicate of the first new one, one new.
	for i, f := range []string{"User likes tea", "User works at Acme", "User has a dog"} {
		e.srv.Set(f, mock.Axis(testDim, i))
	}
	e.srv.Reply(facts("User likes tea", 0.5, "User works at Acme", 0.5, "User has a dog", 0.5))
	if _, err := m.RememberFacts(ctx, "setup"); err != nil {
		t.Fatal(err)
	}
	e.srv.Set("User likes green tea", mock.AtCosine(testDim, 0, 10, 0.85))
	e.srv.Set("User works at Globex", mock.AtCosine(testDim, 1, 11, 0.85))
	e.srv.Set("User has a cat", mock.AtCosine(testDim, 2, 12, 0.85))
	e.srv.Set("User moved to Lisbon", mock.Axis(testDim, 20))
	e.srv.Set("User relocated to Lisbon", mock.AtCosine(testDim, 20, 21, 0.97))
	e.srv.Reply(facts("User likes green tea", 0.4, "User works at Globex", 0.6, "User has a cat", 0.3,
		"User moved to Lisbon", 0.7, "User relocated to Lisbon", 0.9))
	e.srv.Reply(verdicts("DUPLICATE", "SUPERSEDES", "DISTINCT"))
	embedsBefore, chatsBefore := e.srv.Counts()
	res, err := m.RememberFacts(ctx, "a five-fact text")
	if err != nil {
		t.Fatal(err)
	}
	embeds, chats := e.srv.Counts()
	if embeds-embedsBefore != 1 || chats-chatsBefore != 2 {
		t.Errorf("5 facts cost %d embedding and %d chat requests; want 1 and 2", embeds-embedsBefore, chats-chatsBefore)
	}
	want := []hippo.Action{hippo.ActionDuplicate, hippo.ActionSupersedes, hippo.ActionDistinct, hippo.ActionNew, hippo.ActionDuplicate}
	for i, w := range want {
		if res.Facts[i].Action != w {
			t.Errorf("fact %d (%s): %s, want %s", i, res.Facts[i].Content, res.Facts[i].Action, w)
		}
	}
	// Intra-batch: the restatement strengthened the fact stored earlier in
	// the same call instead of inserting a second one.
	if res.Facts[4].ChunkID != res.Facts[3].ChunkID {
		t.Errorf("restated fact stored twice: %s and %s", res.Facts[3].ChunkID, res.Facts[4].ChunkID)
	}
	lisbon, _ := e.chunk("agent-a", res.Facts[3].ChunkID)
	if lisbon.EncounterCount != 2 || math.Abs(lisbon.RunningIntensity-0.8) > 1e-9 {
		t.Errorf("Lisbon fact = %+v", lisbon)
	}
	live := e.liveFacts("agent-a")
	if len(live) != 5 { // tea, Acme→Globex, dog, cat, Lisbon
		t.Errorf("live facts = %d, want 5: %v", len(live), keys(live))
	}
	if _, ok := live["User works at Acme"]; ok {
		t.Error("superseded Acme fact still live")
	}
}

func testRememberFactsFailuresStoreNothing(t *testing.T, b Backend) {
	tests := []struct {
		name    string
		replies []string
		chat    func(n int) (string, int)
		wantErr string
	}{
		{"malformed extraction reply", []string{"Sorry, I cannot help with that."}, nil, "could not be parsed"},
		{"extraction fails", nil, func(int) (string, int) { return "", http.StatusInternalServerError }, "500"},
		{"classification fails midway", nil, func(n int) (string, int) {
			if n == 1 {
				return facts("User lives in Bangkok", 0.5, "User likes jazz", 0.4), http.StatusOK
			}
			return "", http.StatusBadGateway
		}, "502"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, b)
			ctx := context.Background()
			m := e.factMemory("agent-a")
			e.srv.Set("User lives in Berlin", mock.Axis(testDim, 0))
			e.srv.Set("User lives in Bangkok", mock.AtCosine(testDim, 0, 1, 0.85))
			e.srv.Reply(facts("User lives in Berlin", 0.5))
			if _, err := m.RememberFacts(ctx, "I live in Berlin"); err != nil {
				t.Fatal(err)
			}
			e.srv.Reply(tt.replies...)
			if tt.chat != nil {
				var mu sync.Mutex
				n := 0
				e.srv.Chat = func(mock.ChatRequest) (string, int) {
					mu.Lock()
					defer mu.Unlock()
					n++
					return tt.chat(n)
				}
			}
			_, err := m.RememberFacts(ctx, "I moved to Bangkok and I like jazz")
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want one mentioning %q", err, tt.wantErr)
			}
			live := e.liveFacts("agent-a")
			if len(live) != 1 || live["User lives in Berlin"] == nil {
				t.Errorf("after failure live facts = %v, want only Berlin, unchanged", keys(live))
			}
		})
	}
}

func testRememberFactsRetriesOn429(t *testing.T, b Backend) {
	e := newEnv(t, b)
	client, err := openai.NewLLM(openai.Config{BaseURL: e.srv.BaseURL(), Model: "mock-llm"})
	if err != nil {
		t.Fatal(err)
	}
	m := e.memory("agent-a", func(o *hippo.MemoryOptions) { o.Extractor = llm.NewExtractor(client) })
	var mu sync.Mutex
	n := 0
	e.srv.Chat = func(mock.ChatRequest) (string, int) {
		mu.Lock()
		defer mu.Unlock()
		n++
		if n == 1 {
			return "", http.StatusTooManyRequests // with Retry-After: 0
		}
		return facts("User likes jazz", 0.4), http.StatusOK
	}
	res, err := m.RememberFacts(context.Background(), "I like jazz")
	if err != nil {
		t.Fatal(err)
	}
	if _, chats := e.srv.Counts(); chats != 2 || res.Facts[0].Action != hippo.ActionNew {
		t.Errorf("chat requests = %d (want 2: one 429, one retry), outcome %+v", chats, res.Facts)
	}
}

func testRememberFactsConcurrentIdenticalCalls(t *testing.T, b Backend) {
	e := newEnv(t, b)
	// Both extraction requests are held until both have arrived, so both
	// calls plan against the same empty snapshot.
	var wg sync.WaitGroup
	wg.Add(2)
	e.srv.Chat = func(mock.ChatRequest) (string, int) {
		wg.Done()
		wg.Wait()
		return facts("User is allergic to peanuts", 0.9), http.StatusOK
	}
	const n = 2
	results := make([]*hippo.RememberResult, n)
	errs := make([]error, n)
	var done sync.WaitGroup
	for i := range n {
		done.Add(1)
		go func() {
			defer done.Done()
			results[i], errs[i] = e.factMemory("agent-a").RememberFacts(context.Background(), "I'm allergic to peanuts!")
		}()
	}
	done.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	live := e.liveFacts("agent-a")
	if len(live) != 1 {
		t.Fatalf("concurrent identical calls stored %d facts, want 1", len(live))
	}
	actions := fmt.Sprint(results[0].Facts[0].Action, results[1].Facts[0].Action)
	if actions != "newduplicate" && actions != "duplicatenew" {
		t.Errorf("actions = %s, want one new and one duplicate", actions)
	}
	if c := live["User is allergic to peanuts"]; c.EncounterCount != 2 {
		t.Errorf("encounters = %d, want 2", c.EncounterCount)
	}
}

func testRememberFactsNoFactsAndBadInput(t *testing.T, b Backend) {
	e := newEnv(t, b)
	ctx := context.Background()
	m := e.factMemory("agent-a")
	e.srv.Reply(`{"facts": []}`)
	res, err := m.RememberFacts(ctx, "hello there")
	const reason = "the extractor found no statement of a fact in the text"
	if err != nil || res.Reason != reason || res.Message == nil || !res.Message.New ||
		res.Summary != hippo.KeptSummary(reason, res.Message.ID) || len(res.Facts) != 0 {
		t.Fatalf("no facts = %+v, %v", res, err)
	}
	if embeds, _ := e.srv.Counts(); embeds != 1 {
		t.Errorf("the kept text was embedded %d times, want once", embeds)
	}
	_, err = m.RememberFacts(ctx, strings.Repeat("a", 10_001))
	mustCode(t, err, hippo.EINVALID)
	_, err = m.RememberFacts(ctx, "")
	mustCode(t, err, hippo.EINVALID)
	_, err = e.memory("agent-a").RememberFacts(ctx, "no extractor configured")
	mustCode(t, err, hippo.EINVALID)
}

func testFactHistoryChain(t *testing.T, b Backend) {
	e := newEnv(t, b)
	ctx := context.Background()
	m := e.factMemory("agent-a")
	e.srv.Set("User lives in Berlin", mock.Axis(testDim, 0))
	e.srv.Set("User lives in Bangkok", mock.AtCosine(testDim, 0, 1, 0.85))
	lisbonVec := mock.AtCosine(testDim, 0, 1, 0.85) // Bangkok, then turned towards axis 2
	for i := range lisbonVec {
		lisbonVec[i] *= 0.9
	}
	lisbonVec[2] = float32(math.Sqrt(1 - 0.81))
	e.srv.Set("User lives in Lisbon", lisbonVec)
	e.srv.Set("where does the user live", mock.AtCosine(testDim, 0, 1, 0.95))
	e.srv.Reply(facts("User lives in Berlin", 0.6))
	berlin, _ := m.RememberFacts(ctx, "I live in Berlin")
	e.clock.Advance(30 * 24 * time.Hour)
	e.srv.Reply(facts("User lives in Bangkok", 0.6), verdicts("SUPERSEDES"))
	bangkok, _ := m.RememberFacts(ctx, "I moved to Bangkok")
	moved := e.clock.Now()
	e.clock.Advance(30 * 24 * time.Hour)
	e.srv.Reply(facts("User lives in Lisbon", 0.6), verdicts("SUPERSEDES"))
	lisbon, err := m.RememberFacts(ctx, "Now I live in Lisbon")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{berlin.Facts[0].ChunkID, bangkok.Facts[0].ChunkID, lisbon.Facts[0].ChunkID}
	for _, q := range []struct{ query, id string }{
		{"", berlin.Facts[0].ChunkID},
		{"", lisbon.Facts[0].ChunkID},
		{"where does the user live", ""},
	} {
		h, err := m.FactHistory(ctx, q.query, q.id)
		if err != nil {
			t.Fatal(err)
		}
		if len(h) != 3 {
			t.Fatalf("history(%q, %q) has %d entries: %+v", q.query, q.id, len(h), h)
		}
		for i := range want {
			if h[i].ID != want[i] {
				t.Errorf("entry %d = %s, want %s", i, h[i].Content, want[i])
			}
		}
		if h[0].ValidUntil == nil || !h[0].ValidUntil.Equal(moved) || !h[1].ValidFrom.Equal(moved) {
			t.Errorf("Berlin valid until %v, Bangkok from %v; want %v", h[0].ValidUntil, h[1].ValidFrom, moved)
		}
		if !h[2].Current || h[2].ValidUntil != nil || h[0].Current {
			t.Errorf("current flags wrong: %+v", h)
		}
	}
	_, err = m.FactHistory(ctx, "", "")
	mustCode(t, err, hippo.EINVALID)
	_, err = e.factMemory("agent-b").FactHistory(ctx, "", berlin.Facts[0].ChunkID)
	mustCode(t, err, hippo.ENOTFOUND)
}

// offlineMemory opens a fresh database with the offline defaults: the
// GloVe embedder, the rule-based extractor and the offline classifier.
func offlineMemory(t *testing.T, b Backend) (Store, hippo.AgentMemory) {
	t.Helper()
	s := open(t, b)
	return s, memory(t, s, "me", "", nil)
}

// factContents returns the contents of the agent's facts, current or
// superseded, sorted.
func factContents(t *testing.T, db Store, superseded bool) []string {
	t.Helper()
	all, err := db.ListChunks(context.Background(), hippo.ChunkFilter{AgentID: "me", Kind: hippo.KindFact, Superseded: superseded})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range all {
		if (c.SupersededBy != "") == superseded {
			out = append(out, c.Content)
		}
	}
	slices.Sort(out)
	return out
}

// testRememberFactsChangesOfStateOffline runs changes of state through the
// real offline pipeline: the former state stops being current, whether it
// was stored before, stated earlier in the same text or never stored, and
// a move to the place already known supersedes nothing.
func testRememberFactsChangesOfStateOffline(t *testing.T, b Backend) {
	tests := []struct {
		name       string
		before     []string // remembered first, one call each
		text       string
		current    []string // live facts afterwards
		superseded []string // superseded facts afterwards
		action     hippo.Action
	}{
		{
			name:       "used to, stored before",
			before:     []string{"I prefer VS Code."},
			text:       "I used to prefer VS Code, but now I use Neovim.",
			current:    []string{"User uses Neovim"},
			superseded: []string{"User prefers VS Code"},
			action:     hippo.ActionSupersedes,
		},
		{
			name:       "used to, never stored: kept as history",
			text:       "I used to prefer VS Code, but now I use Neovim.",
			current:    []string{"User uses Neovim"},
			superseded: []string{"User prefers VS Code"},
			action:     hippo.ActionSupersedes,
		},
		{
			name:       "used to, stated earlier in the same text",
			text:       "I live in Paris. Well, I used to live in Paris, but now I live in Lyon.",
			current:    []string{"User lives in Lyon"},
			superseded: []string{"User lives in Paris"},
		},
		{
			name:       "moved from A to B with B stored: consistent",
			before:     []string{"I live in Berlin."},
			text:       "I moved from Paris to Berlin last year.",
			current:    []string{"User lives in Berlin"},
			superseded: []string{"User lives in Paris"},
			action:     hippo.ActionDuplicate,
		},
		{
			name:       "moved from A to B with A stored: A superseded",
			before:     []string{"I live in Paris."},
			text:       "I moved from Paris to Berlin last year.",
			current:    []string{"User moved to Berlin last year"},
			superseded: []string{"User lives in Paris"},
			action:     hippo.ActionSupersedes,
		},
		{
			name:       "moved to B with another place stored",
			before:     []string{"I live in Rome."},
			text:       "I moved to Berlin last year.",
			current:    []string{"User moved to Berlin last year"},
			superseded: []string{"User lives in Rome"},
			action:     hippo.ActionSupersedes,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			db, m := offlineMemory(t, b)
			for _, text := range tt.before {
				if _, err := m.RememberFacts(ctx, text); err != nil {
					t.Fatal(err)
				}
			}
			res, err := m.RememberFacts(ctx, tt.text)
			if err != nil {
				t.Fatal(err)
			}
			t.Log(res.Summary)
			if got := factContents(t, db, false); !slices.Equal(got, tt.current) {
				t.Errorf("current facts %q, want %q", got, tt.current)
			}
			if got := factContents(t, db, true); !slices.Equal(got, tt.superseded) {
				t.Errorf("superseded facts %q, want %q", got, tt.superseded)
			}
			if tt.action != "" {
				if len(res.Facts) != 1 || res.Facts[0].Action != tt.action {
					t.Errorf("outcomes %+v, want one %s", res.Facts, tt.action)
				}
			}
			for _, f := range res.Facts {
				if f.FormerContent != "" && !strings.Contains(res.Summary, f.FormerContent) {
					t.Errorf("summary %q does not say %q was replaced", res.Summary, f.FormerContent)
				}
			}
		})
	}
}

// testRememberFactsFormerHistory checks that a former state recorded from
// the text is in the new fact's history, before it.
func testRememberFactsFormerHistory(t *testing.T, b Backend) {
	ctx := context.Background()
	_, m := offlineMemory(t, b)
	res, err := m.RememberFacts(ctx, "I used to work at Amazon, but now I work at a startup.")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Facts) != 1 || !res.Facts[0].FormerRecorded || res.Facts[0].FormerContent != "User works at Amazon" {
		t.Fatalf("outcomes %+v, want one fact recording the former employer", res.Facts)
	}
	hist, err := m.FactHistory(ctx, "", res.Facts[0].ChunkID)
	if err != nil {
		t.Fatal(err)
	}
	var chain []string
	for _, h := range hist {
		chain = append(chain, h.Content)
	}
	if want := []string{"User works at Amazon", "User works at a startup"}; !slices.Equal(chain, want) {
		t.Errorf("history %q, want %q", chain, want)
	}
}

// testRememberFactsNoFactsReasonOffline checks that a call storing nothing
// says why and where raw content goes instead.
func testRememberFactsNoFactsReasonOffline(t *testing.T, b Backend) {
	tests := []struct{ text, reason string }{
		{"How do I reverse a linked list?", "text is a question, not a statement"},
		{"Thanks!", "text is empty after removing greetings, thanks and filler"},
		{"He said he would call.", "no first-person or third-person statement of a fact found"},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			_, m := offlineMemory(t, b)
			res, err := m.RememberFacts(context.Background(), tt.text)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Facts) != 0 || res.Reason != tt.reason {
				t.Errorf("result %+v, want no fact and reason %q", res, tt.reason)
			}
			if res.Message == nil || res.Summary != hippo.KeptSummary(tt.reason, res.Message.ID) {
				t.Errorf("summary %q, message %+v: want the reason and the kept text", res.Summary, res.Message)
			}
		})
	}
}

// testRememberFactsReportsLLMCalls: a remember_facts result lists each
// LLM call it made, what for, and the tokens the provider reported
// (mock.Tokens of the messages sent and of the reply).
func testRememberFactsReportsLLMCalls(t *testing.T, b Backend) {
	ctx := context.Background()
	e := newEnv(t, b)
	m := e.factMemory("agent-a")
	reply := facts("User lives in Berlin", 0.5)
	e.srv.Reply(reply)
	res, err := m.RememberFacts(ctx, "I live in Berlin")
	if err != nil {
		t.Fatal(err)
	}
	bodies := e.srv.ChatBodies()
	if len(res.LLMCalls) != 1 || len(bodies) != 1 {
		t.Fatalf("LLM calls %+v for %d requests, want one extraction", res.LLMCalls, len(bodies))
	}
	prompt := 0
	for _, msg := range bodies[0].Messages {
		prompt += mock.Tokens(msg["content"].(string))
	}
	c := res.LLMCalls[0]
	if c.Purpose != "extract" || c.Model != "mock-llm" || c.PromptTokens != prompt || c.CompletionTokens != mock.Tokens(reply) {
		t.Errorf("LLM call %+v, want extract by mock-llm, %d prompt and %d completion tokens", c, prompt, mock.Tokens(reply))
	}

	// A fact close to a known one is classified: two calls, in order.
	e.srv.Reply(facts("User lives in Bangkok", 0.7), verdicts("supersedes"))
	res, err = m.RememberFacts(ctx, "I live in Bangkok now")
	if err != nil {
		t.Fatal(err)
	}
	var purposes []string
	for _, c := range res.LLMCalls {
		purposes = append(purposes, c.Purpose)
		if c.PromptTokens <= 0 || c.CompletionTokens <= 0 {
			t.Errorf("call %+v without tokens", c)
		}
	}
	if n := len(e.srv.ChatBodies()) - 1; len(purposes) != n || purposes[0] != "extract" || (n == 2 && purposes[1] != "classify") {
		t.Errorf("purposes %v for %d requests, want extract then classify", purposes, n)
	}
}

func testRememberFacts(t *testing.T, b Backend) {
	ctx := context.Background()
	s := open(t, b)
	m := memory(t, s, "alice", "", nil)
	res, err := m.RememberFacts(ctx, "I live in Berlin and I love Go.")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Facts) != 2 || res.Facts[0].Action != hippo.ActionNew || res.Facts[1].Action != hippo.ActionNew {
		t.Fatalf("first call: %+v", res)
	}
	again, err := m.RememberFacts(ctx, "I live in Berlin.")
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Facts) != 1 || again.Facts[0].Action != hippo.ActionDuplicate || again.Facts[0].ChunkID != res.Facts[0].ChunkID {
		t.Errorf("repeat: %+v", again.Facts)
	}
	moved, err := m.RememberFacts(ctx, "I used to live in Berlin, but now I live in Lyon.")
	if err != nil {
		t.Fatal(err)
	}
	live := liveChunks(t, s, "alice", hippo.KindFact)
	if live["User lives in Lyon"] == nil || live["User lives in Berlin"] != nil {
		t.Errorf("after moving: live facts %v (%+v)", keys(live), moved.Facts)
	}
	if c := live["User loves Go"]; c == nil || c.EncounterCount != 1 {
		t.Errorf("an unrelated fact changed: %+v", c)
	}
	if _, err := m.RememberFacts(ctx, ""); hippo.ErrorCode(err) != hippo.EINVALID {
		t.Errorf("empty text: %v", err)
	}
}

func keys(m map[string]*hippo.Chunk) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// editorChange is a new store where alice preferred VS Code, then said
// she uses Neovim now: one fact superseding another.
func editorChange(t *testing.T, b Backend) (Store, hippo.AgentMemory) {
	t.Helper()
	s := open(t, b)
	m := memory(t, s, "alice", "", nil)
	for _, text := range []string{"I prefer VS Code.", "I used to prefer VS Code, but now I use Neovim."} {
		if _, err := m.RememberFacts(context.Background(), text); err != nil {
			t.Fatal(err)
		}
	}
	return s, m
}

func testFactHistory(t *testing.T, b Backend) {
	ctx := context.Background()
	_, m := editorChange(t, b)
	h, err := m.FactHistory(ctx, "do I use Neovim", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(h) != 2 || h[0].Content != "User prefers VS Code" || h[0].Current || h[0].ValidUntil == nil ||
		h[1].Content != "User uses Neovim" || !h[1].Current {
		t.Errorf("history: %+v", h)
	}
	if len(h) == 2 {
		byID, err := m.FactHistory(ctx, "", h[0].ID)
		if err != nil || len(byID) != 2 || byID[1].ID != h[1].ID {
			t.Errorf("history by ID: %+v, %v", byID, err)
		}
	}
	_, err = m.FactHistory(ctx, "", "01NOSUCHCHUNK0000000000000")
	wantCode(t, err, hippo.ENOTFOUND)
}

// testOfflineDefaultsSeedScenario runs the seed's example with no API at
// all: the embedded GloVe embedder, the rule-based extractor and the
// offline classifier.
func testOfflineDefaultsSeedScenario(t *testing.T, b Backend) {
	ctx := context.Background()
	db := open(t, b)
	m := memory(t, db, "marrow-main", "", nil)
	if got := m.Config().ForgetThreshold; got != local.ForgetThreshold {
		t.Fatalf("forget threshold %v: the embedder's calibration was not applied", got)
	}
	res, err := m.RememberFacts(ctx, "I NEVER want to use Redux again, it was a nightmare. Oh and I tried that new café on Sukhumvit.")
	if err != nil {
		t.Fatal(err)
	}
	t.Log(res.Summary)
	if len(res.Facts) != 2 {
		t.Fatalf("facts = %+v, want the Redux and café facts", res.Facts)
	}
	var redux, cafe hippo.FactOutcome
	for _, f := range res.Facts {
		switch {
		case strings.Contains(f.Content, "Redux"):
			redux = f
		case strings.Contains(f.Content, "café"):
			cafe = f
		}
	}
	if redux.ChunkID == "" || cafe.ChunkID == "" || redux.Intensity < 0.6 || cafe.Intensity > 0.3 {
		t.Fatalf("facts = %+v", res.Facts)
	}
	first := func(query string, kind hippo.Kind) string {
		t.Helper()
		got, err := m.Recall(ctx, hippo.RecallInput{Query: query, Limit: 5, Kind: kind})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 {
			t.Fatalf("recall %q found nothing", query)
		}
		return got[0].Chunk.ID
	}
	// The message stands for the facts the offline extractor cut from it
	// where it is relevant itself; asked for facts, the fact comes back.
	if got := first("coffee shop in Bangkok", ""); got != cafe.ChunkID {
		t.Errorf(`"coffee shop in Bangkok" recalled %s first, want the café fact`, got)
	}
	if got := first("what does the user think of Redux", ""); got != res.Message.ID {
		t.Errorf(`"what does the user think of Redux" recalled %s first, want the message that said it`, got)
	}
	if got := first("what does the user think of Redux", hippo.KindFact); got != redux.ChunkID {
		t.Errorf(`"what does the user think of Redux", facts only, recalled %s first, want the Redux fact`, got)
	}
	gone, err := m.Forget(ctx, hippo.ForgetInput{Description: "Redux"})
	if err != nil {
		t.Fatal(err)
	}
	// The message said it too, so it goes with the fact; the café fact
	// stays.
	if len(gone.Deleted) != 2 || gone.Deleted[0].ID != redux.ChunkID || gone.Deleted[1].ID != res.Message.ID ||
		gone.Deleted[1].Via != redux.ChunkID {
		t.Fatalf("forget Redux deleted %+v, want the Redux fact and the message it came from", gone.Deleted)
	}
	if _, err := db.Chunk(ctx, "marrow-main", cafe.ChunkID); err != nil {
		t.Errorf("café fact gone too: %v", err)
	}
}
