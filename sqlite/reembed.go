package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/vector"
)

// DefaultReembedBatch is hippo.DefaultReembedBatch.
const DefaultReembedBatch = hippo.DefaultReembedBatch

// ReembedOptions is hippo.ReembedOptions.
type ReembedOptions = hippo.ReembedOptions

// ReembedResult is hippo.ReembedResult.
type ReembedResult = hippo.ReembedResult

// Reembed re-embeds the content of every chunk of every agent with e and
// switches the database's model lock to e's model.
//
// Recall never sees a mix of models: the new vectors wait in a shadow table
// (hippo_reembed, with the target in hippo_meta 'reembed_target') while the
// chunks keep the old ones, and one final write transaction embeds the
// chunks written meanwhile, copies every new vector into the chunks, moves
// the lock and drops the shadow state. Until then the database stays on
// the old model for every reader and writer.
//
// Batches are committed to the shadow table one by one, so when ctx is
// cancelled (checked between batches), or the embedder fails, a later call
// with an embedder of the same model and dimension continues where this
// one stopped; a call with another target starts over. Chunks whose
// content changes or that are deleted meanwhile lose their shadow vector
// (triggers see to it) and are embedded again.
//
// When the database is already on e's model Reembed does nothing and
// reports Unchanged.
func (db *DB) Reembed(ctx context.Context, e hippo.Embedder, opts ReembedOptions) (*ReembedResult, error) {
	if e == nil {
		return nil, hippo.Errorf(hippo.EINVALID, "no embedder configured")
	}
	if strings.TrimSpace(e.Model()) == "" {
		return nil, hippo.Errorf(hippo.EINVALID, "embedding model name must not be empty")
	}
	batch := opts.BatchSize
	if batch == 0 {
		batch = DefaultReembedBatch
	}
	if batch < 0 {
		return nil, hippo.Invalidf("batch_size", "must be positive, got %d", batch)
	}
	target := ModelLock{Model: e.Model(), Dimension: e.Dimension()}
	if opts.DryRun {
		return db.reembedPlan(ctx, target)
	}
	if target.Dimension <= 0 {
		// The embedder learns its dimension from a response: the target
		// must be known before anything is recorded.
		vecs, err := hippo.Embed(ctx, e, []string{"dimension probe"}, 0)
		if err != nil {
			return nil, err
		}
		target.Dimension = len(vecs[0])
	}
	res, err := db.startReembed(ctx, target)
	if err != nil || res.Unchanged {
		return res, err
	}
	r := &reembedder{db: db, e: e, target: target, key: lockKey(target), batch: batch,
		progress: opts.Progress, res: res, done: res.Reused}
	if err := r.fill(ctx); err != nil {
		return nil, r.interrupted(ctx, err)
	}
	if err := r.finish(ctx); err != nil {
		return nil, r.interrupted(ctx, err)
	}
	return res, nil
}

