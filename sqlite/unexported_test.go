package sqlite

import (
	"context"
	"time"

	"github.com/hippo-mem/hippo/engine"
)

// The sqlite_test tests and the scale benchmark reach these unexported
// helpers under exported names; they are not part of the package's API.

// IndexStats is indexStats.
type IndexStats = indexStats

// IndexStats loads the agent's index and describes it.
func (db *DB) IndexStats(ctx context.Context, agentID string) (*IndexStats, error) {
	return db.indexStats(ctx, agentID)
}

// CodesRead times one read of the agent's index codes.
func (db *DB) CodesRead(ctx context.Context, agentID string) (time.Duration, error) {
	return db.codesRead(ctx, agentID)
}

// Pragmas reports a live connection's durability settings.
func (db *DB) Pragmas(ctx context.Context) map[string]string { return db.pragmas(ctx) }

// NewID returns a new chunk ID.
func NewID(now time.Time) string { return engine.NewChunkID(now) }
