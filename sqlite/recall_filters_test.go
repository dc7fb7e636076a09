package sqlite_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/mock"
)

func TestRecallFilters(t *testing.T) {
	e := newEnv(t)
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
			if !contains(tt.want, r.Chunk.ID) {
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

func TestRecallPagingAndDistribution(t *testing.T) {
	e := newEnv(t)
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
	all, _ := m.RecallPage(ctx, hippo.RecallInput{Query: "memory number 3 about paging", Limit: 50})
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

func TestRecallAsOf(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	m := e.factMemory("agent-a")
	e.srv.Set("User lives in Berlin", mock.Axis(testDim, 0))
	e.srv.Set("User lives in Bangkok", mock.AtCosine(testDim, 0, 1, 0.85))
	e.srv.Set("User has a cat", mock.Axis(testDim, 5))
	e.srv.Set("where does the user live", mock.AtCosine(testDim, 0, 1, 0.9))
	e.srv.Reply(facts("User lives in Berlin", 0.6))
	berlin, err := m.RememberFacts(ctx, "I live in Berlin")
	if err != nil {
		t.Fatal(err)
	}
	beforeMove := e.clock.Now().Add(24 * time.Hour)
	e.clock.Advance(400 * 24 * time.Hour) // long enough for Berlin to fade below the floor
	e.srv.Reply(facts("User lives in Bangkok", 0.6), verdicts("SUPERSEDES"))
	bangkok, err := m.RememberFacts(ctx, "I moved to Bangkok")
	if err != nil {
		t.Fatal(err)
	}
	afterMove := e.clock.Now().Add(time.Hour)
	e.clock.Advance(2 * time.Hour)
	e.srv.Reply(facts("User has a cat", 0.5))
	if _, err := m.RememberFacts(ctx, "I got a cat"); err != nil {
		t.Fatal(err)
	}

	ids := func(asOf *time.Time) []string {
		res, err := m.Recall(ctx, hippo.RecallInput{Query: "where does the user live", AsOf: asOf, Limit: 50})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range res {
			out = append(out, r.Chunk.Content)
		}
		return out
	}
	if got := ids(&beforeMove); len(got) != 1 || got[0] != "User lives in Berlin" {
		t.Errorf("as of before the move = %v, want only Berlin (superseded later, faded, still history)", got)
	}
	if got := ids(&afterMove); len(got) != 1 || got[0] != "User lives in Bangkok" {
		t.Errorf("as of after the move = %v, want only Bangkok (the cat came later)", got)
	}
	if got := ids(nil); contains(got, "User lives in Berlin") || !contains(got, "User lives in Bangkok") {
		t.Errorf("now = %v", got)
	}
	_ = berlin
	_ = bangkok
}
