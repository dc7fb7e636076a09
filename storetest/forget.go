package storetest

import (
	"context"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/mock"
)

func testForgetByDescription(t *testing.T, b Backend) {
	e := newEnv(t, b)
	ctx := context.Background()
	m := e.memory("agent-a")
	redux := store(t, m, "I like Redux")
	keep := store(t, m, "the weather in Lisbon is mild")
	if _, err := m.AppendBlock(ctx, "human", "likes Redux"); err != nil {
		t.Fatal(err)
	}
	dry, err := m.Forget(ctx, hippo.ForgetInput{Description: "I like Redux", DryRun: true})
	if err != nil || len(dry.Deleted) != 1 {
		t.Fatalf("dry run = %+v, %v", dry, err)
	}
	if _, err := e.chunk("agent-a", redux.ID); err != nil {
		t.Fatalf("dry run deleted: %v", err)
	}
	res, err := m.Forget(ctx, hippo.ForgetInput{Description: "I like Redux"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Deleted) != 1 || res.Deleted[0].ID != redux.ID || res.Deleted[0].Similarity < 0.7 {
		t.Fatalf("forget deleted %+v, want only %s", res.Deleted, redux.ID)
	}
	if _, err := e.chunk("agent-a", redux.ID); hippo.ErrorCode(err) != hippo.ENOTFOUND {
		t.Errorf("forgotten chunk still readable: %v", err)
	}
	if _, err := e.chunk("agent-a", keep.ID); err != nil {
		t.Errorf("unrelated chunk deleted: %v", err)
	}
	if blk, _ := m.Block(ctx, "human"); blk == nil || blk.Value != "likes Redux" {
		t.Errorf("forget touched a block: %+v", blk)
	}
	for _, bad := range []float64{-0.1, 1.5, math.NaN()} {
		_, err := m.Forget(ctx, hippo.ForgetInput{Description: "x", Threshold: bad})
		mustCode(t, err, hippo.EINVALID)
	}
}

func testSupersededFactLeavesRecallAndReturnsWhenSuccessorForgotten(t *testing.T, b Backend) {
	e := newEnv(t, b)
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
	if slices.Contains(ids, berlinID) || !slices.Contains(ids, bangkokID) {
		t.Fatalf("recall = %v: want Bangkok %s, never superseded Berlin %s", ids, bangkokID, berlinID)
	}
	res, err := m.Forget(ctx, hippo.ForgetInput{Description: "User lives in Bangkok", Threshold: 0.99})
	if err != nil {
		t.Fatal(err)
	}
	// The text the Bangkok fact came from goes with it.
	if len(res.Deleted) != 2 || res.Deleted[0].ID != bangkokID || res.Deleted[1].ID != bangkok.Message.ID ||
		len(res.Resurrected) != 1 || res.Resurrected[0] != berlinID {
		t.Fatalf("forget = %+v", res)
	}
	if ids := recallIDs(t, m, "where does the user live"); !slices.Contains(ids, berlinID) {
		t.Errorf("Berlin did not come back: %v", ids)
	}
	c, _ := e.chunk("agent-a", berlinID)
	if c.SupersededBy != "" || c.SupersededAt != nil {
		t.Errorf("resurrected chunk still marked: %+v", c)
	}
}

func testConsolidate(t *testing.T, bk Backend) {
	e := newEnv(t, bk)
	ctx := context.Background()
	m := e.memory("agent-a")
	low, high := 0.2, 0.9
	faint, _ := m.StoreMemory(ctx, hippo.StoreInput{Content: "a faint passing remark", Intensity: &low})
	strong, _ := m.StoreMemory(ctx, hippo.StoreInput{Content: "a vivid important lesson", Intensity: &high})
	e.srv.Set("deploys happen on tuesdays", mock.Axis(testDim, 3))
	e.srv.Set("deploys happen on tuesday", mock.AtCosine(testDim, 3, 4, 0.99))
	a := store(t, m, "deploys happen on tuesdays")
	b := store(t, m, "deploys happen on tuesday")
	m.Reinforce(ctx, []string{a.ID}, nil) // a is the stronger twin

	// 0.2·e^(-0.001 h) crosses 0.05 after ~58 days; with a 30-day grace it
	// goes after ~88 days, while 0.9 lasts ~120 days plus grace.
	e.clock.Advance(100 * 24 * time.Hour)
	dry, err := m.Consolidate(ctx, hippo.ConsolidateOptions{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(dry.Faded) != 1 || dry.Faded[0].ID != faint.Chunk.ID || len(dry.Merged) != 1 ||
		dry.Merged[0].KeptID != a.ID || dry.Merged[0].RemovedID != b.ID {
		t.Fatalf("dry run = %+v", dry)
	}
	for _, id := range []string{faint.Chunk.ID, strong.Chunk.ID, a.ID, b.ID} {
		c, err := e.chunk("agent-a", id)
		if err != nil {
			t.Fatalf("dry run deleted %s: %v", id, err)
		}
		if id == a.ID && c.EncounterCount != 2 {
			t.Errorf("dry run merged: %+v", c)
		}
	}
	res, err := m.Consolidate(ctx, hippo.ConsolidateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Faded) != 1 || len(res.Merged) != 1 {
		t.Fatalf("consolidate = %+v", res)
	}
	if _, err := e.chunk("agent-a", faint.Chunk.ID); hippo.ErrorCode(err) != hippo.ENOTFOUND {
		t.Error("faded chunk kept")
	}
	if _, err := e.chunk("agent-a", b.ID); hippo.ErrorCode(err) != hippo.ENOTFOUND {
		t.Error("merged twin kept")
	}
	kept, _ := e.chunk("agent-a", a.ID)
	if kept.EncounterCount != 3 || kept.AccessCount != 1 {
		t.Errorf("merged memory = encounters %d, accesses %d; want 3 and 1", kept.EncounterCount, kept.AccessCount)
	}
	if _, err := e.chunk("agent-a", strong.Chunk.ID); err != nil {
		t.Errorf("strong chunk deleted: %v", err)
	}
	again, _ := m.Consolidate(ctx, hippo.ConsolidateOptions{})
	if len(again.Faded)+len(again.Merged) != 0 {
		t.Errorf("second pass did more: %+v", again)
	}
}

func testForget(t *testing.T, b Backend) {
	ctx := context.Background()
	s, m := editorChange(t, b)
	if _, err := m.StoreMemory(ctx, hippo.StoreInput{Content: "The deploy runs on Fridays"}); err != nil {
		t.Fatal(err)
	}
	dry, err := m.Forget(ctx, hippo.ForgetInput{Description: "User uses Neovim", DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	// The fact and the message it came from, which says it too.
	const said = "I used to prefer VS Code, but now I use Neovim."
	if len(dry.Deleted) != 2 || dry.Deleted[1].Content != said || len(liveChunks(t, s, "alice", hippo.KindFact)) != 1 {
		t.Fatalf("dry run: %+v", dry)
	}
	res, err := m.Forget(ctx, hippo.ForgetInput{Description: "User uses Neovim"})
	if err != nil {
		t.Fatal(err)
	}
	// The VS Code fact comes back.
	if len(res.Deleted) != 2 || res.Deleted[0].Content != "User uses Neovim" || res.Deleted[1].Content != said ||
		len(res.Resurrected) != 1 {
		t.Fatalf("forget: %+v", res)
	}
	// What the forgotten fact had superseded is current again.
	if live := liveChunks(t, s, "alice", hippo.KindFact); live["User prefers VS Code"] == nil || len(live) != 1 {
		t.Errorf("after forgetting: %v", keys(live))
	}
	if got := recallContents(t, m, hippo.RecallInput{Query: "Neovim"}); slices.Contains(got, "User uses Neovim") {
		t.Errorf("the forgotten fact is still recalled: %q", got)
	}
}
