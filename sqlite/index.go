package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/engine"
)

// feed is the change log (hippo_changes, migration 0002) as engine.Feed:
// its triggers log every insert, update and delete of a chunk, seq is
// AUTOINCREMENT, and hippo_meta's changes_floor is the floor.
type feed struct{ db *DB }

// headQuery reads, in one statement and so one snapshot, what Head
// needs: the change-log floor, the model lock, and whether the log has
// entries for the agent since a position.
const headQuery = `SELECT
	CAST(COALESCE((SELECT value FROM hippo_meta WHERE key = 'changes_floor'), '0') AS INTEGER),
	(SELECT value FROM hippo_meta WHERE key = 'embedding_model'),
	(SELECT value FROM hippo_meta WHERE key = 'embedding_dimension'),
	EXISTS (SELECT 1 FROM hippo_changes WHERE seq > ? AND agent_id = ?)`

// headActiveQuery is headQuery that also asks, for the active decay
// clock, whether the agent has activity hours after the last one read.
const headActiveQuery = headQuery + `,
	EXISTS (SELECT 1 FROM hippo_activity WHERE agent_id = ? AND hour > ?)`

// Head implements engine.Feed. Most recalls find nothing new, and one
// statement outside a transaction costs a fraction of the read
// transaction that folds changes in.
func (f feed) Head(ctx context.Context, agent string, since int64, active bool, lastHour int64, lock *ModelLock) (bool, error) {
	var floor int64
	var model, dim string
	var changed, newHours bool
	query, args, dest := headQuery, []any{since, agent}, []any{&floor, nullable(&model), nullable(&dim), &changed}
	if active {
		query, args, dest = headActiveQuery, append(args, agent, lastHour), append(dest, &newHours)
	}
	st, err := f.db.readStmt(ctx, query)
	if err != nil {
		return false, fmt.Errorf("read change log: %w", err)
	}
	if err := st.QueryRowContext(ctx, args...).Scan(dest...); err != nil {
		return false, fmt.Errorf("read change log: %w", err)
	}
	if err := hippo.CheckRecorded(lock, model, dim); err != nil {
		return false, err
	}
	return since >= floor && !changed && !newHours, nil
}

// Snapshot implements engine.Feed with one read transaction.
func (f feed) Snapshot(ctx context.Context, agent string, fn func(engine.Snapshot) error) error {
	tx, err := f.db.read.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	return fn(&snapshot{db: f.db, tx: tx, agent: agent})
}

// snapshot is one read transaction as engine.Snapshot.
type snapshot struct {
	db    *DB
	tx    *sql.Tx
	agent string
}

// Floor implements engine.Snapshot.
func (s *snapshot) Floor(ctx context.Context, lock *ModelLock) (int64, error) {
	// Prepared once: every sync that finds changes runs it.
	st, err := s.db.readStmt(ctx, `SELECT
		COALESCE((SELECT value FROM hippo_meta WHERE key = 'changes_floor'), '0'),
		(SELECT value FROM hippo_meta WHERE key = 'embedding_model'),
		(SELECT value FROM hippo_meta WHERE key = 'embedding_dimension')`)
	if err != nil {
		return 0, fmt.Errorf("read change log: %w", err)
	}
	var floor, model, dim string
	if err := s.tx.StmtContext(ctx, st).QueryRowContext(ctx).Scan(&floor, nullable(&model), nullable(&dim)); err != nil {
		return 0, fmt.Errorf("read change log: %w", err)
	}
	if err := hippo.CheckRecorded(lock, model, dim); err != nil {
		return 0, err
	}
	f, _ := strconv.ParseInt(floor, 10, 64)
	return f, nil
}

// ActiveHours implements engine.Snapshot.
func (s *snapshot) ActiveHours(ctx context.Context, after int64) ([]int64, error) {
	return activeHours(ctx, s.tx, s.agent, after)
}

// activeHours reads the agent's activity hours after the hour after,
// ascending.
func activeHours(ctx context.Context, q querier, agent string, after int64) ([]int64, error) {
	rows, err := q.QueryContext(ctx, `SELECT hour FROM hippo_activity WHERE agent_id = ? AND hour > ? ORDER BY hour`, agent, after)
	if err != nil {
		return nil, fmt.Errorf("read activity: %w", err)
	}
	defer rows.Close()
	var hours []int64
	for rows.Next() {
		var h int64
		if err := rows.Scan(&h); err != nil {
			return nil, fmt.Errorf("read activity: %w", err)
		}
		hours = append(hours, h)
	}
	return hours, rows.Err()
}

