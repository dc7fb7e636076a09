package anthropic_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	hippoanthropic "github.com/hippo-mem/hippo/adapters/anthropic"
	"github.com/hippo-mem/hippo/internal/adaptertest"
)

// A whole tool-use loop: the model uses append_memory_block, Hippo runs
// it, and the model answers with the tool's result in view. The model is
// a fake Messages API endpoint.
func Example() {
	ctx := context.Background()
	set, modelURL, closeAll := adaptertest.Open("my-agent", fakeMessages)
	defer closeAll()
	client := anthropic.NewClient(option.WithBaseURL(modelURL), option.WithAPIKey("sk-ant-fake"))

	messages := []anthropic.MessageParam{
		anthropic.NewUserMessage(anthropic.NewTextBlock("Remember that I prefer tea over coffee.")),
	}
	for {
		reply, err := client.Messages.New(ctx, anthropic.MessageNewParams{
			Model: "claude-sonnet-4-5", MaxTokens: 1024,
			Tools: hippoanthropic.Tools(set), Messages: messages,
		})
		if err != nil {
			log.Fatal(err)
		}
		messages = append(messages, reply.ToParam())
		results, err := hippoanthropic.Call(ctx, set, reply.Content)
		if err != nil {
			log.Fatal(err)
		}
		if len(results) == 0 {
			fmt.Println("assistant:", reply.Content[0].Text)
			break
		}
		messages = append(messages, anthropic.NewUserMessage(results...))
	}
	// Output:
	// assistant: Saved (Created block "human" with the text (24 characters).)
}

// fakeMessages is a Messages API endpoint: it uses append_memory_block
// when offered it and the last user message holds no tool result, and
// quotes the tool result otherwise.
func fakeMessages(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Tools    []struct{ Name string } `json:"tools"`
		Messages []struct {
			Content []struct {
				Type    string `json:"type"`
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
				IsError bool `json:"is_error"`
			} `json:"content"`
		} `json:"messages"`
	}
	if r.URL.Path != "/v1/messages" {
		http.NotFound(w, r)
		return
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var block map[string]any
	for _, c := range req.Messages[len(req.Messages)-1].Content {
		if c.Type == "tool_result" && len(c.Content) > 0 {
			block = map[string]any{"type": "text", "text": fmt.Sprintf("Saved (%s)", c.Content[0].Text)}
		}
	}
	stop := "end_turn"
	if block == nil {
		for _, t := range req.Tools {
			if t.Name == "append_memory_block" {
				block = map[string]any{"type": "tool_use", "id": "toolu_1", "name": t.Name,
					"input": map[string]string{"key": "human", "text": "Prefers tea over coffee."}}
				stop = "tool_use"
			}
		}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
		"content": []any{block}, "stop_reason": stop,
		"usage": map[string]int{"input_tokens": 10, "output_tokens": 10},
	})
}
