package sqlite_test

import (
	"context"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/mock"
	"github.com/hippo-mem/hippo/sqlite"
)

func TestConsolidate(t *testing.T) {
	e := newEnv(t)
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
	dry, err := m.Consolidate(ctx, sqlite.ConsolidateOptions{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(dry.Faded) != 1 || dry.Faded[0].ID != faint.Chunk.ID || len(dry.Merged) != 1 ||
		dry.Merged[0].KeptID != a.ID || dry.Merged[0].RemovedID != b.ID {
		t.Fatalf("dry run = %+v", dry)
	}
	for _, id := range []string{faint.Chunk.ID, strong.Chunk.ID, a.ID, b.ID} {
		c, err := e.db.Chunk(ctx, "agent-a", id)
		if err != nil {
			t.Fatalf("dry run deleted %s: %v", id, err)
		}
		if id == a.ID && c.EncounterCount != 2 {
			t.Errorf("dry run merged: %+v", c)
		}
	}
	res, err := m.Consolidate(ctx, sqlite.ConsolidateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Faded) != 1 || len(res.Merged) != 1 {
		t.Fatalf("consolidate = %+v", res)
	}
	if _, err := e.db.Chunk(ctx, "agent-a", faint.Chunk.ID); hippo.ErrorCode(err) != hippo.ENOTFOUND {
		t.Error("faded chunk kept")
	}
	if _, err := e.db.Chunk(ctx, "agent-a", b.ID); hippo.ErrorCode(err) != hippo.ENOTFOUND {
		t.Error("merged twin kept")
	}
	kept, _ := e.db.Chunk(ctx, "agent-a", a.ID)
	if kept.EncounterCount != 3 || kept.AccessCount != 1 {
		t.Errorf("merged memory = encounters %d, accesses %d; want 3 and 1", kept.EncounterCount, kept.AccessCount)
	}
	if _, err := e.db.Chunk(ctx, "agent-a", strong.Chunk.ID); err != nil {
		t.Errorf("strong chunk deleted: %v", err)
	}
	again, _ := m.Consolidate(ctx, sqlite.ConsolidateOptions{})
	if len(again.Faded)+len(again.Merged) != 0 {
		t.Errorf("second pass did more: %+v", again)
	}
}
