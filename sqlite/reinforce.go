package sqlite

import (
	"context"
	"database/sql"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/engine"
)

// Reinforce implements hippo.MemoryService: the votes (engine.Reinforce)
// applied in one write transaction.
func (m *Memory) Reinforce(ctx context.Context, up, down []string) (*hippo.ReinforceResult, error) {
	if err := m.touch(ctx); err != nil {
		return nil, err
	}
	if err := engine.CheckVotes(up, down); err != nil {
		return nil, err
	}
	tx, err := m.db.write.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	res, err := engine.Reinforce(ctx, agentTx{tx, m.opts.AgentID}, m.db.now(), up, down)
	if err != nil {
		return nil, err
	}
	return res, tx.Commit()
}

// agentTx is one agent's chunks in a transaction (engine.ChunkWriter).
type agentTx struct {
	tx    *sql.Tx
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
