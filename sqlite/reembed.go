package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/engine"
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
	return engine.Reembed(ctx, reembedStore{db}, e, opts)
}

// reembedStore is the database as engine.ReembedStore.
type reembedStore struct{ db *DB }

func (s reembedStore) ReembedPlan(ctx context.Context, target ModelLock) (*ReembedResult, error) {
	return s.db.reembedPlan(ctx, target)
}

func (s reembedStore) StartReembed(ctx context.Context, target ModelLock) (*ReembedResult, error) {
	return s.db.startReembed(ctx, target)
}

func (s reembedStore) ReembedMissing(ctx context.Context, cursor string, n int) (ids, texts []string, err error) {
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

// reembedTx is a write transaction as engine.ReembedTx.
type reembedTx struct {
	db *DB
	tx *sql.Tx
}

func (t reembedTx) ModelLock(ctx context.Context) (*ModelLock, error) {
	return t.db.readLock(ctx, t.tx)
}

// CheckTarget makes sure no other run has taken over the shadow state.
func (t reembedTx) CheckTarget(ctx context.Context, target ModelLock) error {
	var key string
	if err := t.tx.QueryRowContext(ctx, `SELECT COALESCE((SELECT value FROM hippo_meta WHERE key = 'reembed_target'), '')`).Scan(&key); err != nil {
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

func (t reembedTx) Shadow(ctx context.Context, ids, texts []string, vecs [][]float32) (int, error) {
	return insertShadow(ctx, t.tx, ids, texts, vecs)
}

// Switch implements engine.ReembedTx.
func (t reembedTx) Switch(ctx context.Context, target ModelLock) (int, error) {
	tx := t.tx
	res, err := tx.ExecContext(ctx, `UPDATE chunks SET embedding = r.embedding FROM hippo_reembed AS r WHERE r.id = chunks.id`)
	if err != nil {
		return 0, fmt.Errorf("switch embeddings: %w", err)
	}
	n, _ := res.RowsAffected()
	var stale int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM chunks WHERE length(embedding) != ?`, 4*target.Dimension).Scan(&stale); err != nil {
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
	// Every row changed: have every process reload its indexes rather
	// than fold in the whole table change by change.
	if err := raiseChangesFloor(ctx, tx); err != nil {
		return 0, err
	}
	return int(n), nil
}

// reembedPlan is Reembed's dry run.
func (db *DB) reembedPlan(ctx context.Context, target ModelLock) (*ReembedResult, error) {
	tx, err := db.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	res := &ReembedResult{DryRun: true, To: target}
	if res.From, err = db.readLock(ctx, tx); err != nil {
		return nil, err
	}
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM chunks`).Scan(&res.Chunks); err != nil {
		return nil, fmt.Errorf("count chunks: %w", err)
	}
	if res.From == nil && res.Chunks == 0 ||
		res.From != nil && res.From.Model == target.Model && (target.Dimension == 0 || res.From.Dimension == target.Dimension) {
		res.Unchanged = true
		return res, nil
	}
	var shadow int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'hippo_reembed'`).Scan(&shadow); err != nil {
		return nil, err
	}
	if shadow > 0 {
		var key string
		if err := tx.QueryRowContext(ctx, `SELECT COALESCE((SELECT value FROM hippo_meta WHERE key = 'reembed_target'), '')`).Scan(&key); err != nil {
			return nil, err
		}
		var prev ModelLock
		if json.Unmarshal([]byte(key), &prev) == nil && prev.Model == target.Model &&
			(target.Dimension == 0 || prev.Dimension == target.Dimension) {
			if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM hippo_reembed`).Scan(&res.Reused); err != nil {
				return nil, err
			}
		}
	}
	res.Embedded = res.Chunks - res.Reused
	return res, nil
}

