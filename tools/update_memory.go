package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hippo-mem/hippo"
)

// UpdateMemoryInput is the input of update_memory.
type UpdateMemoryInput struct {
	ID        string    `json:"id" jsonschema:"The ID of the fact or memory to change, as recall_memories returns it."`
	Content   *string   `json:"content,omitempty" jsonschema:"New content. Only give it to change the text."`
	Tags      *[]string `json:"tags,omitempty" jsonschema:"New tags, replacing the old ones; [] removes them."`
	Category  *string   `json:"category,omitempty" jsonschema:"New category; \"\" removes it."`
	Context   *[]string `json:"context,omitempty" jsonschema:"The situations it belongs to ('design discussion about hippo'), replacing the old ones; [] removes them."`
	Intensity *float64  `json:"intensity,omitempty" jsonschema:"New intensity (importance), 0 to 1."`
	Reinforce string    `json:"reinforce,omitempty" jsonschema:"The vote that comes with the edit: up (the default: an edit usually means the item is worth keeping), down or none."`
}

// updateDetails is the Details of update_memory.
type updateDetails struct {
	// Chunk is the fact or memory as the edit left it: for a fact whose
	// text changed, the new version.
	Chunk chunkDetails `json:"chunk"`
	// PreviousID is the ID given when it is no longer the chunk's: the
	// superseded version of a fact, or a chunk merged into another.
	PreviousID      string              `json:"previous_id,omitempty"`
	PreviousContent string              `json:"previous_content,omitempty"`
	Merged          bool                `json:"merged"`
	Changed         []string            `json:"changed"`
	Reinforce       hippo.Reinforcement `json:"reinforce"`
}

func updateMemory(r resolver, cfg hippo.Config) Tool {
	schema := inputSchema[UpdateMemoryInput](func(p map[string]*jsonschema.Schema) {
		textSchema(p["id"], hippo.MaxIDLength)
		textSchema(p["content"], cfg.MaxContent)
		p["intensity"].Minimum, p["intensity"].Maximum = jsonschema.Ptr(0.0), jsonschema.Ptr(1.0)
		p["reinforce"].Enum = []any{string(hippo.ReinforceUp), string(hippo.ReinforceDown), string(hippo.ReinforceNone)}
		p["reinforce"].Default = json.RawMessage(`"up"`)
		p["tags"].MaxItems = jsonschema.Ptr(100)
		p["context"].MaxItems = jsonschema.Ptr(100)
	})
	return newTool(r, Tool{
		Name:         "update_memory",
		OutputSchema: outputSchema[updateDetails](),
		Destructive:  true,
		Description: fmt.Sprintf(`Change a fact or memory you hold, by ID: correct its content, retag it (tags, category, context) or set its intensity. Give only what changes. The edit comes with a vote, up by default, as reinforce_memory gives; say reinforce "none" to change nothing else.

A fact's new text is a new version: the old one is kept as history (fact_history, recall_memories with as_of) and the new one has a new ID. A memory keeps its ID and records its previous text in its metadata's history. New content that another fact or memory already holds merges the two, as storing it again would. Since an edit keeps the old text, use forget_memory to erase something.

Returns the item as it is now and what changed. An unknown ID is not found; a superseded fact cannot be edited (edit its current version). content: at most %d characters.`, cfg.MaxContent),
	}, schema, func(ctx context.Context, svc hippo.MemoryService, in UpdateMemoryInput) (*Result, error) {
		res, err := svc.UpdateMemory(ctx, hippo.UpdateInput{ID: in.ID, Content: in.Content, Tags: in.Tags, Category: in.Category,
			Context: in.Context, Intensity: in.Intensity, Reinforce: hippo.Reinforcement(in.Reinforce)})
		if err != nil {
			return nil, err
		}
		c := res.Chunk
		var text string
		switch {
		case res.Merged:
			text = fmt.Sprintf("The new content was already known: merged %s into %s %s.", res.PreviousID, c.Kind, c.ID)
		case res.PreviousID != "":
			text = fmt.Sprintf("Updated the fact: the new version is %s; %s (%q) is kept as history.", c.ID, res.PreviousID, res.PreviousContent)
		default:
			text = fmt.Sprintf("Updated %s %s (%s).", c.Kind, c.ID, strings.Join(res.Changed, ", "))
		}
		if res.Reinforce != hippo.ReinforceNone {
			text += fmt.Sprintf(" Voted %s: intensity %.2f, seen %s.", res.Reinforce, c.RunningIntensity, plural(c.EncounterCount, "time", "times"))
		}
		return &Result{Text: text, Details: updateDetails{Chunk: newChunkDetails(c), PreviousID: res.PreviousID,
			PreviousContent: res.PreviousContent, Merged: res.Merged, Changed: res.Changed, Reinforce: res.Reinforce}}, nil
	})
}
