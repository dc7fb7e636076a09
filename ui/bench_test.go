package ui_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/sqlite"
)

// benchWords make up the synthetic memories: enough variety for BM25 and
// the GloVe vectors to tell them apart.
var benchWords = strings.Fields(`deploy key vault server database backup night team lunch pizza
	meeting friday release branch review editor coffee travel berlin paris invoice budget customer
	ticket incident alert metrics latency cache queue worker schedule holiday garden music book
	recipe training model dataset report slides office printer laptop phone password network`)

// seedBulk loads n memories for agent "bulk", spread over a year of
// creation and access times and a few scopes and tags, through the bulk
// loader with GloVe vectors.
func (e *env) seedBulk(tb testing.TB, n int) {
	tb.Helper()
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 2))
	now := e.clk.Now()
	const batch = 2000
	for start := 0; start < n; start += batch {
		texts := make([]string, 0, batch)
		for i := start; i < min(n, start+batch); i++ {
			w := make([]string, 8+rng.IntN(12))
			for j := range w {
				w[j] = benchWords[rng.IntN(len(benchWords))]
			}
			texts = append(texts, fmt.Sprintf("memory %d: %s", i, strings.Join(w, " ")))
		}
		vecs, err := e.emb.Embed(ctx, texts)
		if err != nil {
			tb.Fatal(err)
		}
		chunks := make([]*hippo.Chunk, len(texts))
		for i, t := range texts {
			created := now.Add(-time.Duration(rng.IntN(365*24)) * time.Hour)
			kind := hippo.KindMemory
			if rng.IntN(4) == 0 {
				kind = hippo.KindFact
			}
			chunks[i] = &hippo.Chunk{Kind: kind, Scope: []string{"", "", "work", "home"}[rng.IntN(4)], Content: t,
				Embedding: vecs[i], Metadata: []byte(fmt.Sprintf(`{"tags":["t%d"]}`, rng.IntN(20))),
				RunningIntensity: 0.2 + 0.8*rng.Float64(), EncounterCount: 1, AccessCount: rng.IntN(10),
				CreatedAt: created, LastAccessedAt: created.Add(time.Duration(rng.IntN(100)) * time.Hour)}
		}
		if err := e.db.InsertChunks(ctx, "bulk", "", e.emb.Model(), chunks); err != nil {
			tb.Fatal(err)
		}
	}
}

// BenchmarkPages renders each page for an agent with 50,000 memories:
//
//	go test -run '^$' -bench Pages -benchtime 20x ./ui/
func BenchmarkPages(b *testing.B) {
	e := newEnv(b, "")
	e.seedBulk(b, 50_000)
	m := e.mem(b, "bulk")
	if _, err := m.SetBlock(context.Background(), "persona", "bench"); err != nil {
		b.Fatal(err)
	}
	some, err := e.db.ListChunks(context.Background(), sqlite.ChunkFilter{AgentID: "bulk", Limit: 1})
	if err != nil || len(some) == 0 {
		b.Fatal(err)
	}
	for _, p := range []struct{ name, path string }{
		{"agents", "/ui/"},
		{"memory", "/ui/memory?agent=bulk"},
		{"memory-page-500", "/ui/memory?agent=bulk&page=500"},
		{"memory-text", "/ui/memory?agent=bulk&q=pizza+berlin"},
		{"memory-by-strength", "/ui/memory?agent=bulk&sort=strength"},
		{"memory-by-recency-tag", "/ui/memory?agent=bulk&sort=recency&tag=t7"},
		{"overview", "/ui/overview?agent=bulk"},
		{"recall", "/ui/recall?agent=bulk&q=where+is+the+deploy+key&limit=20"},
		{"forget-preview", "/ui/forget?agent=bulk&description=pizza+lunch+friday"},
		{"blocks", "/ui/blocks?agent=bulk"},
		{"chunk", "/ui/chunk?agent=bulk&id=" + some[0].ID},
	} {
		b.Run(p.name, func(b *testing.B) {
			for b.Loop() {
				rec := httptest.NewRecorder()
				e.ui.ServeHTTP(rec, httptest.NewRequest("GET", p.path, nil))
				if rec.Code != http.StatusOK {
					b.Fatalf("%s: status %d: %s", p.path, rec.Code, rec.Body)
				}
			}
		})
	}
}
