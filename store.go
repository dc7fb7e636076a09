package hippo

import (
	"context"
	"io"
	"time"
)

// Store is a database of agents' memories as the MCP server and the CLI
// use it; sqlite.DB implements it, and cmd/hippo opens one in one place.
// A backend implements Store and the small interfaces beside it (Admin,
// Exporter, Importer, Reembedder).
type Store interface {
	// Service binds the memory of one agent, as opts says.
	Service(opts MemoryOptions) (AgentMemory, error)
	// Config is the configuration the store scores and limits with.
	Config() Config
	// Location says where the store is, fit to print: a file path, or a
	// DSN with its password redacted.
	Location() string
	// Created reports whether opening the store created it.
	Created() bool
	// Remove closes the store and deletes it, such as one that a failed
	// first import created.
	Remove() error
	// EmbeddingModel is the model lock, nil before anything is embedded.
	EmbeddingModel(ctx context.Context) (*ModelLock, error)
	// VerifyEmbeddingModel checks a model and dimension (0: not yet
	// known) against the lock: ECONFLICT when they differ.
	VerifyEmbeddingModel(ctx context.Context, model string, dim int) error
	// DecayClockAt is the clock by which agentID's chunks decay at now.
	DecayClockAt(ctx context.Context, agentID string, now time.Time) (DecayClock, error)
	// Ping checks that the store answers.
	Ping(ctx context.Context) error
	Close() error
}

// AgentMemory is the MemoryService of one agent with what the CLI needs
// besides: its configuration, its agent and the maintenance pass.
type AgentMemory interface {
	MemoryService
	// Config is the store's configuration with the embedder's thresholds.
	Config() Config
	AgentID() string
	// Consolidate deletes chunks long under the strength floor and merges
	// near-duplicate memories.
	Consolidate(ctx context.Context, opts ConsolidateOptions) (*ConsolidateResult, error)
	// Trust clears a chunk's suspicious flag after a person has reviewed
	// it, and returns the chunk. ENOTFOUND for an unknown ID or another
	// agent's. It is not an agent tool: an injected instruction must not
	// be able to vouch for itself.
	Trust(ctx context.Context, id string) (*Chunk, error)
}

// Admin lists, counts and deletes across agents: the CLI's admin
// commands.
type Admin interface {
	Stats(ctx context.Context) (*Stats, error)
	Agents(ctx context.Context) ([]AgentSummary, error)
	ListChunks(ctx context.Context, f ChunkFilter) ([]*Chunk, error)
	CountChunks(ctx context.Context, f ChunkFilter) (int, error)
	// ListBlocks lists an agent's blocks, of one scope when scope is set.
	ListBlocks(ctx context.Context, agentID string, scope *string) ([]BlockInfo, error)
	// PlanDelete is what DeleteChunks would do.
	PlanDelete(ctx context.Context, agentID string, ids []string) (*DeletePlan, error)
	// DeleteChunks hard-deletes chunks and resurrects what they had
	// superseded.
	DeleteChunks(ctx context.Context, agentID string, ids []string) (deleted, resurrected []string, err error)
	PurgeSuperseded(ctx context.Context, f PurgeFilter) ([]*Chunk, error)
}

// Exporter writes agents' chunks and blocks as an export file.
type Exporter interface {
	Export(ctx context.Context, w io.Writer, opts ExportOptions) (*ExportSummary, error)
}

// Importer reads an export file into the store.
type Importer interface {
	Import(ctx context.Context, r io.Reader, opts ImportOptions) (*ImportResult, error)
}

// Reembedder re-embeds every chunk with another embedder and moves the
// model lock to it.
type Reembedder interface {
	Reembed(ctx context.Context, e Embedder, opts ReembedOptions) (*ReembedResult, error)
}

// IndexUsage is what a store's in-memory indexes hold: the agents
// resident, their rows and their bytes, the bound on those bytes (0: none),
// and the cache's loads, hits and evictions so far.
type IndexUsage struct {
	Agents, Rows           int
	Bytes, Limit           int64
	Loads, Hits, Evictions int64
}

// IndexReporter is implemented by stores that keep agents' indexes in
// memory (the metrics report it).
type IndexReporter interface {
	IndexUsage() IndexUsage
}

// SizeReporter is implemented by stores that can say cheaply how many
// bytes they take on disk (the metrics report it at every scrape).
type SizeReporter interface {
	DiskBytes() int64
}

// CommitStats counts a store's group commits: concurrent writes that
// shared one durable commit. Calls/Groups is the mean group size; Wait is
// the calls' summed time queued before their group started.
type CommitStats struct {
	Groups, Calls int64
	Largest       int
	Wait          time.Duration
}

// CommitReporter is implemented by stores that group concurrent writes
// into one commit (the metrics report it). ObserveCommits sets a function
// called after each group with its calls and their summed wait.
type CommitReporter interface {
	CommitStats() CommitStats
	ObserveCommits(fn func(calls int, wait time.Duration))
}