// lastChangeQuery reads the sequence number of the last change-log entry
// ever written. Entries may be gone (pruned, or never kept by a bulk
// insert), so it is not the largest seq in the table: a load that took
// that would stay below the floor and reload on every search.
const lastChangeQuery = `SELECT COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'hippo_changes'), 0)`

// Last implements engine.Snapshot.
func (s *snapshot) Last(ctx context.Context) (int64, error) {
	var seq int64
	if err := s.tx.QueryRowContext(ctx, lastChangeQuery).Scan(&seq); err != nil {
		return 0, fmt.Errorf("read change log: %w", err)
	}
	return seq, nil
}

// Count implements engine.Snapshot.
func (s *snapshot) Count(ctx context.Context) (int, error) {
	var n int
	if err := s.tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM chunks WHERE agent_id = ?`, s.agent).Scan(&n); err != nil {
		return 0, fmt.Errorf("load index: %w", err)
	}
	return n, nil
}

// LoadAll implements engine.Snapshot.
func (s *snapshot) LoadAll(ctx context.Context, fn func(*engine.Row) error) error {
	st, err := s.db.readStmt(ctx, indexRowsQuery+`WHERE agent_id = ?`)
	if err != nil {
		return fmt.Errorf("load index: %w", err)
	}
	return readIndexRows(ctx, s.tx, st, []any{s.agent}, fn)
}

// Changes implements engine.Snapshot.
func (s *snapshot) Changes(ctx context.Context, since int64) ([]string, int64, error) {
	// A range of the log's primary key: entries since the last sync are
	// few, whichever agent wrote them.
	st, err := s.db.readStmt(ctx, `SELECT seq, chunk_id FROM hippo_changes WHERE seq > ? AND agent_id = ? ORDER BY seq`)
	if err != nil {
		return nil, 0, fmt.Errorf("read change log: %w", err)
	}
	rows, err := s.tx.StmtContext(ctx, st).QueryContext(ctx, since, s.agent)
	if err != nil {
		return nil, 0, fmt.Errorf("read change log: %w", err)
	}
	defer rows.Close()
	var ids []string
	seq := since
	for rows.Next() {
		var id string
		if err := rows.Scan(&seq, &id); err != nil {
			return nil, 0, err
		}
		ids = append(ids, id)
	}
	return ids, seq, rows.Err()
}

// Rows implements engine.Snapshot: one statement, prepared once, with the
// IDs as a JSON array; a list of placeholders would be a new statement
// for every number of IDs.
func (s *snapshot) Rows(ctx context.Context, ids []string, fn func(*engine.Row) error) error {
	// "+agent_id" keeps the planner on the primary key: the agent index
	// would scan every row of the agent.
	st, err := s.db.readStmt(ctx, indexRowsQuery+`WHERE id IN (SELECT value FROM json_each(?)) AND +agent_id = ?`)
	if err != nil {
		return fmt.Errorf("load index: %w", err)
	}
	list, err := json.Marshal(ids)
	if err != nil {
		return fmt.Errorf("load index: %w", err)
	}
	return readIndexRows(ctx, s.tx, st, []any{string(list), s.agent}, fn)
}

// indexRowsQuery reads what the index holds of a chunk (engine.Row).
const indexRowsQuery = `SELECT rowid, id, scope, kind, embedding, metadata, running_intensity,
	access_count, last_accessed_at, created_at, superseded_by, superseded_at, octet_length(content),
	suspicious IS NOT NULL, ` + engine.OfflineColumn + `, ` + engine.GroupColumn + `, parts FROM chunks `

// readIndexRows hands the chunks matched by st (indexRowsQuery and a
// WHERE clause, prepared on the read pool) to fn, each embedding in the
// driver's buffer.
func readIndexRows(ctx context.Context, tx *sql.Tx, st *sql.Stmt, args []any, fn func(*engine.Row) error) error {
	rows, err := tx.StmtContext(ctx, st).QueryContext(ctx, args...)
	if err != nil {
		return fmt.Errorf("load index: %w", err)
	}
	defer rows.Close()
	var (
		r           engine.Row
		kind, supBy string
		blob, parts sql.RawBytes // the driver's, valid until Next
	)
	for rows.Next() {
		if err := rows.Scan(&r.RowID, &r.ID, &r.Scope, &kind, &blob, nullable(&r.Metadata), &r.Intensity, &r.Access,
			&r.LastAccess, &r.Created, nullable(&supBy), nullable(&r.SupersededAt), &r.Size, &r.Suspicious, &r.Offline, nullable(&r.Group), &parts); err != nil {
			return fmt.Errorf("load index: %w", err)
		}
		r.Kind, r.Superseded, r.Vector, r.Parts = hippo.Kind(kind), supBy != "", blob, parts
		if err := fn(&r); err != nil {
			return err
		}
	}
	return rows.Err()
}

// Vectors implements engine.Feed: one statement, by the primary key.
func (f feed) Vectors(ctx context.Context, agent string, ids []string, fn func(string, []byte, []byte)) error {
	st, err := f.db.readStmt(ctx, `SELECT id, embedding, parts FROM chunks
		WHERE id IN (SELECT value FROM json_each(?)) AND +agent_id = ?`)
	if err != nil {
		return fmt.Errorf("read vectors: %w", err)
	}
	list, err := json.Marshal(ids)
	if err != nil {
		return fmt.Errorf("read vectors: %w", err)
	}
	rows, err := st.QueryContext(ctx, string(list), agent)
	if err != nil {
		return fmt.Errorf("read vectors: %w", err)
	}
	defer rows.Close()
	var (
		id          string
		blob, parts sql.RawBytes
	)
	for rows.Next() {
		if err := rows.Scan(&id, &blob, &parts); err != nil {
			return fmt.Errorf("read vectors: %w", err)
		}
		fn(id, blob, parts)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read vectors: %w", err)
	}
	return nil
}

// pruneChanges drops change-log entries older than the newest keep, and
// records the floor so that a process that had not seen them reloads.
func (db *DB) pruneChanges(ctx context.Context, keep int64) error {
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var maxSeq int64
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0) FROM hippo_changes`).Scan(&maxSeq); err != nil {
		return err
	}
	floor := maxSeq - keep
	if floor <= 0 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM hippo_changes WHERE seq <= ?`, floor); err != nil {
		return err
	}
	if err := raiseFloor(ctx, tx, floor); err != nil {
		return err
	}
	return tx.Commit()
}

// raiseFloor records that change-log entries up to floor are gone, so
// that readers behind it reload. The floor never goes down: a bulk write
// may have set it above what pruning by count would.
func raiseFloor(ctx context.Context, tx *sql.Tx, floor int64) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO hippo_meta (key, value) VALUES ('changes_floor', ?)
		ON CONFLICT (key) DO UPDATE SET value = CAST(MAX(CAST(value AS INTEGER), CAST(excluded.value AS INTEGER)) AS TEXT)`,
		strconv.FormatInt(floor, 10))
	return err
}

