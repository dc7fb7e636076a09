package sqlstore

import (
	"context"
	"fmt"
	"strings"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/engine"
)

// Export is a read transaction as engine.ExportRows.
type Export struct{ Q Querier }

// ModelLock implements engine.ExportRows.
func (e Export) ModelLock(ctx context.Context) (*hippo.ModelLock, error) { return ModelLock(ctx, e.Q) }

// DecayModel implements engine.ExportRows.
func (e Export) DecayModel(ctx context.Context) (hippo.DecayModel, error) {
	v, err := Meta(ctx, e.Q, "decay_model")
	if err != nil {
		return "", err
	}
	return hippo.RecordedDecayModel(v)
}

// exportWhere selects opts' agent and scope, columns of table c.
func exportWhere(opts hippo.ExportOptions) (string, []any) {
	where, args := []string{"true"}, []any{}
	if opts.AgentID != "" {
		where = append(where, "c.agent_id = ?")
		args = append(args, opts.AgentID)
	}
	if opts.Scope != nil {
		where = append(where, "c.scope = ?")
		args = append(args, *opts.Scope)
	}
	return " WHERE " + strings.Join(where, " AND "), args
}

// Blocks implements engine.ExportRows.
func (e Export) Blocks(ctx context.Context, opts hippo.ExportOptions, fn func(*engine.ExportBlock) error) error {
	cond, args := exportWhere(opts)
	rows, err := e.Q.Query(ctx, `SELECT agent_id, scope, key, value, description, updated_at FROM memory_blocks AS c`+
		cond+` ORDER BY agent_id, scope, key`, args...)
	err = each(rows, err, func() error {
		var b engine.ExportBlock
		if err := rows.Scan(&b.AgentID, &b.Scope, &b.Key, &b.Value, &b.Description, &b.UpdatedAt); err != nil {
			return err
		}
		return fn(&b)
	})
	if err != nil {
		return fmt.Errorf("export blocks: %w", err)
	}
	return nil
}

// Chunks implements engine.ExportRows.
func (e Export) Chunks(ctx context.Context, opts hippo.ExportOptions, fn func(*engine.ExportChunk) error) error {
	cond, args := exportWhere(opts)
	rows, err := e.Q.Query(ctx, `SELECT id, agent_id, scope, kind, content, content_hash, embedding, metadata,
		running_intensity, encounter_count, access_count, last_accessed_at, superseded_by, superseded_at, created_at,
		COALESCE(suspicious, ''), origin, caller, source, input_hash, extractor, parts, context_of FROM chunks AS c`+cond+` ORDER BY id`, args...)
	err = each(rows, err, func() error {
		var c engine.ExportChunk
		if err := rows.Scan(&c.ID, &c.AgentID, &c.Scope, &c.Kind, &c.Content, &c.ContentHash, &c.Embedding,
			&c.Metadata, &c.RunningIntensity, &c.EncounterCount, &c.AccessCount, &c.LastAccessedAt,
			&c.SupersededBy, &c.SupersededAt, &c.CreatedAt, &c.Suspicious, &c.Origin, &c.Caller, &c.Source, &c.InputHash,
			&c.Extractor, &c.Parts, &c.ContextOf); err != nil {
			return err
		}
		return fn(&c)
	})
	if err != nil {
		return fmt.Errorf("export chunks: %w", err)
	}
	return nil
}

// Inputs implements engine.ExportRows: the inputs some selected chunk
// refers to, by agent and hash.
func (e Export) Inputs(ctx context.Context, opts hippo.ExportOptions, fn func(*engine.ExportInput) error) error {
	cond, args := exportWhere(opts)
	rows, err := e.Q.Query(ctx, `SELECT agent_id, hash, text, created_at FROM chunk_inputs AS i
		WHERE EXISTS (SELECT 1 FROM chunks AS c`+cond+` AND c.agent_id = i.agent_id AND c.input_hash = i.hash)
		ORDER BY agent_id, hash`, args...)
	err = each(rows, err, func() error {
		var in engine.ExportInput
		if err := rows.Scan(&in.AgentID, &in.Hash, &in.Text, &in.CreatedAt); err != nil {
			return err
		}
		return fn(&in)
	})
	if err != nil {
		return fmt.Errorf("export inputs: %w", err)
	}
	return nil
}

// each calls row for every row until it fails, and closes rows.
func each(rows engine.Rows, err error, row func() error) error {
	if err != nil {
		return err
	}
	defer func() {
		switch r := rows.(type) {
		case interface{ Close() error }:
			r.Close()
		case interface{ Close() }:
			r.Close()
		}
	}()
	for rows.Next() {
		if err := row(); err != nil {
			return err
		}
	}
	return rows.Err()
}
