package hippo

import (
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

// Chunk is one stored fact or memory. Parts are further vectors by which
// recall finds a memory of several sentences, one a sentence mixed with
// the whole, each as long as Embedding, back to back (engine.PartVectors);
// none for other chunks. They derive from Content and Embedding, and for
// a follow-up (a memory opening with "he", "it", "that", …) the last part
// from the memory ContextOf names as well: this one read after it.
type Chunk struct {
	ID          string    `json:"id"`
	AgentID     string    `json:"agent_id"`
	Scope       string    `json:"scope"`
	Kind        Kind      `json:"kind"`
	Content     string    `json:"content"`
	ContentHash string    `json:"content_hash,omitempty"`
	Embedding   []float32 `json:"-"`
	Parts       []float32 `json:"-"`
	// ContextOf is the memory a follow-up's last part was read after; ""
	// for none. Deleting or editing that memory drops the part.
	ContextOf        string          `json:"context_of,omitempty"`
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
