package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/hippo-mem/hippo"
)

// factsSinceQuery reads the live facts of an agent in a scope changed
// after a change-log position. The "+" keep the planner on the primary key
// for the few changed IDs: the agent's (agent_id, kind) index would visit
// every fact of the agent.
const factsSinceQuery = `SELECT id, content, embedding, running_intensity FROM chunks
	WHERE id IN (SELECT chunk_id FROM hippo_changes WHERE agent_id = ? AND seq > ?)
	AND +agent_id = ? AND scope = ? AND +kind = 'fact' AND +superseded_by IS NULL`

// FactsSince implements engine.FactWriter: the change log joined to the
// live facts.
func (t agentTx) FactsSince(ctx context.Context, scope string, seq int64, fn func(id, content string, vec []byte, intensity float64) error) error {
	rows, err := t.tx.QueryContext(ctx, factsSinceQuery, t.agent, seq, t.agent, scope)
	if err != nil {
		return fmt.Errorf("load new facts: %w", err)
	}
	defer rows.Close()
	var (
		id, content string
		blob        []byte
		intensity   float64
	)
	for rows.Next() {
		if err := rows.Scan(&id, &content, &blob, &intensity); err != nil {
			return fmt.Errorf("load new facts: %w", err)
		}
		if err := fn(id, content, blob, intensity); err != nil {
			return err
		}
	}
	return rows.Err()
}

// IsLive implements engine.FactWriter.
func (t agentTx) IsLive(ctx context.Context, id string) (bool, error) {
	var live bool
	err := t.tx.QueryRowContext(ctx, `SELECT superseded_by IS NULL FROM chunks WHERE id = ? AND agent_id = ?`, id, t.agent).Scan(&live)
	if err == sql.ErrNoRows {
		return false, nil
	}
	return live, err
}

// Insert implements engine.FactWriter.
func (t agentTx) Insert(ctx context.Context, c *hippo.Chunk) error {
	return insertChunk(ctx, t.tx, c)
}

// Supersede implements engine.FactWriter.
func (t agentTx) Supersede(ctx context.Context, id, by string, at time.Time) (string, bool, error) {
	var content string
	err := t.tx.QueryRowContext(ctx, `UPDATE chunks SET superseded_by = ?, superseded_at = ?
		WHERE id = ? AND agent_id = ? AND superseded_by IS NULL RETURNING content`,
		by, formatTime(at), id, t.agent).Scan(&content)
	if err == sql.ErrNoRows {
		return "", false, nil
	}
	return content, err == nil, err
}
