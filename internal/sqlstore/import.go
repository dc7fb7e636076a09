package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/hippo-mem/hippo/engine"
	"github.com/hippo-mem/hippo/internal/timestamp"
)

// The rows of an import (engine.ImportTx), inserted unless taken.

// ImportChunk implements engine.ImportTx: inserted false when the chunk's
// ID or, for a memory, its content in its scope is taken, dupID true when
// its ID is.
func ImportChunk(ctx context.Context, q Querier, c engine.ImportedChunk) (inserted, dupID bool, err error) {
	n, err := q.Exec(ctx, insertChunks(1), c.ID, c.AgentID, c.Scope, string(c.Kind), c.Content,
		nullIfEmpty(c.ContentHash), c.Embedding, nullIfEmpty(c.Metadata), c.RunningIntensity,
		c.EncounterCount, c.AccessCount, timestamp.Format(c.LastAccessedAt), nullIfEmpty(c.SupersededBy),
		nullTime(c.SupersededAt), timestamp.Format(c.CreatedAt), nullIfEmpty(c.Suspicious),
		nullIfEmpty(c.Provenance.Origin), nullIfEmpty(c.Provenance.Caller), nullIfEmpty(c.Provenance.Source),
		nullIfEmpty(c.Provenance.InputHash), nullIfEmpty(c.Provenance.Extractor), nullIfNone(c.Parts), nullIfEmpty(c.ContextOf))
	if err != nil {
		return false, false, fmt.Errorf("import chunk %s: %w", c.ID, err)
	}
	if n > 0 {
		return true, false, nil
	}
	err = q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM chunks WHERE id = ?)`, c.ID).Scan(&dupID)
	return false, dupID, err
}

// DropContextPart is the SET clause that drops a follow-up's context part
// (its last part, as long as its embedding) and its link.
const DropContextPart = `context_of = NULL,
	parts = CASE WHEN length(parts) > length(embedding) THEN substr(parts, 1, length(parts) - length(embedding)) END`

// DropLostContexts implements engine.ImportTx.
func DropLostContexts(ctx context.Context, q Querier) error {
	_, err := q.Exec(ctx, `UPDATE chunks SET `+DropContextPart+` WHERE context_of IS NOT NULL
		AND NOT EXISTS (SELECT 1 FROM chunks AS p WHERE p.id = chunks.context_of AND p.agent_id = chunks.agent_id AND p.kind = 'memory' AND p.content <> '')`)
	return err
}

// nullIfNone is b, NULL when empty.
func nullIfNone(b []byte) any {
	if len(b) == 0 {
		return nil
	}
	return b
}

// ImportBlock implements engine.ImportTx: false when the block exists.
func ImportBlock(ctx context.Context, q Querier, b engine.ImportedBlock) (bool, error) {
	n, err := q.Exec(ctx, `INSERT INTO memory_blocks (agent_id, scope, key, value, description, updated_at)
		VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
		b.AgentID, b.Scope, b.Key, b.Value, b.Description, timestamp.Format(b.UpdatedAt))
	return n > 0, err
}

// ImportInput implements engine.ImportTx: the input is kept only when a
// chunk of the agent refers to it, and once.
func ImportInput(ctx context.Context, q Querier, in engine.ImportedInput) (bool, error) {
	n, err := q.Exec(ctx, `INSERT INTO chunk_inputs (agent_id, hash, text, created_at)
		SELECT ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM chunks WHERE agent_id = ? AND input_hash = ?)
		ON CONFLICT DO NOTHING`, in.AgentID, in.Hash, in.Text, timestamp.Format(in.CreatedAt), in.AgentID, in.Hash)
	if err != nil {
		return false, fmt.Errorf("import input %s: %w", in.Hash, err)
	}
	return n > 0, nil
}

// nullTime stores the zero time as NULL.
func nullTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return timestamp.Format(t)
}
