package sqlite

import (
	"context"
	"database/sql"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/internal/sqlstore"
)

// ModelLock is hippo.ModelLock.
type ModelLock = hippo.ModelLock

// ModelLock implements engine.AdminStore: the committed lock.
func (s adminStore) ModelLock(ctx context.Context) (*ModelLock, error) {
	return sqlstore.ModelLock(ctx, querierOf(s.db.read))
}

// LockModel implements engine.AdminStore in a write transaction of its
// own.
func (s adminStore) LockModel(ctx context.Context, model string, dim int) error {
	tx, err := s.db.write.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := sqlstore.LockModel(ctx, querierOf(tx), model, dim); err != nil {
		return err
	}
	return tx.Commit()
}

type queryRower interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// readDecayModel reads the recorded decay model through q (hippo.DecayHippo
// when none is recorded).
func readDecayModel(ctx context.Context, q sqlTx) (hippo.DecayModel, error) {
	v, err := sqlstore.Meta(ctx, sqlQuerier{q}, "decay_model")
	if err != nil {
		return "", err
	}
	return hippo.RecordedDecayModel(v)
}
