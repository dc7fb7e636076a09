package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/hippo-mem/hippo"
)

// Blocks' rows (memory_blocks); their behaviour is engine.Memory's.

// GetBlock implements engine.Tx.
func (t storeTx) GetBlock(ctx context.Context, scope, key string) (*hippo.Block, error) {
	b, err := getBlock(ctx, t.tx, t.agent, scope, key)
	if err == sql.ErrNoRows {
		return nil, nil
	}
	return b, err
}

// PutBlock implements engine.Tx.
func (t storeTx) PutBlock(ctx context.Context, scope, key, value string, at time.Time) error {
	if _, err := t.tx.ExecContext(ctx, `INSERT INTO memory_blocks (agent_id, scope, key, value, updated_at)
		VALUES (?, ?, ?, ?, ?) ON CONFLICT (agent_id, scope, key)
		DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
		t.agent, scope, key, value, formatTime(at)); err != nil {
		return fmt.Errorf("write block %q: %w", key, err)
	}
	return nil
}

// DescribeBlock implements engine.Tx.
func (t storeTx) DescribeBlock(ctx context.Context, scope, key, description string, at time.Time) error {
	if _, err := t.tx.ExecContext(ctx, `INSERT INTO memory_blocks (agent_id, scope, key, value, description, updated_at)
		VALUES (?, ?, ?, '', ?, ?) ON CONFLICT (agent_id, scope, key)
		DO UPDATE SET description = excluded.description, updated_at = excluded.updated_at`,
		t.agent, scope, key, description, formatTime(at)); err != nil {
		return fmt.Errorf("describe block %q: %w", key, err)
	}
	return nil
}

// DeleteBlock implements engine.Tx.
func (t storeTx) DeleteBlock(ctx context.Context, scope, key string) (bool, error) {
	res, err := t.tx.ExecContext(ctx, `DELETE FROM memory_blocks WHERE agent_id = ? AND scope = ? AND key = ?`,
		t.agent, scope, key)
	if err != nil {
		return false, fmt.Errorf("delete block %q: %w", key, err)
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// ListBlocks implements engine.Store.
func (m *agentStore) ListBlocks(ctx context.Context, scope string) ([]hippo.BlockInfo, error) {
	return m.db.ListBlocks(ctx, m.opts.AgentID, &scope)
}

func getBlock(ctx context.Context, q queryRower, agentID, scope, key string) (*hippo.Block, error) {
	var b hippo.Block
	var updated string
	err := q.QueryRowContext(ctx, `SELECT agent_id, scope, key, value, description, updated_at FROM memory_blocks
		WHERE agent_id = ? AND scope = ? AND key = ?`, agentID, scope, key).
		Scan(&b.AgentID, &b.Scope, &b.Key, &b.Value, &b.Description, &updated)
	if err != nil {
		return nil, err
	}
	if b.UpdatedAt, err = parseTime(updated); err != nil {
		return nil, fmt.Errorf("block %q: %w", key, err)
	}
	return &b, nil
}
