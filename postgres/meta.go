package postgres

import (
	"context"
	"errors"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/internal/sqlstore"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// querier is a pool, a connection or a transaction.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// ModelLock implements engine.AdminStore.
func (s adminStore) ModelLock(ctx context.Context) (*hippo.ModelLock, error) {
	return sqlstore.ModelLock(ctx, pgQuerier{s.db.pool})
}

// LockModel implements engine.AdminStore. The first writers race on the
// lock's insert: the loser waits for the winner's commit, then finds its
// lock.
func (s adminStore) LockModel(ctx context.Context, model string, dim int) error {
	return pgx.BeginFunc(ctx, s.db.pool, func(tx pgx.Tx) error { return sqlstore.LockModel(ctx, pgQuerier{tx}, model, dim) })
}

// uniqueViolation is PostgreSQL's SQLSTATE for a unique constraint.
const uniqueViolation = "23505"

// isUniqueViolation reports whether err is a unique or primary key
// violation, by SQLSTATE: the store translates it into ECONFLICT, and no
// caller reads the message's text.
func isUniqueViolation(err error) bool {
	var e *pgconn.PgError
	return errors.As(err, &e) && e.Code == uniqueViolation
}

// readDecayModel reads the recorded decay model, hippo.DecayHippo when
// none is.
func readDecayModel(ctx context.Context, q querier) (hippo.DecayModel, error) {
	v, err := sqlstore.Meta(ctx, pgQuerier{q}, "decay_model")
	if err != nil {
		return "", err
	}
	return hippo.RecordedDecayModel(v)
}