// lockKey is the lock as recorded in hippo_meta 'reembed_target'.
func lockKey(l ModelLock) string {
	b, _ := json.Marshal(l)
	return string(b)
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
	if prev != lockKey(target) {
		if _, err := tx.ExecContext(ctx, `DELETE FROM hippo_reembed`); err != nil {
			return nil, fmt.Errorf("reset re-embedding state: %w", err)
		}
		if err := setMeta(ctx, tx, "reembed_target", lockKey(target)); err != nil {
			return nil, err
		}
	}
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM hippo_reembed`).Scan(&res.Reused); err != nil {
		return nil, err
	}
	return res, tx.Commit()
}

// reembedder is one run of Reembed past its start.
type reembedder struct {
	db       *DB
	e        hippo.Embedder
	target   ModelLock
	key      string
	batch    int
	progress func(done, total int)
	res      *ReembedResult
	done     int // shadow vectors so far
}

// fill embeds, batch by batch, every chunk that has no shadow vector,
// committing each batch. Passes restart from the first ID to catch chunks
// written behind the cursor; what is still missing after a few passes is
// left to finish.
func (r *reembedder) fill(ctx context.Context) error {
	r.report()
	cursor := ""
	for pass := 0; pass < 3; {
		if err := ctx.Err(); err != nil {
			return err
		}
		ids, texts, err := r.missing(ctx, r.db.read, cursor, r.batch)
		if err != nil {
			return err
		}
		if len(ids) == 0 {
			if cursor == "" {
				break
			}
			cursor, pass = "", pass+1
			continue
		}
		cursor = ids[len(ids)-1]
		vecs, err := hippo.Embed(ctx, r.e, texts, r.target.Dimension)
		if err != nil {
			return err
		}
		if err := r.store(ctx, ids, texts, vecs); err != nil {
			return err
		}
		r.report()
	}
	return nil
}

// missing returns up to n chunks after cursor, in ID order, that have no
// shadow vector.
func (r *reembedder) missing(ctx context.Context, q querier, cursor string, n int) (ids, texts []string, err error) {
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

// store writes a batch of shadow vectors in one transaction. A chunk whose
// content changed since it was read gets none: a later pass embeds it.
func (r *reembedder) store(ctx context.Context, ids, texts []string, vecs [][]float32) error {
	tx, err := r.db.write.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := r.checkTarget(ctx, tx); err != nil {
		return err
	}
	n, err := insertShadow(ctx, tx, ids, texts, vecs)
	if err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	r.done += n
	r.res.Embedded += len(ids)
	return nil
}

// finish switches the database to the target in one write transaction.
func (r *reembedder) finish(ctx context.Context) error {
	tx, err := r.db.write.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	lock, err := r.db.readLock(ctx, tx)
	if err != nil {
		return err
	}
	if !sameLock(lock, r.res.From) {
		return hippo.Errorf(hippo.ECONFLICT, "the embedding model lock changed while re-embedding; run it again")
	}
	if err := r.checkTarget(ctx, tx); err != nil {
		return err
	}
	// Chunks written since fill's last pass, embedded under the write lock
	// so that none can slip in before the switch.
	for cursor := ""; ; {
		ids, texts, err := r.missing(ctx, tx, cursor, r.batch)
		if err != nil {
			return err
		}
		if len(ids) == 0 {
			break
		}
		cursor = ids[len(ids)-1]
		vecs, err := hippo.Embed(ctx, r.e, texts, r.target.Dimension)
		if err != nil {
			return err
		}
		if _, err := insertShadow(ctx, tx, ids, texts, vecs); err != nil {
			return err
		}
		r.res.Embedded += len(ids)
	}
	res, err := tx.ExecContext(ctx, `UPDATE chunks SET embedding = r.embedding FROM hippo_reembed AS r WHERE r.id = chunks.id`)
	if err != nil {
		return fmt.Errorf("switch embeddings: %w", err)
	}
	n, _ := res.RowsAffected()
	var stale int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM chunks WHERE length(embedding) != ?`, 4*r.target.Dimension).Scan(&stale); err != nil {
		return err
	}
	if stale > 0 {
		return hippo.Errorf(hippo.EINTERNAL, "%d chunks were left without a %d-dimension embedding; nothing was switched", stale, r.target.Dimension)
	}
	if err := setMeta(ctx, tx, "embedding_model", r.target.Model); err != nil {
		return err
	}
	if err := setMeta(ctx, tx, "embedding_dimension", strconv.Itoa(r.target.Dimension)); err != nil {
		return err
	}
	if err := dropReembedState(ctx, tx); err != nil {
		return err
	}
	// Every row changed: have every process reload its indexes rather
	// than fold in the whole table change by change.
	if err := raiseChangesFloor(ctx, tx); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	r.res.Chunks = int(n)
	r.done = int(n)
	r.report()
	// The switch logged a change per chunk and rewrote every row: trim
	// the log, and fold the WAL back into the file.
	_ = r.db.pruneChanges(ctx, changeLogKeep)
	r.db.checkpoint(ctx)
	return nil
}

// checkTarget makes sure no other run has taken over the shadow state.
func (r *reembedder) checkTarget(ctx context.Context, tx *sql.Tx) error {
	var key string
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE((SELECT value FROM hippo_meta WHERE key = 'reembed_target'), '')`).Scan(&key); err != nil {
		return err
	}
	if key != r.key {
		return hippo.Errorf(hippo.ECONFLICT, "another re-embedding of this database finished or started over meanwhile; run it again")
	}
	return nil
}

func (r *reembedder) report() {
	if r.progress != nil {
		r.res.Chunks = max(r.res.Chunks, r.done)
		r.progress(r.done, r.res.Chunks)
	}
}

// interrupted says how far a run that stopped on err got.
func (r *reembedder) interrupted(ctx context.Context, err error) error {
	if ctx.Err() == nil {
		return err
	}
	return fmt.Errorf("re-embedding interrupted after %d of %d chunks; nothing was switched, and running it again with the same embedder resumes: %w",
		r.done, r.res.Chunks, ctx.Err())
}

func sameLock(a, b *ModelLock) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
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

func setMeta(ctx context.Context, tx *sql.Tx, key, value string) error {
	if _, err := tx.ExecContext(ctx, `INSERT INTO hippo_meta (key, value) VALUES (?, ?)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value`, key, value); err != nil {
		return fmt.Errorf("record %s: %w", key, err)
	}
	return nil
}
