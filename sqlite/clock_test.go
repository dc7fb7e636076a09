package sqlite_test

import (
	"context"
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/sqlite"
)

func TestActiveDecayClockFreezesIdleTime(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		clock string
		want  float64 // strength of a 0.5 memory after an idle month, then 10 busy hours
	}{
		{sqlite.WallClock, 0.5 * math.Exp(-0.001*(30*24+10))},
		{sqlite.ActiveClock, 0.5 * math.Exp(-0.001*10)},
	} {
		t.Run(tt.clock, func(t *testing.T) {
			e := newEnv(t)
			db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "clock.db"), sqlite.Options{Now: e.clock.Now, DecayClock: tt.clock})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if db.DecayClock() != tt.clock {
				t.Fatalf("clock = %s", db.DecayClock())
			}
			m, _ := db.Memory(sqlite.MemoryOptions{AgentID: "a", Embedder: e.emb})
			other, _ := db.Memory(sqlite.MemoryOptions{AgentID: "b", Embedder: e.emb})
			target := store(t, m, "the memory that should not fade")
			// A month in which agent a is idle (agent b is busy: its
			// activity does not count for a).
			for range 30 {
				e.clock.Advance(24 * time.Hour)
				store(t, other, "b keeps working "+e.clock.Now().String())
			}
			// Then ten hours in which agent a works, without touching the
			// target.
			for range 10 {
				e.clock.Advance(time.Hour)
				if _, err := m.SetBlock(ctx, "scratch", e.clock.Now().String()); err != nil {
					t.Fatal(err)
				}
			}
			res, err := m.Recall(ctx, hippo.RecallInput{Query: "the memory that should not fade", Limit: 1})
			if err != nil || len(res) != 1 || res[0].Chunk.ID != target.ID {
				t.Fatalf("recall = %+v, %v", res, err)
			}
			if got := res[0].Strength; math.Abs(got-tt.want) > 1e-6 {
				t.Errorf("strength = %.6f, want %.6f", got, tt.want)
			}
			// The choice is recorded: a second opener follows it.
			db2, err := sqlite.Open(ctx, db.Path(), sqlite.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer db2.Close()
			if db2.DecayClock() != tt.clock {
				t.Errorf("second opener clock = %s, want %s", db2.DecayClock(), tt.clock)
			}
		})
	}
	_, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "bad.db"), sqlite.Options{DecayClock: "lunar"})
	wantCode(t, err, hippo.EINVALID)
}
