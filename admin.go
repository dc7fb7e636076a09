package hippo

import (
	"fmt"
	"strconv"
	"time"
)

// DefaultReembedBatch is how many texts Reembed and a re-embedding Import
// send in one Embed call unless told otherwise.
const DefaultReembedBatch = 256

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
}

// Stats is an overview of a whole database.
type Stats struct {
	Path string `json:"path"`
	// FileSize and WALSize are the bytes of the database file and of its
	// write-ahead log (0 when there is none).
	FileSize   int64 `json:"file_size"`
	WALSize    int64 `json:"wal_size"`
	Chunks     int   `json:"chunks"`
	Facts      int   `json:"facts"`
	Memories   int   `json:"memories"`
	Superseded int   `json:"superseded"`
	Blocks     int   `json:"blocks"`
	// Agents counts agents owning at least one chunk or block.
	Agents int `json:"agents"`
	// EmbeddingModel is the model lock, nil when nothing was embedded yet.
	EmbeddingModel *ModelLock `json:"embedding_model"`
	// DecayModel is the decay model strengths follow (Config.Decay), and
	// DecayClock the clock they decay by: "wall" or "active".
	DecayModel DecayModel `json:"decay_model"`
	DecayClock string     `json:"decay_clock"`
}

// AgentSummary is one agent with what it owns.
type AgentSummary struct {
	AgentID    string `json:"agent_id"`
	Chunks     int    `json:"chunks"`
	Facts      int    `json:"facts"`
	Memories   int    `json:"memories"`
	Superseded int    `json:"superseded"`
	Blocks     int    `json:"blocks"`
}

// ChunkFilter selects chunks for listing, counting and text search. The
// zero value selects every live chunk.
type ChunkFilter struct {
	// AgentID restricts to one agent; "" means all.
	AgentID string
	// Scope restricts to one scope ("" is the global scope); nil means all.
	Scope *string
	// Kind restricts to facts or memories; "" means both.
	Kind Kind
	// Superseded includes superseded chunks, which are left out otherwise.
	Superseded bool
	// Suspicious keeps only chunks flagged suspicious (Chunk.Suspicious),
	// for review.
	Suspicious bool
	// Text keeps chunks whose content contains it, ignoring case and
	// accents ("cafe" finds "Café"); every character, % and _ too, matches
	// itself. "" matches everything.
	Text string
	// Limit caps the result (0: no cap); Offset skips that many first.
	// Both are ignored by CountChunks.
	Limit, Offset int
}

// DeletePlan is what DeleteChunks would do with the same arguments.
type DeletePlan struct {
	// Chunks are the chunks that would be deleted (without embeddings), in
	// the order their IDs were given.
	Chunks []*Chunk
	// NotFound are the IDs matching no chunk (of the agent, if one is given).
	NotFound []string
	// Resurrected are the chunks that would become current again because
	// what superseded them is deleted.
	Resurrected []string
}

// PurgeFilter selects superseded chunks to purge.
type PurgeFilter struct {
	// AgentID restricts to one agent; "" means all.
	AgentID string
	// Before, if set, keeps only chunks superseded before it (created
	// before it when the supersession time is unknown).
	Before time.Time
	// DryRun finds what would be purged and changes nothing.
	DryRun bool
}

// ConsolidateOptions configures Consolidate.
type ConsolidateOptions struct {
	// AgentID limits the pass to one agent; required.
	AgentID string
	// Grace is how long a chunk must have been under the strength floor
	// before it is deleted; 0 means 30 days.
	Grace time.Duration
	// MergeThreshold is the cosine above which two memories of the same
	// scope are merged into the stronger one; 0 means 0.97 (or the
	// embedder's duplicate threshold when higher); 1 or more disables
	// merging.
	MergeThreshold float64
	// DryRun reports what would be done and changes nothing.
	DryRun bool
}

// ConsolidateResult reports a consolidation pass.
type ConsolidateResult struct {
	DryRun bool           `json:"dry_run"`
	Faded  []FadedChunk   `json:"faded"`
	Merged []MergedMemory `json:"merged"`
}

// FadedChunk is a chunk deleted for having stayed under the floor.
type FadedChunk struct {
	ID         string    `json:"id"`
	Kind       Kind      `json:"kind"`
	Content    string    `json:"content"`
	Strength   float64   `json:"strength"`
	UnderSince time.Time `json:"under_floor_since"`
}

// MergedMemory is a memory folded into a near-duplicate.
type MergedMemory struct {
	KeptID     string  `json:"kept_id"`
	RemovedID  string  `json:"removed_id"`
	Removed    string  `json:"removed_content"`
	Similarity float64 `json:"similarity"`
}

// ExportOptions selects what Export writes.
type ExportOptions struct {
	// AgentID restricts the export to one agent; "" exports all.
	AgentID string
	// Scope restricts the export to one scope; nil exports all.
	Scope *string
	// Progress, if set, is called after each chunk with the count so far.
	Progress func(chunks int)
}

// ExportSummary counts what Export wrote.
type ExportSummary struct {
	Blocks int `json:"blocks"`
	Chunks int `json:"chunks"`
	// Inputs counts the texts facts were extracted from.
	Inputs int `json:"inputs"`
}

