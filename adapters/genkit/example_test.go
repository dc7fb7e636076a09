package genkit_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"
	"github.com/firebase/genkit/go/plugins/ollama"
	hippogenkit "github.com/hippo-mem/hippo/adapters/genkit"
	"github.com/hippo-mem/hippo/internal/adaptertest"
)

// A whole tool-call loop run by Genkit: the model asks for
// append_memory_block, Genkit runs Hippo's tool, and the model answers
// with the tool's output in view. The model is a fake Ollama server.
func Example() {
	ctx := context.Background()
	set, modelURL, closeAll := adaptertest.Open("my-agent", fakeOllama)
	defer closeAll()
	o := &ollama.Ollama{ServerAddress: modelURL}
	g := genkit.Init(ctx, genkit.WithPlugins(o))
	model := o.DefineModel(g, ollama.ModelDefinition{Name: "llama3.1", Type: "chat"}, nil)

	resp, err := genkit.Generate(ctx, g,
		ai.WithModel(model),
		ai.WithPrompt("Remember that I prefer tea over coffee."),
		ai.WithTools(hippogenkit.Tools(set)...),
	)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("model:", resp.Text())
	// Output:
	// model: Saved (Created block "human" with the text (24 characters).)
}

// fakeOllama is Ollama's /api/chat: it calls append_memory_block when
// offered it and no tool has answered yet, then quotes the tool's answer.
func fakeOllama(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
		Tools []struct {
			Function struct{ Name string } `json:"function"`
		} `json:"tools"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || r.URL.Path != "/api/chat" {
		http.Error(w, fmt.Sprint("bad request: ", err), http.StatusBadRequest)
		return
	}
	message := map[string]any{"role": "assistant"}
	last := req.Messages[len(req.Messages)-1]
	switch {
	case last.Role == "tool":
		var output string // the tool's output, as JSON
		json.Unmarshal([]byte(last.Content), &output)
		message["content"] = "Saved (" + output + ")"
	case len(req.Tools) > 0:
		message["tool_calls"] = []any{map[string]any{"function": map[string]any{
			"name":      "append_memory_block",
			"arguments": map[string]string{"key": "human", "text": "Prefers tea over coffee."},
		}}}
	default:
		message["content"] = "No tools offered."
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"model": "llama3.1", "created_at": "2026-01-01T00:00:00Z", "message": message, "done": true})
}
