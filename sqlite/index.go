package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"runtime"
	"strconv"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/engine"
	"github.com/hippo-mem/hippo/vector"
)

// syncIndex returns the agent's index, brought up to date with every
// write committed so far, by this process or any other.
func (db *DB) syncIndex(ctx context.Context, agentID string) (*engine.Index, error) {
	return db.syncIndexFor(ctx, agentID, nil)
}

// syncIndexFor is syncIndex that also checks a query vector's model and
// dimension (lock; nil: nothing) against the model lock, in the snapshot
// the index is brought up to date from: one read serves both.
func (db *DB) syncIndexFor(ctx context.Context, agentID string, lock *ModelLock) (*engine.Index, error) {
	return db.indexes.Sync(ctx, agentID, db.cfg, feed{db}, db.clock.Active(), lock)
}

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

// LoadAll implements engine.Snapshot (readIndexRows, in parallel).
func (s *snapshot) LoadAll(ctx context.Context, add func(*engine.Row, []float32) error) error {
	return readIndexRows(ctx, s.tx, `WHERE agent_id = ?`, []any{s.agent}, false, add)
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
	changed := map[string]bool{}
	var ids []string
	seq := since
	for rows.Next() {
		var id string
		if err := rows.Scan(&seq, &id); err != nil {
			return nil, 0, err
		}
		if !changed[id] {
			changed[id] = true
			ids = append(ids, id)
		}
	}
	return ids, seq, rows.Err()
}

// Rows implements engine.Snapshot.
func (s *snapshot) Rows(ctx context.Context, ids []string, add func(*engine.Row, []float32) error) error {
	args := make([]any, 0, len(ids)+1)
	for _, id := range ids {
		args = append(args, id)
	}
	args = append(args, s.agent)
	// "+agent_id" keeps the planner on the primary key: the agent index
	// would scan every row of the agent.
	return readIndexRows(ctx, s.tx, `WHERE id IN (`+placeholders(len(ids))+`) AND +agent_id = ?`, args, true, add)
}

// vectorLoader reads an agent's stored vectors for its index: the index
// keeps int8 codes only, and reads the float32 vectors of the few rows it
// ranks exactly (vector.Loader). One statement reads them all, by the
// primary key.
func (db *DB) vectorLoader(agentID string) vector.Loader {
	return func(ctx context.Context, ids []string, fn func(int, []float32)) error {
		st, err := db.readStmt(ctx, `SELECT id, embedding FROM chunks
			WHERE id IN (SELECT value FROM json_each(?)) AND +agent_id = ?`)
		if err != nil {
			return fmt.Errorf("read vectors: %w", err)
		}
		list, err := json.Marshal(ids)
		if err != nil {
			return fmt.Errorf("read vectors: %w", err)
		}
		pos := make(map[string]int, len(ids))
		for i, id := range ids {
			pos[id] = i
		}
		rows, err := st.QueryContext(ctx, string(list), agentID)
		if err != nil {
			return fmt.Errorf("read vectors: %w", err)
		}
		defer rows.Close()
		var (
			id   string
			blob sql.RawBytes
			v    []float32
		)
		for rows.Next() {
			if err := rows.Scan(&id, &blob); err != nil {
				return fmt.Errorf("read vectors: %w", err)
			}
			// A blob the index could not have decoded is not in it.
			if v, err = vector.Decode(v, blob); err == nil {
				fn(pos[id], v)
			}
		}
		if err := rows.Err(); err != nil {
			return fmt.Errorf("read vectors: %w", err)
		}
		return nil
	}
}

// chunkRow is a chunks row as the index reads it.
type chunkRow struct {
	rowid                                              int64
	id, scope, kind, meta, last, created, supBy, supAt string
	intensity                                          float64
	access, size                                       int
	suspicious                                         bool
	blob                                               []byte
}

// loadBatchRows is how many rows a whole load hands over at a time.
const loadBatchRows = 512

// loadGCBytes is how much embedding data a whole load reads between
// garbage collections.
const loadGCBytes = 256 << 20

// loadBatch is rows of a whole load, their embeddings back to back in
// blobs (row i's from ends[i-1] to ends[i]).
type loadBatch struct {
	rows  []chunkRow
	blobs []byte
	ends  []int
}

