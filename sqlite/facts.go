package sqlite

import (
	"context"

	"github.com/hippo-mem/hippo/engine"
)

// factsSinceQuery reads the live facts of an agent in a scope changed
// after a change-log position. The "+" keep the planner on the primary key
// for the few changed IDs: the agent's (agent_id, kind) index would visit
// every fact of the agent.
const factsSinceQuery = `SELECT id, content, embedding, running_intensity FROM chunks
	WHERE id IN (SELECT chunk_id FROM hippo_changes WHERE agent_id = ? AND seq > ?)
	AND +agent_id = ? AND scope = ? AND +kind = 'fact' AND +superseded_by IS NULL`

// FactRows implements engine.FactWriter: the change log joined to the
// live facts.
func (t agentTx) FactRows(ctx context.Context, scope string, seq int64) (engine.Rows, error) {
	return t.tx.QueryContext(ctx, factsSinceQuery, t.Agent, seq, t.Agent, scope)
}
