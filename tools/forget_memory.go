package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hippo-mem/hippo"
)

// ForgetMemoryInput is the input of forget_memory.
type ForgetMemoryInput struct {
	Description string   `json:"description" jsonschema:"What to forget, described specifically: 'the user's home address', not 'the user'."`
	Threshold   *float64 `json:"threshold,omitempty" jsonschema:"Minimum similarity to the description for an item to be deleted. Higher deletes less."`
}

// forgetDetails is the Details of forget_memory.
type forgetDetails struct {
	Description string            `json:"description"`
	Threshold   float64           `json:"threshold"`
	Deleted     []hippo.Forgotten `json:"deleted"`
	// Resurrected are the IDs of facts that a deleted fact had superseded
	// and that are current again.
	Resurrected []string `json:"resurrected"`
}

func forgetMemory(r resolver, cfg hippo.Config) Tool {
	schema := inputSchema[ForgetMemoryInput](func(p map[string]*jsonschema.Schema) {
		textSchema(p["description"], cfg.MaxContent)
		th := p["threshold"]
		th.ExclusiveMinimum = jsonschema.Ptr(0.0)
		th.Maximum = jsonschema.Ptr(1.0)
		th.Default = []byte(fmt.Sprint(cfg.ForgetThreshold))
	})
	return newTool(r, Tool{
		Name:         "forget_memory",
		OutputSchema: outputSchema[forgetDetails](),
		Destructive:  true,
		Description: fmt.Sprintf(`Permanently delete every stored fact and memory that matches a description by meaning. Use it when the user asks you to forget something, or when something stored is wrong and should not come back. It cannot be undone and leaves no record. If a deleted fact had replaced an older one, the older fact becomes current again.

Every fact and memory whose similarity to the description is at least threshold (greater than 0, at most 1, default %.2g) is deleted; raise the threshold to delete less. Be specific. To correct a fact, remember_facts with the new information is usually enough: it supersedes the old one. Memory blocks are not affected; edit them with replace_memory_block.

Returns the deleted items, or says that nothing matched.`, cfg.ForgetThreshold),
	}, schema, func(ctx context.Context, svc hippo.MemoryService, in ForgetMemoryInput) (*Result, error) {
		threshold := cfg.ForgetThreshold
		if in.Threshold != nil {
			// 0 would delete everything at all similar: refused as
			// surely a mistake (the TypeScript Hippo takes it).
			if *in.Threshold == 0 {
				return nil, hippo.Invalidf("threshold", "must be in (0, 1], got 0")
			}
			threshold = *in.Threshold
		}
		res, err := svc.Forget(ctx, hippo.ForgetInput{Description: in.Description, Threshold: threshold})
		if err != nil {
			return nil, err
		}
		d := forgetDetails{Description: in.Description, Threshold: threshold,
			Deleted: res.Deleted, Resurrected: res.Resurrected}
		if d.Deleted == nil {
			d.Deleted = []hippo.Forgotten{}
		}
		if d.Resurrected == nil {
			d.Resurrected = []string{}
		}
		return &Result{Text: forgetText(d), Details: d}, nil
	})
}

func forgetText(d forgetDetails) string {
	if len(d.Deleted) == 0 {
		return fmt.Sprintf("Nothing matched %q at similarity %.2f or more; nothing was deleted.", d.Description, d.Threshold)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Forgot %s:", plural(len(d.Deleted), "item", "items"))
	for i, f := range d.Deleted {
		fmt.Fprintf(&b, "\n%d. [%s] %s (similarity %.2f, id %s)", i+1, f.Kind, f.Content, f.Similarity, f.ID)
	}
	switch n := len(d.Resurrected); {
	case n == 1:
		b.WriteString("\n1 older fact that a deleted one had replaced is current again.")
	case n > 1:
		fmt.Fprintf(&b, "\n%d older facts that deleted ones had replaced are current again.", n)
	}
	return b.String()
}
