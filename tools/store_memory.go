package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hippo-mem/hippo"
)

// StoreMemoryInput is the input of store_memory.
type StoreMemoryInput struct {
	Content string `json:"content" jsonschema:"The content to keep, verbatim."`
	// Metadata is a JSON object, or a JSON string holding one (as the
	// TypeScript Hippo takes it).
	Metadata json.RawMessage `json:"metadata,omitempty" jsonschema:"Optional JSON object describing the content: source, tags, category, and any other keys."`
	Source   string          `json:"source,omitempty" jsonschema:"Optional: where the content came from (a message ID, a URL, a file), kept as the memory's provenance and shown by memory_source."`
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
		p["source"].MaxLength = jsonschema.Ptr(hippo.MaxSourceLength)
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
		Name:         "store_memory",
		OutputSchema: outputSchema[storeDetails](),
		Description: fmt.Sprintf(`Store content verbatim as a memory: an experience, a decision and its reasons, an observation, a passage of a document. Memories are found again by meaning with recall_memories. Unlike facts they are never merged or superseded; storing exactly the same content again strengthens the existing memory instead of adding a copy.

Use remember_facts instead for claims about the user or the world that may change (preferences, personal details, current state), and append_memory_block for short notes that must be in view in every conversation.

Optional metadata is a JSON object, e.g. {"source": "meeting notes", "tags": ["auth"], "category": "decision"}; a string holding such an object is accepted too. Optional source says where the content came from (a message ID, a URL, a file): memory_source shows it later. Content that reads as instructions to the assistant rather than information is kept but marked suspicious, and left out of get_context and recall_memories until a person reviews it. Returns whether the memory is new or was already known, and its id. content: at most %d characters.`, cfg.MaxContent),
	}, schema, func(ctx context.Context, svc hippo.MemoryService, in StoreMemoryInput) (*Result, error) {
		meta, err := metadataObject(in.Metadata)
		if err != nil {
			return nil, err
		}
		res, err := svc.StoreMemory(ctx, hippo.StoreInput{Content: in.Content, Metadata: meta, Source: in.Source})
		if err != nil {
			return nil, err
		}
		c := res.Chunk
		text := fmt.Sprintf("Stored new memory (id %s).", c.ID)
		if res.Duplicate {
			text = fmt.Sprintf("Already known: strengthened the existing memory (id %s), now seen %s, intensity %.2f.",
				c.ID, plural(c.EncounterCount, "time", "times"), c.RunningIntensity)
		}
		if c.Suspicious {
			text += fmt.Sprintf(" It is marked suspicious (%s): kept, but left out of get_context and recall until a person reviews it.", c.SuspiciousReason)
		}
		return &Result{Text: text, Details: storeDetails{Duplicate: res.Duplicate, Memory: newChunkDetails(c)}}, nil
	})
}

// metadataObject returns raw, or the JSON text a JSON string raw holds:
// {"tags":["a"]} and "{\"tags\":[\"a\"]}" are the same metadata. Whether
// it is an object is the service's to check, except for a string, whose
// content is named in the error.
func metadataObject(raw json.RawMessage) (json.RawMessage, error) {
	data := bytes.TrimSpace(raw)
	if len(data) == 0 || data[0] != '"' {
		return raw, nil
	}
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, hippo.Invalidf("metadata", "is not a valid JSON string: %v", err)
	}
	inner := json.RawMessage(strings.TrimSpace(s))
	if len(inner) == 0 || inner[0] != '{' || !json.Valid(inner) {
		return nil, hippo.Invalidf("metadata", "must be a JSON object, or a string holding one; got the string %q", truncate(s, 80))
	}
	return inner, nil
}

// truncate cuts s to at most n runes, marking the cut with "...".
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "..."
}
