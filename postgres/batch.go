package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/engine"
)

// insertRows is how many rows one statement of a batch writes: a round
// trip a row cost most of a batch's time.
const insertRows = 100

// InsertMany implements engine.Tx: insertRows rows a statement.
func (t agentTx) InsertMany(ctx context.Context, cs []*hippo.Chunk) error {
	for len(cs) > 0 {
		n := min(len(cs), insertRows)
		args := make([]any, 0, n*20)
		var rows strings.Builder
		for i, c := range cs[:n] {
			if c.ID == "" {
				c.ID = engine.NewChunkID(c.CreatedAt)
			}
			var supAt *string
			if c.SupersededAt != nil {
				s := formatTime(*c.SupersededAt)
				supAt = &s
			}
			args = append(args, chunkValues(c, supAt)...)
			if i > 0 {
				rows.WriteString(", ")
			}
			rows.WriteString("(")
			for j := range 20 {
				if j > 0 {
					rows.WriteString(", ")
				}
				fmt.Fprintf(&rows, "$%d", i*20+j+1)
			}
			rows.WriteString(")")
		}
		tag, err := t.tx.Exec(ctx, `INSERT INTO chunks (`+chunkColumns+`) VALUES `+rows.String()+` ON CONFLICT DO NOTHING`, args...)
		if err != nil {
			return fmt.Errorf("insert chunks: %w", err)
		}
		if tag.RowsAffected() != int64(n) {
			return &hippo.Error{Code: hippo.ECONFLICT, Message: "a chunk with one of these IDs, or a memory with one of these contents, already exists"}
		}
		cs = cs[n:]
	}
	return nil
}

// SameMemories implements engine.Tx with the dedup index.
func (t storeTx) SameMemories(ctx context.Context, scope string, hashes []string) (map[string]*hippo.Chunk, error) {
	prefixes := make([]string, len(hashes))
	for i, h := range hashes {
		prefixes[i] = h[:min(len(h), 32)]
	}
	rows, err := t.tx.Query(ctx, `SELECT `+chunkColumns+` FROM chunks
		WHERE agent_id = $1 AND scope = $2 AND kind = 'memory' AND left(content_hash, 32) = ANY($3)`, t.agent, scope, prefixes)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make(map[string]*hippo.Chunk, len(hashes))
	for rows.Next() {
		c, err := scanChunk(rows)
		if err != nil {
			return nil, err
		}
		out[c.ContentHash] = c
	}
	return out, rows.Err()
}