// bulkLogRows is how many rows a write must insert to count as bulk.
const bulkLogRows = 1024

// bulkLog keeps a bulk insert from leaving a change-log entry per row.
// Once the transaction has inserted bulkLogRows rows, it deletes the
// entries it wrote so far, every bulkLogRows rows and at the end, and
// raises the floor past them: every other reader reloads its index
// instead, which costs about what folding in that many rows would. The
// log's pages are then reused by the rows that follow rather than left in
// the file (about 50 bytes per chunk).
type bulkLog struct {
	tx     *sql.Tx
	before int64 // last entry before the transaction's
	rows   int
}

func startBulkLog(ctx context.Context, tx *sql.Tx) (*bulkLog, error) {
	b := &bulkLog{tx: tx}
	if err := tx.QueryRowContext(ctx, lastChangeQuery).Scan(&b.before); err != nil {
		return nil, fmt.Errorf("read change log: %w", err)
	}
	return b, nil
}

// added counts an inserted row.
func (b *bulkLog) added(ctx context.Context) error {
	b.rows++
	if b.rows%bulkLogRows != 0 {
		return nil
	}
	_, err := b.tx.ExecContext(ctx, `DELETE FROM hippo_changes WHERE seq > ?`, b.before)
	return err
}

// finish drops the last entries of a bulk insert and raises the floor past
// every entry the transaction wrote (AUTOINCREMENT never reuses them). A
// small insert keeps its entries.
func (b *bulkLog) finish(ctx context.Context) error {
	if b.rows < bulkLogRows {
		return nil
	}
	if _, err := b.tx.ExecContext(ctx, `DELETE FROM hippo_changes WHERE seq > ?`, b.before); err != nil {
		return err
	}
	var last int64
	if err := b.tx.QueryRowContext(ctx, lastChangeQuery).Scan(&last); err != nil {
		return err
	}
	return raiseFloor(ctx, b.tx, last)
}

// maybePrune trims the change log every so many recalls: each recall logs
// the chunks it boosted.
func (db *DB) maybePrune(ctx context.Context) {
	if db.writes.Add(1)%1024 == 0 {
		_ = db.pruneChanges(ctx, changeLogKeep)
	}
}

// changeLogKeep is how many change-log entries survive pruning.
const changeLogKeep = 100_000
