package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/hippo-mem/hippo"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// querier is a pool, a connection or a transaction.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// EmbeddingModel implements hippo.Store: the recorded lock, nil when
// nothing has been embedded yet.
func (db *DB) EmbeddingModel(ctx context.Context) (*hippo.ModelLock, error) {
	return readLock(ctx, db.pool)
}

// VerifyEmbeddingModel implements hippo.Store: it checks model and dim
// (0: not yet known) against the lock, recording them when there is none
// and dim is known.
func (db *DB) VerifyEmbeddingModel(ctx context.Context, model string, dim int) error {
	if dim <= 0 {
		lock, err := db.EmbeddingModel(ctx)
		if err != nil || lock == nil {
			return err
		}
		return lock.Check(model, dim)
	}
	return pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error { return lockModelTx(ctx, tx, model, dim) })
}

// lockModelTx checks the lock in a write transaction and records it when
// absent. The first writers race on the insert: the loser waits for the
// winner's commit, then finds its lock.
func lockModelTx(ctx context.Context, tx querier, model string, dim int) error {
	lock, err := readLock(ctx, tx)
	if err != nil {
		return err
	}
	if lock != nil {
		return lock.Check(model, dim)
	}
	if model == "" {
		return hippo.Errorf(hippo.EINVALID, "embedding model name must not be empty")
	}
	tag, err := tx.Exec(ctx, `INSERT INTO hippo_meta (key, value) VALUES
		('embedding_model', $1), ('embedding_dimension', $2) ON CONFLICT DO NOTHING`, model, strconv.Itoa(dim))
	if err != nil {
		return fmt.Errorf("record embedding model: %w", err)
	}
	if tag.RowsAffected() == 2 {
		return nil
	}
	if lock, err = readLock(ctx, tx); err != nil {
		return err
	}
	if lock == nil {
		return hippo.Errorf(hippo.EINTERNAL, "embedding model lock is incomplete")
	}
	return lock.Check(model, dim)
}

// readLock reads the model lock through q.
func readLock(ctx context.Context, q querier) (*hippo.ModelLock, error) {
	var model, dim *string
	err := q.QueryRow(ctx, `SELECT
		(SELECT value FROM hippo_meta WHERE key = 'embedding_model'),
		(SELECT value FROM hippo_meta WHERE key = 'embedding_dimension')`).Scan(&model, &dim)
	if err != nil {
		return nil, fmt.Errorf("read embedding model: %w", err)
	}
	if model == nil || *model == "" {
		return nil, nil
	}
	n := 0
	if dim != nil {
		n, _ = strconv.Atoi(*dim)
	}
	return &hippo.ModelLock{Model: *model, Dimension: n}, nil
}

// getMeta is the value of hippo_meta's key, "" when there is none.
func getMeta(ctx context.Context, q querier, key string) (string, error) {
	var v string
	if err := q.QueryRow(ctx, `SELECT coalesce((SELECT value FROM hippo_meta WHERE key = $1), '')`, key).Scan(&v); err != nil {
		return "", fmt.Errorf("read %s: %w", key, err)
	}
	return v, nil
}

func setMeta(ctx context.Context, q querier, key, value string) error {
	if _, err := q.Exec(ctx, `INSERT INTO hippo_meta (key, value) VALUES ($1, $2)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value`, key, value); err != nil {
		return fmt.Errorf("record %s: %w", key, err)
	}
	return nil
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
	var recorded string
	err := q.QueryRow(ctx, `SELECT coalesce((SELECT value FROM hippo_meta WHERE key = 'decay_model'), '')`).Scan(&recorded)
	if err != nil {
		return "", fmt.Errorf("read decay model: %w", err)
	}
	return hippo.RecordedDecayModel(recorded)
}

// DecayModel is the model strength decays by (Config.Decay).
func (db *DB) DecayModel() hippo.DecayModel { return db.cfg.Decay }
