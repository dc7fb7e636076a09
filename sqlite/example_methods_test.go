package sqlite_test

import (
	"bytes"
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/local"
	"github.com/hippo-mem/hippo/local/minilm"
	"github.com/hippo-mem/hippo/sqlite"
)

// openExample opens a new database in a temporary directory, on a fixed
// clock so that printed strengths and recencies do not depend on the day,
// and the offline memory of agent. done closes and removes it.
func openExample(agent string) (db *sqlite.DB, mem *sqlite.Memory, done func()) {
	dir, err := os.MkdirTemp("", "hippo-example-")
	if err != nil {
		log.Fatal(err)
	}
	now := time.Date(2026, 1, 10, 12, 0, 0, 0, time.UTC)
	emb := minilm.NewEmbedder()
	db, err = sqlite.Open(context.Background(), filepath.Join(dir, "hippo.db"),
		sqlite.Options{Dimension: emb.Dimension(), Now: func() time.Time { return now }})
	if err != nil {
		log.Fatal(err)
	}
	mem, err = db.Memory(sqlite.MemoryOptions{AgentID: agent, Embedder: emb,
		Extractor: local.NewExtractor(), Classifier: local.NewClassifier()})
	if err != nil {
		log.Fatal(err)
	}
	return db, mem, func() {
		db.Close()
		os.RemoveAll(dir)
	}
}

// Recall with the parts of each score: relevance (the cosine and BM25
// sides, each calibrated to 0-1 and fused with weight α), strength and
// recency, weighed by the configuration.
func ExampleMemory_RecallPage() {
	ctx := context.Background()
	_, mem, done := openExample("my-agent")
	defer done()
	for _, text := range []string{
		"We chose SQLite over PostgreSQL for the embedded store",
		"The standup moved to 9:30",
		"Lunch is at noon on Fridays",
	} {
		if _, err := mem.StoreMemory(ctx, hippo.StoreInput{Content: text}); err != nil {
			log.Fatal(err)
		}
	}

	page, err := mem.RecallPage(ctx, hippo.RecallInput{Query: "why did we choose SQLite?", Limit: 5})
	if err != nil {
		log.Fatal(err)
	}
	cfg := mem.Config()
	fmt.Printf("%d result above the relevance floor %.2f\n", page.Total, page.MinRelevance)
	for _, r := range page.Results {
		if r.Weak {
			fmt.Printf("%s (weak: under the floor, among the closest of the rest)\n", r.Chunk.Content)
			continue
		}
		fmt.Println(r.Chunk.Content)
		fmt.Printf("  score %.2f = %.2f × relevance %.2f + %.2f × strength %.2f + %.2f × recency %.2f\n",
			r.Score, cfg.WeightSimilarity, r.Relevance, cfg.WeightStrength, r.Strength, cfg.WeightRecency, r.Recency)
		fmt.Printf("  relevance %.2f fuses cosine %.2f (calibrated %.2f) and BM25 %.2f (calibrated %.2f) with α %.1f\n",
			r.Relevance, r.Similarity, r.CosineRelevance, r.BM25, r.BM25Relevance, page.Alpha)
	}
	// Output:
	// 1 result above the relevance floor 0.10
	// We chose SQLite over PostgreSQL for the embedded store
	//   score 0.81 = 0.90 × relevance 0.82 + 0.07 × strength 0.50 + 0.03 × recency 1.00
	//   relevance 0.82 fuses cosine 0.69 (calibrated 0.92) and BM25 0.46 (calibrated 0.04) with α 0.6
	// The standup moved to 9:30 (weak: under the floor, among the closest of the rest)
	// Lunch is at noon on Fridays (weak: under the floor, among the closest of the rest)
}

// Memory blocks are named, always-present text (a persona, what is known
// of the user, objectives) that an agent edits in place and that Context
// puts first in a system prompt.
func ExampleMemory_AppendBlock() {
	ctx := context.Background()
	_, mem, done := openExample("my-agent")
	defer done()
	if _, err := mem.SetBlock(ctx, "persona", "I am terse."); err != nil {
		log.Fatal(err)
	}
	if _, err := mem.AppendBlock(ctx, "persona", "I cite sources."); err != nil {
		log.Fatal(err)
	}
	b, n, err := mem.ReplaceBlock(ctx, "persona", "terse", "brief")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s (%d replaced):\n%s\n", b.Key, n, b.Value)

	missing, err := mem.Block(ctx, "human") // nil, without an error
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("has a human block:", missing != nil)

	c, err := mem.Context(ctx, hippo.ContextInput{MaxChars: 500})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(c.Text)
	// Output:
	// persona (1 replaced):
	// I am brief.
	// I cite sources.
	// has a human block: false
	// # Memory blocks
	//
	// ## persona
	// I am brief.
	// I cite sources.
}

// Export writes an agent's blocks and chunks (here the fact and the text it
// was learned from), vectors included, and Import
// reads them into another database: nothing is embedded again, and a
// second import skips what is already there.
func ExampleDB_Export() {
	ctx := context.Background()
	from, mem, done := openExample("alice")
	defer done()
	if _, err := mem.RememberFacts(ctx, "I live in Lisbon."); err != nil {
		log.Fatal(err)
	}
	if _, err := mem.SetBlock(ctx, "persona", "Friendly."); err != nil {
		log.Fatal(err)
	}

	var file bytes.Buffer
	sum, err := from.Export(ctx, &file, sqlite.ExportOptions{AgentID: "alice"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("exported %d chunks and %d blocks\n", sum.Chunks, sum.Blocks)

	to, copied, doneTo := openExample("alice")
	defer doneTo()
	saved := file.Bytes()
	res, err := to.Import(ctx, bytes.NewReader(saved), sqlite.ImportOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("imported %d chunks and %d blocks for %v\n", res.Chunks, res.Blocks, res.Agents)
	again, err := to.Import(ctx, bytes.NewReader(saved), sqlite.ImportOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("again: %d imported, %d duplicates skipped\n", again.Chunks+again.Blocks, again.Duplicates)

	got, err := copied.Recall(ctx, hippo.RecallInput{Query: "where does the user live?", Limit: 1})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("recalled:", got[0].Chunk.Content)
	// Output:
	// exported 2 chunks and 1 blocks
	// imported 2 chunks and 1 blocks for [alice]
	// again: 0 imported, 3 duplicates skipped
	// recalled: User lives in Lisbon
}
