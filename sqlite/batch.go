package sqlite

import (
	"context"
	"strings"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/engine"
)

// SameMemories implements engine.Tx with the dedup index, on the hashes'
// first 32 characters as it is built.
func (t storeTx) SameMemories(ctx context.Context, scope string, hashes []string) ([]*hippo.Chunk, error) {
	args := []any{t.Agent, scope}
	for _, h := range hashes {
		args = append(args, h[:min(len(h), 32)])
	}
	rows, err := t.tx.QueryContext(ctx, `SELECT `+engine.ChunkColumns+` FROM chunks
		WHERE agent_id = ? AND scope = ? AND kind = 'memory' AND substr(content_hash, 1, 32) IN (?`+strings.Repeat(", ?", len(hashes)-1)+`)`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*hippo.Chunk
	for rows.Next() {
		c, err := engine.ScanChunk(rows.Scan)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}