// startReembed, in one write transaction, reports Unchanged when there is
// nothing to do, else creates the shadow state for target (keeping what an
// earlier run to the same target left) and counts the work.
func (db *DB) startReembed(ctx context.Context, target ModelLock) (*ReembedResult, error) {
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	res := &ReembedResult{To: target}
	if res.From, err = db.readLock(ctx, tx); err != nil {
		return nil, err
	}
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM chunks`).Scan(&res.Chunks); err != nil {
		return nil, fmt.Errorf("count chunks: %w", err)
	}
	if res.From == nil && res.Chunks == 0 || res.From != nil && *res.From == target {
		// Whatever an abandoned run to another model left is of no use.
		if err := dropReembedState(ctx, tx); err != nil {
			return nil, err
		}
		res.Unchanged = true
		return res, tx.Commit()
	}
	for _, stmt := range []string{
		`CREATE TABLE IF NOT EXISTS hippo_reembed (id TEXT PRIMARY KEY, embedding BLOB NOT NULL)`,
		// A shadow vector is only good for the content it was made from.
		`CREATE TRIGGER IF NOT EXISTS hippo_reembed_content AFTER UPDATE OF content ON chunks BEGIN
			DELETE FROM hippo_reembed WHERE id = new.id; END`,
		`CREATE TRIGGER IF NOT EXISTS hippo_reembed_delete AFTER DELETE ON chunks BEGIN
			DELETE FROM hippo_reembed WHERE id = old.id; END`,
	} {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return nil, fmt.Errorf("create re-embedding state: %w", err)
		}
	}
	var prev string
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE((SELECT value FROM hippo_meta WHERE key = 'reembed_target'), '')`).Scan(&prev); err != nil {
		return nil, err
	}
	if prev != engine.ReembedKey(target) {
		if _, err := tx.ExecContext(ctx, `DELETE FROM hippo_reembed`); err != nil {
			return nil, fmt.Errorf("reset re-embedding state: %w", err)
		}
		if err := setMeta(ctx, tx, "reembed_target", engine.ReembedKey(target)); err != nil {
			return nil, err
		}
	}
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM hippo_reembed`).Scan(&res.Reused); err != nil {
		return nil, err
	}
	return res, tx.Commit()
}

// missingShadow returns up to n chunks after cursor, in ID order, that have no
// shadow vector.
func missingShadow(ctx context.Context, q querier, cursor string, n int) (ids, texts []string, err error) {
	rows, err := q.QueryContext(ctx, `SELECT id, content FROM chunks AS c WHERE id > ?
		AND NOT EXISTS (SELECT 1 FROM hippo_reembed AS r WHERE r.id = c.id) ORDER BY id LIMIT ?`, cursor, n)
	if err != nil {
		return nil, nil, fmt.Errorf("read chunks to re-embed: %w", err)
	}
	for rows.Next() {
		var id, text string
		if err := rows.Scan(&id, &text); err != nil {
			rows.Close()
			return nil, nil, err
		}
		ids, texts = append(ids, id), append(texts, text)
	}
	return ids, texts, closeRows(rows)
}

// insertShadow records vectors of chunks whose content is still texts, and
// returns how many it recorded. Rows go in a few hundred per statement.
func insertShadow(ctx context.Context, tx *sql.Tx, ids, texts []string, vecs [][]float32) (int, error) {
	const rows = 500
	n := 0
	for lo := 0; lo < len(ids); lo += rows {
		hi := min(lo+rows, len(ids))
		args := make([]any, 0, 3*(hi-lo))
		for i := lo; i < hi; i++ {
			args = append(args, ids[i], vector.Encode(vecs[i]), texts[i])
		}
		res, err := tx.ExecContext(ctx, `WITH v (id, embedding, content) AS (VALUES `+
			strings.TrimSuffix(strings.Repeat("(?, ?, ?), ", hi-lo), ", ")+`)
			INSERT INTO hippo_reembed (id, embedding)
			SELECT v.id, v.embedding FROM v JOIN chunks AS c ON c.id = v.id AND c.content = v.content WHERE true
			ON CONFLICT (id) DO UPDATE SET embedding = excluded.embedding`, args...)
		if err != nil {
			return 0, fmt.Errorf("record new embeddings: %w", err)
		}
		k, _ := res.RowsAffected()
		n += int(k)
	}
	return n, nil
}

// dropReembedState removes the shadow table, its triggers and its target.
func dropReembedState(ctx context.Context, tx *sql.Tx) error {
	for _, stmt := range []string{
		`DROP TRIGGER IF EXISTS hippo_reembed_content`,
		`DROP TRIGGER IF EXISTS hippo_reembed_delete`,
		`DROP TABLE IF EXISTS hippo_reembed`,
		`DELETE FROM hippo_meta WHERE key = 'reembed_target'`,
	} {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("drop re-embedding state: %w", err)
		}
	}
	return nil
}

// raiseChangesFloor puts the change-log floor at its last entry, so that
// every process reloads its indexes on its next search.
func raiseChangesFloor(ctx context.Context, tx *sql.Tx) error {
	var last int64
	if err := tx.QueryRowContext(ctx, lastChangeQuery).Scan(&last); err != nil {
		return err
	}
	return raiseFloor(ctx, tx, last)
}

func setMeta(ctx context.Context, tx execer, key, value string) error {
	if _, err := tx.ExecContext(ctx, `INSERT INTO hippo_meta (key, value) VALUES (?, ?)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value`, key, value); err != nil {
		return fmt.Errorf("record %s: %w", key, err)
	}
	return nil
}
