package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hippo-mem/hippo"
)

// FactHistoryInput is the input of fact_history.
type FactHistoryInput struct {
	Query string `json:"query,omitempty" jsonschema:"The fact to trace, in words: 'where the user lives'. Give this or id."`
	ID    string `json:"id,omitempty" jsonschema:"The ID of a fact, current or superseded. Give this or query."`
}

// historyDetails is the Details of fact_history.
type historyDetails struct {
	// History is the chain of values, oldest first; empty when nothing
	// matched.
	History []hippo.HistoryEntry `json:"history"`
}

func factHistory(r resolver, cfg hippo.Config) Tool {
	schema := inputSchema[FactHistoryInput](func(p map[string]*jsonschema.Schema) {
		p["query"].MaxLength = jsonschema.Ptr(cfg.MaxFactText)
		p["id"].MaxLength = jsonschema.Ptr(hippo.MaxIDLength)
	})
	return newTool(r, Tool{
		Name:         "fact_history",
		OutputSchema: outputSchema[historyDetails](),
		ReadOnly:     true,
		Description: `Show how a fact changed over time: each value it had, from when until when. When a new fact replaced an old one ("User lives in Bangkok" after "User lives in Berlin"), the old one is kept as history with the time it stopped being true.

Give query (the fact in words; the closest fact, current or past, is traced, if any is relevant to it) or id. Returns the chain oldest first, the last entry marked current unless it was forgotten, each with where it came from (the tool that stored it and the source given); memory_source shows the text a fact was extracted from. To ask what was true at some moment, use recall_memories with as_of.`,
	}, schema, func(ctx context.Context, svc hippo.MemoryService, in FactHistoryInput) (*Result, error) {
		h, err := svc.FactHistory(ctx, in.Query, in.ID)
		if err != nil {
			return nil, err
		}
		if len(h) == 0 {
			what := "No fact matches that ID."
			if in.ID == "" {
				what = fmt.Sprintf("No fact is relevant to %q: nothing stored is about it, so there is no current answer.", in.Query)
			}
			return &Result{Text: what, Details: historyDetails{History: h}}, nil
		}
		var b strings.Builder
		for i, e := range h {
			until := "now"
			if e.ValidUntil != nil {
				until = e.ValidUntil.UTC().Format("2006-01-02 15:04")
			} else if !e.Current {
				until = "?"
			}
			fmt.Fprintf(&b, "%d. %s (%s → %s, id %s", i+1, e.Content, e.ValidFrom.UTC().Format("2006-01-02 15:04"), until, e.ID)
			if p := e.Provenance; p != nil {
				fmt.Fprintf(&b, ", from %s", describeProvenance(p))
			}
			b.WriteString(")")
			if e.Suspicious {
				fmt.Fprintf(&b, " [SUSPICIOUS: %s]", e.SuspiciousReason)
			}
			b.WriteString("\n")
		}
		return &Result{Text: strings.TrimRight(b.String(), "\n"), Details: historyDetails{History: h}}, nil
	})
}
