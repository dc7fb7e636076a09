package postgres_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/internal/pgtest"
	"github.com/hippo-mem/hippo/postgres"
	"github.com/hippo-mem/hippo/sqlite"
	"github.com/hippo-mem/hippo/ui"
)

var _ ui.Store = (*postgres.DB)(nil)

// TestBrowseAsSQLite loads the same chunks into both stores and checks
// that the web UI's queries (pages in each order and filter, strengths,
// counts) answer the same.
func TestBrowseAsSQLite(t *testing.T) {
	ctx := context.Background()
	clock := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	now := func() time.Time { return clock }
	pg, err := postgres.Open(ctx, pgtest.New(t), postgres.Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	lite, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "browse.db"), sqlite.Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	defer lite.Close()
	load := func() []*hippo.Chunk {
		var cs []*hippo.Chunk
		for i := range 40 {
			v := make([]float32, 8)
			v[i%8] = 1
			meta := fmt.Sprintf(`{"tags":["t%d","all"],"category":"c%d"}`, i%3, i%4)
			if i%7 == 0 {
				meta = ""
			}
			c := &hippo.Chunk{ID: fmt.Sprintf("B%02d", i), Kind: []hippo.Kind{hippo.KindMemory, hippo.KindFact}[i%2],
				Scope: []string{"", "work"}[i%3/2], Content: fmt.Sprintf("browse me %d", i), Embedding: v,
				RunningIntensity: 0.2 + float64(i%9)/10, EncounterCount: 1, AccessCount: i % 5,
				CreatedAt: clock.Add(-time.Duration(i) * time.Hour), LastAccessedAt: clock.Add(-time.Duration(i*i) * time.Hour)}
			if meta != "" {
				c.Metadata = json.RawMessage(meta)
			}
			if i%6 == 5 {
				at := clock.Add(-time.Hour)
				c.SupersededBy, c.SupersededAt = "B00", &at
			}
			cs = append(cs, c)
		}
		return cs
	}
	for _, s := range []interface {
		InsertChunks(context.Context, string, string, string, []*hippo.Chunk) error
	}{pg, lite} {
		if err := s.InsertChunks(ctx, "alice", "", "m", load()); err != nil {
			t.Fatal(err)
		}
	}
	work := "work"
	for _, q := range []hippo.BrowseQuery{
		{ChunkFilter: hippo.ChunkFilter{AgentID: "alice"}},
		{ChunkFilter: hippo.ChunkFilter{AgentID: "alice", Limit: 7, Offset: 3}, Order: hippo.OrderStrength},
		{ChunkFilter: hippo.ChunkFilter{AgentID: "alice", Limit: 5}, Order: hippo.OrderAccessed},
		{ChunkFilter: hippo.ChunkFilter{AgentID: "alice", Superseded: true}, Order: hippo.OrderStrength},
		{ChunkFilter: hippo.ChunkFilter{AgentID: "alice"}, OnlySuperseded: true},
		{ChunkFilter: hippo.ChunkFilter{AgentID: "alice", Kind: hippo.KindFact, Scope: &work}},
		{ChunkFilter: hippo.ChunkFilter{AgentID: "alice"}, Tag: "t1"},
		{ChunkFilter: hippo.ChunkFilter{AgentID: "alice"}, Category: "c2", Order: hippo.OrderStrength},
		{ChunkFilter: hippo.ChunkFilter{AgentID: "alice", Text: "ME 1"}},
	} {
		p, pn, err := pg.BrowseChunks(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		l, ln, err := lite.BrowseChunks(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if pn != ln || len(p) != len(l) {
			t.Errorf("%+v: PostgreSQL %d of %d, SQLite %d of %d", q, len(p), pn, len(l), ln)
			continue
		}
		for i := range p {
			if p[i].Chunk.ID != l[i].Chunk.ID || math.Abs(p[i].Strength-l[i].Strength) > 1e-9 {
				t.Errorf("%+v: row %d is %s (%v) on PostgreSQL, %s (%v) on SQLite", q, i, p[i].Chunk.ID, p[i].Strength, l[i].Chunk.ID, l[i].Strength)
			}
		}
	}
	pc, err := pg.CountAgentChunks(ctx, "alice", 10)
	if err != nil {
		t.Fatal(err)
	}
	lc, err := lite.CountAgentChunks(ctx, "alice", 10)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(pc) != fmt.Sprint(lc) {
		t.Errorf("counts: PostgreSQL %+v, SQLite %+v", pc, lc)
	}
	ids := []string{"B01", "B02", "B39", "nope"}
	ps, _ := pg.ChunkStrengths(ctx, "alice", ids)
	ls, _ := lite.ChunkStrengths(ctx, "alice", ids)
	if len(ps) != 3 || len(ls) != 3 {
		t.Fatalf("strengths: %v, %v", ps, ls)
	}
	for id, s := range ls {
		if math.Abs(ps[id]-s) > 1e-9 {
			t.Errorf("strength of %s: PostgreSQL %v, SQLite %v", id, ps[id], s)
		}
	}
}
