package hippo

import "time"

// HistoryEntry is one value in a fact's history: what was believed, from
// when until when.
type HistoryEntry struct {
	ID         string     `json:"id"`
	Content    string     `json:"content"`
	ValidFrom  time.Time  `json:"valid_from"`
	ValidUntil *time.Time `json:"valid_until"` // nil while current
	Current    bool       `json:"current"`
	// Provenance says where this value came from; nil when unknown.
	Provenance *Provenance `json:"provenance,omitempty"`
	// Suspicious and SuspiciousReason are the value's trust flag.
	Suspicious       bool   `json:"suspicious,omitempty"`
	SuspiciousReason string `json:"suspicious_reason,omitempty"`
}

// ReinforceResult says what Reinforce did.
type ReinforceResult struct {
	Upvoted   []string `json:"upvoted"`
	Downvoted []string `json:"downvoted"`
	// NotFound lists IDs that are not this agent's chunks: unknown IDs and
	// other agents' IDs alike, so that nothing is learnt about the latter.
	NotFound []string `json:"not_found"`
}

// ContextInput asks for a context assembled for a system prompt.
type ContextInput struct {
	// Query, if set, adds the memories recalled for it after the blocks.
	Query string
	// MaxChars bounds the text; MaxTokens, if set instead, bounds it at
	// about four characters a token. Neither: DefaultContextChars.
	MaxChars, MaxTokens int
	// Limit is how many memories to consider; 0 means Config.DefaultLimit.
	Limit int
}

// DefaultContextChars is get_context's budget when none is given.
const DefaultContextChars = 8000

// Context is a system-prompt section: blocks first, then memories by score,
// cut to the budget, saying what was left out.
type Context struct {
	Text           string   `json:"text"`
	Chars          int      `json:"chars"`
	Budget         int      `json:"budget_chars"`
	Blocks         []string `json:"blocks"`
	Memories       []string `json:"memories"`
	OmittedBlocks  []string `json:"omitted_blocks"`
	OmittedRecalls int      `json:"omitted_memories"`
}
