package postgres

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/engine"
	"github.com/jackc/pgx/v5"
)

// Export implements hippo.Exporter: engine.Export over one read snapshot.
func (db *DB) Export(ctx context.Context, w io.Writer, opts hippo.ExportOptions) (*hippo.ExportSummary, error) {
	return engine.Export(ctx, db, w, opts)
}

// ExportView implements engine.ExportStore with a repeatable-read
// transaction.
func (db *DB) ExportView(ctx context.Context, fn func(engine.ExportRows) error) error {
	return pgx.BeginTxFunc(ctx, db.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly},
		func(tx pgx.Tx) error { return fn(exportRows{tx}) })
}

// exportRows is a read transaction as engine.ExportRows.
type exportRows struct{ tx pgx.Tx }

func (r exportRows) ModelLock(ctx context.Context) (*hippo.ModelLock, error) {
	return readLock(ctx, r.tx)
}

// exportWhere selects opts' agent and scope.
func exportWhere(opts hippo.ExportOptions) (string, []any) {
	var where []string
	var args []any
	if opts.AgentID != "" {
		args = append(args, opts.AgentID)
		where = append(where, fmt.Sprintf("agent_id = $%d", len(args)))
	}
	if opts.Scope != nil {
		args = append(args, *opts.Scope)
		where = append(where, fmt.Sprintf("scope = $%d", len(args)))
	}
	if len(where) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(where, " AND "), args
}

func (r exportRows) Blocks(ctx context.Context, opts hippo.ExportOptions, fn func(*engine.ExportBlock) error) error {
	cond, args := exportWhere(opts)
	rows, err := r.tx.Query(ctx, `SELECT agent_id, scope, key, value, description, updated_at FROM memory_blocks`+
		cond+` ORDER BY agent_id, scope, key`, args...)
	if err != nil {
		return fmt.Errorf("export blocks: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var b engine.ExportBlock
		if err := rows.Scan(&b.AgentID, &b.Scope, &b.Key, &b.Value, &b.Description, &b.UpdatedAt); err != nil {
			return fmt.Errorf("export blocks: %w", err)
		}
		if err := fn(&b); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("export blocks: %w", err)
	}
	return nil
}

func (r exportRows) Chunks(ctx context.Context, opts hippo.ExportOptions, fn func(*engine.ExportChunk) error) error {
	cond, args := exportWhere(opts)
	rows, err := r.tx.Query(ctx, `SELECT id, agent_id, scope, kind, content, content_hash, embedding, metadata,
		running_intensity, encounter_count, access_count, last_accessed_at, superseded_by, superseded_at, created_at,
		coalesce(suspicious, ''), origin, caller, source, input_hash FROM chunks`+cond+` ORDER BY id`, args...)
	if err != nil {
		return fmt.Errorf("export chunks: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var c engine.ExportChunk
		if err := rows.Scan(&c.ID, &c.AgentID, &c.Scope, &c.Kind, &c.Content, &c.ContentHash, &c.Embedding,
			&c.Metadata, &c.RunningIntensity, &c.EncounterCount, &c.AccessCount, &c.LastAccessedAt,
			&c.SupersededBy, &c.SupersededAt, &c.CreatedAt, &c.Suspicious, &c.Origin, &c.Caller, &c.Source, &c.InputHash); err != nil {
			return fmt.Errorf("export chunks: %w", err)
		}
		if err := fn(&c); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("export chunks: %w", err)
	}
	return nil
}

// Inputs implements engine.ExportRows: the inputs some selected chunk
// refers to, by agent and hash.
func (r exportRows) Inputs(ctx context.Context, opts hippo.ExportOptions, fn func(*engine.ExportInput) error) error {
	cond, args := exportWhere(opts)
	if cond == "" {
		cond = " WHERE true"
	}
	cond = strings.NewReplacer("agent_id", "c.agent_id", "scope", "c.scope").Replace(cond)
	rows, err := r.tx.Query(ctx, `SELECT agent_id, hash, text, created_at FROM chunk_inputs AS i
		WHERE EXISTS (SELECT 1 FROM chunks AS c`+cond+` AND c.agent_id = i.agent_id AND c.input_hash = i.hash)
		ORDER BY agent_id, hash`, args...)
	if err != nil {
		return fmt.Errorf("export inputs: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var in engine.ExportInput
		if err := rows.Scan(&in.AgentID, &in.Hash, &in.Text, &in.CreatedAt); err != nil {
			return fmt.Errorf("export inputs: %w", err)
		}
		if err := fn(&in); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("export inputs: %w", err)
	}
	return nil
}

func (r exportRows) DecayModel(ctx context.Context) (hippo.DecayModel, error) {
	return readDecayModel(ctx, r.tx)
}
