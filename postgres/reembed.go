package postgres

import (
	"context"
	"fmt"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/engine"
	"github.com/hippo-mem/hippo/internal/sqlstore"
	"github.com/hippo-mem/hippo/vector"
	"github.com/jackc/pgx/v5"
)

// Reembed implements hippo.Reembedder: engine.Reembed over the shadow
// table hippo_reembed, its target in hippo_meta 'reembed_target'.
// Triggers drop the shadow vector of a chunk whose content changes or
// that is deleted meanwhile (migration 0001).
func (db *DB) Reembed(ctx context.Context, e hippo.Embedder, opts hippo.ReembedOptions) (*hippo.ReembedResult, error) {
	return engine.Reembed(ctx, reembedStore{db}, db.cfg, e, opts)
}

// reembedStore is the database as engine.ReembedStore.
type reembedStore struct{ db *DB }

func (s reembedStore) ReembedView(ctx context.Context, fn func(engine.ReembedTx) error) error {
	return pgx.BeginTxFunc(ctx, s.db.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly},
		func(tx pgx.Tx) error { return fn(reembedTx{tx}) })
}

func (s reembedStore) ReembedMissing(ctx context.Context, cursor string, n int) (ids, texts, after []string, err error) {
	return missingShadow(ctx, s.db.pool, cursor, n)
}

// ReembedUpdate implements engine.ReembedStore: a transaction that waits
// for the agents' writers and keeps new ones out until it commits (the
// switch lock, exclusive), so that the final one, which embeds the chunks
// written meanwhile and switches, lets none slip in with the old model;
// and that waits for bulk writes (the epoch's row).
func (s reembedStore) ReembedUpdate(ctx context.Context, fn func(engine.ReembedTx) error) error {
	return pgx.BeginFunc(ctx, s.db.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, switchLock); err != nil {
			return fmt.Errorf("lock the agents' writers: %w", err)
		}
		if _, err := tx.Exec(ctx, `SELECT 1 FROM hippo_meta WHERE key = 'changes_epoch' FOR UPDATE`); err != nil {
			return err
		}
		return fn(reembedTx{tx})
	})
}

// AfterSwitch implements engine.ReembedStore: nothing to trim (the switch
// logged no changes).
func (s reembedStore) AfterSwitch(ctx context.Context) {}

// reembedTx is a transaction as engine.ReembedTx.
type reembedTx struct{ tx pgx.Tx }

func (t reembedTx) Meta(ctx context.Context, key string) (string, error) {
	return sqlstore.Meta(ctx, pgQuerier{t.tx}, key)
}

func (t reembedTx) SetMeta(ctx context.Context, key, value string) error {
	return sqlstore.SetMeta(ctx, pgQuerier{t.tx}, key, value)
}

func (t reembedTx) ModelLock(ctx context.Context) (*hippo.ModelLock, error) {
	return sqlstore.ModelLock(ctx, pgQuerier{t.tx})
}

func (t reembedTx) Chunks(ctx context.Context) (n int, err error) {
	err = t.tx.QueryRow(ctx, `SELECT count(*) FROM chunks`).Scan(&n)
	return n, err
}

func (t reembedTx) Shadowed(ctx context.Context) (n int, err error) {
	err = t.tx.QueryRow(ctx, `SELECT count(*) FROM hippo_reembed`).Scan(&n)
	return n, err
}

// ResetShadow implements engine.ReembedTx. Triggers drop the shadow
// vector of a chunk whose content changes or that is deleted (migration
// 0001).
func (t reembedTx) ResetShadow(ctx context.Context, key string) error {
	if _, err := t.tx.Exec(ctx, `DELETE FROM hippo_reembed`); err != nil {
		return err
	}
	return sqlstore.SetMeta(ctx, pgQuerier{t.tx}, "reembed_target", key)
}

// DropShadow implements engine.ReembedTx: the shadow vectors and their
// target.
func (t reembedTx) DropShadow(ctx context.Context) error {
	for _, stmt := range []string{`DELETE FROM hippo_reembed`, `DELETE FROM hippo_meta WHERE key = 'reembed_target'`} {
		if _, err := t.tx.Exec(ctx, stmt); err != nil {
			return fmt.Errorf("drop re-embedding state: %w", err)
		}
	}
	return nil
}

func (t reembedTx) Missing(ctx context.Context, cursor string, n int) (ids, texts, after []string, err error) {
	return missingShadow(ctx, t.tx, cursor, n)
}

// Shadow records the vectors of chunks whose content is still texts, and
// the content of the memory a follow-up was read after still after.
func (t reembedTx) Shadow(ctx context.Context, ids, texts, after []string, vecs [][]float32) (int, error) {
	blobs := make([][]byte, len(vecs))
	for i, v := range vecs {
		blobs[i] = vector.Encode(v)
	}
	tag, err := t.tx.Exec(ctx, `INSERT INTO hippo_reembed (id, embedding)
		SELECT v.id, v.embedding FROM unnest($1::text[], $2::bytea[], $3::text[], $4::text[]) AS v (id, embedding, content, after)
		JOIN chunks AS c ON c.id = v.id AND c.content = v.content
		LEFT JOIN chunks AS p ON p.id = c.context_of WHERE coalesce(p.content, '') = v.after
		ON CONFLICT (id) DO UPDATE SET embedding = excluded.embedding`, ids, blobs, texts, after)
	if err != nil {
		return 0, fmt.Errorf("record new embeddings: %w", err)
	}
	return int(tag.RowsAffected()), nil
}

// Switch implements engine.ReembedTx: a bulk write (the epoch raised, no
// change logged), so every reader reloads its indexes.
func (t reembedTx) Switch(ctx context.Context, dim int) (int, error) {
	if _, err := t.tx.Exec(ctx, `UPDATE hippo_meta SET value = (value::bigint + 1)::text WHERE key = 'changes_epoch'`); err != nil {
		return 0, fmt.Errorf("raise change epoch: %w", err)
	}
	if _, err := t.tx.Exec(ctx, `SELECT set_config('hippo.bulk', 'on', true)`); err != nil {
		return 0, err
	}
	tag, err := t.tx.Exec(ctx, `UPDATE chunks SET embedding = substring(r.embedding FROM 1 FOR $1),
		parts = CASE WHEN chunks.kind = 'memory' AND octet_length(r.embedding) > $1 THEN substring(r.embedding FROM $1 + 1) END
		FROM hippo_reembed AS r WHERE r.id = chunks.id`, 4*dim)
	return int(tag.RowsAffected()), err
}

func (t reembedTx) Stale(ctx context.Context, dim int) (n int, err error) {
	err = t.tx.QueryRow(ctx, `SELECT count(*) FROM chunks WHERE octet_length(embedding) <> $1`, 4*dim).Scan(&n)
	return n, err
}

// missingShadow returns up to n chunks after cursor, in ID order, that
// have no shadow vector.
func missingShadow(ctx context.Context, q querier, cursor string, n int) (ids, texts, after []string, err error) {
	rows, err := q.Query(ctx, `SELECT c.id, c.content, coalesce(p.content, '') FROM chunks AS c
		LEFT JOIN chunks AS p ON p.id = c.context_of WHERE c.id > $1
		AND NOT EXISTS (SELECT 1 FROM hippo_reembed AS r WHERE r.id = c.id) ORDER BY c.id LIMIT $2`, cursor, n)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("read chunks to re-embed: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, text, before string
		if err := rows.Scan(&id, &text, &before); err != nil {
			return nil, nil, nil, err
		}
		ids, texts, after = append(ids, id), append(texts, text), append(after, before)
	}
	return ids, texts, after, rows.Err()
}