// readIndexRows hands the chunks matched by where to add (Index.Add). When
// folding in changes (strict), add stops it with engine.ErrDimension at a
// row of another dimension, so that the caller rebuilds the index; a whole
// load skips such rows, which the model lock normally prevents.
//
// A whole load reads rows on this goroutine while another decodes them
// into the index: on two cores that halves its time, SQLite's row reads
// and the decoding (normalising, quantising, parsing) costing about the
// same.
func readIndexRows(ctx context.Context, tx *sql.Tx, where string, args []any, strict bool, add func(*engine.Row, []float32) error) error {
	rows, err := tx.QueryContext(ctx, `SELECT rowid, id, scope, kind, embedding, metadata, running_intensity,
		access_count, last_accessed_at, created_at, superseded_by, superseded_at, octet_length(content),
		suspicious IS NOT NULL FROM chunks `+where, args...)
	if err != nil {
		return fmt.Errorf("load index: %w", err)
	}
	defer rows.Close()
	var blob sql.RawBytes // the driver's copy: used before the next row
	scan := func(r *chunkRow) error {
		if err := rows.Scan(&r.rowid, &r.id, &r.scope, &r.kind, &blob, nullable(&r.meta), &r.intensity, &r.access, &r.last, &r.created,
			nullable(&r.supBy), nullable(&r.supAt), &r.size, &r.suspicious); err != nil {
			return fmt.Errorf("load index: %w", err)
		}
		return nil
	}
	var buf []float32
	if strict {
		for rows.Next() {
			var r chunkRow
			if err := scan(&r); err != nil {
				return err
			}
			r.blob = blob
			if err := decodeRow(&r, &buf, add); err != nil {
				return err
			}
		}
		return rows.Err()
	}

	full, free := make(chan *loadBatch, 2), make(chan *loadBatch, 3)
	for range 3 {
		free <- &loadBatch{}
	}
	done := make(chan error, 1)
	go func() {
		var err error
		for b := range full {
			for i := range b.rows {
				if err == nil {
					err = decodeRow(&b.rows[i], &buf, add)
				}
			}
			free <- b
		}
		done <- err
	}()
	b := <-free
	send := func() {
		for i := range b.rows {
			b.rows[i].blob = b.blobs[:b.ends[i]:b.ends[i]]
			if i > 0 {
				b.rows[i].blob = b.rows[i].blob[b.ends[i-1]:]
			}
		}
		full <- b
		b = <-free
		b.rows, b.blobs, b.ends = b.rows[:0], b.blobs[:0], b.ends[:0]
	}
	var scanErr error
	garbage := 0
	for rows.Next() {
		var r chunkRow
		if scanErr = scan(&r); scanErr != nil {
			break
		}
		// The driver hands over every embedding in a fresh slice: garbage
		// the size of the vectors. Paced by GOGC alone it may grow to the
		// size of the index before a collection (a 1M×1536 load peaked at
		// 21 GB resident for a 7.7 GB index), so collect every loadGCBytes.
		if garbage += len(blob); garbage >= loadGCBytes {
			runtime.GC()
			garbage = 0
		}
		b.rows = append(b.rows, r)
		b.blobs = append(b.blobs, blob...)
		b.ends = append(b.ends, len(b.blobs))
		if len(b.rows) == loadBatchRows {
			send()
		}
	}
	if len(b.rows) > 0 {
		send()
	}
	close(full)
	if err := <-done; err != nil {
		return err
	}
	if scanErr != nil {
		return scanErr
	}
	return rows.Err()
}

// decodeRow decodes one row read by readIndexRows and hands it to add;
// buf is scratch space for its vector. A row whose vector does not decode
// is skipped.
func decodeRow(r *chunkRow, buf *[]float32, add func(*engine.Row, []float32) error) error {
	var err error
	if *buf, err = vector.Decode(*buf, r.blob); err != nil || len(*buf) == 0 {
		return nil
	}
	row := engine.Row{ID: r.id, RowID: r.rowid, Scope: r.scope, Kind: hippo.Kind(r.kind), Metadata: r.meta,
		Intensity: r.intensity, Access: r.access, Superseded: r.supBy != "", Size: r.size, Suspicious: r.suspicious}
	for _, t := range []struct {
		s   string
		dst *int64
	}{{r.last, &row.LastAccess}, {r.created, &row.Created}, {r.supAt, &row.SupersededAt}} {
		if t.s == "" {
			continue
		}
		at, err := parseTime(t.s)
		if err != nil {
			return fmt.Errorf("chunk %s: %w", r.id, err)
		}
		*t.dst = at.UnixMilli()
	}
	return add(&row, *buf)
}

// syncActivity appends the agent's activity hours recorded since the last
// sync.
func readActivity(ctx context.Context, ai *engine.Index, tx *sql.Tx, agentID string) error {
	var after int64 = -1
	if n := len(ai.Active); n > 0 {
		after = ai.Active[n-1]
	}
	rows, err := tx.QueryContext(ctx, `SELECT hour FROM hippo_activity WHERE agent_id = ? AND hour > ? ORDER BY hour`, agentID, after)
	if err != nil {
		return fmt.Errorf("read activity: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var h int64
		if err := rows.Scan(&h); err != nil {
			return err
		}
		ai.Active = append(ai.Active, h)
	}
	return rows.Err()
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

// indexStats describes an agent's in-memory vector index, for tests and
// the scale benchmark.
type indexStats struct {
	Rows        int `json:"rows"`
	Dimension   int `json:"dimension"`
	VectorBytes int `json:"vector_bytes"` // int8 codes, their scales and priors
	MetaBytes   int `json:"meta_bytes"`   // IDs and scan fields
}

// indexStats loads (or updates) the agent's index and describes it.
func (db *DB) indexStats(ctx context.Context, agentID string) (*indexStats, error) {
	ai, err := db.syncIndex(ctx, agentID)
	if err != nil {
		return nil, err
	}
	ai.Mu.RLock()
	defer ai.Mu.RUnlock()
	st := &indexStats{}
	if ai.Idx != nil {
		st.Rows, st.Dimension = ai.Idx.Len(), ai.Idx.Dim()
		st.VectorBytes, st.MetaBytes = ai.Idx.Bytes(), ai.Idx.MetaBytes()
	}
	return st, nil
}

// codesRead times one parallel sequential read of the int8 codes of the
// agent's index: the floor of a recall's first pass, for the scale
// benchmark.
func (db *DB) codesRead(ctx context.Context, agentID string) (time.Duration, error) {
	ai, err := db.syncIndex(ctx, agentID)
	if err != nil {
		return 0, err
	}
	ai.Mu.RLock()
	defer ai.Mu.RUnlock()
	if ai.Idx == nil {
		return 0, nil
	}
	start := time.Now()
	_ = ai.Idx.SumCodes()
	return time.Since(start), nil
}
