package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/engine"
	"github.com/hippo-mem/hippo/vector"
	"github.com/jackc/pgx/v5"
)

// Reembed implements hippo.Reembedder: engine.Reembed over the shadow
// table hippo_reembed, its target in hippo_meta 'reembed_target'.
// Triggers drop the shadow vector of a chunk whose content changes or
// that is deleted meanwhile (migration 0001).
func (db *DB) Reembed(ctx context.Context, e hippo.Embedder, opts hippo.ReembedOptions) (*hippo.ReembedResult, error) {
	return engine.Reembed(ctx, reembedStore{db}, e, opts)
}

// reembedStore is the database as engine.ReembedStore.
type reembedStore struct{ db *DB }

func (s reembedStore) ReembedPlan(ctx context.Context, target hippo.ModelLock) (*hippo.ReembedResult, error) {
	res := &hippo.ReembedResult{DryRun: true, To: target}
	err := pgx.BeginTxFunc(ctx, s.db.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		var err error
		if res.From, err = readLock(ctx, tx); err != nil {
			return err
		}
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM chunks`).Scan(&res.Chunks); err != nil {
			return fmt.Errorf("count chunks: %w", err)
		}
		if res.From == nil && res.Chunks == 0 ||
			res.From != nil && res.From.Model == target.Model && (target.Dimension == 0 || res.From.Dimension == target.Dimension) {
			res.Unchanged = true
			return nil
		}
		key, err := reembedTarget(ctx, tx)
		if err != nil {
			return err
		}
		var prev hippo.ModelLock
		if json.Unmarshal([]byte(key), &prev) == nil && prev.Model == target.Model &&
			(target.Dimension == 0 || prev.Dimension == target.Dimension) {
			if err := tx.QueryRow(ctx, `SELECT count(*) FROM hippo_reembed`).Scan(&res.Reused); err != nil {
				return err
			}
		}
		res.Embedded = res.Chunks - res.Reused
		return nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

func (s reembedStore) StartReembed(ctx context.Context, target hippo.ModelLock) (*hippo.ReembedResult, error) {
	res := &hippo.ReembedResult{To: target}
	err := pgx.BeginFunc(ctx, s.db.pool, func(tx pgx.Tx) error {
		// Serialise with other runs and bulk writes.
		if _, err := tx.Exec(ctx, `SELECT 1 FROM hippo_meta WHERE key = 'changes_epoch' FOR UPDATE`); err != nil {
			return err
		}
		var err error
		if res.From, err = readLock(ctx, tx); err != nil {
			return err
		}
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM chunks`).Scan(&res.Chunks); err != nil {
			return fmt.Errorf("count chunks: %w", err)
		}
		if res.From == nil && res.Chunks == 0 || res.From != nil && *res.From == target {
			res.Unchanged = true
			return dropReembedState(ctx, tx)
		}
		prev, err := reembedTarget(ctx, tx)
		if err != nil {
			return err
		}
		if prev != engine.ReembedKey(target) {
			if _, err := tx.Exec(ctx, `DELETE FROM hippo_reembed`); err != nil {
				return fmt.Errorf("reset re-embedding state: %w", err)
			}
			if err := setMeta(ctx, tx, "reembed_target", engine.ReembedKey(target)); err != nil {
				return err
			}
		}
		return tx.QueryRow(ctx, `SELECT count(*) FROM hippo_reembed`).Scan(&res.Reused)
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

func (s reembedStore) ReembedMissing(ctx context.Context, cursor string, n int) (ids, texts []string, err error) {
	return missingShadow(ctx, s.db.pool, cursor, n)
}

// ReembedUpdate implements engine.ReembedStore: a transaction that waits
// for the agents' writers and keeps new ones out until it commits (the
// switch lock, exclusive), so that the final one, which embeds the chunks
// written meanwhile and switches, lets none slip in with the old model.
func (s reembedStore) ReembedUpdate(ctx context.Context, fn func(engine.ReembedTx) error) error {
	return pgx.BeginFunc(ctx, s.db.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, switchLock); err != nil {
			return fmt.Errorf("lock the agents' writers: %w", err)
		}
		return fn(reembedTx{s.db, tx})
	})
}

// AfterSwitch implements engine.ReembedStore: nothing to trim (the switch
// logged no changes).
func (s reembedStore) AfterSwitch(ctx context.Context) {}

// reembedTx is a write transaction as engine.ReembedTx.
type reembedTx struct {
	db *DB
	tx pgx.Tx
}

func (t reembedTx) ModelLock(ctx context.Context) (*hippo.ModelLock, error) {
	return readLock(ctx, t.tx)
}

