package postgres

import (
	"context"
	"fmt"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/engine"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// The change feed (migration 0001): an agent's position is its version in
// hippo_agents, bumped once by each write transaction that changes one of
// its chunks, under the agent's lock taken first (lockAgent), so gap-free
// and in commit order; hippo_changes holds the IDs each version changed. A bulk write across agents logs nothing and
// raises changes_epoch instead. A position is the epoch and the version
// in one int64: a reader of an older epoch is below the floor and reloads.

// epochShift places the epoch above the version in a position.
const epochShift = 40

func position(epoch, version int64) int64 { return epoch<<epochShift | version }

func versionOf(pos int64) int64 { return pos & (1<<epochShift - 1) }

func epochOf(pos int64) int64 { return pos >> epochShift }

// changesKeep is how many versions of an agent's changes survive pruning;
// a reader further behind reloads the agent.
const changesKeep = 10_000

// lockAgent takes the transaction-level advisory lock of the agent,
// which serialises the agent's writers across servers until the
// transaction ends, and the switch lock shared (agentWrite). Every write
// transaction of one agent takes them first; the triggers then bump the
// agent's version once, under the lock, when the transaction changes a
// chunk, so versions are gap-free and in commit order. A transaction that
// only looks writes nothing and waits for no WAL flush.
func lockAgent(ctx context.Context, tx querier, agent string) error {
	if _, err := tx.Exec(ctx, lockAgentSQL, switchLock, agent); err != nil {
		return fmt.Errorf("lock agent %s: %w", agent, err)
	}
	return nil
}

const lockAgentSQL = `SELECT pg_advisory_xact_lock_shared($1), pg_advisory_xact_lock(hashtextextended($2, 0))`

// switchLock is the advisory lock that a re-embedding's switch takes
// exclusively and agents' writers shared: no chunk is written with the
// old model's vector while the switch moves every chunk to the new one.
const switchLock = 0x6869707031 // "hipp1"

// readLockSQL reads the model lock.
const readLockSQL = `SELECT (SELECT value FROM hippo_meta WHERE key = 'embedding_model'),
	(SELECT value FROM hippo_meta WHERE key = 'embedding_dimension')`

// bulk runs fn in a write transaction across agents that logs no change
// and raises the feed's epoch, so every reader reloads: an import or a
// re-embedding's switch rewrites too many rows to fold in one by one. The
// epoch row's lock, taken first, serialises bulk writes with each other.
//
// Then it refreshes the planner's statistics of chunks: right after a bulk
// load they still describe the table before it, and a recall's boost
// (id = ANY(…) AND agent_id = …) was planned as a scan of every row of the
// agent beside the primary key's ten (0.5 ms instead of 0.05 at 10,000
// rows) until autovacuum got round to it.
func (db *DB) bulk(ctx context.Context, fn func(pgx.Tx) error) error {
	err := pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `UPDATE hippo_meta SET value = (value::bigint + 1)::text WHERE key = 'changes_epoch'`); err != nil {
			return fmt.Errorf("raise change epoch: %w", err)
		}
		if _, err := tx.Exec(ctx, `SELECT set_config('hippo.bulk', 'on', true)`); err != nil {
			return err
		}
		return fn(tx)
	})
	if err != nil {
		return err
	}
	// The load is committed; stale statistics only cost speed.
	_, _ = db.pool.Exec(context.WithoutCancel(ctx), `ANALYZE chunks`)
	return nil
}

// feed is the change feed as engine.Feed.
type feed struct{ db *DB }

const headSQL = `SELECT (SELECT value FROM hippo_meta WHERE key = 'changes_epoch')::bigint,
	coalesce((SELECT version FROM hippo_agents WHERE agent_id = $1), 0),
	(SELECT value FROM hippo_meta WHERE key = 'embedding_model'),
	(SELECT value FROM hippo_meta WHERE key = 'embedding_dimension'),
	$3::bool AND EXISTS (SELECT 1 FROM hippo_activity WHERE agent_id = $1 AND hour > $2)`

// Head implements engine.Feed in one statement: the epoch, the agent's
// version, the model lock and, under the active clock, new activity.
func (f feed) Head(ctx context.Context, agent string, since int64, active bool, lastHour int64, lock *hippo.ModelLock) (bool, error) {
	var (
		epoch, version int64
		model, dim     *string
		newHours       bool
	)
	if err := f.db.pool.QueryRow(ctx, headSQL, agent, lastHour, active).Scan(&epoch, &version, &model, &dim, &newHours); err != nil {
		return false, fmt.Errorf("read change feed: %w", err)
	}
	if err := hippo.CheckRecorded(lock, deref(model), deref(dim)); err != nil {
		return false, err
	}
	return since == position(epoch, version) && !newHours, nil
}

