package hippo

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
