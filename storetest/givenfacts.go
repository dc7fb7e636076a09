package storetest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/local"
	"github.com/hippo-mem/hippo/mock"
)

// testRememberGivenFacts: facts the caller gives (RememberInput.Facts) are
// not extracted, and are otherwise learned as extracted ones: a new fact
// is added with its intensity (the default when none is given), a
// restatement strengthens the known fact, a correction the classifier
// calls SUPERSEDES supersedes it; each keeps the source and the text, and
// a fact that reads as an instruction is flagged.
func testRememberGivenFacts(t *testing.T, b Backend) {
	e := newEnv(t, b)
	ctx := context.Background()
	m := e.factMemory("agent-a")
	e.srv.Set("User lives in Berlin", mock.Axis(testDim, 0))
	e.srv.Set("User lives in Lisbon", mock.AtCosine(testDim, 0, 1, 0.85))
	e.srv.Set("User likes jazz", mock.Axis(testDim, 2))
	e.srv.Set("User really likes jazz", mock.AtCosine(testDim, 2, 3, 0.95))
	e.srv.Set(poison, mock.Axis(testDim, 4))
	intensity := func(v float64) *float64 { return &v }

	text := "I live in Berlin and I like jazz."
	res, err := m.Remember(ctx, hippo.RememberInput{Text: text, Source: "msg-1", Facts: []hippo.GivenFact{
		{Fact: " User lives in Berlin ", Intensity: intensity(0.7)}, {Fact: "User likes jazz"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if _, chats := e.srv.Counts(); chats != 0 {
		t.Errorf("given facts made %d chat requests, want none", chats)
	}
	if res.Summary != "Learned 2 facts: 2 new (User lives in Berlin; User likes jazz)" || len(res.LLMCalls) != 0 {
		t.Fatalf("remember = %+v", res)
	}
	berlinID := res.Facts[0].ChunkID
	want := hippo.Provenance{Origin: hippo.OriginRememberFacts, Caller: hippo.CallerLibrary, Source: "msg-1",
		InputHash: hippo.ContentHash(text), Extractor: hippo.ExtractorCaller}
	for i, reading := range []float64{0.7, 0.5} {
		c, err := e.chunk("agent-a", res.Facts[i].ChunkID)
		if err != nil {
			t.Fatal(err)
		}
		if c.Kind != hippo.KindFact || c.RunningIntensity != reading || c.Provenance == nil || *c.Provenance != want {
			t.Errorf("fact %d = %+v (provenance %+v), want intensity %v and %+v", i, c, c.Provenance, reading, want)
		}
		info, err := m.MemorySource(ctx, c.ID)
		if err != nil || info.Input != text {
			t.Errorf("source of %q = %+v, %v; want the text kept", c.Content, info, err)
		}
	}

	// A restatement strengthens; a correction supersedes, as the
	// classifier says. Without a text, the source alone is kept.
	e.srv.Reply(verdicts("SUPERSEDES"))
	res, err = m.Remember(ctx, hippo.RememberInput{Source: "msg-2", Facts: []hippo.GivenFact{
		{Fact: "User really likes jazz", Intensity: intensity(0.9)}, {Fact: "User lives in Lisbon", Intensity: intensity(0.6)},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if _, chats := e.srv.Counts(); chats != 1 {
		t.Errorf("%d chat requests, want 1: the classification", chats)
	}
	if len(res.Facts) != 2 || res.Facts[0].Action != hippo.ActionDuplicate || res.Facts[1].Action != hippo.ActionSupersedes ||
		res.Facts[1].SupersededID != berlinID {
		t.Fatalf("outcomes = %+v", res.Facts)
	}
	jazz, err := e.chunk("agent-a", res.Facts[0].ChunkID)
	if err != nil {
		t.Fatal(err)
	}
	if jazz.Content != "User likes jazz" || jazz.EncounterCount != 2 || math.Abs(jazz.RunningIntensity-hippo.MovingAverage(0.5, 1, 0.9)) > 1e-9 {
		t.Errorf("strengthened fact = %+v", jazz)
	}
	berlin, err := e.chunk("agent-a", berlinID)
	if err != nil {
		t.Fatal(err)
	}
	if berlin.SupersededBy != res.Facts[1].ChunkID {
		t.Errorf("Berlin superseded by %q, want %q", berlin.SupersededBy, res.Facts[1].ChunkID)
	}
	lisbon, err := m.MemorySource(ctx, res.Facts[1].ChunkID)
	if err != nil || lisbon.Provenance == nil || lisbon.Provenance.Source != "msg-2" || lisbon.Provenance.InputHash != "" || lisbon.Input != "" {
		t.Errorf("source of the correction = %+v, %v", lisbon, err)
	}
	if h, err := m.FactHistory(ctx, "", lisbon.ID); err != nil || len(h) != 2 || h[0].Content != "User lives in Berlin" {
		t.Errorf("history = %+v, %v", h, err)
	}

	// A given fact is checked for instructions as an extracted one.
	res, err = m.Remember(ctx, hippo.RememberInput{Facts: []hippo.GivenFact{{Fact: poison}}})
	if err != nil || len(res.Facts) != 1 || !res.Facts[0].Suspicious {
		t.Errorf("instruction as a fact = %+v, %v; want it flagged", res, err)
	}
}

// testRememberGivenFactsBadInput: given facts are checked before anything
// is embedded, each error naming the item; they need no extractor.
func testRememberGivenFactsBadInput(t *testing.T, b Backend) {
	e := newEnv(t, b)
	ctx := context.Background()
	m := e.factMemory("agent-a")
	v := 1.5
	many := make([]hippo.GivenFact, hippo.MaxGivenFacts+1)
	for i := range many {
		many[i].Fact = "User likes jazz"
	}
	tests := []struct {
		name  string
		in    hippo.RememberInput
		field string
	}{
		{"neither text nor facts", hippo.RememberInput{Source: "msg-1"}, "text"},
		{"empty fact", hippo.RememberInput{Facts: []hippo.GivenFact{{Fact: "User likes jazz"}, {Fact: " "}}}, "facts[1].fact"},
		{"intensity above 1", hippo.RememberInput{Text: "x", Facts: []hippo.GivenFact{{Fact: "User likes jazz", Intensity: &v}}}, "facts[0].intensity"},
		{"fact too long", hippo.RememberInput{Facts: []hippo.GivenFact{{Fact: strings.Repeat("a", 50_001)}}}, "facts[0].fact"},
		{"too many", hippo.RememberInput{Facts: many}, "facts"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := m.Remember(ctx, tt.in)
			var he *hippo.Error
			if !errors.As(err, &he) || he.Code != hippo.EINVALID || he.Field != tt.field {
				t.Errorf("error = %v, want %s naming %q", err, hippo.EINVALID, tt.field)
			}
		})
	}
	if embeds, chats := e.srv.Counts(); embeds != 0 || chats != 0 {
		t.Errorf("bad input made %d embedding and %d chat requests", embeds, chats)
	}
	res, err := e.memory("agent-b").Remember(ctx, hippo.RememberInput{Facts: []hippo.GivenFact{{Fact: "User likes jazz"}}})
	if err != nil || len(res.Facts) != 1 || res.Facts[0].Action != hippo.ActionNew {
		t.Errorf("given facts without an extractor = %+v, %v", res, err)
	}
}

// testRememberGivenFactsOffline: with the offline extractor and
// classifier, the facts an extraction gives, given by the caller instead,
// are resolved against the same known facts with the same outcomes.
func testRememberGivenFactsOffline(t *testing.T, b Backend) {
	tests := []struct {
		name   string
		before string
		text   string
		action hippo.Action
	}{
		{"a move supersedes the city", "I live in Rome.", "I moved to Berlin last year.", hippo.ActionSupersedes},
		{"a restatement strengthens", "I live in Rome.", "I live in Rome.", hippo.ActionDuplicate},
		{"another topic is new", "I live in Rome.", "I have a cat called Miso.", hippo.ActionNew},
	}
	s := open(t, b) // one store, two agents a case
	for n, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			learn := func(agent string, given bool) (*hippo.RememberResult, [2][]string) {
				m := memory(t, s, agent, "", nil)
				if _, err := m.RememberFacts(ctx, tt.before); err != nil {
					t.Fatal(err)
				}
				in := hippo.RememberInput{Text: tt.text}
				if given { // what the extraction gives, from the caller
					facts, _, err := local.NewExtractor().ExtractFacts(ctx, tt.text)
					if err != nil {
						t.Fatal(err)
					}
					for _, f := range facts {
						in.Facts = append(in.Facts, hippo.GivenFact{Fact: f.Content, Intensity: &f.Intensity})
					}
				}
				res, err := m.Remember(ctx, in)
				if err != nil {
					t.Fatal(err)
				}
				all, err := s.ListChunks(ctx, hippo.ChunkFilter{AgentID: agent, Kind: hippo.KindFact, Superseded: true})
				if err != nil {
					t.Fatal(err)
				}
				var facts [2][]string // live, superseded
				for _, c := range all {
					i := 0
					if c.SupersededBy != "" {
						i = 1
					}
					facts[i] = append(facts[i], c.Content)
				}
				slices.Sort(facts[0])
				slices.Sort(facts[1])
				return res, facts
			}
			extracted, facts := learn(fmt.Sprint("extracted-", n), false)
			given, gFacts := learn(fmt.Sprint("given-", n), true)
			actions := func(r *hippo.RememberResult) (out []hippo.Action) {
				for _, f := range r.Facts {
					out = append(out, f.Action)
				}
				return out
			}
			if !slices.Equal(actions(extracted), []hippo.Action{tt.action}) {
				t.Fatalf("extracted: %s", extracted.Summary)
			}
			if !slices.Equal(actions(given), actions(extracted)) || !slices.Equal(gFacts[0], facts[0]) || !slices.Equal(gFacts[1], facts[1]) {
				t.Errorf("given: %s, facts %q;\nextracted: %s, facts %q", given.Summary, gFacts, extracted.Summary, facts)
			}
		})
	}
}

// testGivenFactReplaces: a given fact that names the earlier fact it makes
// untrue (GivenFact.Replaces) supersedes the known fact that says it, even
// when the two facts are too far apart to be compared; one that names a
// fact nobody stored keeps it in the history as already superseded.
func testGivenFactReplaces(t *testing.T, b Backend) {
	e := newEnv(t, b)
	ctx := context.Background()
	m := e.factMemory("alice")
	e.srv.Set("User's anniversary trip is to Rarotonga", mock.Axis(testDim, 0))
	e.srv.Set("User's anniversary trip is to Fiji", mock.Axis(testDim, 1)) // cosine 0: new without replaces
	e.srv.Set("User works at Acme", mock.Axis(testDim, 2))
	e.srv.Set("User works at Initech", mock.Axis(testDim, 3))
	first, err := m.Remember(ctx, hippo.RememberInput{Text: "saving for rarotonga for our anniversary",
		Facts: []hippo.GivenFact{{Fact: "User's anniversary trip is to Rarotonga"}}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := m.Remember(ctx, hippo.RememberInput{Text: "actually scrap raro, fiji instead", Facts: []hippo.GivenFact{
		{Fact: "User's anniversary trip is to Fiji", Replaces: " User's anniversary trip is to Rarotonga "},
		{Fact: "User works at Acme", Replaces: "User works at Initech"},
	}})
	if err != nil || len(res.Facts) != 2 {
		t.Fatalf("remember = %+v, %v", res, err)
	}
	if _, chats := e.srv.Counts(); chats != 0 {
		t.Errorf("given facts made %d chat requests, want none", chats)
	}
	fiji, acme := res.Facts[0], res.Facts[1]
	old := first.Facts[0].ChunkID
	if fiji.FormerID != old || fiji.FormerRecorded {
		t.Errorf("fiji = %+v: want it to replace the Rarotonga fact %s", fiji, old)
	}
	if c := e.mustChunk("alice", old); c.SupersededBy != fiji.ChunkID {
		t.Errorf("the Rarotonga fact is superseded by %q, want %s", c.SupersededBy, fiji.ChunkID)
	}
	if !acme.FormerRecorded || acme.FormerContent != "User works at Initech" {
		t.Errorf("acme = %+v: want the former employer recorded", acme)
	}
	if got := e.liveFacts("alice"); len(got) != 2 || got["User's anniversary trip is to Fiji"] == nil || got["User works at Acme"] == nil {
		t.Errorf("live facts = %v: want Fiji and Acme", slices.Sorted(maps.Keys(got)))
	}
	// The replaced text is checked as a fact is.
	_, err = m.Remember(ctx, hippo.RememberInput{Facts: []hippo.GivenFact{{Fact: "User likes tea", Replaces: " "}}})
	var he *hippo.Error
	if !errors.As(err, &he) || he.Code != hippo.EINVALID || he.Field != "facts[0].replaces" {
		t.Errorf("an over-long replaces: %v, want EINVALID naming facts[0].replaces", err)
	}
}

// testSiblingFactsDoNotSupersede: the facts of one remember_facts call
// all hold as of its text, so none supersedes another, whatever the
// classifier says of the pair; a fact of a later call still supersedes
// them as the classifier says.
func testSiblingFactsDoNotSupersede(t *testing.T, b Backend) {
	e := newEnv(t, b)
	ctx := context.Background()
	m := e.factMemory("agent-a")
	e.srv.Set("User lives in his own place in Khalda", mock.Axis(testDim, 0))
	e.srv.Set("User moved out of the shared flat", mock.AtCosine(testDim, 0, 1, 0.85))
	e.srv.Set("User lives in Jabal Amman", mock.AtCosine(testDim, 0, 2, 0.85))

	e.srv.Reply(verdicts("SUPERSEDES"))
	res, err := m.Remember(ctx, hippo.RememberInput{Text: "moved out of the shared flat, got my own place in khalda", Facts: []hippo.GivenFact{
		{Fact: "User lives in his own place in Khalda"}, {Fact: "User moved out of the shared flat"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Facts) != 2 || res.Facts[0].Action != hippo.ActionNew || res.Facts[1].Action != hippo.ActionDistinct || res.Facts[1].SupersededID != "" {
		t.Fatalf("outcomes = %+v, want new and distinct", res.Facts)
	}
	live := e.liveFacts("agent-a")
	if len(live) != 2 || live["User lives in his own place in Khalda"] == nil || live["User moved out of the shared flat"] == nil {
		t.Fatalf("live facts = %v, want both of the call", slices.Collect(maps.Keys(live)))
	}

	e.srv.Reply(verdicts("SUPERSEDES", "DISTINCT"))
	res, err = m.Remember(ctx, hippo.RememberInput{Facts: []hippo.GivenFact{{Fact: "User lives in Jabal Amman"}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Facts) != 1 || res.Facts[0].Action != hippo.ActionSupersedes || res.Facts[0].SupersededContent != "User lives in his own place in Khalda" {
		t.Fatalf("a later call's outcome = %+v, want it to supersede the Khalda fact", res.Facts)
	}
}
