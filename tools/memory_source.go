package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hippo-mem/hippo"
)

// MemorySourceInput is the input of memory_source.
type MemorySourceInput struct {
	ID string `json:"id" jsonschema:"The ID of a fact or memory, as recall_memories or fact_history gives it."`
}

// sourceDetails is the Details of memory_source.
type sourceDetails struct {
	Source *hippo.SourceInfo `json:"source"`
}

func memorySource(r resolver, cfg hippo.Config) Tool {
	schema := inputSchema[MemorySourceInput](func(p map[string]*jsonschema.Schema) {
		textSchema(p["id"], hippo.MaxIDLength)
	})
	return newTool(r, Tool{
		Name:         "memory_source",
		OutputSchema: outputSchema[sourceDetails](),
		ReadOnly:     true,
		Description: `Show where a stored fact or memory came from: the tool that stored it (remember_facts, store_memory, an import) and who called it, when, the source given with it (a message ID, a URL, a file), and for a fact the text it was extracted from. Also says whether it is marked suspicious (it reads as instructions to the assistant) and why.

Use it to check why you believe something before relying on it, or to cite where it came from. Give the id from recall_memories or fact_history.`,
	}, schema, func(ctx context.Context, svc hippo.MemoryService, in MemorySourceInput) (*Result, error) {
		info, err := svc.MemorySource(ctx, in.ID)
		if err != nil {
			return nil, err
		}
		return &Result{Text: sourceText(info), Details: sourceDetails{Source: info}}, nil
	})
}

// sourceText is memory_source's answer in words.
func sourceText(info *hippo.SourceInfo) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[%s] %s (id %s)\n", info.Kind, info.Content, info.ID)
	fmt.Fprintf(&b, "Written %s", info.WrittenAt.UTC().Format("2006-01-02 15:04:05 UTC"))
	if p := info.Provenance; p != nil {
		fmt.Fprintf(&b, " by %s", describeProvenance(p))
	} else {
		b.WriteString(" (stored before Hippo kept provenance: its origin is unknown)")
	}
	b.WriteString(".")
	if !info.Current {
		b.WriteString(" It has been superseded.")
	}
	if info.Suspicious {
		fmt.Fprintf(&b, "\nMarked suspicious: %s.", info.SuspiciousReason)
	}
	if info.Input != "" {
		fmt.Fprintf(&b, "\nExtracted from: %s", info.Input)
	}
	return b.String()
}

// describeProvenance says where a chunk came from in a few words:
// "remember_facts (mcp), source msg-42".
func describeProvenance(p *hippo.Provenance) string {
	s := p.Origin
	if p.Caller != "" {
		s += " (" + p.Caller + ")"
	}
	if p.Source != "" {
		s += ", source " + p.Source
	}
	if st := p.Stated(); st != "" {
		s += ", " + st
	}
	return s
}
