package openai_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"

	hippoopenai "github.com/hippo-mem/hippo/adapters/openai"
	"github.com/hippo-mem/hippo/internal/adaptertest"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// A whole tool-call loop: the model asks for append_memory_block, Hippo
// runs it, and the model answers with the tool's result in view. The
// model is a fake Chat Completions endpoint.
func Example() {
	ctx := context.Background()
	set, modelURL, closeAll := adaptertest.Open("my-agent", fakeChat)
	defer closeAll()
	client := openai.NewClient(option.WithBaseURL(modelURL), option.WithAPIKey("sk-fake"))

	params := openai.ChatCompletionNewParams{
		Model:    "gpt-4.1-mini",
		Tools:    hippoopenai.Tools(set),
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Remember that I prefer tea over coffee.")},
	}
	for {
		completion, err := client.Chat.Completions.New(ctx, params)
		if err != nil {
			log.Fatal(err)
		}
		reply := completion.Choices[0].Message
		params.Messages = append(params.Messages, reply.ToParam())
		if len(reply.ToolCalls) == 0 {
			fmt.Println("assistant:", reply.Content)
			break
		}
		results, err := hippoopenai.Call(ctx, set, reply.ToolCalls)
		if err != nil {
			log.Fatal(err)
		}
		params.Messages = append(params.Messages, results...)
	}
	// Output:
	// assistant: Saved (Created block "human" with the text (24 characters).)
}

// fakeChat is a Chat Completions endpoint that asks for
// append_memory_block when the conversation ends with the user's message,
// and quotes the tool's result once it ends with a tool message.
func fakeChat(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Messages []struct {
			Role    string `json:"role"`
			Content any    `json:"content"`
		} `json:"messages"`
		Tools []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || r.URL.Path != "/chat/completions" {
		http.Error(w, fmt.Sprintf("%s: %v", r.URL.Path, err), http.StatusBadRequest)
		return
	}
	offered := false
	for _, t := range req.Tools {
		offered = offered || t.Function.Name == "append_memory_block"
	}
	last := req.Messages[len(req.Messages)-1]
	message := map[string]any{"role": "assistant", "content": fmt.Sprintf("Saved (%v)", last.Content)}
	finish := "stop"
	if last.Role == "user" && offered {
		args, _ := json.Marshal(map[string]string{"key": "human", "text": "Prefers tea over coffee."})
		message = map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{
			"id": "call_1", "type": "function",
			"function": map[string]any{"name": "append_memory_block", "arguments": string(args)},
		}}}
		finish = "tool_calls"
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": "gpt-4.1-mini",
		"choices": []any{map[string]any{"index": 0, "message": message, "finish_reason": finish}},
	})
}
