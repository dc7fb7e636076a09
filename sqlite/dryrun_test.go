package sqlite_test

import (
	"context"
	"testing"

	"github.com/hippo-mem/hippo"
)

func TestRecallDryRunChangesNothing(t *testing.T) {
	e := newEnv(t)
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
	c, err := e.db.Chunk(ctx, "agent-a", target.ID)
	if err != nil {
		t.Fatal(err)
	}
	if c.AccessCount != 0 || c.RunningIntensity != 0.5 {
		t.Errorf("dry-run boosted the chunk: access %d intensity %v", c.AccessCount, c.RunningIntensity)
	}
	in.DryRun = false
	if res, err := m.Recall(ctx, in); err != nil || len(res) != 1 || res[0].Chunk.AccessCount != 1 {
		t.Errorf("recall after dry-runs = %+v, %v: want one boosted result", res, err)
	}
}
