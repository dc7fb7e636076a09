package sqlite_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/local"
	"github.com/hippo-mem/hippo/local/minilm"
	"github.com/hippo-mem/hippo/sqlite"
	"github.com/hippo-mem/hippo/tools"
)

// Example is the library's quick start: open a database, give an agent its
// memory, teach it, recall, and hand the same operations to a model as
// tools.
func Example() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "hippo-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	// The offline default; local.NewEmbedder() (GloVe) is faster and weaker,
	// openai.NewEmbedder(openai.Config{APIKey: ...}) calls an API.
	emb := minilm.NewEmbedder()
	// Dimension sets the page size of a new file.
	db, err := sqlite.Open(ctx, filepath.Join(dir, "agent.db"), sqlite.Options{Dimension: emb.Dimension()})
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	mem, err := db.Memory(sqlite.MemoryOptions{
		AgentID:    "my-agent",
		Scope:      "", // where writes go; "" is the global scope
		Embedder:   emb,
		Extractor:  local.NewExtractor(), // or llm.NewExtractor(openai.NewLLM(...))
		Classifier: local.NewClassifier(),
	})
	if err != nil {
		log.Fatal(err)
	}

	// Plain Go methods ...
	learned, err := mem.RememberFacts(ctx, "I live in Berlin and I love Go.")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(learned.Summary)
	if _, err := mem.StoreMemory(ctx, hippo.StoreInput{Content: "We chose SQLite over PostgreSQL"}); err != nil {
		log.Fatal(err)
	}
	res, err := mem.Recall(ctx, hippo.RecallInput{Query: "which database did we choose?", Limit: 1})
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range res {
		fmt.Println("recalled:", r.Chunk.Content)
	}

	// ... or the framework-neutral tools: a name, a description, the JSON
	// Schema of the input and a handler for the arguments a model sends.
	for _, t := range tools.New(mem, tools.Options{Config: mem.Config()}) {
		if t.Name != "recall_memories" {
			continue
		}
		out, err := t.Handler(ctx, json.RawMessage(`{"query": "where does the user live?", "limit": 1}`))
		if err != nil {
			log.Fatal(err)
		}
		// Text is for the model (here its first line; the rest lists the
		// results with their IDs); Details holds the same as data.
		first, _, _ := strings.Cut(out.Text, "\n")
		fmt.Println(t.Name+":", first)
	}
	// Output:
	// Learned 2 facts: 2 new (User lives in Berlin; User loves Go)
	// recalled: We chose SQLite over PostgreSQL
	// recall_memories: Found 1 result for "where does the user live?":
}
