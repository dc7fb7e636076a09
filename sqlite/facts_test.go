package sqlite_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/llm"
	"github.com/hippo-mem/hippo/mock"
	"github.com/hippo-mem/hippo/openai"
	"github.com/hippo-mem/hippo/sqlite"
)

// factMemory returns agent's memory with the LLM extractor and classifier
// talking to the fake server.
func (e *env) factMemory(agent string) *sqlite.Memory {
	e.t.Helper()
	client, err := openai.NewLLM(openai.Config{BaseURL: e.srv.BaseURL(), APIKey: "sk-test", Model: "mock-llm", MaxRetries: -1})
	if err != nil {
		e.t.Fatal(err)
	}
	return e.memory(agent, func(o *sqlite.MemoryOptions) {
		o.Extractor = llm.NewExtractor(client)
		o.Classifier = llm.NewClassifier(client)
	})
}

// facts renders an extraction reply.
func facts(pairs ...any) string {
	var items []map[string]any
	for i := 0; i < len(pairs); i += 2 {
		items = append(items, map[string]any{"fact": pairs[i], "intensity": pairs[i+1]})
	}
	b, _ := json.Marshal(map[string]any{"facts": items})
	return string(b)
}

func verdicts(vs ...string) string {
	var items []map[string]any
	for i, v := range vs {
		items = append(items, map[string]any{"pair": i + 1, "verdict": v})
	}
	b, _ := json.Marshal(map[string]any{"verdicts": items})
	return string(b)
}

func liveFacts(t *testing.T, e *env, agent string) map[string]*hippo.Chunk {
	t.Helper()
	out := map[string]*hippo.Chunk{}
	m := e.memory(agent)
	res, err := m.Recall(context.Background(), hippo.RecallInput{Query: "anything at all", Limit: 50, Kind: hippo.KindFact})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		out[r.Chunk.Content] = r.Chunk
	}
	return out
}

func TestRememberFactsSeedExample(t *testing.T) {
	e := newEnv(t)
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
	redux, err := e.db.Chunk(ctx, "marrow-main", res.Facts[0].ChunkID)
	if err != nil {
		t.Fatal(err)
	}
	if redux.Content != "User dislikes Redux" || redux.EncounterCount != 2 || redux.AccessCount != 1 ||
		math.Abs(redux.RunningIntensity-0.83) > 1e-9 || redux.Kind != hippo.KindFact {
		t.Errorf("Redux row = %+v", redux)
	}
	cafe, err := e.db.Chunk(ctx, "marrow-main", res.Facts[1].ChunkID)
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
	if body.Temperature == nil || *body.Temperature != 0 || body.MaxTokens != 2048 {
		t.Errorf("temperature %v, max_tokens %d; want 0 and 2048", body.Temperature, body.MaxTokens)
	}
}

func TestRememberFactsBands(t *testing.T) {
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
			e := newEnv(t)
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
			oldChunk, err := e.db.Chunk(ctx, "agent-a", old.Facts[0].ChunkID)
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

func TestSupersededFactLeavesRecallAndReturnsWhenSuccessorForgotten(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	m := e.factMemory("agent-a")
	e.srv.Set("User lives in Berlin", mock.Axis(testDim, 0))
	e.srv.Set("User lives in Bangkok", mock.AtCosine(testDim, 0, 1, 0.85))
	e.srv.Set("where does the user live", mock.AtCosine(testDim, 0, 1, 0.9))
	e.srv.Reply(facts("User lives in Berlin", 0.6), facts("User lives in Bangkok", 0.6), verdicts("SUPERSEDES"))
	berlin, err := m.RememberFacts(ctx, "I live in Berlin")
	if err != nil {
		t.Fatal(err)
	}
	bangkok, err := m.RememberFacts(ctx, "I moved to Bangkok")
	if err != nil {
		t.Fatal(err)
	}
	berlinID, bangkokID := berlin.Facts[0].ChunkID, bangkok.Facts[0].ChunkID
	ids := recallIDs(t, m, "where does the user live")
	if contains(ids, berlinID) || !contains(ids, bangkokID) {
		t.Fatalf("recall = %v: want Bangkok %s, never superseded Berlin %s", ids, bangkokID, berlinID)
	}
	res, err := m.Forget(ctx, hippo.ForgetInput{Description: "User lives in Bangkok", Threshold: 0.99})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Deleted) != 1 || res.Deleted[0].ID != bangkokID || len(res.Resurrected) != 1 || res.Resurrected[0] != berlinID {
		t.Fatalf("forget = %+v", res)
	}
	if ids := recallIDs(t, m, "where does the user live"); !contains(ids, berlinID) {
		t.Errorf("Berlin did not come back: %v", ids)
	}
	c, _ := e.db.Chunk(ctx, "agent-a", berlinID)
	if c.SupersededBy != "" || c.SupersededAt != nil {
		t.Errorf("resurrected chunk still marked: %+v", c)
	}
}

func TestRememberFactsBatchCosts(t *testing.T) {
	e := newEnv(t)
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
	lisbon, _ := e.db.Chunk(ctx, "agent-a", res.Facts[3].ChunkID)
	if lisbon.EncounterCount != 2 || math.Abs(lisbon.RunningIntensity-0.8) > 1e-9 {
		t.Errorf("Lisbon fact = %+v", lisbon)
	}
	live := liveFacts(t, e, "agent-a")
	if len(live) != 5 { // tea, Acme→Globex, dog, cat, Lisbon
		t.Errorf("live facts = %d, want 5: %v", len(live), keys(live))
	}
	if _, ok := live["User works at Acme"]; ok {
		t.Error("superseded Acme fact still live")
	}
}

func keys(m map[string]*hippo.Chunk) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestRememberFactsFailuresStoreNothing(t *testing.T) {
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
			e := newEnv(t)
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
			live := liveFacts(t, e, "agent-a")
			if len(live) != 1 || live["User lives in Berlin"] == nil {
				t.Errorf("after failure live facts = %v, want only Berlin, unchanged", keys(live))
			}
		})
	}
}

func TestRememberFactsRetriesOn429(t *testing.T) {
	e := newEnv(t)
	client, err := openai.NewLLM(openai.Config{BaseURL: e.srv.BaseURL(), Model: "mock-llm"})
	if err != nil {
		t.Fatal(err)
	}
	m := e.memory("agent-a", func(o *sqlite.MemoryOptions) { o.Extractor = llm.NewExtractor(client) })
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

func TestRememberFactsConcurrentIdenticalCalls(t *testing.T) {
	e := newEnv(t)
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
	live := liveFacts(t, e, "agent-a")
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

func TestRememberFactsNoFactsAndBadInput(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	m := e.factMemory("agent-a")
	e.srv.Reply(`{"facts": []}`)
	res, err := m.RememberFacts(ctx, "hello there")
	const reason = "the extractor found no statement of a fact in the text"
	if err != nil || res.Reason != reason || res.Summary != hippo.NoFactsSummary(reason) || len(res.Facts) != 0 {
		t.Errorf("no facts = %+v, %v", res, err)
	}
	if embeds, _ := e.srv.Counts(); embeds != 0 {
		t.Errorf("no facts still embedded %d times", embeds)
	}
	_, err = m.RememberFacts(ctx, strings.Repeat("a", 10_001))
	wantCode(t, err, hippo.EINVALID)
	_, err = m.RememberFacts(ctx, "")
	wantCode(t, err, hippo.EINVALID)
	_, err = e.memory("agent-a").RememberFacts(ctx, "no extractor configured")
	wantCode(t, err, hippo.EINVALID)
}
