package sqlstore

import (
	"context"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/engine"
	"github.com/hippo-mem/hippo/internal/timestamp"
)

// Meta is the value of the setting key (hippo_meta), "" when there is
// none.
func Meta(ctx context.Context, q Querier, key string) (string, error) {
	var v string
	if err := q.QueryRow(ctx, `SELECT COALESCE((SELECT value FROM hippo_meta WHERE key = ?), '')`, key).Scan(&v); err != nil {
		return "", fmt.Errorf("read %s: %w", key, err)
	}
	return v, nil
}

// SetMeta records value as the setting key.
func SetMeta(ctx context.Context, q Querier, key, value string) error {
	if _, err := q.Exec(ctx, `INSERT INTO hippo_meta (key, value) VALUES (?, ?)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value`, key, value); err != nil {
		return fmt.Errorf("record %s: %w", key, err)
	}
	return nil
}

// ModelLock reads the model lock, nil when nothing has been embedded.
func ModelLock(ctx context.Context, q Querier) (*hippo.ModelLock, error) {
	var model, dim string
	ok, err := scanOne(q.QueryRow(ctx, `SELECT
		(SELECT value FROM hippo_meta WHERE key = 'embedding_model'),
		(SELECT value FROM hippo_meta WHERE key = 'embedding_dimension')`), engine.Nullable(&model), engine.Nullable(&dim))
	if err != nil {
		return nil, fmt.Errorf("read embedding model: %w", err)
	}
	if !ok || model == "" {
		return nil, nil
	}
	n, _ := strconv.Atoi(dim)
	return &hippo.ModelLock{Model: model, Dimension: n}, nil
}

// LockModel checks model and dim against the lock in a write
// transaction, recording them when there is none: ECONFLICT when they
// differ. Writers racing to record it first find the winner's lock.
func LockModel(ctx context.Context, q Querier, model string, dim int) error {
	lock, err := ModelLock(ctx, q)
	if err != nil {
		return err
	}
	if lock != nil {
		return lock.Check(model, dim)
	}
	if model == "" {
		return hippo.Errorf(hippo.EINVALID, "embedding model name must not be empty")
	}
	n, err := q.Exec(ctx, `INSERT INTO hippo_meta (key, value) VALUES
		('embedding_model', ?), ('embedding_dimension', ?) ON CONFLICT DO NOTHING`, model, strconv.Itoa(dim))
	if err != nil {
		return fmt.Errorf("record embedding model: %w", err)
	}
	if n == 2 {
		return nil
	}
	if lock, err = ModelLock(ctx, q); err != nil {
		return err
	}
	if lock == nil {
		return hippo.Errorf(hippo.EINTERNAL, "embedding model lock is incomplete")
	}
	return lock.Check(model, dim)
}

// Clock is a store's settings and activity rows as engine.ClockStore:
// read through Read, written through Write.
type Clock struct{ Read, Write Querier }

// Meta implements engine.MetaStore.
func (c Clock) Meta(ctx context.Context, key string) (string, error) { return Meta(ctx, c.Read, key) }

// SetMeta implements engine.MetaStore.
func (c Clock) SetMeta(ctx context.Context, key, value string) error {
	return SetMeta(ctx, c.Write, key, value)
}

// ActiveHours implements engine.ClockStore.
func (c Clock) ActiveHours(ctx context.Context, agentID string, after int64) ([]int64, error) {
	var hours []int64
	rows, err := c.Read.Query(ctx, `SELECT hour FROM hippo_activity WHERE agent_id = ? AND hour > ? ORDER BY hour`, agentID, after)
	err = each(rows, err, func() error {
		var h int64
		if err := rows.Scan(&h); err != nil {
			return err
		}
		hours = append(hours, h)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read activity: %w", err)
	}
	return hours, nil
}

// RecordHour implements engine.ClockStore.
func (c Clock) RecordHour(ctx context.Context, agentID string, hour int64) error {
	if _, err := c.Write.Exec(ctx, `INSERT INTO hippo_activity (agent_id, hour) VALUES (?, ?) ON CONFLICT DO NOTHING`, agentID, hour); err != nil {
		return fmt.Errorf("record activity: %w", err)
	}
	return nil
}

// Migrate applies the migrations of fsys (migration/*.sql, in name
// order) that hippo_migrations does not record, each in a transaction of
// its own, recorded at at: tx runs fn in one, committed when fn returns
// nil, with its Querier and a function that runs a file's statements as
// written.
func Migrate(ctx context.Context, fsys fs.FS, at time.Time, tx func(fn func(q Querier, run func(sql string) error) error) error) error {
	names, err := fs.Glob(fsys, "migration/*.sql")
	if err != nil {
		return err
	}
	sort.Strings(names)
	for _, name := range names {
		err := tx(func(q Querier, run func(string) error) error {
			var n int
			if err := q.QueryRow(ctx, `SELECT COUNT(*) FROM hippo_migrations WHERE name = ?`, name).Scan(&n); err != nil || n > 0 {
				return err
			}
			body, err := fs.ReadFile(fsys, name)
			if err != nil {
				return err
			}
			if err := run(string(body)); err != nil {
				return err
			}
			_, err = q.Exec(ctx, `INSERT INTO hippo_migrations (name, applied_at) VALUES (?, ?)`, name, timestamp.Format(at))
			return err
		})
		if err != nil {
			return fmt.Errorf("migration %s: %w", name, err)
		}
	}
	return nil
}
