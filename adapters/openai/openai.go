// Package openai turns Hippo's agent tools into function tools of the
// OpenAI Go SDK (github.com/openai/openai-go/v3) and runs the tool calls
// of a chat completion: Tools goes in ChatCompletionNewParams.Tools, and
// Call answers the ToolCalls of the model's reply with tool messages.
//
// It is a module of its own, so that Hippo's core module does not depend
// on the SDK.
package openai

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/hippo-mem/hippo/tools"
	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"
)

// Tools returns set as function tools: each tool's name, description and
// input schema.
func Tools(set tools.Set) []sdk.ChatCompletionToolUnionParam {
	out := make([]sdk.ChatCompletionToolUnionParam, len(set))
	for i, t := range set {
		out[i] = sdk.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
			Name:        t.Name,
			Description: sdk.String(t.Description),
			Parameters:  shared.FunctionParameters(t.Parameters()),
		})
	}
	return out
}

// Call runs calls, the ToolCalls of a model's reply, in order, and returns
// one tool message for each, to append to the conversation after the
// reply. A failure the model can fix (an unknown tool, bad arguments, a
// block not found) is reported to it in the tool message, as text that
// starts with "Error: "; a Go error means that Hippo itself failed, and
// no message is returned.
func Call(ctx context.Context, set tools.Set, calls []sdk.ChatCompletionMessageToolCallUnion) ([]sdk.ChatCompletionMessageParamUnion, error) {
	out := make([]sdk.ChatCompletionMessageParamUnion, 0, len(calls))
	for _, c := range calls {
		if c.Type != "" && c.Type != "function" {
			out = append(out, sdk.ToolMessage(fmt.Sprintf("Error: tool call %s is of type %q; Hippo's tools are functions", c.ID, c.Type), c.ID))
			continue
		}
		res, err := set.Call(ctx, c.Function.Name, json.RawMessage(c.Function.Arguments))
		if err != nil {
			return nil, fmt.Errorf("hippo tool %s (call %s): %w", c.Function.Name, c.ID, err)
		}
		text := res.Text
		if res.IsError {
			text = "Error: " + text
		}
		out = append(out, sdk.ToolMessage(text, c.ID))
	}
	return out, nil
}
