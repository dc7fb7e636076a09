package tools

import (
	"context"
	"fmt"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hippo-mem/hippo"
)

// AppendMemoryBlockInput is the input of append_memory_block.
type AppendMemoryBlockInput struct {
	Key  string `json:"key" jsonschema:"The block's name, such as 'persona', 'human' or 'objectives'."`
	Text string `json:"text" jsonschema:"The text to add; it goes on a new line at the end of the block."`
	// Description, if given, replaces what the block is said to be for.
	Description *string `json:"description,omitempty" jsonschema:"Optional: what the block is for, shown when blocks are listed."`
}

// appendDetails is the Details of append_memory_block.
type appendDetails struct {
	blockDetails
	// Created is true when the block did not exist before.
	Created bool `json:"created"`
}

func appendMemoryBlock(r resolver, cfg hippo.Config) Tool {
	schema := inputSchema[AppendMemoryBlockInput](func(p map[string]*jsonschema.Schema) {
		keySchema(p["key"])
		textSchema(p["text"], cfg.MaxBlockValue)
		p["description"].MaxLength = jsonschema.Ptr(hippo.MaxDescription)
	})
	return newTool(r, Tool{
		Name: "append_memory_block",
		// The TypeScript Hippo's name for the text.
		Aliases:      map[string]string{"content": "text"},
		OutputSchema: outputSchema[appendDetails](),
		Description: fmt.Sprintf(`Add text at the end of a memory block, on a new line, creating the block if it does not exist. Blocks are named working memory that stays relevant in every conversation, such as "persona" (who you are), "human" (who the user is) or "objectives" (what you are working towards); keep them short and current.

Use replace_memory_block to change or remove text already in a block. Things that matter only when they come up belong in remember_facts (claims about the user) or store_memory (content to keep verbatim), which are searched with recall_memories.

An optional description says what the block is for; it shows when blocks are listed. Returns whether the block was created and its new length. A block holds at most %d characters.`, cfg.MaxBlockValue),
	}, schema, func(ctx context.Context, svc hippo.MemoryService, in AppendMemoryBlockInput) (*Result, error) {
		// Only to report whether the block is new: a concurrent writer can
		// make this stale, never wrong about the block's content.
		before, err := svc.Block(ctx, in.Key)
		if err != nil {
			return nil, err
		}
		if in.Description != nil {
			if err := hippo.ValidateDescription(*in.Description); err != nil {
				return nil, err
			}
		}
		b, err := svc.AppendBlock(ctx, in.Key, in.Text)
		if err != nil {
			return nil, err
		}
		if in.Description != nil {
			if b, err = svc.DescribeBlock(ctx, in.Key, *in.Description); err != nil {
				return nil, err
			}
		}
		size := plural(utf8.RuneCountInString(b.Value), "character", "characters")
		text := fmt.Sprintf("Appended to block %q; it now holds %s.", in.Key, size)
		if before == nil {
			text = fmt.Sprintf("Created block %q with the text (%s).", in.Key, size)
		}
		return &Result{Text: text, Details: appendDetails{blockDetails: newBlockDetails(in.Key, b), Created: before == nil}}, nil
	})
}
