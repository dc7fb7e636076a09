package sqlite

import (
	"context"
	"database/sql"

	"github.com/hippo-mem/hippo"
)

// agentTx is one agent's chunks in a transaction (engine.ChunkWriter).
type agentTx struct {
	tx    sqlTx
	agent string
}

func (t agentTx) Chunk(ctx context.Context, id string) (*hippo.Chunk, error) {
	return getChunk(ctx, t.tx, t.agent, id)
}

func (t agentTx) Predecessor(ctx context.Context, id string) (string, error) {
	var prev string
	err := t.tx.QueryRowContext(ctx, `SELECT id FROM chunks WHERE superseded_by = ? AND agent_id = ?
		ORDER BY created_at DESC LIMIT 1`, id, t.agent).Scan(&prev)
	if err == sql.ErrNoRows {
		return "", nil
	}
	return prev, err
}

func (t agentTx) SaveStrength(ctx context.Context, c *hippo.Chunk) error {
	return saveStrength(ctx, t.tx, c)
}
