package tools

import (
	"context"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hippo-mem/hippo"
)

// RecallMemoryBlockInput is the input of recall_memory_block.
type RecallMemoryBlockInput struct {
	Key string `json:"key" jsonschema:"The block's name, such as 'persona', 'human' or 'objectives'."`
}

// blockDetails is the Details of the block tools. Value is null for a
// block that does not exist.
type blockDetails struct {
	Key         string  `json:"key"`
	Value       *string `json:"value"`
	Description string  `json:"description,omitempty"`
	UpdatedAt   string  `json:"updated_at,omitempty"`
}

func newBlockDetails(key string, b *hippo.Block) blockDetails {
	if b == nil {
		return blockDetails{Key: key}
	}
	return blockDetails{Key: b.Key, Value: &b.Value, Description: b.Description, UpdatedAt: timeString(b.UpdatedAt)}
}

func recallMemoryBlock(r resolver, _ hippo.Config) Tool {
	schema := inputSchema[RecallMemoryBlockInput](func(p map[string]*jsonschema.Schema) {
		keySchema(p["key"])
	})
	return newTool(r, Tool{
		Name:         "recall_memory_block",
		OutputSchema: outputSchema[blockDetails](),
		ReadOnly:     true,
		Description: `Read a memory block. Blocks are named pieces of working memory that stay relevant in every conversation, such as "persona" (who you are and how you behave), "human" (who the user is) or "objectives" (what you are working towards). They are read whole by exact name, not searched.

Returns the block's full text. A block that does not exist is not an error: the result says so, and append_memory_block creates it. To find facts and memories by meaning use recall_memories.`,
	}, schema, func(ctx context.Context, svc hippo.MemoryService, in RecallMemoryBlockInput) (*Result, error) {
		b, err := svc.Block(ctx, in.Key)
		if err != nil {
			return nil, err
		}
		d := newBlockDetails(in.Key, b)
		switch {
		case b == nil:
			return &Result{Text: fmt.Sprintf("Block %q does not exist.", in.Key), Details: d}, nil
		case b.Value == "":
			return &Result{Text: fmt.Sprintf("Block %q is empty.", in.Key), Details: d}, nil
		}
		return &Result{Text: b.Value, Details: d}, nil
	})
}
