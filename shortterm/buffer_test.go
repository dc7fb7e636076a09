package shortterm_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/mock"
	"github.com/hippo-mem/hippo/openai"
	"github.com/hippo-mem/hippo/shortterm"
	"github.com/hippo-mem/hippo/sqlite"
)

func TestBufferConsolidates(t *testing.T) {
	ctx := context.Background()
	srv := mock.NewServer(t, 32)
	emb, err := openai.NewEmbedder(openai.Config{BaseURL: srv.BaseURL(), Model: "mock"})
	if err != nil {
		t.Fatal(err)
	}
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "b.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	m, _ := db.Memory(sqlite.MemoryOptions{AgentID: "persona", Embedder: emb})
	buf := shortterm.New(m, shortterm.Options{Size: 3, Threshold: 0.5, Embedder: emb})

	add := func(typ, content string, importance float64) {
		t.Helper()
		if err := buf.Add(ctx, shortterm.Experience{Type: typ, Content: content, Importance: importance}); err != nil {
			t.Fatal(err)
		}
	}
	add("chat", "small talk about the weather", 0.1)
	add("decision", "we will ship on friday", 0.8)
	add("error", "the build broke on arm64", 0.6)
	// Before consolidation, recall sees the buffer.
	res, err := buf.Recall(ctx, hippo.RecallInput{Query: "the build broke on arm64", Limit: 2})
	if err != nil || len(res) == 0 || res[0].Chunk.Content != "the build broke on arm64" || res[0].Chunk.ID != "" {
		t.Fatalf("buffer recall = %+v, %v", res, err)
	}
	if got, _ := m.Recall(ctx, hippo.RecallInput{Query: "ship on friday"}); len(got) != 0 {
		t.Fatalf("long-term memory has %d chunks before consolidation", len(got))
	}
	// The fourth experience fills the buffer: the important two are stored.
	add("observation", "the office plant needs water", 0.2)
	if buf.Len() != 1 {
		t.Errorf("buffer holds %d after consolidation, want 1", buf.Len())
	}
	got, _ := m.Recall(ctx, hippo.RecallInput{Query: "ship on friday build broke", Limit: 10})
	if len(got) != 2 {
		t.Fatalf("long-term memory has %d chunks, want the 2 important ones", len(got))
	}
	for _, r := range got {
		if r.Chunk.Content == "small talk about the weather" {
			t.Error("unimportant experience was consolidated")
		}
	}
	// Recall searches both together; with no relevance floor, every item.
	noFloor := 0.0
	both, _ := buf.Recall(ctx, hippo.RecallInput{Query: "office plant water friday", Limit: 10, MinRelevance: &noFloor})
	if len(both) != 3 {
		t.Errorf("combined recall = %d results, want 3", len(both))
	}
	// With the default floor, what shares nothing with the query is left
	// out of both, or comes after the relevant, marked weak.
	relevant, _ := buf.Recall(ctx, hippo.RecallInput{Query: "office plant water friday", Limit: 10})
	for _, r := range relevant {
		if r.Chunk.Content == "the build broke on arm64" && !r.Weak {
			t.Errorf("recall with the default floor returned the unrelated %q (relevance %v)", r.Chunk.Content, r.Relevance)
		}
	}
	if len(relevant) == 0 {
		t.Error("recall with the default floor found nothing")
	}
	if err := buf.Close(ctx); err != nil || buf.Len() != 0 {
		t.Errorf("close: %v, %d left", err, buf.Len())
	}
	for _, bad := range []shortterm.Experience{{Content: ""}, {Content: "x", Importance: 2}, {Content: "x", Type: "dream"}} {
		if err := buf.Add(ctx, bad); hippo.ErrorCode(err) != hippo.EINVALID {
			t.Errorf("Add(%+v) = %v, want invalid", bad, err)
		}
	}
}
