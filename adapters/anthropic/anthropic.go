// Package anthropic turns Hippo's agent tools into tools of the Anthropic
// Go SDK (github.com/anthropics/anthropic-sdk-go) and answers the model's
// tool use: Tools goes in MessageNewParams.Tools, and Call turns the
// tool_use blocks of a reply into tool_result blocks for the next user
// message.
//
// It is a module of its own, so that Hippo's core module does not depend
// on the SDK.
package anthropic

import (
	"context"
	"fmt"
	"slices"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/hippo-mem/hippo/tools"
)

// Tools returns set as client tools: each tool's name, description and
// input schema.
func Tools(set tools.Set) []anthropic.ToolUnionParam {
	out := make([]anthropic.ToolUnionParam, len(set))
	for i, t := range set {
		schema := t.Parameters()
		in := anthropic.ToolInputSchemaParam{Properties: schema["properties"],
			Required: slices.Clone(t.InputSchema.Required), ExtraFields: map[string]any{}}
		// additionalProperties and anything else the schema says.
		for k, v := range schema {
			if k != "type" && k != "properties" && k != "required" {
				in.ExtraFields[k] = v
			}
		}
		out[i] = anthropic.ToolUnionParam{OfTool: &anthropic.ToolParam{
			Name:        t.Name,
			Description: anthropic.String(t.Description),
			InputSchema: in,
		}}
	}
	return out
}

// Call runs the tool_use blocks of content, a reply's content, in order,
// and returns a tool_result block for each; none when the reply uses no
// tool, which ends the loop. Send them back in one user message
// (anthropic.NewUserMessage(results...)). A failure the model can fix (an
// unknown tool, bad input, a block not found) is a result with is_error
// set; a Go error means that Hippo itself failed.
func Call(ctx context.Context, set tools.Set, content []anthropic.ContentBlockUnion) ([]anthropic.ContentBlockParamUnion, error) {
	var out []anthropic.ContentBlockParamUnion
	for _, b := range content {
		if b.Type != "tool_use" {
			continue
		}
		res, err := set.Call(ctx, b.Name, b.Input)
		if err != nil {
			return nil, fmt.Errorf("hippo tool %s (tool use %s): %w", b.Name, b.ID, err)
		}
		out = append(out, anthropic.NewToolResultBlock(b.ID, res.Text, res.IsError))
	}
	return out, nil
}
