// Package langchaingo turns Hippo's agent tools into tools of LangChainGo
// (github.com/tmc/langchaingo), both ways it has of using tools:
//
//   - Tools returns tools.Tool values for its agents (agents.NewExecutor
//     with a one-shot or conversational agent), which pass a tool its input
//     as text: here, a JSON object of the tool's arguments, as each
//     tool's description says.
//   - Definitions returns llms.Tool values for native tool calling
//     (llms.WithTools), and Call answers the ToolCalls of a response with a
//     tool message.
//
// It is a module of its own, so that Hippo's core module does not depend
// on LangChainGo.
package langchaingo

import (
	"context"
	"encoding/json"
	"fmt"

	hippotools "github.com/hippo-mem/hippo/tools"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// Tool is one of Hippo's tools as a LangChainGo tools.Tool.
type Tool struct {
	tool hippotools.Tool
}

var _ tools.Tool = Tool{}

// Tools returns set as tools.Tool values for LangChainGo's agents.
func Tools(set hippotools.Set) []tools.Tool {
	out := make([]tools.Tool, len(set))
	for i, t := range set {
		out[i] = Tool{tool: t}
	}
	return out
}

// Name is the tool's name, such as "recall_memories".
func (t Tool) Name() string { return t.tool.Name }

// Description is the tool's description followed by the JSON Schema its
// input must match: agents put it in their prompt, and the model writes
// the input from it.
func (t Tool) Description() string {
	schema, err := json.Marshal(t.tool.InputSchema)
	if err != nil {
		return t.tool.Description
	}
	return t.tool.Description + "\nInput: a JSON object matching this JSON Schema: " + string(schema)
}

// Call runs the tool on input, a JSON object of its arguments. A failure
// the model can fix (bad input, a block not found) is returned as text
// starting with "Error: ", for the agent to show the model; an error means
// that Hippo itself failed.
func (t Tool) Call(ctx context.Context, input string) (string, error) {
	res, err := t.tool.Handler(ctx, json.RawMessage(input))
	if err != nil {
		return "", err
	}
	return modelText(res), nil
}

// Definitions returns set as function definitions for native tool
// calling, to pass with llms.WithTools.
func Definitions(set hippotools.Set) []llms.Tool {
	out := make([]llms.Tool, len(set))
	for i, t := range set {
		out[i] = llms.Tool{Type: "function", Function: &llms.FunctionDefinition{
			Name: t.Name, Description: t.Description, Parameters: t.Parameters(),
		}}
	}
	return out
}

// Call runs calls, the ToolCalls of a response's choice, in order, and
// returns the tool message answering them, to append to the conversation
// after the model's message. Failures the model can fix are answered as
// text starting with "Error: "; an error means that Hippo itself failed.
func Call(ctx context.Context, set hippotools.Set, calls []llms.ToolCall) (llms.MessageContent, error) {
	msg := llms.MessageContent{Role: llms.ChatMessageTypeTool}
	for _, c := range calls {
		if c.FunctionCall == nil {
			msg.Parts = append(msg.Parts, llms.ToolCallResponse{ToolCallID: c.ID,
				Content: fmt.Sprintf("Error: tool call %s names no function; Hippo's tools are functions", c.ID)})
			continue
		}
		res, err := set.Call(ctx, c.FunctionCall.Name, json.RawMessage(c.FunctionCall.Arguments))
		if err != nil {
			return llms.MessageContent{}, fmt.Errorf("hippo tool %s (call %s): %w", c.FunctionCall.Name, c.ID, err)
		}
		msg.Parts = append(msg.Parts, llms.ToolCallResponse{ToolCallID: c.ID, Name: c.FunctionCall.Name, Content: modelText(res)})
	}
	return msg, nil
}

// modelText is a result as text for a model that sees no error flag.
func modelText(res *hippotools.Result) string {
	if res.IsError {
		return "Error: " + res.Text
	}
	return res.Text
}
