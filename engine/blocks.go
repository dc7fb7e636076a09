package engine

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/hippo-mem/hippo"
)

// Blocks' behaviour: keys, texts and limits checked, values changed in one
// write transaction; the store reads and writes rows (Tx.GetBlock,
// PutBlock, SetDescription, DeleteBlock and Store.ListBlocks).

// Block implements hippo.MemoryService: nil, nil when the block is missing.
func (m *Memory) Block(ctx context.Context, key string) (*hippo.Block, error) {
	if err := m.touch(ctx); err != nil {
		return nil, err
	}
	if err := hippo.ValidateBlockKey(key); err != nil {
		return nil, err
	}
	var b *hippo.Block
	err := m.s.View(ctx, func(tx Tx) error {
		var err error
		b, err = tx.GetBlock(ctx, m.opts.Scope, key)
		return err
	})
	return b, err
}

// AppendBlock implements hippo.MemoryService. A missing block is created
// with text as its value; otherwise text is appended on a new line.
func (m *Memory) AppendBlock(ctx context.Context, key, text string) (*hippo.Block, error) {
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
func (m *Memory) ReplaceBlock(ctx context.Context, key, old, new string) (*hippo.Block, int, error) {
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
	m.s.AfterBulkWrite(ctx) // the replaced text leaves the store's log
	return b, count, nil
}

// updateBlock reads, changes and writes a block in one write transaction.
func (m *Memory) updateBlock(ctx context.Context, key string, create bool, change func(string, bool) (string, error)) (*hippo.Block, error) {
	var out *hippo.Block
	err := m.s.Update(ctx, func(tx Tx) error {
		b, err := tx.GetBlock(ctx, m.opts.Scope, key)
		if err != nil {
			return err
		}
		exists := b != nil
		var old, desc string
		if exists {
			old, desc = b.Value, b.Description
		}
		value, err := change(old, exists)
		if err != nil {
			return err
		}
		if n, max := utf8.RuneCountInString(value), m.cfg.MaxBlockValue; n > max {
			return hippo.Invalidf("text", "block %q would grow to %d characters, more than the %d allowed", key, n, max)
		}
		if !exists && !create {
			return hippo.Errorf(hippo.ENOTFOUND, "block %q does not exist", key)
		}
		now := m.clock.Now()
		if err := tx.PutBlock(ctx, m.opts.Scope, key, value, now); err != nil {
			return err
		}
		out = &hippo.Block{AgentID: m.opts.AgentID, Scope: m.opts.Scope, Key: key, Value: value, Description: desc, UpdatedAt: now.UTC()}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// SetBlock implements hippo.MemoryService: the block's whole value
// replaced, the block created when missing. An empty value is allowed: the
// block exists and is empty.
func (m *Memory) SetBlock(ctx context.Context, key, value string) (*hippo.Block, error) {
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
	m.s.AfterBulkWrite(ctx) // the old value leaves the store's log
	return b, nil
}

// DescribeBlock implements hippo.MemoryService: what a block is for (""
// clears it), the block created empty when it does not exist.
func (m *Memory) DescribeBlock(ctx context.Context, key, description string) (*hippo.Block, error) {
	if err := m.touch(ctx); err != nil {
		return nil, err
	}
	if err := hippo.ValidateBlockKey(key); err != nil {
		return nil, err
	}
	if err := hippo.ValidateDescription(description); err != nil {
		return nil, err
	}
	err := m.s.Update(ctx, func(tx Tx) error {
		return tx.DescribeBlock(ctx, m.opts.Scope, key, description, m.clock.Now())
	})
	if err != nil {
		return nil, err
	}
	var b *hippo.Block
	err = m.s.View(ctx, func(tx Tx) error {
		var err error
		if b, err = tx.GetBlock(ctx, m.opts.Scope, key); err == nil && b == nil {
			err = hippo.Errorf(hippo.ENOTFOUND, "block %q does not exist", key)
		}
		return err
	})
	return b, err
}

// Blocks implements hippo.MemoryService: the blocks of the write scope.
func (m *Memory) Blocks(ctx context.Context) ([]hippo.BlockInfo, error) {
	return m.s.ListBlocks(ctx, m.opts.Scope)
}

// DeleteBlock implements hippo.MemoryService: a block of the write scope.
// ENOTFOUND when missing.
func (m *Memory) DeleteBlock(ctx context.Context, key string) error {
	if err := m.touch(ctx); err != nil {
		return err
	}
	if err := hippo.ValidateBlockKey(key); err != nil {
		return err
	}
	var found bool
	err := m.s.Update(ctx, func(tx Tx) error {
		var err error
		found, err = tx.DeleteBlock(ctx, m.opts.Scope, key)
		return err
	})
	if err != nil {
		return err
	}
	if !found {
		return hippo.Errorf(hippo.ENOTFOUND, "block %q does not exist", key)
	}
	m.s.AfterBulkWrite(ctx)
	return nil
}

// scopeBlocks are the agent's blocks of one scope with their values, in
// the store's order; blocks deleted meanwhile are left out.
func (m *Memory) scopeBlocks(ctx context.Context, scope string) ([]*hippo.Block, error) {
	infos, err := m.s.ListBlocks(ctx, scope)
	if err != nil {
		return nil, err
	}
	var blocks []*hippo.Block
	err = m.s.View(ctx, func(tx Tx) error {
		for _, info := range infos {
			b, err := tx.GetBlock(ctx, scope, info.Key)
			if err != nil {
				return err
			}
			if b != nil {
				blocks = append(blocks, b)
			}
		}
		return nil
	})
	return blocks, err
}
