package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/hippo-mem/hippo"
)

// Block implements hippo.MemoryService: nil, nil when the block is missing.
func (m *agentStore) Block(ctx context.Context, key string) (*hippo.Block, error) {
	if err := m.touch(ctx); err != nil {
		return nil, err
	}
	if err := hippo.ValidateBlockKey(key); err != nil {
		return nil, err
	}
	b, err := getBlock(ctx, m.db.read, m.opts.AgentID, m.opts.Scope, key)
	if err == sql.ErrNoRows {
		return nil, nil
	}
	return b, err
}

// AppendBlock implements hippo.MemoryService. A missing block is created
// with text as its value; otherwise text is appended on a new line.
func (m *agentStore) AppendBlock(ctx context.Context, key, text string) (*hippo.Block, error) {
	if err := m.touch(ctx); err != nil {
		return nil, err
	}
	if err := hippo.ValidateBlockKey(key); err != nil {
		return nil, err
	}
	if err := hippo.ValidateText("text", text, m.cfg.MaxBlockValue); err != nil {
		return nil, err
	}
	return m.updateBlock(ctx, key, true, func(old string, exists bool) (string, error) {
		if !exists || old == "" {
			return text, nil
		}
		return old + "\n" + text, nil
	})
}

// ReplaceBlock implements hippo.MemoryService: every occurrence of old is
// replaced. ENOTFOUND when the block does not exist or old does not occur.
func (m *agentStore) ReplaceBlock(ctx context.Context, key, old, new string) (*hippo.Block, int, error) {
	if err := m.touch(ctx); err != nil {
		return nil, 0, err
	}
	if err := hippo.ValidateBlockKey(key); err != nil {
		return nil, 0, err
	}
	if old == "" {
		return nil, 0, hippo.Invalidf("old_text", "must not be empty")
	}
	if err := hippo.ValidateText("old_text", old, m.cfg.MaxBlockValue); err != nil {
		return nil, 0, err
	}
	if !utf8.ValidString(new) {
		return nil, 0, hippo.Invalidf("new_text", "must be valid UTF-8")
	}
	var count int
	b, err := m.updateBlock(ctx, key, false, func(value string, exists bool) (string, error) {
		if !exists {
			return "", hippo.Errorf(hippo.ENOTFOUND, "block %q does not exist", key)
		}
		count = strings.Count(value, old)
		if count == 0 {
			return "", hippo.Errorf(hippo.ENOTFOUND, "text %q not found in block %q", old, key)
		}
		return strings.ReplaceAll(value, old, new), nil
	})
	if err != nil {
		return nil, 0, err
	}
	m.db.checkpoint(ctx) // the replaced text leaves the WAL
	return b, count, nil
}

// updateBlock reads, changes and writes a block in one write transaction.
func (m *agentStore) updateBlock(ctx context.Context, key string, create bool, change func(string, bool) (string, error)) (*hippo.Block, error) {
	tx, err := m.db.write.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	b, err := getBlock(ctx, tx, m.opts.AgentID, m.opts.Scope, key)
	exists := err == nil
	if err != nil && err != sql.ErrNoRows {
		return nil, err
	}
	var old, desc string
	if exists {
		old, desc = b.Value, b.Description
	}
	value, err := change(old, exists)
	if err != nil {
		return nil, err
	}
	if n, max := utf8.RuneCountInString(value), m.cfg.MaxBlockValue; n > max {
		return nil, hippo.Invalidf("text", "block %q would grow to %d characters, more than the %d allowed", key, n, max)
	}
	if !exists && !create {
		return nil, hippo.Errorf(hippo.ENOTFOUND, "block %q does not exist", key)
	}
	now := m.db.now()
	if _, err := tx.ExecContext(ctx, `INSERT INTO memory_blocks (agent_id, scope, key, value, updated_at)
		VALUES (?, ?, ?, ?, ?) ON CONFLICT (agent_id, scope, key)
		DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
		m.opts.AgentID, m.opts.Scope, key, value, formatTime(now)); err != nil {
		return nil, fmt.Errorf("write block %q: %w", key, err)
	}
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	return &hippo.Block{AgentID: m.opts.AgentID, Scope: m.opts.Scope, Key: key, Value: value, Description: desc, UpdatedAt: now.UTC()}, nil
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

// SetBlock replaces a block's whole value, creating the block when missing.
// An empty value is allowed: the block exists and is empty.
func (m *agentStore) SetBlock(ctx context.Context, key, value string) (*hippo.Block, error) {
	if err := m.touch(ctx); err != nil {
		return nil, err
	}
	if err := hippo.ValidateBlockKey(key); err != nil {
		return nil, err
	}
	if !utf8.ValidString(value) {
		return nil, hippo.Invalidf("value", "must be valid UTF-8")
	}
	b, err := m.updateBlock(ctx, key, true, func(string, bool) (string, error) { return value, nil })
	if err != nil {
		return nil, err
	}
	m.db.checkpoint(ctx) // the old value leaves the WAL
	return b, nil
}

// DescribeBlock sets what a block is for ("" clears it), creating the block
// empty when it does not exist.
func (m *agentStore) DescribeBlock(ctx context.Context, key, description string) (*hippo.Block, error) {
	if err := m.touch(ctx); err != nil {
		return nil, err
	}
	if err := hippo.ValidateBlockKey(key); err != nil {
		return nil, err
	}
	if err := hippo.ValidateDescription(description); err != nil {
		return nil, err
	}
	now := m.db.now()
	if _, err := m.db.write.ExecContext(ctx, `INSERT INTO memory_blocks (agent_id, scope, key, value, description, updated_at)
		VALUES (?, ?, ?, '', ?, ?) ON CONFLICT (agent_id, scope, key)
		DO UPDATE SET description = excluded.description, updated_at = excluded.updated_at`,
		m.opts.AgentID, m.opts.Scope, key, description, formatTime(now)); err != nil {
		return nil, fmt.Errorf("describe block %q: %w", key, err)
	}
	return getBlock(ctx, m.db.read, m.opts.AgentID, m.opts.Scope, key)
}

// Blocks lists the agent's blocks in the write scope.
func (m *agentStore) Blocks(ctx context.Context) ([]BlockInfo, error) {
	scope := m.opts.Scope
	return m.db.ListBlocks(ctx, m.opts.AgentID, &scope)
}

// DeleteBlock deletes a block of the write scope. ENOTFOUND when missing.
func (m *agentStore) DeleteBlock(ctx context.Context, key string) error {
	if err := m.touch(ctx); err != nil {
		return err
	}
	if err := hippo.ValidateBlockKey(key); err != nil {
		return err
	}
	res, err := m.db.write.ExecContext(ctx, `DELETE FROM memory_blocks WHERE agent_id = ? AND scope = ? AND key = ?`,
		m.opts.AgentID, m.opts.Scope, key)
	if err != nil {
		return fmt.Errorf("delete block %q: %w", key, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return hippo.Errorf(hippo.ENOTFOUND, "block %q does not exist", key)
	}
	m.db.checkpoint(ctx)
	return nil
}
