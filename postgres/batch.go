package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/hippo-mem/hippo"
)

// InsertMany implements engine.Tx in one statement (one round trip).
func (t agentTx) InsertMany(ctx context.Context, cs []*hippo.Chunk) error {
	var values strings.Builder
	args := make([]any, 0, len(cs)*20)
	for i, c := range cs {
		var supAt *string
		if c.SupersededAt != nil {
			s := formatTime(*c.SupersededAt)
			supAt = &s
		}
		args = append(args, chunkValues(c, supAt)...)
		sep := ", ("
		if i == 0 {
			sep = "("
		}
		values.WriteString(sep)
		for j := range 20 {
			fmt.Fprintf(&values, "$%d,", i*20+j+1)
		}
		values.WriteString(")")
	}
	query := `INSERT INTO chunks (` + chunkColumns + `) VALUES ` + strings.ReplaceAll(values.String(), ",)", ")") + ` ON CONFLICT DO NOTHING`
	tag, err := t.tx.Exec(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("insert chunks: %w", err)
	}
	if tag.RowsAffected() != int64(len(cs)) {
		return &hippo.Error{Code: hippo.ECONFLICT, Message: "a chunk with one of these IDs, or a memory with one of these contents, already exists"}
	}
	return nil
}

// SameMemories implements engine.Tx with the dedup index, on the hashes'
// first 32 characters as it is built.
func (t storeTx) SameMemories(ctx context.Context, scope string, hashes []string) ([]*hippo.Chunk, error) {
	prefixes := make([]string, len(hashes))
	for i, h := range hashes {
		prefixes[i] = h[:min(len(h), 32)]
	}
	return queryChunks(ctx, t.tx, `SELECT `+chunkColumns+` FROM chunks
		WHERE agent_id = $1 AND scope = $2 AND kind = 'memory' AND left(content_hash, 32) = ANY($3)`, t.agent, scope, prefixes)
}
