package tools

import (
	"context"
	"fmt"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hippo-mem/hippo"
)

// ReplaceMemoryBlockInput is the input of replace_memory_block.
type ReplaceMemoryBlockInput struct {
	Key     string `json:"key" jsonschema:"The block's name, such as 'persona', 'human' or 'objectives'."`
	OldText string `json:"old_text" jsonschema:"The exact text to replace, as it appears in the block (case and whitespace matter)."`
	NewText string `json:"new_text" jsonschema:"The text to put in its place; an empty string deletes old_text."`
}

// replaceDetails is the Details of replace_memory_block.
type replaceDetails struct {
	blockDetails
	Replacements int `json:"replacements"`
}

func replaceMemoryBlock(r resolver, cfg hippo.Config) Tool {
	schema := inputSchema[ReplaceMemoryBlockInput](func(p map[string]*jsonschema.Schema) {
		keySchema(p["key"])
		textSchema(p["old_text"], cfg.MaxBlockValue)
		p["new_text"].MaxLength = jsonschema.Ptr(cfg.MaxBlockValue)
	})
	return newTool(r, Tool{
		Name:         "replace_memory_block",
		OutputSchema: outputSchema[replaceDetails](),
		Destructive:  true,
		Description: fmt.Sprintf(`Edit a memory block in place: every occurrence of old_text in the block becomes new_text; an empty new_text deletes it. Use it to keep working memory current, e.g. replace "Current goal: ship v1" with "Current goal: ship v2", or remove a line that no longer holds.

old_text must match the block's text exactly, including case and whitespace; read the block with recall_memory_block first if unsure. It fails, changing nothing, when the block does not exist or old_text does not occur in it. To add text use append_memory_block.

Returns how many occurrences were replaced. A block holds at most %d characters.`, cfg.MaxBlockValue),
	}, schema, func(ctx context.Context, svc hippo.MemoryService, in ReplaceMemoryBlockInput) (*Result, error) {
		b, n, err := svc.ReplaceBlock(ctx, in.Key, in.OldText, in.NewText)
		if err != nil {
			return nil, err
		}
		text := fmt.Sprintf("Replaced %s of %q with %q in block %q; it now holds %s.",
			plural(n, "occurrence", "occurrences"), in.OldText, in.NewText, in.Key,
			plural(utf8.RuneCountInString(b.Value), "character", "characters"))
		return &Result{Text: text, Details: replaceDetails{blockDetails: newBlockDetails(in.Key, b), Replacements: n}}, nil
	})
}