// CheckTarget makes sure no other run has taken over the shadow state.
func (t reembedTx) CheckTarget(ctx context.Context, target hippo.ModelLock) error {
	key, err := reembedTarget(ctx, t.tx)
	if err != nil {
		return err
	}
	if key != engine.ReembedKey(target) {
		return hippo.Errorf(hippo.ECONFLICT, "another re-embedding of this database finished or started over meanwhile; run it again")
	}
	return nil
}

func (t reembedTx) Missing(ctx context.Context, cursor string, n int) (ids, texts []string, err error) {
	return missingShadow(ctx, t.tx, cursor, n)
}

// Shadow records the vectors of chunks whose content is still texts.
func (t reembedTx) Shadow(ctx context.Context, ids, texts []string, vecs [][]float32) (int, error) {
	blobs := make([][]byte, len(vecs))
	for i, v := range vecs {
		blobs[i] = vector.Encode(v)
	}
	tag, err := t.tx.Exec(ctx, `INSERT INTO hippo_reembed (id, embedding)
		SELECT v.id, v.embedding FROM unnest($1::text[], $2::bytea[], $3::text[]) AS v (id, embedding, content)
		JOIN chunks AS c ON c.id = v.id AND c.content = v.content
		ON CONFLICT (id) DO UPDATE SET embedding = excluded.embedding`, ids, blobs, texts)
	if err != nil {
		return 0, fmt.Errorf("record new embeddings: %w", err)
	}
	return int(tag.RowsAffected()), nil
}

// Switch implements engine.ReembedTx: a bulk write, so every reader
// reloads its indexes.
func (t reembedTx) Switch(ctx context.Context, target hippo.ModelLock) (int, error) {
	tx := t.tx
	if _, err := tx.Exec(ctx, `UPDATE hippo_meta SET value = (value::bigint + 1)::text WHERE key = 'changes_epoch'`); err != nil {
		return 0, fmt.Errorf("raise change epoch: %w", err)
	}
	if _, err := tx.Exec(ctx, `SELECT set_config('hippo.bulk', 'on', true)`); err != nil {
		return 0, err
	}
	tag, err := tx.Exec(ctx, `UPDATE chunks SET embedding = r.embedding FROM hippo_reembed AS r WHERE r.id = chunks.id`)
	if err != nil {
		return 0, fmt.Errorf("switch embeddings: %w", err)
	}
	var stale int
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM chunks WHERE octet_length(embedding) <> $1`, 4*target.Dimension).Scan(&stale); err != nil {
		return 0, err
	}
	if stale > 0 {
		return 0, hippo.Errorf(hippo.EINTERNAL, "%d chunks were left without a %d-dimension embedding; nothing was switched", stale, target.Dimension)
	}
	if err := setMeta(ctx, tx, "embedding_model", target.Model); err != nil {
		return 0, err
	}
	if err := setMeta(ctx, tx, "embedding_dimension", strconv.Itoa(target.Dimension)); err != nil {
		return 0, err
	}
	if err := dropReembedState(ctx, tx); err != nil {
		return 0, err
	}
	return int(tag.RowsAffected()), nil
}

func reembedTarget(ctx context.Context, q querier) (string, error) {
	var key string
	err := q.QueryRow(ctx, `SELECT coalesce((SELECT value FROM hippo_meta WHERE key = 'reembed_target'), '')`).Scan(&key)
	return key, err
}

// missingShadow returns up to n chunks after cursor, in ID order, that
// have no shadow vector.
func missingShadow(ctx context.Context, q querier, cursor string, n int) (ids, texts []string, err error) {
	rows, err := q.Query(ctx, `SELECT id, content FROM chunks AS c WHERE id > $1
		AND NOT EXISTS (SELECT 1 FROM hippo_reembed AS r WHERE r.id = c.id) ORDER BY id LIMIT $2`, cursor, n)
	if err != nil {
		return nil, nil, fmt.Errorf("read chunks to re-embed: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, text string
		if err := rows.Scan(&id, &text); err != nil {
			return nil, nil, err
		}
		ids, texts = append(ids, id), append(texts, text)
	}
	return ids, texts, rows.Err()
}

// dropReembedState empties the shadow table and forgets its target.
func dropReembedState(ctx context.Context, tx pgx.Tx) error {
	for _, stmt := range []string{`DELETE FROM hippo_reembed`, `DELETE FROM hippo_meta WHERE key = 'reembed_target'`} {
		if _, err := tx.Exec(ctx, stmt); err != nil {
			return fmt.Errorf("drop re-embedding state: %w", err)
		}
	}
	return nil
}
