package hippo

import "time"

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

// BlockInfo describes a block without its value.
type BlockInfo struct {
	AgentID string `json:"agent_id"`
	Scope   string `json:"scope"`
	Key     string `json:"key"`
	// Chars is the length of the value in characters.
	Chars       int       `json:"chars"`
	Description string    `json:"description,omitempty"`
	UpdatedAt   time.Time `json:"updated_at"`
}

// BlockRef names a block.
type BlockRef struct {
	AgentID string `json:"agent_id"`
	Scope   string `json:"scope"`
	Key     string `json:"key"`
}
