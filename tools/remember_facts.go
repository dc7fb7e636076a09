package tools

import (
	"context"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hippo-mem/hippo"
)

// RememberFactsInput is the input of remember_facts.
type RememberFactsInput struct {
	Text string `json:"text" jsonschema:"What the user said or what was established, in the original words. Hippo extracts the facts itself."`
}

func rememberFacts(r resolver, cfg hippo.Config) Tool {
	schema := inputSchema[RememberFactsInput](func(p map[string]*jsonschema.Schema) {
		textSchema(p["text"], cfg.MaxFactText)
	})
	return newTool(r, Tool{
		Name:         "remember_facts",
		OutputSchema: outputSchema[hippo.RememberResult](),
		Description: fmt.Sprintf(`Learn facts from a piece of text. Hippo extracts each discrete claim ("User lives in Berlin", "User strongly dislikes Redux") with how strongly it was stated, then checks it against the facts already known: a restatement strengthens the existing fact, a changed value ("User moved to Bangkok") supersedes the old fact, anything else is added as new.

Use it whenever the user reveals something that should still be known in later conversations: preferences, personal details, plans, decisions, corrections. Pass the relevant message or passage as it is; do not pre-summarise. For content to keep verbatim (documents, notes, experiences, decisions with their reasons) use store_memory; for always-relevant working notes use append_memory_block.

Returns a summary of what was learned (new, updated, superseding, distinct facts). When nothing was learned, "reason" says why (a question, only filler, no statement of a fact): keep such text with store_memory if it matters. text: at most %d characters.`, cfg.MaxFactText),
	}, schema, func(ctx context.Context, svc hippo.MemoryService, in RememberFactsInput) (*Result, error) {
		res, err := svc.RememberFacts(ctx, in.Text)
		if err != nil {
			return nil, err
		}
		if res.Facts == nil {
			res.Facts = []hippo.FactOutcome{}
		}
		return &Result{Text: res.Summary, Details: res}, nil
	})
}
