package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/hippo-mem/hippo"
)

// ListMemoryBlocksInput is the input of list_memory_blocks: none.
type ListMemoryBlocksInput struct{}

// DeleteMemoryBlockInput is the input of delete_memory_block.
type DeleteMemoryBlockInput struct {
	Key string `json:"key" jsonschema:"The name of the block to delete."`
}

// listDetails is the Details of list_memory_blocks.
type listDetails struct {
	Blocks []hippo.BlockInfo `json:"blocks"`
}

// deleteDetails is the Details of delete_memory_block.
type deleteDetails struct {
	Key     string `json:"key"`
	Deleted bool   `json:"deleted"`
}

func listMemoryBlocks(r resolver, _ hippo.Config) Tool {
	schema := inputSchema[ListMemoryBlocksInput](nil)
	return newTool(r, Tool{
		Name:         "list_memory_blocks",
		OutputSchema: outputSchema[listDetails](),
		ReadOnly:     true,
		Description:  `List your memory blocks: the name of each, its size in characters and when it was last changed. Blocks are named pieces of working memory that stay relevant in every conversation ("persona", "human", "objectives"). Read one with recall_memory_block, or all of them within a budget with get_context; change them with append_memory_block and replace_memory_block.`,
	}, schema, func(ctx context.Context, svc hippo.MemoryService, _ ListMemoryBlocksInput) (*Result, error) {
		blocks, err := svc.Blocks(ctx)
		if err != nil {
			return nil, err
		}
		if len(blocks) == 0 {
			return &Result{Text: "No memory blocks.", Details: listDetails{Blocks: blocks}}, nil
		}
		var b strings.Builder
		for _, blk := range blocks {
			fmt.Fprintf(&b, "%s (%d characters, updated %s)", blk.Key, blk.Chars, timeString(blk.UpdatedAt))
			if blk.Description != "" {
				fmt.Fprintf(&b, ": %s", blk.Description)
			}
			b.WriteByte('\n')
		}
		return &Result{Text: strings.TrimRight(b.String(), "\n"), Details: listDetails{Blocks: blocks}}, nil
	})
}

func deleteMemoryBlock(r resolver, _ hippo.Config) Tool {
	schema := inputSchema[DeleteMemoryBlockInput](nil)
	keySchema(schema.Properties["key"])
	return newTool(r, Tool{
		Name:         "delete_memory_block",
		OutputSchema: outputSchema[deleteDetails](),
		Destructive:  true,
		Description:  `Delete a memory block entirely, with its whole text, when it no longer serves any purpose (an objective reached, a persona retired). It cannot be undone. To change part of a block use replace_memory_block; to add to it, append_memory_block. Deleting a block that does not exist is an error, and facts and memories are never touched.`,
	}, schema, func(ctx context.Context, svc hippo.MemoryService, in DeleteMemoryBlockInput) (*Result, error) {
		if err := svc.DeleteBlock(ctx, in.Key); err != nil {
			return nil, err
		}
		return &Result{Text: fmt.Sprintf("Deleted block %q.", in.Key), Details: deleteDetails{Key: in.Key, Deleted: true}}, nil
	})
}
