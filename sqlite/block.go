package sqlite

import (
	"context"

	"github.com/hippo-mem/hippo"
)

// Blocks' rows (memory_blocks); their behaviour is engine.Memory's.

// ListBlocks implements engine.Store.
func (m *agentStore) ListBlocks(ctx context.Context, scope string) ([]hippo.BlockInfo, error) {
	return m.db.ListBlocks(ctx, m.opts.AgentID, &scope)
}
