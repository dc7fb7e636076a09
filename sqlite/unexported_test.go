package sqlite

import (
	"context"
	"time"

	"github.com/hippo-mem/hippo/engine"
)

// The sqlite_test tests and the scale benchmark reach these unexported
// helpers under exported names; they are not part of the package's API.

// IndexStats is engine.IndexStats.
type IndexStats = engine.IndexStats

// IndexStats loads (or updates) the agent's index and describes it.
func (db *DB) IndexStats(ctx context.Context, agentID string) (*IndexStats, error) {
	ai, err := db.syncIndex(ctx, agentID)
	if err != nil {
		return nil, err
	}
	st := ai.Stats()
	return &st, nil
}

// CodesRead times one parallel read of the int8 codes of the agent's
// index: the floor of a recall's first pass.
func (db *DB) CodesRead(ctx context.Context, agentID string) (time.Duration, error) {
	ai, err := db.syncIndex(ctx, agentID)
	if err != nil {
		return 0, err
	}
	return ai.ScanCodes(), nil
}

// syncIndex returns the agent's index brought up to date.
func (db *DB) syncIndex(ctx context.Context, agentID string) (*engine.Index, error) {
	return db.indexes.Sync(ctx, agentID, db.cfg, db.clock.Active(), nil)
}

// Pragmas reports a live connection's durability settings.
func (db *DB) Pragmas(ctx context.Context) map[string]string { return db.pragmas(ctx) }

// NewID returns a new chunk ID.
func NewID(now time.Time) string { return engine.NewChunkID(now) }
