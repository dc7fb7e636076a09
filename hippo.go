// Package hippo is persistent memory for AI agents: facts and memories with
// a strength that decays unless used, recalled semantically, forgotten on
// command, plus named memory blocks and past-conversation search.
//
// # Where to start
//
// Open a database with sqlite.Open and get an agent's memory with
// DB.Memory: a *sqlite.Memory has the methods an agent needs
// (RememberFacts, StoreMemory, Recall, Forget, the Block methods, Context).
// The sqlite package's Example is a complete program to copy. For an
// embedder, local/minilm.NewEmbedder is the offline default,
// local.NewEmbedder a faster and weaker offline one, and
// openai.NewEmbedder any OpenAI-compatible API; local.NewExtractor and
// local.NewClassifier learn facts offline, llm.NewExtractor with an
// openai.NewLLM does it with a model. To give the operations to a model as
// tools, use tools.New (or serve them over MCP with mcp.NewServer, which is
// what `hippo serve` runs).
//
// This root package holds the domain those packages share: types
// (Chunk, Block, RecallInput, ...), the strength and scoring math (Config,
// Fuse), the coded Error and the interfaces (Embedder, Extractor,
// Classifier, LLM, MemoryService) that the storage, provider and tool
// packages implement or consume. It imports nothing from the project.
package hippo

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"time"
)

// Kind distinguishes the two sorts of chunk sharing the chunks table.
type Kind string

const (
	// KindFact is an atomic claim that can conflict and be superseded.
	KindFact Kind = "fact"
	// KindMemory is raw content, deduplicated by hash, never superseded.
	KindMemory Kind = "memory"
)

// Valid reports whether k is one of the known kinds.
func (k Kind) Valid() bool { return k == KindFact || k == KindMemory }

// Chunk is one stored fact or memory.
type Chunk struct {
	ID               string          `json:"id"`
	AgentID          string          `json:"agent_id"`
	Scope            string          `json:"scope"`
	Kind             Kind            `json:"kind"`
	Content          string          `json:"content"`
	ContentHash      string          `json:"content_hash,omitempty"`
	Embedding        []float32       `json:"-"`
	Metadata         json.RawMessage `json:"metadata,omitempty"`
	RunningIntensity float64         `json:"running_intensity"`
	EncounterCount   int             `json:"encounter_count"`
	AccessCount      int             `json:"access_count"`
	LastAccessedAt   time.Time       `json:"last_accessed_at"`
	SupersededBy     string          `json:"superseded_by,omitempty"`
	SupersededAt     *time.Time      `json:"superseded_at,omitempty"`
	CreatedAt        time.Time       `json:"created_at"`
	// Suspicious says the content reads as instructions to the agent
	// rather than facts about the world (package trust), and
	// SuspiciousReason why: such a chunk is kept but left out of
	// get_context, and of recall unless RecallInput.IncludeSuspicious.
	Suspicious       bool   `json:"suspicious,omitempty"`
	SuspiciousReason string `json:"suspicious_reason,omitempty"`
	// Provenance says where the chunk came from; nil when unknown.
	Provenance *Provenance `json:"provenance,omitempty"`
}

// ContentHash is the hex SHA-256 of content: the memory dedup key.
func ContentHash(content string) string {
	sum := sha256.Sum256([]byte(content))
	return hex.EncodeToString(sum[:])
}

// Strength is the chunk's effective strength at now under cfg.
func (c *Chunk) Strength(cfg Config, now time.Time) float64 {
	return cfg.EffectiveStrength(c.RunningIntensity, c.AccessCount, now.Sub(c.LastAccessedAt))
}

// Block is a named, agent-owned piece of working memory ("persona",
// "human", "objectives").
type Block struct {
	AgentID string `json:"agent_id"`
	Scope   string `json:"scope"`
	Key     string `json:"key"`
	Value   string `json:"value"`
	// Description, optional, says what the block is for.
	Description string    `json:"description,omitempty"`
	UpdatedAt   time.Time `json:"updated_at"`
}

// Message is one turn sent to an LLM.
type Message struct {
	Role    string `json:"role"` // "user", "assistant" or "system"
	Content string `json:"content"`
}

// Embedder turns texts into vectors, one request per call.
type Embedder interface {
	// Embed returns one vector per text, in order.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	// Model names the embedding model; it is recorded in the database.
	Model() string
	// Dimension is the vector length, or 0 when unknown until the first call.
	Dimension() int
}

// LLM completes a conversation given a system prompt.
type LLM interface {
	// Complete returns the reply and what the call cost as the provider
	// reported it: nil when it reported nothing.
	Complete(ctx context.Context, system string, messages []Message) (reply string, usage *LLMCall, err error)
}