// Snapshot implements engine.Feed with one repeatable-read transaction:
// every statement sees the same snapshot.
func (f feed) Snapshot(ctx context.Context, agent string, fn func(engine.Snapshot) error) error {
	tx, err := f.db.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return err
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	return fn(&snapshot{tx: tx, agent: agent})
}

// snapshot is one read transaction as engine.Snapshot.
type snapshot struct {
	tx             pgx.Tx
	agent          string
	read           bool
	epoch, version int64
}

// head reads the epoch and the agent's version once per snapshot.
func (s *snapshot) head(ctx context.Context, lock *hippo.ModelLock) error {
	var model, dim *string
	var hour bool
	if err := s.tx.QueryRow(ctx, headSQL, s.agent, -1, false).Scan(&s.epoch, &s.version, &model, &dim, &hour); err != nil {
		return fmt.Errorf("read change feed: %w", err)
	}
	s.read = true
	return hippo.CheckRecorded(lock, deref(model), deref(dim))
}

// Floor implements engine.Snapshot: the epoch with the version below
// which the agent's changes may be pruned.
func (s *snapshot) Floor(ctx context.Context, lock *hippo.ModelLock) (int64, error) {
	if err := s.head(ctx, lock); err != nil {
		return 0, err
	}
	return position(s.epoch, max(0, s.version-changesKeep)), nil
}

// Last implements engine.Snapshot: the agent's version in the snapshot.
func (s *snapshot) Last(ctx context.Context) (int64, error) {
	if !s.read {
		if err := s.head(ctx, nil); err != nil {
			return 0, err
		}
	}
	return position(s.epoch, s.version), nil
}

// ActiveHours implements engine.Snapshot.
func (s *snapshot) ActiveHours(ctx context.Context, after int64) ([]int64, error) {
	return activeHours(ctx, s.tx, s.agent, after)
}

func activeHours(ctx context.Context, q querier, agent string, after int64) ([]int64, error) {
	rows, err := q.Query(ctx, `SELECT hour FROM hippo_activity WHERE agent_id = $1 AND hour > $2 ORDER BY hour`, agent, after)
	if err != nil {
		return nil, fmt.Errorf("read activity: %w", err)
	}
	hours, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("read activity: %w", err)
	}
	return hours, nil
}

// Count implements engine.Snapshot.
func (s *snapshot) Count(ctx context.Context) (int, error) {
	var n int
	if err := s.tx.QueryRow(ctx, `SELECT count(*) FROM chunks WHERE agent_id = $1`, s.agent).Scan(&n); err != nil {
		return 0, fmt.Errorf("load index: %w", err)
	}
	return n, nil
}

// LoadAll implements engine.Snapshot.
func (s *snapshot) LoadAll(ctx context.Context, fn func(*engine.Row) error) error {
	return readIndexRows(ctx, s.tx, `WHERE agent_id = $1`, []any{s.agent}, fn)
}

