// Package sqlstore is the row I/O that Hippo's SQL stores (sqlite and
// postgres) share: the statements that read and write one agent's
// chunks, blocks and inputs, the settings and the model lock alike on
// both, written once with ? placeholders over a Querier each store adapts
// its driver to. What differs between the stores (change feeds, text
// search, durability, bulk loads) stays in theirs.
package sqlstore

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/hippo-mem/hippo/engine"
)

// Querier runs statements written with ? placeholders on a store's
// connection or transaction.
type Querier interface {
	// Exec runs a statement and returns the rows it changed.
	Exec(ctx context.Context, query string, args ...any) (int64, error)
	Query(ctx context.Context, query string, args ...any) (engine.Rows, error)
	QueryRow(ctx context.Context, query string, args ...any) Row
}

// Row is a query's one row: Scan returns ErrNoRows when there is none.
type Row interface {
	Scan(dest ...any) error
}

// ErrNoRows is what a Row's Scan returns when the query found no row:
// each store's Querier translates its driver's to it.
var ErrNoRows = errors.New("sqlstore: no rows")

// Numbered rewrites the ? placeholders of query as $1, $2, ... (for
// PostgreSQL). The statements of this package hold no other ?.
func Numbered(query string) string {
	if strings.IndexByte(query, '?') < 0 {
		return query
	}
	var b strings.Builder
	b.Grow(len(query) + 16)
	n := 0
	for i := 0; i < len(query); i++ {
		if query[i] != '?' {
			b.WriteByte(query[i])
			continue
		}
		n++
		b.WriteByte('$')
		b.WriteString(strconv.Itoa(n))
	}
	return b.String()
}

// scanOne scans row into dest: false, and no error, when there is none.
func scanOne(row Row, dest ...any) (bool, error) {
	err := row.Scan(dest...)
	if errors.Is(err, ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

// nullIfEmpty stores "" as NULL.
func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}
