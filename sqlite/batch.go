package sqlite

import (
	"context"
	"fmt"
	"strings"

	"github.com/hippo-mem/hippo"
)

// InsertMany implements engine.Tx in one statement: FTS5 writes its
// pending terms out at every statement of a transaction, so a statement a
// row cost most of a batch's time.
func (t agentTx) InsertMany(ctx context.Context, cs []*hippo.Chunk) error {
	args := make([]any, 0, len(cs)*20)
	for _, c := range cs {
		args = append(args, chunkArgs(c)...)
	}
	row := "(?" + strings.Repeat(", ?", 19) + ")"
	_, err := t.tx.ExecContext(ctx, `INSERT INTO chunks (`+chunkColumns+`) VALUES `+row+strings.Repeat(", "+row, len(cs)-1), args...)
	switch {
	case isUniqueViolation(err):
		return &hippo.Error{Code: hippo.ECONFLICT, Message: "a chunk with one of these IDs, or a memory with one of these contents, already exists"}
	case err != nil:
		return fmt.Errorf("insert chunks: %w", err)
	}
	return nil
}

// SameMemories implements engine.Tx with the dedup index, on the hashes'
// first 32 characters as it is built.
func (t storeTx) SameMemories(ctx context.Context, scope string, hashes []string) ([]*hippo.Chunk, error) {
	args := []any{t.agent, scope}
	for _, h := range hashes {
		args = append(args, h[:min(len(h), 32)])
	}
	rows, err := t.tx.QueryContext(ctx, `SELECT `+chunkColumns+` FROM chunks
		WHERE agent_id = ? AND scope = ? AND kind = 'memory' AND substr(content_hash, 1, 32) IN (?`+strings.Repeat(", ?", len(hashes)-1)+`)`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*hippo.Chunk
	for rows.Next() {
		c, err := scanChunk(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}
