package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"

	"github.com/hippo-mem/hippo"
)

// ModelLock is hippo.ModelLock.
type ModelLock = hippo.ModelLock

// EmbeddingModel returns the recorded lock, or nil when nothing has been
// embedded yet.
func (db *DB) EmbeddingModel(ctx context.Context) (*ModelLock, error) {
	return db.readLock(ctx, db.read)
}

// VerifyEmbeddingModel checks model and dim (0: not yet known) against the
// lock, recording them when the database has none and dim is known.
func (db *DB) VerifyEmbeddingModel(ctx context.Context, model string, dim int) error {
	if dim <= 0 {
		lock, err := db.EmbeddingModel(ctx)
		if err != nil || lock == nil {
			return err
		}
		return lock.Check(model, dim)
	}
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := db.lockModelTx(ctx, tx, model, dim); err != nil {
		return err
	}
	return tx.Commit()
}

// lockModelTx checks the lock inside a write transaction and records it if
// absent.
func (db *DB) lockModelTx(ctx context.Context, tx sqlTx, model string, dim int) error {
	lock, err := db.readLock(ctx, tx)
	if err != nil {
		return err
	}
	if lock != nil {
		return lock.Check(model, dim)
	}
	if model == "" {
		return hippo.Errorf(hippo.EINVALID, "embedding model name must not be empty")
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO hippo_meta (key, value) VALUES
		('embedding_model', ?), ('embedding_dimension', ?)`, model, strconv.Itoa(dim)); err != nil {
		return fmt.Errorf("record embedding model: %w", err)
	}
	return nil
}

type queryRower interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// readLock reads the lock through q: the read pool for the committed lock,
// or a transaction to see its own writes.
func (db *DB) readLock(ctx context.Context, q queryRower) (*ModelLock, error) {
	var model, dim string
	err := q.QueryRowContext(ctx, `SELECT
		(SELECT value FROM hippo_meta WHERE key = 'embedding_model'),
		(SELECT value FROM hippo_meta WHERE key = 'embedding_dimension')`).Scan(nullable(&model), nullable(&dim))
	if err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, nil
		}
		return nil, fmt.Errorf("read embedding model: %w", err)
	}
	if model == "" {
		return nil, nil
	}
	n, _ := strconv.Atoi(dim)
	return &ModelLock{Model: model, Dimension: n}, nil
}

// readDecayModel reads the recorded decay model through q (hippo.DecayHippo
// when none is recorded).
func readDecayModel(ctx context.Context, q queryRower) (hippo.DecayModel, error) {
	var recorded string
	err := q.QueryRowContext(ctx, `SELECT COALESCE((SELECT value FROM hippo_meta WHERE key = 'decay_model'), '')`).Scan(&recorded)
	if err != nil {
		return "", fmt.Errorf("read decay model: %w", err)
	}
	return hippo.RecordedDecayModel(recorded)
}
