package sqlite

import (
	"context"

	"github.com/hippo-mem/hippo"
)

// InsertChunks writes chunks as they are (IDs, counters and times kept when
// set, filled in when not) in one transaction, checking the embedding model
// lock. Chunks without an agent or scope take agentID and scope.
//
// It is a bulk loader, not an agent's way to write: it skips fact
// extraction, deduplication and conflict resolution (use Memory's
// RememberFacts and StoreMemory for that). It is public because loading
// stores with given vectors and times is what benchmarks, evaluation sets
// and tests of other packages need, and an export is the other way in
// (Import).
func (db *DB) InsertChunks(ctx context.Context, agentID, scope, model string, chunks []*hippo.Chunk) error {
	if len(chunks) == 0 {
		return nil
	}
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := db.lockModelTx(ctx, tx, model, len(chunks[0].Embedding)); err != nil {
		return err
	}
	bulk, err := startBulkLog(ctx, tx)
	if err != nil {
		return err
	}
	now := db.now()
	for _, c := range chunks {
		if c.AgentID == "" {
			c.AgentID = agentID
		}
		if c.Scope == "" {
			c.Scope = scope
		}
		if err := hippo.ValidateAgentID(c.AgentID); err != nil {
			return err
		}
		if c.ID == "" {
			c.ID = newChunkID(now)
		}
		if c.Kind == "" {
			c.Kind = hippo.KindMemory
		}
		if c.Kind == hippo.KindMemory {
			c.ContentHash = ContentHash(c.Content)
		}
		if c.EncounterCount == 0 {
			c.EncounterCount = 1
			if c.RunningIntensity == 0 {
				c.RunningIntensity = db.cfg.DefaultIntensity
			}
		}
		if c.CreatedAt.IsZero() {
			c.CreatedAt = now
		}
		if c.LastAccessedAt.IsZero() {
			c.LastAccessedAt = c.CreatedAt
		}
		if len(c.Embedding) != len(chunks[0].Embedding) {
			return hippo.Errorf(hippo.EINVALID, "chunk %s has %d dimensions, others %d", c.ID, len(c.Embedding), len(chunks[0].Embedding))
		}
		if err := insertChunk(ctx, tx, c); err != nil {
			return err
		}
		if err := bulk.added(ctx); err != nil {
			return err
		}
	}
	if err := bulk.finish(ctx); err != nil {
		return err
	}
	return tx.Commit()
}
