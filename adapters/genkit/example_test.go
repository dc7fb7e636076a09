package genkit_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"
	"github.com/firebase/genkit/go/plugins/ollama"
	hippogenkit "github.com/hippo-mem/hippo/adapters/genkit"
	"github.com/hippo-mem/hippo/local"
	"github.com/hippo-mem/hippo/sqlite"
	"github.com/hippo-mem/hippo/tools"
)

// A whole tool-call loop run by Genkit: the model asks for
// append_memory_block, Genkit runs Hippo's tool, and the model answers
// with the tool's output in view. The model is a fake Ollama server.
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
	set := tools.New(mem, tools.Options{Config: db.Config()})

	server := httptest.NewServer(http.HandlerFunc(fakeOllama))
	defer server.Close()
	o := &ollama.Ollama{ServerAddress: server.URL}
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
	block, err := mem.Block(ctx, "human")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("block human:", block.Value)
	// Output:
	// model: Saved (Created block "human" with the text (24 characters).)
	// block human: Prefers tea over coffee.
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
