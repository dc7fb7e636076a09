package sqlite_test

import (
	"context"
	"testing"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/mock"
)

// TestRecallFactVoice checks that facts are compared with the query in
// their voice (engine.FactVoice) and memories with the query as written:
// the fact points where "where does User live" points, the memory where
// "where do I live" points, and each is found by its own side.
func TestRecallFactVoice(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	m := e.memory("agent-a")
	fact := &hippo.Chunk{Kind: hippo.KindFact, Content: "User lives in Berlin", Embedding: mock.AtCosine(testDim, 0, 1, 0.9)}
	memory := &hippo.Chunk{Kind: hippo.KindMemory, Content: "our flat has a balcony", Embedding: mock.AtCosine(testDim, 2, 3, 0.8)}
	other := &hippo.Chunk{Kind: hippo.KindFact, Content: "User owns a bike", Embedding: mock.Axis(testDim, 5)}
	if err := e.db.InsertChunks(ctx, "agent-a", "", "mock-embed", []*hippo.Chunk{fact, memory, other}); err != nil {
		t.Fatal(err)
	}
	floor := 0.1 // the unrelated bike stays out
	e.srv.Set("where do I live", mock.Axis(testDim, 2))
	e.srv.Set("where does User live", mock.Axis(testDim, 0))
	for _, tt := range []struct {
		kind hippo.Kind
		want []string
	}{
		{"", []string{"User lives in Berlin", "our flat has a balcony"}},
		{hippo.KindFact, []string{"User lives in Berlin"}},
		{hippo.KindMemory, []string{"our flat has a balcony"}},
	} {
		got, err := m.Recall(ctx, hippo.RecallInput{Query: "where do I live", Kind: tt.kind, Alpha: alpha(0), MinRelevance: &floor})
		if err != nil {
			t.Fatal(err)
		}
		var contents []string
		for _, r := range got {
			contents = append(contents, r.Chunk.Content)
		}
		if len(contents) != len(tt.want) {
			t.Fatalf("kind %q: got %q, want %q", tt.kind, contents, tt.want)
		}
		for i := range contents {
			if contents[i] != tt.want[i] {
				t.Fatalf("kind %q: got %q, want %q", tt.kind, contents, tt.want)
			}
		}
	}
	// A query with no first-person word is one voice: the fact is far
	// from it.
	e.srv.Set("where does the user live", mock.Axis(testDim, 2))
	got, err := m.Recall(ctx, hippo.RecallInput{Query: "where does the user live", Alpha: alpha(0), MinRelevance: &floor})
	if err != nil || len(got) != 1 || got[0].Chunk.Content != "our flat has a balcony" {
		t.Fatalf("third-person query: %+v, %v", got, err)
	}
}
