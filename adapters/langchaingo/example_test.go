package langchaingo_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"

	hippolangchain "github.com/hippo-mem/hippo/adapters/langchaingo"
	"github.com/hippo-mem/hippo/local"
	"github.com/hippo-mem/hippo/sqlite"
	hippotools "github.com/hippo-mem/hippo/tools"
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
	dir, err := os.MkdirTemp("", "hippo-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	db, err := sqlite.Open(ctx, filepath.Join(dir, "hippo.db"), sqlite.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	mem, err := db.Memory(sqlite.MemoryOptions{AgentID: "my-agent", Embedder: local.NewEmbedder()})
	if err != nil {
		log.Fatal(err)
	}
	set := hippotools.New(mem, hippotools.Options{Config: db.Config()})

	model := httptest.NewServer(http.HandlerFunc(fakeReAct))
	defer model.Close()
	llm, err := openai.New(openai.WithBaseURL(model.URL), openai.WithToken("sk-fake"), openai.WithModel("gpt-4.1-mini"))
	if err != nil {
		log.Fatal(err)
	}

	agent := agents.NewOneShotAgent(llm, hippolangchain.Tools(set))
	answer, err := chains.Run(ctx, agents.NewExecutor(agent), "Remember that I prefer tea over coffee.")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("agent:", answer)
	block, err := mem.Block(ctx, "human")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("block human:", block.Value)
	// Output:
	// agent: Saved (Created block "human" with the text (24 characters).)
	// block human: Prefers tea over coffee.
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
