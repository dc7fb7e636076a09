package hippo

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