// ImportOptions tunes Import.
type ImportOptions struct {
	// Model is the embedding model of a file that records none (the
	// TypeScript export). Without it such a file is accepted only into a
	// database already locked to a model of the file's dimension.
	Model string
	// AgentID is the agent of records that name none.
	AgentID string
	// Reembed, if set, embeds the content of the file's chunks with it,
	// instead of refusing them, when the file names another model than
	// the database's lock (or, for a database with none, Reembed's), or
	// none. It must then be of the database's model. The embedding is
	// done in batches of DefaultReembedBatch, inside the import's
	// transaction, so other writers wait for it.
	Reembed Embedder
}

// BlockRef names a block.
type BlockRef struct {
	AgentID string `json:"agent_id"`
	Scope   string `json:"scope"`
	Key     string `json:"key"`
}

// ImportResult says what Import did. Nothing already stored is
// overwritten: records that collide are skipped and listed.
type ImportResult struct {
	// Format is ExportFormat or FormatTypeScript.
	Format string `json:"format"`
	// Agents are the agents the file holds records of.
	Agents []string `json:"agents"`
	// Chunks and Blocks count what was inserted.
	Chunks int `json:"chunks"`
	Blocks int `json:"blocks"`
	// Inputs counts the texts facts were extracted from that were
	// inserted: those an inserted chunk refers to.
	Inputs int `json:"inputs"`
	// Duplicates counts every skipped record: the sum of the three lists.
	Duplicates int `json:"duplicates"`
	// DuplicateIDs are chunks whose ID is already stored (or repeated in
	// the file).
	DuplicateIDs []string `json:"duplicate_ids"`
	// DuplicateContent are memories (by their ID in the file) whose
	// content the agent already holds in that scope under another ID.
	DuplicateContent []string `json:"duplicate_content"`
	// DuplicateBlocks are blocks already stored.
	DuplicateBlocks []BlockRef `json:"duplicate_blocks"`
	// EmbeddingModel is the database's model lock after the import.
	EmbeddingModel *ModelLock `json:"embedding_model"`
	// Reembedded counts the inserted chunks embedded anew by
	// ImportOptions.Reembed.
	Reembedded int `json:"reembedded,omitempty"`
}

// ModelLock is the embedding model and dimension a database is bound to:
// vectors of different models are not comparable.
type ModelLock struct {
	Model     string `json:"model"`
	Dimension int    `json:"dimension"`
}

// Check refuses an embedder of another model or dimension than the lock's
// (a dim of 0 checks the model only): ECONFLICT, naming both and how to
// switch the database.
//
// Stores read the lock from the database every time, never from a copy
// kept in memory: Reembed, in this process or another, switches it, and a
// stale copy would refuse the new model or, worse, accept the old one.
func (l ModelLock) Check(model string, dim int) error {
	if l.Model != model || (dim > 0 && l.Dimension != dim) {
		got := ModelLock{Model: model, Dimension: dim}
		return Errorf(ECONFLICT,
			"embedding model mismatch: this database is locked to %s, but the embedder gives %s; "+
				"configure that model again, or switch the database with `hippo reembed --force` (re-embeds every chunk)", l, got)
	}
	return nil
}

// CheckRecorded checks query, the model a query was embedded with (nil:
// nothing to check), against the lock a database records as text: model
// ("" when none is recorded) and dim.
func CheckRecorded(query *ModelLock, model, dim string) error {
	if query == nil || model == "" {
		return nil
	}
	n, _ := strconv.Atoi(dim)
	return ModelLock{Model: model, Dimension: n}.Check(query.Model, query.Dimension)
}

// ReembedOptions tunes Reembed.
type ReembedOptions struct {
	// BatchSize is how many texts go into one Embed call; 0 means
	// DefaultReembedBatch.
	BatchSize int
	// DryRun reports what Reembed would do and changes nothing; the
	// embedder is not called.
	DryRun bool
	// Progress, if set, is called after each batch with the chunks
	// re-embedded so far (those kept from an interrupted run included) and
	// the number of chunks.
	Progress func(done, total int)
}

// ReembedResult says what Reembed did, or would do in a dry run.
type ReembedResult struct {
	DryRun bool `json:"dry_run"`
	// From is the model lock before, nil when the database had none.
	From *ModelLock `json:"from"`
	// To is the embedder's model. In a dry run its dimension is 0 when the
	// embedder learns it from its first response.
	To ModelLock `json:"to"`
	// Unchanged is true when there was nothing to do: the database is
	// already on To, or holds no chunks and no lock.
	Unchanged bool `json:"unchanged"`
	// Chunks counts the chunks of every agent switched to To (or to be).
	Chunks int `json:"chunks"`
	// Reused counts embeddings kept from an interrupted run to the same
	// model.
	Reused int `json:"reused"`
	// Embedded counts the texts this call embedded (in a dry run: would).
	Embedded int `json:"embedded"`
}

func (l ModelLock) String() string {
	return fmt.Sprintf("%q (%d dimensions)", l.Model, l.Dimension)
}
