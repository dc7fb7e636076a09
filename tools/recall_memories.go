package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hippo-mem/hippo"
)

// RecallMemoriesInput is the input of recall_memories.
type RecallMemoriesInput struct {
	Query string `json:"query" jsonschema:"What you want to know, in words: 'where does the user live', 'why did we choose SQLite'."`
	Limit *int   `json:"limit,omitempty" jsonschema:"How many results to return at most."`
	Kind  string `json:"kind,omitempty" jsonschema:"Only return facts ('fact') or only memories ('memory'); omit for both."`
}

// recallDetails is the Details of recall_memories.
type recallDetails struct {
	Query   string           `json:"query"`
	Kind    string           `json:"kind,omitempty"`
	Results []recalledDetail `json:"results"`
}

// recalledDetail is one recall result with the parts of its score.
type recalledDetail struct {
	chunkDetails
	Score      float64 `json:"score"`
	Similarity float64 `json:"similarity"`
	Strength   float64 `json:"strength"`
	Recency    float64 `json:"recency"`
}

func recallMemories(r resolver, cfg hippo.Config) Tool {
	schema := inputSchema[RecallMemoriesInput](func(p map[string]*jsonschema.Schema) {
		textSchema(p["query"], cfg.MaxContent)
		limitSchema(p["limit"], cfg)
		p["kind"].Enum = []any{string(hippo.KindFact), string(hippo.KindMemory)}
	})
	return newTool(r, Tool{
		Name:     "recall_memories",
		ReadOnly: true,
		Description: fmt.Sprintf(`Search stored facts and memories by meaning. Results are ranked by relevance to the query, by strength (what is used often or was stated strongly stays strong; everything else fades, and recalling something strengthens it) and by recency. Superseded facts and anything that has faded away are left out.

Use it before answering anything that may depend on what you learned earlier: the user's preferences and circumstances, past decisions, earlier work. Phrase the query as what you want to know. kind restricts results to "fact" or "memory". limit is 1 to %d, default %d.

Returns a numbered list: kind, content, score (0 to 1, higher is better) and a short id of each result. Memory blocks are not searched here (use recall_memory_block), nor past messages (use recall_conversation).`, cfg.MaxLimit, cfg.DefaultLimit),
	}, schema, func(ctx context.Context, svc hippo.MemoryService, in RecallMemoriesInput) (*Result, error) {
		limit, err := checkLimit(in.Limit, cfg)
		if err != nil {
			return nil, err
		}
		found, err := svc.Recall(ctx, hippo.RecallInput{Query: in.Query, Limit: limit, Kind: hippo.Kind(in.Kind)})
		if err != nil {
			return nil, err
		}
		d := recallDetails{Query: in.Query, Kind: in.Kind, Results: make([]recalledDetail, len(found))}
		for i, r := range found {
			d.Results[i] = recalledDetail{chunkDetails: newChunkDetails(r.Chunk),
				Score: r.Score, Similarity: r.Similarity, Strength: r.Strength, Recency: r.Recency}
		}
		return &Result{Text: recallText(in.Query, in.Kind, found), Details: d}, nil
	})
}

func recallText(query, kind string, found []hippo.Recalled) string {
	what := "facts or memories"
	if kind != "" {
		what = kind + "s"
	}
	if len(found) == 0 {
		return fmt.Sprintf("No %s found for %q.", what, query)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Found %s for %q:", plural(len(found), "result", "results"), query)
	for i, r := range found {
		fmt.Fprintf(&b, "\n%d. [%s] %s (score %.2f, id %s)", i+1, r.Chunk.Kind, r.Chunk.Content, r.Score, shortID(r.Chunk.ID))
	}
	return b.String()
}