// Changes implements engine.Snapshot: the IDs the agent's versions after
// since changed, and the agent's version in the snapshot.
func (s *snapshot) Changes(ctx context.Context, since int64) ([]string, int64, error) {
	last, err := s.Last(ctx)
	if err != nil {
		return nil, 0, err
	}
	rows, err := s.tx.Query(ctx, `SELECT DISTINCT chunk_id FROM hippo_changes WHERE agent_id = $1 AND version > $2`,
		s.agent, versionOf(since))
	if err != nil {
		return nil, 0, fmt.Errorf("read change feed: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, 0, fmt.Errorf("read change feed: %w", err)
	}
	return ids, last, nil
}

// Rows implements engine.Snapshot.
func (s *snapshot) Rows(ctx context.Context, ids []string, fn func(*engine.Row) error) error {
	return readIndexRows(ctx, s.tx, `WHERE id = ANY($1) AND agent_id = $2`, []any{ids, s.agent}, fn)
}

// maybePrune drops old changes every so many writes of this server, and
// looks whether chunks has outgrown its planner statistics every
// analyzeEvery (maybeAnalyze).
func (db *DB) maybePrune(ctx context.Context) {
	n := db.writes.Add(1)
	if n%1024 == 0 {
		_ = db.pruneChanges(ctx)
	}
	if n%analyzeEvery == 0 {
		db.maybeAnalyze(ctx)
	}
}

// analyzeEvery is how many writes of a server pass between two looks at
// the statistics of chunks.
const analyzeEvery = 64

// youngTableSQL says whether chunks has changed by more rows since its
// last ANALYZE than the statistics describe: it has at least doubled (or
// holds rows it has never been analysed with).
const youngTableSQL = `SELECT coalesce((SELECT s.n_mod_since_analyze > greatest(c.reltuples, 0) + 50
	FROM pg_stat_user_tables AS s JOIN pg_class AS c ON c.oid = s.relid
	WHERE s.relid = 'chunks'::regclass), false)`

// maybeAnalyze refreshes the planner's statistics of chunks, in the
// background, once the table has outgrown them. Autovacuum does it too,
// but only after its nap (a minute by default), and a new database fills
// faster than that: its statements were planned on a table of a page or
// two, and a prepared statement keeps its generic plan until statistics
// change. Measured with 8 clients storing into a new database, the dedup
// lookup stayed a scan of every row of the agent (149 buffers, 0.82 ms
// where the index takes 0.07), so ingest ran at 212 memories/s instead of
// 293. The rule is a doubling, so a table grows through a few dozen
// ANALYZEs over its life and a large one is left to autovacuum's 10%.
func (db *DB) maybeAnalyze(ctx context.Context) {
	if !db.analyzing.CompareAndSwap(false, true) {
		return
	}
	go func() {
		defer db.analyzing.Store(false)
		ctx := context.WithoutCancel(ctx)
		var young bool
		if err := db.pool.QueryRow(ctx, youngTableSQL).Scan(&young); err != nil || !young {
			return
		}
		_, _ = db.pool.Exec(ctx, `ANALYZE chunks`)
	}()
}

// pruneChanges drops the changes more than changesKeep versions behind
// their agent's version; Floor puts readers that far behind below it.
func (db *DB) pruneChanges(ctx context.Context) error {
	_, err := db.pool.Exec(ctx, `DELETE FROM hippo_changes AS c USING hippo_agents AS h
		WHERE c.agent_id = h.agent_id AND c.version <= h.version - $1`, changesKeep)
	return err
}

// Vectors implements engine.Feed in one statement.
func (f feed) Vectors(ctx context.Context, agent string, ids []string, fn func(string, []byte, []byte)) error {
	rows, err := f.db.pool.Query(ctx, `SELECT id, embedding, parts FROM chunks WHERE id = ANY($1) AND agent_id = $2`, ids, agent)
	if err != nil {
		return fmt.Errorf("read vectors: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		raw := rows.RawValues()
		fn(string(raw[0]), raw[1], raw[2])
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read vectors: %w", err)
	}
	return nil
}

// indexColumns are the columns the index reads of a chunk.
const indexColumns = `rowid, id, scope, kind, embedding, coalesce(metadata, ''), running_intensity,
	access_count, last_accessed_at, created_at, superseded_by IS NOT NULL, coalesce(superseded_at, ''),
	octet_length(content), suspicious IS NOT NULL, ` + engine.OfflineColumn + `, coalesce(` + engine.GroupColumn + `, ''), parts`

// readIndexRows hands the chunks matched by where to fn, each embedding in
// the driver's buffer.
func readIndexRows(ctx context.Context, tx pgx.Tx, where string, args []any, fn func(*engine.Row) error) error {
	rows, err := tx.Query(ctx, `SELECT `+indexColumns+` FROM chunks `+where, args...)
	if err != nil {
		return fmt.Errorf("load index: %w", err)
	}
	defer rows.Close()
	var (
		r      engine.Row
		kind   string
		access int64
		size   int32
		blob   pgtype.DriverBytes // the driver's, valid until Next
		parts  pgtype.DriverBytes
	)
	for rows.Next() {
		if err := rows.Scan(&r.RowID, &r.ID, &r.Scope, &kind, &blob, &r.Metadata, &r.Intensity, &access, &r.LastAccess,
			&r.Created, &r.Superseded, &r.SupersededAt, &size, &r.Suspicious, &r.Offline, &r.Group, &parts); err != nil {
			return fmt.Errorf("load index: %w", err)
		}
		r.Kind, r.Access, r.Size, r.Vector, r.Parts = hippo.Kind(kind), int(access), int(size), blob, parts
		if err := fn(&r); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("load index: %w", err)
	}
	return nil
}
