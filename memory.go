package hippo

import (
	"context"
	"encoding/json"
)

// MemoryService is everything an agent can do with its memory. It is bound
// to one agent, a write scope and a recall scope filter; the tools, the CLI
// and the MCP server all go through it.
type MemoryService interface {
	// StoreMemory embeds and stores raw content; a verbatim duplicate in the
	// same scope is strengthened instead of inserted.
	StoreMemory(ctx context.Context, in StoreInput) (*StoreResult, error)
	// StoreMemories stores up to MaxStoreBatch items as StoreMemory does,
	// with one embedding request and one transaction. An item that fails
	// validation fails alone (StoreItemResult.Err, naming the field); a repeat, within
	// the call too, strengthens the memory stored first.
	StoreMemories(ctx context.Context, items []StoreInput) (*StoreBatchResult, error)
	// RememberFacts extracts facts from text and resolves each against the
	// facts already known: new, duplicate, supersedes or distinct.
	RememberFacts(ctx context.Context, text string) (*RememberResult, error)
	// Remember is RememberFacts with the text's source, kept in each
	// stored fact's provenance; with in.Facts, the caller's own facts are
	// resolved instead of extracted ones.
	Remember(ctx context.Context, in RememberInput) (*RememberResult, error)
	// Recall ranks live chunks against a query.
	Recall(ctx context.Context, in RecallInput) ([]Recalled, error)
	// Forget hard-deletes every live chunk similar enough to a description.
	Forget(ctx context.Context, in ForgetInput) (*ForgetResult, error)

	// Block returns a named block, or nil when it does not exist.
	Block(ctx context.Context, key string) (*Block, error)
	// AppendBlock appends text to a block, creating it when missing.
	AppendBlock(ctx context.Context, key, text string) (*Block, error)
	// ReplaceBlock replaces every occurrence of old with new in a block and
	// reports how many there were. ENOTFOUND when the block or text is missing.
	ReplaceBlock(ctx context.Context, key, old, new string) (*Block, int, error)

	// SearchConversation runs a full-text search over the configured
	// messages table. EINVALID when no messages table is configured.
	SearchConversation(ctx context.Context, query string, limit int) ([]ConversationHit, error)

	// RecallPage is Recall with the number of matches and their score
	// distribution, for paging.
	RecallPage(ctx context.Context, in RecallInput) (*RecallPage, error)
	// FactHistory returns the supersession chain of a fact (by ID, or the
	// best match for query), oldest first.
	FactHistory(ctx context.Context, query, id string) ([]HistoryEntry, error)
	// Reinforce upvotes and downvotes chunks by ID.
	Reinforce(ctx context.Context, up, down []string) (*ReinforceResult, error)
	// UpdateMemory changes a chunk's content, metadata or intensity, with
	// a vote (up by default). ENOTFOUND for unknown IDs and other agents'
	// chunks; nothing changes on any error.
	UpdateMemory(ctx context.Context, in UpdateInput) (*UpdateResult, error)
	// Context assembles blocks and recalled memories for a system prompt,
	// within a budget.
	Context(ctx context.Context, in ContextInput) (*Context, error)
	// Blocks lists the blocks of the write scope.
	Blocks(ctx context.Context) ([]BlockInfo, error)
	// SetBlock replaces a block's whole value, creating it when missing.
	SetBlock(ctx context.Context, key, value string) (*Block, error)
	// DeleteBlock deletes a block. ENOTFOUND when it does not exist.
	DeleteBlock(ctx context.Context, key string) error
	// DescribeBlock sets what a block is for, creating it empty when
	// missing.
	DescribeBlock(ctx context.Context, key, description string) (*Block, error)
	// MemorySource says where one of the agent's chunks came from: its
	// provenance and the text it was extracted from. ENOTFOUND for an
	// unknown ID or another agent's.
	MemorySource(ctx context.Context, id string) (*SourceInfo, error)
}

// MemoryOptions binds a Memory to one agent and its scopes.
type MemoryOptions struct {
	// AgentID namespaces every chunk and block; required.
	AgentID string
	// Scope is where writes go (chunks and blocks); "" is the global scope.
	Scope string
	// RecallScopes filters Recall and Forget. nil searches every scope of
	// the agent; an empty non-nil slice searches none; otherwise exactly
	// the listed scopes ("" among them for the global scope).
	RecallScopes []string
	// MessagesTable enables SearchConversation over a consumer-owned table
	// and its <table>_fts FTS5 index.
	MessagesTable string
	// Caller is who writes through this memory, recorded in the
	// provenance of what it stores: CallerMCP, CallerCLI; "" records
	// CallerLibrary.
	Caller string
	// Look binds the memory for looking: its calls record no activity. A
	// person or a dashboard looking at memory (the web UI's pages, a
	// preview) must not change it, and under the active decay clock every
	// hour of activity ages all of an agent's chunks. It changes nothing
	// else: a recall still boosts unless RecallInput.DryRun is set, and
	// writes still write.
	Look bool
	// Stages, if set, is told how long each stage of a recall took (the
	// metrics' histogram of stages).
	Stages StageFunc

	Embedder   Embedder
	Extractor  Extractor
	Classifier Classifier
	// FallbackExtractor, if set, extracts the facts of a text when
	// Extractor's LLM gives an unreadable reply (ErrUnreadableReply) or
	// times out (its own deadline, not the caller's), so the text's facts
	// are not lost; RememberResult.Fallback says so. Set it to
	// local.NewExtractor() beside an LLM extractor. nil fails such calls.
	FallbackExtractor Extractor
	// DiscardText makes remember_facts keep the facts alone: the text
	// they came from is neither kept as a searchable memory
	// (RememberResult.Message) nor as their source (MemorySource).
	DiscardText bool
}

// StoreInput is the input of StoreMemory.
type StoreInput struct {
	Content string
	// Metadata, if set, must be a JSON object (source, tags, category, ...).
	Metadata json.RawMessage
	// Intensity is the reading for a new memory or a repeat; nil means
	// Config.DefaultIntensity.
	Intensity *float64
	// Source, optional, is where the content came from (a message ID, a
	// URL, a file): kept in the new memory's Provenance.
	Source string
}

// StoreResult says what StoreMemory did.
type StoreResult struct {
	Chunk *Chunk `json:"chunk"`
	// Duplicate is true when the content was already stored and the
	// existing chunk was strengthened.
	Duplicate bool `json:"duplicate"`
}

// ConversationHit is one message found by SearchConversation.
type ConversationHit struct {
	ID        int64   `json:"id"`
	Role      string  `json:"role,omitempty"`
	Content   string  `json:"content"`
	CreatedAt string  `json:"created_at,omitempty"`
	Rank      float64 `json:"rank"`
}

// Learner learns the facts of the texts queued by async remember_facts
// calls: a database lists the agents that have some, and an agent's memory
// (with its extractor) learns them.
type Learner interface {
	// PendingAgents lists the agents with texts waiting, by ID.
	PendingAgents(ctx context.Context) ([]string, error)
}

// PendingLearner is the memory side of Learner.
type PendingLearner interface {
	// LearnPending learns the agent's queued texts, oldest first, until
	// none is left, and returns how many it learned.
	LearnPending(ctx context.Context) (int, error)
}
