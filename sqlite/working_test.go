package sqlite_test

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/mock"
)

func TestFactHistory(t *testing.T) {
	e := newEnv(t)
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
	wantCode(t, err, hippo.EINVALID)
	_, err = e.factMemory("agent-b").FactHistory(ctx, "", berlin.Facts[0].ChunkID)
	wantCode(t, err, hippo.ENOTFOUND)
}

func TestReinforce(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	m := e.memory("agent-a")
	e.srv.Set("tabs or spaces", mock.Axis(testDim, 0))
	e.srv.Set("team prefers tabs", mock.AtCosine(testDim, 0, 1, 0.8))
	e.srv.Set("team prefers spaces", mock.AtCosine(testDim, 0, 2, 0.8))
	tabs := store(t, m, "team prefers tabs")
	spaces := store(t, m, "team prefers spaces")
	other := store(t, e.memory("agent-b"), "agent b's memory")

	res, err := m.Reinforce(ctx, []string{spaces.ID}, []string{tabs.ID, "01UNKNOWN", other.ID})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Upvoted) != 1 || len(res.Downvoted) != 1 || len(res.NotFound) != 2 {
		t.Fatalf("reinforce = %+v", res)
	}
	up, _ := e.db.Chunk(ctx, "agent-a", spaces.ID)
	down, _ := e.db.Chunk(ctx, "agent-a", tabs.ID)
	if math.Abs(up.RunningIntensity-0.75) > 1e-9 || up.AccessCount != 1 || up.EncounterCount != 2 {
		t.Errorf("upvoted = intensity %v, access %d, encounters %d", up.RunningIntensity, up.AccessCount, up.EncounterCount)
	}
	if math.Abs(down.RunningIntensity-0.25) > 1e-9 || down.AccessCount != 0 {
		t.Errorf("downvoted = intensity %v, access %d", down.RunningIntensity, down.AccessCount)
	}
	if b, _ := e.db.Chunk(ctx, "agent-b", other.ID); b.EncounterCount != 1 {
		t.Error("agent-a's vote changed agent-b's chunk")
	}
	ids := recallIDs(t, m, "tabs or spaces")
	if len(ids) != 2 || ids[0] != spaces.ID {
		t.Errorf("recall order = %v, want the upvoted %s first", ids, spaces.ID)
	}
	// Sustained downvotes fade a memory; one does not erase it.
	for range 4 {
		if _, err := m.Reinforce(ctx, nil, []string{tabs.ID}); err != nil {
			t.Fatal(err)
		}
	}
	down, _ = e.db.Chunk(ctx, "agent-a", tabs.ID)
	if down.RunningIntensity > 0.1 || down.RunningIntensity <= 0 {
		t.Errorf("after 5 downvotes intensity = %v", down.RunningIntensity)
	}
	_, err = m.Reinforce(ctx, nil, nil)
	wantCode(t, err, hippo.EINVALID)
}

func TestContextBudget(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	m := e.memory("agent-a")
	m.SetBlock(ctx, "persona", "I am a careful assistant.")
	m.SetBlock(ctx, "human", strings.Repeat("likes long walks. ", 20))
	for _, s := range []string{"the user drinks tea", "the user drinks coffee at night", "tea is green"} {
		store(t, m, s)
	}
	full, err := m.Context(ctx, hippo.ContextInput{Query: "what does the user drink"})
	if err != nil {
		t.Fatal(err)
	}
	if len(full.Blocks) != 2 || len(full.Memories) != 3 || full.OmittedRecalls != 0 {
		t.Fatalf("full context = %+v", full)
	}
	if !strings.Contains(full.Text, "## persona") || !strings.Contains(full.Text, "- the user drinks tea") {
		t.Errorf("text:\n%s", full.Text)
	}
	for _, budget := range []int{40, 120, 420, 500} {
		c, err := m.Context(ctx, hippo.ContextInput{Query: "what does the user drink", MaxChars: budget})
		if err != nil {
			t.Fatal(err)
		}
		if n := utf8.RuneCountInString(c.Text); n > budget || n != c.Chars {
			t.Errorf("budget %d: text of %d characters (reported %d)", budget, n, c.Chars)
		}
		if len(c.Blocks)+len(c.OmittedBlocks) != 2 || len(c.Memories)+c.OmittedRecalls != 3 {
			t.Errorf("budget %d: included/omitted do not add up: %+v", budget, c)
		}
	}
	small, _ := m.Context(ctx, hippo.ContextInput{Query: "drink", MaxTokens: 30})
	if small.Budget != 120 || len(small.OmittedBlocks) == 0 {
		t.Errorf("30 tokens = %+v", small)
	}
	_, err = m.Context(ctx, hippo.ContextInput{MaxChars: 10, MaxTokens: 10})
	wantCode(t, err, hippo.EINVALID)
}

func TestListAndDeleteBlocks(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	m := e.memory("agent-a")
	m.SetBlock(ctx, "persona", "abc")
	m.SetBlock(ctx, "objectives", "ship")
	list, err := m.Blocks(ctx)
	if err != nil || len(list) != 2 || list[0].Key != "objectives" || list[1].Chars != 3 {
		t.Fatalf("blocks = %+v, %v", list, err)
	}
	if err := e.memory("agent-b").DeleteBlock(ctx, "persona"); hippo.ErrorCode(err) != hippo.ENOTFOUND {
		t.Errorf("agent-b deleted agent-a's block: %v", err)
	}
	if err := m.DeleteBlock(ctx, "persona"); err != nil {
		t.Fatal(err)
	}
	if b, _ := m.Block(ctx, "persona"); b != nil {
		t.Error("deleted block still there")
	}
	wantCode(t, m.DeleteBlock(ctx, "persona"), hippo.ENOTFOUND)
}

func TestBlockDescription(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	m := e.memory("agent-a")
	if _, err := m.AppendBlock(ctx, "objectives", "ship v1"); err != nil {
		t.Fatal(err)
	}
	b, err := m.DescribeBlock(ctx, "objectives", "what we are working towards")
	if err != nil || b.Description != "what we are working towards" || b.Value != "ship v1" {
		t.Fatalf("describe = %+v, %v", b, err)
	}
	// Changing the value keeps the description.
	b, _ = m.AppendBlock(ctx, "objectives", "then v2")
	if b.Description != "what we are working towards" {
		t.Errorf("append dropped the description: %+v", b)
	}
	list, _ := m.Blocks(ctx)
	if len(list) != 1 || list[0].Description != "what we are working towards" {
		t.Errorf("list = %+v", list)
	}
	c, _ := m.Context(ctx, hippo.ContextInput{})
	if !strings.Contains(c.Text, "## objectives (what we are working towards)") {
		t.Errorf("context:\n%s", c.Text)
	}
	// A description alone creates an empty block.
	if b, err := m.DescribeBlock(ctx, "human", "who the user is"); err != nil || b.Value != "" {
		t.Errorf("describe a new block = %+v, %v", b, err)
	}
	_, err = m.DescribeBlock(ctx, "human", strings.Repeat("x", 1001))
	wantCode(t, err, hippo.EINVALID)
}
