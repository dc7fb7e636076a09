package sqlite

import (
	"context"
	"database/sql"
	"io"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/engine"
	"github.com/hippo-mem/hippo/internal/sqlstore"
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

// ExportView implements engine.ExportStore: a read transaction.
func (db *DB) ExportView(ctx context.Context, fn func(engine.ExportRows) error) error {
	tx, err := db.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	return fn(sqlstore.Export{Q: querierOf(tx)})
}

// closeRows closes rows, returning the first error of their reading or
// closing.
func closeRows(rows *sql.Rows) error {
	err := rows.Err()
	if cerr := rows.Close(); err == nil {
		err = cerr
	}
	return err
}
