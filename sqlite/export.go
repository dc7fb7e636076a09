package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"strings"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/engine"
)

// Hippo's export format (engine.ExportFormat, written by engine.Export).
const (
	ExportFormat  = engine.ExportFormat
	ExportVersion = engine.ExportVersion
)

// FormatTypeScript names the version-1 export of the TypeScript Hippo CLI,
// which Import also reads: {"version":1,"agentId":"...","blocks":[{"key",
// "scope","updatedAt","value"}],"chunks":[{"id","kind","content",
// "content_hash","embedding_base64","metadata",...}]}. It records no
// embedding model.
const FormatTypeScript = engine.FormatTypeScript

// ExportOptions is hippo.ExportOptions.
type ExportOptions = hippo.ExportOptions

// ExportSummary is hippo.ExportSummary.
type ExportSummary = hippo.ExportSummary

// Export implements hippo.Exporter: engine.Export over one read-only
// transaction.
func (db *DB) Export(ctx context.Context, w io.Writer, opts ExportOptions) (*ExportSummary, error) {
	return engine.Export(ctx, db, w, opts)
}

// ExportView implements engine.ExportStore.
func (db *DB) ExportView(ctx context.Context, fn func(engine.ExportRows) error) error {
	tx, err := db.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	return fn(exportRows{db, tx})
}

// exportRows is a read transaction as engine.ExportRows.
type exportRows struct {
	db *DB
	tx *sql.Tx
}

func (r exportRows) ModelLock(ctx context.Context) (*hippo.ModelLock, error) {
	return r.db.readLock(ctx, r.tx)
}

func (r exportRows) DecayModel(ctx context.Context) (hippo.DecayModel, error) {
	return readDecayModel(ctx, r.tx)
}

// exportWhere selects opts' agent and scope.
func exportWhere(opts ExportOptions) (string, []any) {
	var where []string
	var args []any
	if opts.AgentID != "" {
		where = append(where, "agent_id = ?")
		args = append(args, opts.AgentID)
	}
	if opts.Scope != nil {
		where = append(where, "scope = ?")
		args = append(args, *opts.Scope)
	}
	if len(where) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(where, " AND "), args
}

func (r exportRows) Blocks(ctx context.Context, opts ExportOptions, fn func(*engine.ExportBlock) error) error {
	cond, args := exportWhere(opts)
	rows, err := r.tx.QueryContext(ctx, `SELECT agent_id, scope, key, value, description, updated_at FROM memory_blocks`+
		cond+` ORDER BY agent_id, scope, key`, args...)
	if err != nil {
		return fmt.Errorf("export blocks: %w", err)
	}
	for rows.Next() {
		var b engine.ExportBlock
		if err := rows.Scan(&b.AgentID, &b.Scope, &b.Key, &b.Value, &b.Description, &b.UpdatedAt); err != nil {
			rows.Close()
			return fmt.Errorf("export blocks: %w", err)
		}
		if err := fn(&b); err != nil {
			rows.Close()
			return err
		}
	}
	if err := closeRows(rows); err != nil {
		return fmt.Errorf("export blocks: %w", err)
	}
	return nil
}

func (r exportRows) Chunks(ctx context.Context, opts ExportOptions, fn func(*engine.ExportChunk) error) error {
	cond, args := exportWhere(opts)
	rows, err := r.tx.QueryContext(ctx, `SELECT id, agent_id, scope, kind, content, content_hash, embedding,
		metadata, running_intensity, encounter_count, access_count, last_accessed_at, superseded_by,
		superseded_at, created_at, COALESCE(suspicious, ''), origin, caller, source, input_hash
		FROM chunks`+cond+` ORDER BY id`, args...)
	if err != nil {
		return fmt.Errorf("export chunks: %w", err)
	}
	for rows.Next() {
		var c engine.ExportChunk
		if err := rows.Scan(&c.ID, &c.AgentID, &c.Scope, &c.Kind, &c.Content, &c.ContentHash, &c.Embedding,
			&c.Metadata, &c.RunningIntensity, &c.EncounterCount, &c.AccessCount, &c.LastAccessedAt,
			&c.SupersededBy, &c.SupersededAt, &c.CreatedAt, &c.Suspicious, &c.Origin, &c.Caller, &c.Source, &c.InputHash); err != nil {
			rows.Close()
			return fmt.Errorf("export chunks: %w", err)
		}
		if err := fn(&c); err != nil {
			rows.Close()
			return err
		}
	}
	if err := closeRows(rows); err != nil {
		return fmt.Errorf("export chunks: %w", err)
	}
	return nil
}

// Inputs implements engine.ExportRows: the inputs some selected chunk
// refers to.
func (r exportRows) Inputs(ctx context.Context, opts ExportOptions, fn func(*engine.ExportInput) error) error {
	cond, args := exportWhere(opts)
	if cond == "" {
		cond = " WHERE 1"
	}
	rows, err := r.tx.QueryContext(ctx, `SELECT agent_id, hash, text, created_at FROM chunk_inputs i
		WHERE EXISTS (SELECT 1 FROM chunks c`+strings.NewReplacer("agent_id", "c.agent_id", "scope", "c.scope").Replace(cond)+`
			AND c.agent_id = i.agent_id AND c.input_hash = i.hash)
		ORDER BY agent_id, hash`, args...)
	if err != nil {
		return fmt.Errorf("export inputs: %w", err)
	}
	for rows.Next() {
		var in engine.ExportInput
		if err := rows.Scan(&in.AgentID, &in.Hash, &in.Text, &in.CreatedAt); err != nil {
			rows.Close()
			return fmt.Errorf("export inputs: %w", err)
		}
		if err := fn(&in); err != nil {
			rows.Close()
			return err
		}
	}
	if err := closeRows(rows); err != nil {
		return fmt.Errorf("export inputs: %w", err)
	}
	return nil
}

func closeRows(rows *sql.Rows) error {
	err := rows.Err()
	if cerr := rows.Close(); err == nil {
		err = cerr
	}
	return err
}
