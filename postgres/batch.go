package postgres

import (
	"context"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/engine"
)

// SameMemories implements engine.Tx with the dedup index, on the hashes'
// first 32 characters as it is built.
func (t storeTx) SameMemories(ctx context.Context, scope string, hashes []string) ([]*hippo.Chunk, error) {
	prefixes := make([]string, len(hashes))
	for i, h := range hashes {
		prefixes[i] = h[:min(len(h), 32)]
	}
	return queryChunks(ctx, t.tx, `SELECT `+engine.ChunkColumns+` FROM chunks
		WHERE agent_id = $1 AND scope = $2 AND kind = 'memory' AND left(content_hash, 32) = ANY($3)`, t.Agent, scope, prefixes)
}
