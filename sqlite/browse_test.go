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

// TestBrowseStrengthMatchesRecall checks the SQL strength of BrowseChunks,
// ChunkStrengths and CountAgentChunks against recall's, under both decay
// clocks.
func TestBrowseStrengthMatchesRecall(t *testing.T) {
	for _, clockName := range []string{sqlite.WallClock, sqlite.ActiveClock} {
		t.Run(clockName, func(t *testing.T) {
			e := newEnv(t)
			ctx := context.Background()
			cfg := hippo.DefaultConfig()
			cfg.MinRelevance = 0
			db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "b.db"), sqlite.Options{Now: e.clock.Now, Config: &cfg, DecayClock: clockName})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			m, err := db.Memory(sqlite.MemoryOptions{AgentID: "a", Embedder: e.emb})
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for i, text := range []string{"alpha one", "beta two", "gamma three"} {
				ids = append(ids, store(t, m, text).ID)
				// Activity in some hours only: the active clock counts those.
				e.clock.Advance(time.Duration(30+20*i) * time.Hour)
				if _, err := m.Recall(ctx, hippo.RecallInput{Query: "beta two", Limit: 1}); err != nil {
					t.Fatal(err)
				}
				e.clock.Advance(50 * time.Hour)
			}
			res, err := m.Recall(ctx, hippo.RecallInput{Query: "alpha", Limit: 10, DryRun: true})
			if err != nil || len(res) != 3 {
				t.Fatalf("recall = %v, %v", res, err)
			}
			want := map[string]float64{}
			for _, r := range res {
				want[r.Chunk.ID] = r.Strength
			}
			got, err := db.ChunkStrengths(ctx, "a", ids)
			if err != nil {
				t.Fatal(err)
			}
			page, total, err := db.BrowseChunks(ctx, sqlite.BrowseQuery{ChunkFilter: sqlite.ChunkFilter{AgentID: "a"}, Order: sqlite.OrderStrength})
			if err != nil || total != 3 || len(page) != 3 {
				t.Fatalf("browse = %v, %d, %v", page, total, err)
			}
			for i, b := range page {
				if math.Abs(b.Strength-want[b.Chunk.ID]) > 1e-6 || math.Abs(got[b.Chunk.ID]-want[b.Chunk.ID]) > 1e-6 {
					t.Errorf("%s: browse %v, ChunkStrengths %v, recall %v", b.Chunk.Content, b.Strength, got[b.Chunk.ID], want[b.Chunk.ID])
				}
				if i > 0 && b.Strength > page[i-1].Strength {
					t.Errorf("not by strength: %v after %v", b.Strength, page[i-1].Strength)
				}
			}
			counts, err := db.CountAgentChunks(ctx, "a", 10)
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for bin, c := range counts.Strength {
				n += c
				for _, s := range want {
					if int(s*10) == bin && c == 0 {
						t.Errorf("strength %v not counted in bin %d: %v", s, bin, counts.Strength)
					}
				}
			}
			if n != 3 || counts.Live != 3 || counts.ByKind["memory"] != 3 || counts.ByScope[""] != 3 {
				t.Errorf("counts = %+v", counts)
			}
		})
	}
}

func TestBrowseFiltersAndPages(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	m := e.memory("a")
	for i, meta := range []string{`{"tags":["x","y"],"category":"c"}`, `{"tags":["y"]}`, `{"tags":["caf\u00e9"]}`, ``} {
		in := hippo.StoreInput{Content: "note " + string(rune('a'+i))}
		if meta != "" {
			in.Metadata = []byte(meta)
		}
		if _, err := m.StoreMemory(ctx, in); err != nil {
			t.Fatal(err)
		}
		e.clock.Advance(time.Hour)
	}
	for _, c := range []struct {
		q    sqlite.BrowseQuery
		want []string
	}{
		{sqlite.BrowseQuery{Tag: "y"}, []string{"note b", "note a"}},
		{sqlite.BrowseQuery{Tag: "café"}, []string{"note c"}}, // stored escaped
		{sqlite.BrowseQuery{Category: "c"}, []string{"note a"}},
		{sqlite.BrowseQuery{Order: sqlite.OrderCreated, ChunkFilter: sqlite.ChunkFilter{Limit: 2, Offset: 1}}, []string{"note c", "note b"}},
	} {
		c.q.AgentID = "a"
		page, _, err := e.db.BrowseChunks(ctx, c.q)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, b := range page {
			got = append(got, b.Chunk.Content)
		}
		if len(got) != len(c.want) || (len(got) > 0 && got[0] != c.want[0]) || (len(got) > 1 && got[1] != c.want[1]) {
			t.Errorf("%+v: %v, want %v", c.q, got, c.want)
		}
	}
	if _, _, err := e.db.BrowseChunks(ctx, sqlite.BrowseQuery{ChunkFilter: sqlite.ChunkFilter{AgentID: "a"}, Order: "bogus"}); hippo.ErrorCode(err) != hippo.EINVALID {
		t.Errorf("bad order: %v", err)
	}
}
