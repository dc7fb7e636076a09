package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/engine"
	"github.com/hippo-mem/hippo/internal/sqlstore"
	"github.com/hippo-mem/hippo/vector"
)

// DefaultReembedBatch is hippo.DefaultReembedBatch.
const DefaultReembedBatch = hippo.DefaultReembedBatch

// ReembedOptions is hippo.ReembedOptions.
type ReembedOptions = hippo.ReembedOptions

// ReembedResult is hippo.ReembedResult.
type ReembedResult = hippo.ReembedResult

// Reembed implements hippo.Reembedder: engine.Reembed over the shadow
// table hippo_reembed, with the target in hippo_meta 'reembed_target'.
// Triggers drop the shadow vector of a chunk whose content changes or that
// is deleted meanwhile.
func (db *DB) Reembed(ctx context.Context, e hippo.Embedder, opts ReembedOptions) (*ReembedResult, error) {
	return engine.Reembed(ctx, reembedStore{db}, db.cfg, e, opts)
}

// reembedStore is the database as engine.ReembedStore.
type reembedStore struct{ db *DB }

func (s reembedStore) ReembedView(ctx context.Context, fn func(engine.ReembedTx) error) error {
	tx, err := s.db.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	return fn(reembedTx{s.db, tx})
}

func (s reembedStore) ReembedMissing(ctx context.Context, cursor string, n int) (ids, texts, after []string, err error) {
	return missingShadow(ctx, s.db.read, cursor, n)
}

func (s reembedStore) ReembedUpdate(ctx context.Context, fn func(engine.ReembedTx) error) error {
	tx, err := s.db.write.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(reembedTx{s.db, tx}); err != nil {
		return err
	}
	return tx.Commit()
}

// AfterSwitch implements engine.ReembedStore: the switch logged a change
// per chunk and rewrote every row: trim the log, and fold the WAL back
// into the file.
func (s reembedStore) AfterSwitch(ctx context.Context) {
	_ = s.db.pruneChanges(ctx, changeLogKeep)
	s.db.afterBulkWrite(ctx)
}

// reembedTx is a transaction as engine.ReembedTx.
type reembedTx struct {
	db *DB
	tx *sql.Tx
}

func (t reembedTx) Meta(ctx context.Context, key string) (string, error) {
	return sqlstore.Meta(ctx, querierOf(t.tx), key)
}

func (t reembedTx) SetMeta(ctx context.Context, key, value string) error {
	return sqlstore.SetMeta(ctx, querierOf(t.tx), key, value)
}

func (t reembedTx) ModelLock(ctx context.Context) (*ModelLock, error) {
	return sqlstore.ModelLock(ctx, querierOf(t.tx))
}

