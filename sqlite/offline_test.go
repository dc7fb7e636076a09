package sqlite_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/local"
	"github.com/hippo-mem/hippo/sqlite"
)

// TestOfflineDefaultsSeedScenario runs the seed's example with no API at
// all: the embedded GloVe embedder, the rule-based extractor and the
// offline classifier.
func TestOfflineDefaultsSeedScenario(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "offline.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	m, err := db.Memory(sqlite.MemoryOptions{AgentID: "marrow-main", Embedder: local.NewEmbedder(),
		Extractor: local.NewExtractor(), Classifier: local.NewClassifier()})
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Config().ForgetThreshold; got != local.ForgetThreshold {
		t.Fatalf("forget threshold %v: the embedder's calibration was not applied", got)
	}
	res, err := m.RememberFacts(ctx, "I NEVER want to use Redux again, it was a nightmare. Oh and I tried that new café on Sukhumvit.")
	if err != nil {
		t.Fatal(err)
	}
	t.Log(res.Summary)
	if len(res.Facts) != 2 {
		t.Fatalf("facts = %+v, want the Redux and café facts", res.Facts)
	}
	var redux, cafe hippo.FactOutcome
	for _, f := range res.Facts {
		switch {
		case strings.Contains(f.Content, "Redux"):
			redux = f
		case strings.Contains(f.Content, "café"):
			cafe = f
		}
	}
	if redux.ChunkID == "" || cafe.ChunkID == "" || redux.Intensity < 0.6 || cafe.Intensity > 0.3 {
		t.Fatalf("facts = %+v", res.Facts)
	}
	first := func(query string) string {
		t.Helper()
		got, err := m.Recall(ctx, hippo.RecallInput{Query: query, Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 {
			t.Fatalf("recall %q found nothing", query)
		}
		return got[0].Chunk.ID
	}
	if got := first("coffee shop in Bangkok"); got != cafe.ChunkID {
		t.Errorf(`"coffee shop in Bangkok" recalled %s first, want the café fact`, got)
	}
	if got := first("what does the user think of Redux"); got != redux.ChunkID {
		t.Errorf(`"what does the user think of Redux" recalled %s first, want the Redux fact`, got)
	}
	gone, err := m.Forget(ctx, hippo.ForgetInput{Description: "Redux"})
	if err != nil {
		t.Fatal(err)
	}
	if len(gone.Deleted) != 1 || gone.Deleted[0].ID != redux.ChunkID {
		t.Fatalf("forget Redux deleted %+v, want only the Redux fact", gone.Deleted)
	}
	if _, err := db.Chunk(ctx, "marrow-main", cafe.ChunkID); err != nil {
		t.Errorf("café fact gone too: %v", err)
	}
}
