package tools

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hippo-mem/hippo"
)

// StoreMemoryInput is the input of store_memory.
type StoreMemoryInput struct {
	Content  string          `json:"content" jsonschema:"The content to keep, verbatim."`
	Metadata json.RawMessage `json:"metadata,omitempty" jsonschema:"Optional JSON object describing the content: source, tags, category, and any other keys."`
}

// storeDetails is the Details of store_memory.
type storeDetails struct {
	// Duplicate is true when the content was already stored and the
	// existing memory was strengthened.
	Duplicate bool         `json:"duplicate"`
	Memory    chunkDetails `json:"memory"`
}

func storeMemory(r resolver, cfg hippo.Config) Tool {
	schema := inputSchema[StoreMemoryInput](func(p map[string]*jsonschema.Schema) {
		textSchema(p["content"], cfg.MaxContent)
		p["metadata"] = &jsonschema.Schema{
			Type:        "object",
			Description: p["metadata"].Description,
			Properties: map[string]*jsonschema.Schema{
				"source":   {Type: "string", Description: "Where the content came from: a file, a URL, a meeting."},
				"tags":     {Type: "array", Items: &jsonschema.Schema{Type: "string"}, Description: "Short labels."},
				"category": {Type: "string", Description: "A kind of content, such as 'decision', 'experience' or 'document'."},
			},
			PropertyOrder: []string{"source", "tags", "category"},
		}
	})
	return newTool(r, Tool{
		Name: "store_memory",
		Description: fmt.Sprintf(`Store content verbatim as a memory: an experience, a decision and its reasons, an observation, a passage of a document. Memories are found again by meaning with recall_memories. Unlike facts they are never merged or superseded; storing exactly the same content again strengthens the existing memory instead of adding a copy.

Use remember_facts instead for claims about the user or the world that may change (preferences, personal details, current state), and append_memory_block for short notes that must be in view in every conversation.

Optional metadata is a JSON object, e.g. {"source": "meeting notes", "tags": ["auth"], "category": "decision"}. Returns whether the memory is new or was already known, and its id. content: at most %d characters.`, cfg.MaxContent),
	}, schema, func(ctx context.Context, svc hippo.MemoryService, in StoreMemoryInput) (*Result, error) {
		res, err := svc.StoreMemory(ctx, hippo.StoreInput{Content: in.Content, Metadata: in.Metadata})
		if err != nil {
			return nil, err
		}
		c := res.Chunk
		text := fmt.Sprintf("Stored new memory (id %s).", c.ID)
		if res.Duplicate {
			text = fmt.Sprintf("Already known: strengthened the existing memory (id %s), now seen %s, intensity %.2f.",
				c.ID, plural(c.EncounterCount, "time", "times"), c.RunningIntensity)
		}
		return &Result{Text: text, Details: storeDetails{Duplicate: res.Duplicate, Memory: newChunkDetails(c)}}, nil
	})
}
