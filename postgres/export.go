package postgres

import (
	"context"
	"io"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/engine"
	"github.com/hippo-mem/hippo/internal/sqlstore"
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
		func(tx pgx.Tx) error { return fn(sqlstore.Export{Q: pgQuerier{tx}}) })
}
