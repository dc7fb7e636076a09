package langchaingo_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"strings"

	hippolangchain "github.com/hippo-mem/hippo/adapters/langchaingo"
	"github.com/hippo-mem/hippo/internal/adaptertest"
	"github.com/tmc/langchaingo/agents"
	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/llms/openai"
)

// A whole agent loop: a LangChainGo one-shot agent with Hippo's tools
// decides to use append_memory_block, the executor runs it, and the agent
// answers with the tool's result in view. The model is a fake
// OpenAI-compatible endpoint that writes ReAct-style text.
func Example() {
	ctx := context.Background()
	set, modelURL, closeAll := adaptertest.Open("my-agent", fakeReAct)
	defer closeAll()
	llm, err := openai.New(openai.WithBaseURL(modelURL), openai.WithToken("sk-fake"), openai.WithModel("gpt-4.1-mini"))
	if err != nil {
		log.Fatal(err)
	}

	agent := agents.NewOneShotAgent(llm, hippolangchain.Tools(set))
	answer, err := chains.Run(ctx, agents.NewExecutor(agent), "Remember that I prefer tea over coffee.")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("agent:", answer)
	// Output:
	// agent: Saved (Created block "human" with the text (24 characters).)
}

// fakeReAct answers a ReAct prompt: an action with append_memory_block
// while the prompt holds no observation, then a final answer quoting the
// observation.
func fakeReAct(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Messages []struct {
			Content string `json:"content"`
		} `json:"messages"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) == 0 {
		http.Error(w, fmt.Sprint("bad request: ", err), http.StatusBadRequest)
		return
	}
	prompt := req.Messages[len(req.Messages)-1].Content
	const action = "Thought: the user states a lasting preference.\nAction: append_memory_block\n" +
		`Action Input: {"key": "human", "text": "Prefers tea over coffee."}`
	text := action
	// The agent's scratchpad: the action taken, then what it returned.
	if _, after, ok := strings.Cut(prompt, action+"\nObservation: "); ok {
		observation, _, _ := strings.Cut(after, "\n")
		text = fmt.Sprintf("Thought: done.\nFinal Answer: Saved (%s)", observation)
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-react", "object": "chat.completion", "model": "gpt-4.1-mini",
		"choices": []map[string]any{{"index": 0, "finish_reason": "stop",
			"message": map[string]string{"role": "assistant", "content": text}}},
	})
}
