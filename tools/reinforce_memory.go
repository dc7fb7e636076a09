package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hippo-mem/hippo"
)

// ReinforceMemoryInput is the input of reinforce_memory.
type ReinforceMemoryInput struct {
	Upvotes   []string `json:"upvotes,omitempty" jsonschema:"IDs of facts or memories that proved useful or true."`
	Downvotes []string `json:"downvotes,omitempty" jsonschema:"IDs of facts or memories that proved useless or misleading."`
}

func reinforceMemory(r resolver, _ hippo.Config) Tool {
	schema := inputSchema[ReinforceMemoryInput](func(p map[string]*jsonschema.Schema) {
		for _, name := range []string{"upvotes", "downvotes"} {
			p[name].MaxItems = jsonschema.Ptr(1000)
		}
	})
	return newTool(r, Tool{
		Name:         "reinforce_memory",
		OutputSchema: outputSchema[hippo.ReinforceResult](),
		Description: `Give feedback on recalled facts and memories by ID (the ids recall_memories returns). An upvote strengthens an item as if it had been stated with full conviction and used again; a downvote weakens it as if contradicted. One downvote does not erase anything, but repeated downvotes make an item fade; use forget_memory to delete.

Returns which IDs were upvoted and downvoted, and which were not found.`,
	}, schema, func(ctx context.Context, svc hippo.MemoryService, in ReinforceMemoryInput) (*Result, error) {
		res, err := svc.Reinforce(ctx, in.Upvotes, in.Downvotes)
		if err != nil {
			return nil, err
		}
		parts := []string{fmt.Sprintf("Upvoted %d, downvoted %d.", len(res.Upvoted), len(res.Downvoted))}
		if len(res.NotFound) > 0 {
			parts = append(parts, "Not found: "+strings.Join(res.NotFound, ", ")+".")
		}
		return &Result{Text: strings.Join(parts, " "), Details: res}, nil
	})
}
