// Package genkit turns Hippo's agent tools into Genkit tools
// (github.com/firebase/genkit/go): pass Tools(set) to genkit.Generate
// with ai.WithTools, and Genkit's own tool loop runs them when the model
// asks; or register them once with Define.
//
// It is a module of its own, so that Hippo's core module does not depend
// on Genkit.
package genkit

import (
	"encoding/json"
	"fmt"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"
	"github.com/hippo-mem/hippo/tools"
)

// Tools returns set as Genkit tools, unregistered: each with the tool's
// name, description and input schema, and a function that runs it.
func Tools(set tools.Set) []ai.ToolRef {
	out := make([]ai.ToolRef, len(set))
	for i, t := range set {
		out[i] = ai.NewTool(t.Name, t.Description, run(t), ai.WithInputSchema(t.Parameters()))
	}
	return out
}

// Define registers set's tools with g, under the tools' own names (so that
// ai.ToolName("recall_memories") refers to one, and Genkit's developer UI
// lists them), and returns them for ai.WithTools.
func Define(g *genkit.Genkit, set tools.Set) []ai.ToolRef {
	out := make([]ai.ToolRef, len(set))
	for i, t := range set {
		out[i] = genkit.DefineTool(g, t.Name, t.Description, run(t), ai.WithInputSchema(t.Parameters()))
	}
	return out
}

// run is the tool function of t. Its output, the text the model reads,
// starts with "Error: " for a failure the model can fix (bad input, a
// block not found); an error, which ends the generation, means that Hippo
// itself failed.
func run(t tools.Tool) ai.ToolFunc[any, string] {
	return func(ctx *ai.ToolContext, input any) (string, error) {
		raw, err := json.Marshal(input)
		if err != nil {
			return "", fmt.Errorf("hippo tool %s: input: %w", t.Name, err)
		}
		res, err := t.Handler(ctx, raw)
		if err != nil {
			return "", fmt.Errorf("hippo tool %s: %w", t.Name, err)
		}
		if res.IsError {
			return "Error: " + res.Text, nil
		}
		return res.Text, nil
	}
}
