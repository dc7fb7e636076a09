package engine

import (
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/hippo-mem/hippo"
)

// NewChunkID returns a new chunk ID: a ULID of now.
func NewChunkID(now time.Time) string {
	return ulid.MustNew(ulid.Timestamp(now), ulid.DefaultEntropy()).String()
}

// PrepareBulk fills in what a bulk load (a store's InsertChunks) leaves
// unset in c, as every store does: agentID and scope, a new ID, kind
// memory and its content hash, one encounter at the default intensity,
// creation and access at now, provenance "bulk". It refuses an invalid
// agent and a vector of other than dim dimensions.
func PrepareBulk(c *hippo.Chunk, agentID, scope string, defaultIntensity float64, now time.Time, dim int) error {
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
		c.ID = NewChunkID(now)
	}
	if c.Kind == "" {
		c.Kind = hippo.KindMemory
	}
	if c.Kind == hippo.KindMemory {
		c.ContentHash = hippo.ContentHash(c.Content)
	}
	if c.EncounterCount == 0 {
		c.EncounterCount = 1
		if c.RunningIntensity == 0 {
			c.RunningIntensity = defaultIntensity
		}
	}
	if c.CreatedAt.IsZero() {
		c.CreatedAt = now
	}
	if c.LastAccessedAt.IsZero() {
		c.LastAccessedAt = c.CreatedAt
	}
	if c.Provenance == nil {
		c.Provenance = &hippo.Provenance{Origin: hippo.OriginBulk, Caller: hippo.CallerLibrary}
	}
	if len(c.Embedding) != dim {
		return hippo.Errorf(hippo.EINVALID, "chunk %s has %d dimensions, others %d", c.ID, len(c.Embedding), dim)
	}
	return nil
}