func (t reembedTx) Chunks(ctx context.Context) (n int, err error) {
	err = t.tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM chunks`).Scan(&n)
	return n, err
}

// Shadowed implements engine.ReembedTx: 0 when the shadow table is
// missing.
func (t reembedTx) Shadowed(ctx context.Context) (int, error) {
	var n int
	err := t.tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'hippo_reembed'`).Scan(&n)
	if err != nil || n == 0 {
		return 0, err
	}
	err = t.tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM hippo_reembed`).Scan(&n)
	return n, err
}

// ResetShadow implements engine.ReembedTx: the shadow table, with
// triggers that drop the shadow vector of a chunk whose content changes
// or that is deleted, since it is only good for the content it was made
// from.
func (t reembedTx) ResetShadow(ctx context.Context, key string) error {
	for _, stmt := range []string{
		`CREATE TABLE IF NOT EXISTS hippo_reembed (id TEXT PRIMARY KEY, embedding BLOB NOT NULL)`,
		`CREATE TRIGGER IF NOT EXISTS hippo_reembed_content AFTER UPDATE OF content ON chunks BEGIN
			DELETE FROM hippo_reembed WHERE id = new.id; END`,
		`CREATE TRIGGER IF NOT EXISTS hippo_reembed_delete AFTER DELETE ON chunks BEGIN
			DELETE FROM hippo_reembed WHERE id = old.id; END`,
		// A follow-up's shadow was read after the memory before it (its
		// context_of, which the migration's triggers clear after).
		`CREATE TRIGGER IF NOT EXISTS hippo_reembed_context_edit BEFORE UPDATE OF content ON chunks
		WHEN old.content IS NOT new.content BEGIN
			DELETE FROM hippo_reembed WHERE id IN (SELECT id FROM chunks WHERE context_of = old.id); END`,
		`CREATE TRIGGER IF NOT EXISTS hippo_reembed_context_delete BEFORE DELETE ON chunks BEGIN
			DELETE FROM hippo_reembed WHERE id IN (SELECT id FROM chunks WHERE context_of = old.id); END`,
		`DELETE FROM hippo_reembed`,
	} {
		if _, err := t.tx.ExecContext(ctx, stmt); err != nil {
			return err
		}
	}
	return sqlstore.SetMeta(ctx, querierOf(t.tx), "reembed_target", key)
}

// DropShadow implements engine.ReembedTx: the shadow table, its triggers
// and its target.
func (t reembedTx) DropShadow(ctx context.Context) error {
	for _, stmt := range []string{
		`DROP TRIGGER IF EXISTS hippo_reembed_content`,
		`DROP TRIGGER IF EXISTS hippo_reembed_delete`,
		`DROP TRIGGER IF EXISTS hippo_reembed_context_edit`,
		`DROP TRIGGER IF EXISTS hippo_reembed_context_delete`,
		`DROP TABLE IF EXISTS hippo_reembed`,
		`DELETE FROM hippo_meta WHERE key = 'reembed_target'`,
	} {
		if _, err := t.tx.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("drop re-embedding state: %w", err)
		}
	}
	return nil
}

func (t reembedTx) Missing(ctx context.Context, cursor string, n int) (ids, texts, after []string, err error) {
	return missingShadow(ctx, t.tx, cursor, n)
}

func (t reembedTx) Shadow(ctx context.Context, ids, texts, after []string, vecs [][]float32) (int, error) {
	return insertShadow(ctx, t.tx, ids, texts, after, vecs)
}

// Switch implements engine.ReembedTx: every row changes, so the change
// log's floor is raised to its end and every process reloads its indexes
// rather than fold in the whole table change by change.
func (t reembedTx) Switch(ctx context.Context, dim int) (int, error) {
	res, err := t.tx.ExecContext(ctx, `UPDATE chunks SET embedding = substr(r.embedding, 1, ?1),
		parts = CASE WHEN chunks.kind = 'memory' AND length(r.embedding) > ?1 THEN substr(r.embedding, ?1 + 1) END
		FROM hippo_reembed AS r WHERE r.id = chunks.id`, 4*dim)
	if err != nil {
		return 0, err
	}
	n, _ := res.RowsAffected()
	var last int64
	if err := t.tx.QueryRowContext(ctx, lastChangeQuery).Scan(&last); err != nil {
		return 0, err
	}
	return int(n), raiseFloor(ctx, t.tx, last)
}

func (t reembedTx) Stale(ctx context.Context, dim int) (n int, err error) {
	err = t.tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM chunks WHERE length(embedding) != ?`, 4*dim).Scan(&n)
	return n, err
}

// missingShadow returns up to n chunks after cursor, in ID order, that have no
// shadow vector.
func missingShadow(ctx context.Context, q querier, cursor string, n int) (ids, texts, after []string, err error) {
	rows, err := q.QueryContext(ctx, `SELECT c.id, c.content, COALESCE(p.content, '') FROM chunks AS c
		LEFT JOIN chunks AS p ON p.id = c.context_of WHERE c.id > ?
		AND NOT EXISTS (SELECT 1 FROM hippo_reembed AS r WHERE r.id = c.id) ORDER BY c.id LIMIT ?`, cursor, n)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("read chunks to re-embed: %w", err)
	}
	for rows.Next() {
		var id, text, before string
		if err := rows.Scan(&id, &text, &before); err != nil {
			rows.Close()
			return nil, nil, nil, err
		}
		ids, texts, after = append(ids, id), append(texts, text), append(after, before)
	}
	return ids, texts, after, closeRows(rows)
}

// insertShadow records vectors of chunks whose content is still texts, and
// the content of the memory a follow-up was read after still after, and
// returns how many it recorded. Rows go in a few hundred per statement.
func insertShadow(ctx context.Context, tx *sql.Tx, ids, texts, after []string, vecs [][]float32) (int, error) {
	const rows = 500
	n := 0
	for lo := 0; lo < len(ids); lo += rows {
		hi := min(lo+rows, len(ids))
		args := make([]any, 0, 4*(hi-lo))
		for i := lo; i < hi; i++ {
			args = append(args, ids[i], vector.Encode(vecs[i]), texts[i], after[i])
		}
		res, err := tx.ExecContext(ctx, `WITH v (id, embedding, content, after) AS (VALUES `+
			strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?), ", hi-lo), ", ")+`)
			INSERT INTO hippo_reembed (id, embedding)
			SELECT v.id, v.embedding FROM v JOIN chunks AS c ON c.id = v.id AND c.content = v.content
			LEFT JOIN chunks AS p ON p.id = c.context_of WHERE COALESCE(p.content, '') = v.after
			ON CONFLICT (id) DO UPDATE SET embedding = excluded.embedding`, args...)
		if err != nil {
			return 0, fmt.Errorf("record new embeddings: %w", err)
		}
		k, _ := res.RowsAffected()
		n += int(k)
	}
	return n, nil
}
