package sqlite

import (
	"context"
	"fmt"
	"strings"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/engine"
)

// insertRows is how many rows one statement of a batch writes or reads:
// FTS5 writes its pending terms out at every statement of a transaction,
// so a statement a row cost most of a batch's time.
const insertRows = 100

// InsertMany implements engine.Tx: insertRows rows a statement.
func (t agentTx) InsertMany(ctx context.Context, cs []*hippo.Chunk) error {
	for len(cs) > 0 {
		n := min(len(cs), insertRows)
		args := make([]any, 0, n*20)
		for _, c := range cs[:n] {
			if c.ID == "" {
				c.ID = engine.NewChunkID(c.CreatedAt)
			}
			args = append(args, chunkArgs(c)...)
		}
		row := "(?" + strings.Repeat(", ?", 19) + ")"
		_, err := t.tx.ExecContext(ctx, `INSERT INTO chunks (`+chunkColumns+`) VALUES `+row+strings.Repeat(", "+row, n-1), args...)
		switch {
		case isUniqueViolation(err):
			return &hippo.Error{Code: hippo.ECONFLICT, Message: "a chunk with one of these IDs, or a memory with one of these contents, already exists"}
		case err != nil:
			return fmt.Errorf("insert chunks: %w", err)
		}
		cs = cs[n:]
	}
	return nil
}

// SameMemories implements engine.Tx with the dedup index.
func (t storeTx) SameMemories(ctx context.Context, scope string, hashes []string) (map[string]*hippo.Chunk, error) {
	out := make(map[string]*hippo.Chunk, len(hashes))
	for len(hashes) > 0 {
		n := min(len(hashes), insertRows)
		args := []any{t.agent, scope}
		for _, h := range hashes[:n] {
			args = append(args, h[:min(len(h), 32)])
		}
		rows, err := t.tx.QueryContext(ctx, `SELECT `+chunkColumns+` FROM chunks
			WHERE agent_id = ? AND scope = ? AND kind = 'memory' AND substr(content_hash, 1, 32) IN (?`+strings.Repeat(", ?", n-1)+`)`, args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			c, err := scanChunk(rows)
			if err != nil {
				rows.Close()
				return nil, err
			}
			out[c.ContentHash] = c
		}
		if err := rows.Close(); err != nil {
			return nil, err
		}
		if err := rows.Err(); err != nil {
			return nil, err
		}
		hashes = hashes[n:]
	}
	return out, nil
}
