package hippo

// DefaultReembedBatch is how many texts Reembed and a re-embedding Import
// send in one Embed call unless told otherwise.
const DefaultReembedBatch = 256

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
