package tools

import (
	"context"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hippo-mem/hippo"
)

// RememberFactsInput is the input of remember_facts.
type RememberFactsInput struct {
	Text   string `json:"text" jsonschema:"What the user said or what was established, in the original words. Hippo extracts the facts itself."`
	Source string `json:"source,omitempty" jsonschema:"Optional: where the text came from (a message ID, a URL, a file), kept as each fact's provenance and shown by memory_source and fact_history."`
}

func rememberFacts(r resolver, cfg hippo.Config) Tool {
	schema := inputSchema[RememberFactsInput](func(p map[string]*jsonschema.Schema) {
		textSchema(p["text"], cfg.MaxFactText)
		p["source"].MaxLength = jsonschema.Ptr(hippo.MaxSourceLength)
	})
	return newTool(r, Tool{
		Name:         "remember_facts",
		OutputSchema: outputSchema[hippo.RememberResult](),
		Description: fmt.Sprintf(`Learn facts from a piece of text. Hippo extracts each discrete claim ("User lives in Berlin", "User strongly dislikes Redux") with how strongly it was stated, then checks it against the facts already known: a restatement strengthens the existing fact, a changed value ("User moved to Bangkok") supersedes the old fact, anything else is added as new.

Use it whenever the user reveals something that should still be known in later conversations: preferences, personal details, plans, decisions, corrections. Pass the relevant message or passage as it is; do not pre-summarise. For content to keep verbatim (documents, notes, experiences, decisions with their reasons) use store_memory; for always-relevant working notes use append_memory_block.

Optional source says where the text came from (a message ID, a URL, a file); each fact keeps it, with the text itself, for memory_source. A fact that reads as an instruction to the assistant is kept but marked suspicious and left out of get_context and recall_memories until a person reviews it.

Returns a summary of what was learned (new, updated, superseding, distinct facts). When nothing was learned, "reason" says why (a question, only filler, no statement of a fact): keep such text with store_memory if it matters. text: at most %d characters.`, cfg.MaxFactText),
	}, schema, func(ctx context.Context, svc hippo.MemoryService, in RememberFactsInput) (*Result, error) {
		res, err := svc.Remember(ctx, hippo.RememberInput{Text: in.Text, Source: in.Source})
		if err != nil {
			return nil, err
		}
		if res.Facts == nil {
			res.Facts = []hippo.FactOutcome{}
		}
		text := res.Summary
		for _, f := range res.Facts {
			if f.Suspicious {
				text += fmt.Sprintf("\nMarked suspicious (%s), kept but left out of get_context and recall until a person reviews it: %s (id %s)", f.SuspiciousReason, f.Content, f.ChunkID)
			}
		}
		return &Result{Text: text, Details: res}, nil
	})
}
