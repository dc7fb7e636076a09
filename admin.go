package hippo

import "time"

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
	// KeptTexts counts the memories that are texts remember_facts kept
	// (RememberResult.Message), among Memories.
	KeptTexts int `json:"kept_texts"`
	// Pending counts the texts given to remember_facts with async whose
	// facts are not learned yet.
	Pending int `json:"pending"`
	Blocks  int `json:"blocks"`
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
