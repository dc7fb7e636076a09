package sqlite

import (
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/vector"
)

// Meta is what the recall scan filters and scores on, kept beside
// each vector of the index.
type Meta struct {
	RowID        int64 // the chunks row: how the full-text index names it
	Created      int64 // unix milliseconds
	LastAccess   int64 // unix milliseconds
	SupersededAt int64 // unix milliseconds; 0 while current
	Intensity    float32
	DecayRate    float32 // λ / decay resistance, per hour
	Scope        uint32  // interned scope name
	Category     uint32  // interned metadata category; 0 for none
	Tags         uint32  // interned tag set (agentIndex.tagSet); 0 for none
	Kind         hippo.Kind
	Size         uint32 // content bytes, for relevance's length discount
}

// Index is the in-memory vector index of one agent's chunks, loaded
// lazily and kept current through the hippo_changes log.
type Index struct {
	Agent  string
	Mu     sync.RWMutex
	Idx    *vector.Index[Meta]
	scopes names
	cats   names
	tags   names
	// tagSets are the distinct tag sets of the chunks, by the ID
	// chunkMeta keeps (1-based; tagSets[0] is none), so that a row holds
	// four bytes for its tags.
	tagSets  [][]uint32
	tagSetID map[string]uint32
	Seq      int64 // last change-log entry folded in
	Loaded   bool
	Reserve  int     // rows to make room for when the index is created
	Active   []int64 // hours of activity, ascending (active decay clock)
}

// tagSet interns a chunk's interned tags as a set ID: 0 for none.
func (ai *Index) tagSet(tags []uint32) uint32 {
	if len(tags) == 0 {
		return 0
	}
	key := make([]byte, 0, 4*len(tags))
	for _, t := range tags {
		key = binary.LittleEndian.AppendUint32(key, t)
	}
	if id, ok := ai.tagSetID[string(key)]; ok {
		return id
	}
	if ai.tagSets == nil {
		ai.tagSets, ai.tagSetID = [][]uint32{nil}, map[string]uint32{}
	}
	id := uint32(len(ai.tagSets))
	ai.tagSets = append(ai.tagSets, tags)
	ai.tagSetID[string(key)] = id
	return id
}

// names interns strings to small integers, 1-based so 0 means none.
type names map[string]uint32

func (n *names) id(s string) uint32 {
	if *n == nil {
		*n = names{}
	}
	id, ok := (*n)[s]
	if !ok {
		id = uint32(len(*n) + 1)
		(*n)[s] = id
	}
	return id
}

// syncIndex returns the agent's index, brought up to date with every
// write committed so far, by this process or any other.
func (db *DB) syncIndex(ctx context.Context, agentID string) (*Index, error) {
	return db.syncIndexFor(ctx, agentID, nil)
}

// queryLock is the model and dimension of a query vector, to check
// against the model lock.
type queryLock struct {
	model string
	dim   int
}

// syncIndexFor is syncIndex that also checks a query vector against the
// model lock, when q is set, in the snapshot the index is brought up to
// date from: one read transaction serves both.
func (db *DB) syncIndexFor(ctx context.Context, agentID string, q *queryLock) (*Index, error) {
	db.indexMu.Lock()
	ai := db.indexes[agentID]
	if ai == nil {
		ai = &Index{Agent: agentID}
		db.indexes[agentID] = ai
	}
	db.indexMu.Unlock()
	ai.Mu.Lock()
	defer ai.Mu.Unlock()
	if err := ai.sync(ctx, db, agentID, q); err != nil {
		return nil, err
	}
	return ai, nil
}

// sync folds in the changes logged since the last sync, or loads the index
// whole the first time or when the log was pruned past it. One read
// transaction gives a consistent snapshot of the log and the rows.
func (ai *Index) sync(ctx context.Context, db *DB, agentID string, q *queryLock) error {
	if ai.Loaded {
		if current, err := ai.current(ctx, db, agentID, q); err != nil || current {
			return err
		}
	}
	// Prepared before the transaction: every recall runs these.
	metaStmt, err := db.readStmt(ctx, `SELECT
		COALESCE((SELECT value FROM hippo_meta WHERE key = 'changes_floor'), '0'),
		(SELECT value FROM hippo_meta WHERE key = 'embedding_model'),
		(SELECT value FROM hippo_meta WHERE key = 'embedding_dimension')`)
	if err != nil {
		return fmt.Errorf("read change log: %w", err)
	}
	// A range of the log's primary key: entries since the last sync are
	// few, whichever agent wrote them.
	logStmt, err := db.readStmt(ctx, `SELECT seq, chunk_id FROM hippo_changes WHERE seq > ? AND agent_id = ? ORDER BY seq`)
	if err != nil {
		return fmt.Errorf("read change log: %w", err)
	}
	tx, err := db.read.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var floor, model, dim string
	if err := tx.StmtContext(ctx, metaStmt).QueryRowContext(ctx).Scan(&floor, nullable(&model), nullable(&dim)); err != nil {
		return fmt.Errorf("read change log: %w", err)
	}
	if err := q.check(model, dim); err != nil {
		return err
	}
	if db.activeClock {
		if err := ai.syncActivity(ctx, tx, agentID); err != nil {
			return err
		}
	}
	if f, _ := strconv.ParseInt(floor, 10, 64); !ai.Loaded || ai.Seq < f {
		return ai.load(ctx, db, tx, agentID)
	}
	rows, err := tx.StmtContext(ctx, logStmt).QueryContext(ctx, ai.Seq, agentID)
	if err != nil {
		return fmt.Errorf("read change log: %w", err)
	}
	changed := map[string]bool{}
	var ids []string
	seq := ai.Seq
	for rows.Next() {
		var id string
		if err := rows.Scan(&seq, &id); err != nil {
			rows.Close()
			return err
		}
		if !changed[id] {
			changed[id] = true
			ids = append(ids, id)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for start := 0; start < len(ids); start += 500 {
		batch := ids[start:min(start+500, len(ids))]
		args := make([]any, 0, len(batch)+1)
		for _, id := range batch {
			args = append(args, id)
		}
		args = append(args, agentID)
		// "+agent_id" keeps the planner on the primary key: the agent index
		// would scan every row of the agent.
		found := map[string]bool{}
		err := ai.readRows(ctx, db, tx, `WHERE id IN (`+placeholders(len(batch))+`) AND +agent_id = ?`, args, func(id string) { found[id] = true })
		if errors.Is(err, errDimension) {
			// The embedding model was switched (Reembed): every row
			// changed, so load them all afresh from this snapshot.
			return ai.load(ctx, db, tx, agentID)
		}
		if err != nil {
			return err
		}
		for _, id := range batch {
			if !found[id] && ai.Idx != nil {
				ai.Idx.Remove(id)
			}
		}
	}
	ai.Seq = seq
	return nil
}

// currentQuery reads, in one statement and so one snapshot, what sync
// needs to tell that the index is current: the change-log floor, the model
// lock, and whether the log has entries for the agent since the last sync.
const currentQuery = `SELECT
	CAST(COALESCE((SELECT value FROM hippo_meta WHERE key = 'changes_floor'), '0') AS INTEGER),
	(SELECT value FROM hippo_meta WHERE key = 'embedding_model'),
	(SELECT value FROM hippo_meta WHERE key = 'embedding_dimension'),
	EXISTS (SELECT 1 FROM hippo_changes WHERE seq > ? AND agent_id = ?)`

// currentActiveQuery is currentQuery that also asks, for the active decay
// clock, whether the agent has activity hours after the last one read.
const currentActiveQuery = currentQuery + `,
	EXISTS (SELECT 1 FROM hippo_activity WHERE agent_id = ? AND hour > ?)`

// current reports whether the loaded index has folded in every change
// committed so far, checking q against the model lock. Most recalls find
// nothing new, and one statement outside a transaction costs a fraction of
// the read transaction that folds changes in.
func (ai *Index) current(ctx context.Context, db *DB, agentID string, q *queryLock) (bool, error) {
	var floor int64
	var model, dim string
	var changed, active bool
	query, args, dest := currentQuery, []any{ai.Seq, agentID}, []any{&floor, nullable(&model), nullable(&dim), &changed}
	if db.activeClock {
		hour := int64(-1)
		if n := len(ai.Active); n > 0 {
			hour = ai.Active[n-1]
		}
		query, args, dest = currentActiveQuery, append(args, agentID, hour), append(dest, &active)
	}
	st, err := db.readStmt(ctx, query)
	if err != nil {
		return false, fmt.Errorf("read change log: %w", err)
	}
	if err := st.QueryRowContext(ctx, args...).Scan(dest...); err != nil {
		return false, fmt.Errorf("read change log: %w", err)
	}
	if err := q.check(model, dim); err != nil {
		return false, err
	}
	return ai.Seq >= floor && !changed && !active, nil
}

// check checks the query vector against the model lock read as text from
// hippo_meta; nil q or no lock passes.
func (q *queryLock) check(model, dim string) error {
	if q == nil || model == "" {
		return nil
	}
	n, _ := strconv.Atoi(dim)
	return checkLock(ModelLock{Model: model, Dimension: n}, q.model, q.dim)
}

// lastChangeQuery reads the sequence number of the last change-log entry
// ever written. Entries may be gone (pruned, or never kept by a bulk
// insert), so it is not the largest seq in the table: a load that took
// that would stay below the floor and reload on every search.
const lastChangeQuery = `SELECT COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'hippo_changes'), 0)`

func (ai *Index) load(ctx context.Context, db *DB, tx *sql.Tx, agentID string) error {
	var seq int64
	if err := tx.QueryRowContext(ctx, lastChangeQuery).Scan(&seq); err != nil {
		return fmt.Errorf("read change log: %w", err)
	}
	ai.Idx = nil
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM chunks WHERE agent_id = ?`, agentID).Scan(&n); err != nil {
		return fmt.Errorf("load index: %w", err)
	}
	ai.Reserve = n
	if err := ai.readRows(ctx, db, tx, `WHERE agent_id = ?`, []any{agentID}, nil); err != nil {
		return err
	}
	ai.Seq, ai.Loaded = seq, true
	return nil
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

// errDimension reports a changed row whose vector length is not the
// index's.
var errDimension = errors.New("vector dimension differs from the index")

// chunkRow is a chunks row as the index reads it.
type chunkRow struct {
	rowid                                              int64
	id, scope, kind, meta, last, created, supBy, supAt string
	intensity                                          float64
	access, size                                       int
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

// readRows upserts the chunks matched by where into the index. When
// folding in changes (seen is set) a row of another dimension stops it
// with errDimension, so that the caller rebuilds the index; a whole load
// skips such rows, which the model lock normally prevents.
//
// A whole load reads rows on this goroutine while another decodes them
// into the index: on two cores that halves its time, SQLite's row reads
// and the decoding (normalising, quantising, parsing) costing about the
// same.
func (ai *Index) readRows(ctx context.Context, db *DB, tx *sql.Tx, where string, args []any, seen func(id string)) error {
	rows, err := tx.QueryContext(ctx, `SELECT rowid, id, scope, kind, embedding, metadata, running_intensity,
		access_count, last_accessed_at, created_at, superseded_by, superseded_at, octet_length(content) FROM chunks `+where, args...)
	if err != nil {
		return fmt.Errorf("load index: %w", err)
	}
	defer rows.Close()
	var blob sql.RawBytes // the driver's copy: used before the next row
	scan := func(r *chunkRow) error {
		if err := rows.Scan(&r.rowid, &r.id, &r.scope, &r.kind, &blob, nullable(&r.meta), &r.intensity, &r.access, &r.last, &r.created,
			nullable(&r.supBy), nullable(&r.supAt), &r.size); err != nil {
			return fmt.Errorf("load index: %w", err)
		}
		return nil
	}
	var buf []float32
	if seen != nil {
		for rows.Next() {
			var r chunkRow
			if err := scan(&r); err != nil {
				return err
			}
			seen(r.id)
			r.blob = blob
			if err := ai.addRow(db, &r, &buf, true); err != nil {
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
					err = ai.addRow(db, &b.rows[i], &buf, false)
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

// addRow upserts one row read by readRows into the index; buf is scratch
// space for its vector. strict: see readRows.
func (ai *Index) addRow(db *DB, r *chunkRow, buf *[]float32, strict bool) error {
	var err error
	if *buf, err = vector.Decode(*buf, r.blob); err != nil || len(*buf) == 0 {
		return nil
	}
	v := *buf
	if ai.Idx == nil {
		ai.Idx = vector.NewIndex[Meta](len(v), db.vectorLoader(ai.Agent))
		// Strength never exceeds intensity: the prior recall's bound
		// skips rows with (recallBound).
		ai.Idx.SetPrior(func(m *Meta) float32 { return m.Intensity })
		ai.Idx.Grow(ai.Reserve)
	}
	if len(v) != ai.Idx.Dim() {
		if strict {
			return errDimension
		}
		return nil
	}
	m := Meta{
		RowID:     r.rowid,
		Intensity: float32(r.intensity), DecayRate: float32(db.cfg.DecayRate(r.access)),
		Scope: ai.scopes.id(r.scope), Kind: hippo.Kind(r.kind), Size: uint32(min(r.size, math.MaxUint32)),
	}
	for _, t := range []struct {
		s   string
		dst *int64
	}{{r.last, &m.LastAccess}, {r.created, &m.Created}, {r.supAt, &m.SupersededAt}} {
		if t.s == "" {
			continue
		}
		at, err := parseTime(t.s)
		if err != nil {
			return fmt.Errorf("chunk %s: %w", r.id, err)
		}
		*t.dst = at.UnixMilli()
	}
	if r.supBy != "" && m.SupersededAt == 0 {
		m.SupersededAt = 1 // superseded at an unknown time: as good as always
	}
	if r.meta != "" {
		var md struct {
			Category any `json:"category"`
			Tags     any `json:"tags"`
		}
		if json.Unmarshal([]byte(r.meta), &md) == nil {
			if c, ok := md.Category.(string); ok && c != "" {
				m.Category = ai.cats.id(c)
			}
			if tags, ok := md.Tags.([]any); ok {
				var ids []uint32
				for _, t := range tags {
					if t, ok := t.(string); ok && t != "" {
						ids = append(ids, ai.tags.id(t))
					}
				}
				m.Tags = ai.tagSet(ids)
			}
		}
	}
	ai.Idx.Upsert(r.id, v, m)
	return nil
}

// Filter says which rows a search may see.
type Filter struct {
	Kind          hippo.Kind // "" for both
	scopes        []bool     // by interned scope; nil for all
	category      uint32     // 0 for any
	tagSets       []bool     // by tag set: holds any of the tags; nil for all
	since, until  int64      // creation bounds, unix ms; 0 for none
	asOf          int64      // unix ms; 0 for now
	none          bool       // a named scope, tag or category is unknown
	AllSuperseded bool       // history: superseded rows too
}

// NewFilter resolves names against the index. Call with ai.mu held.
func (ai *Index) NewFilter(kind hippo.Kind, scopes []string) Filter {
	f := Filter{Kind: kind}
	if scopes != nil {
		f.scopes = make([]bool, len(ai.scopes)+1)
		for _, s := range scopes {
			if id, ok := ai.scopes[s]; ok {
				f.scopes[id] = true
			}
		}
	}
	return f
}

// RecallFilter is newFilter plus the filters of a recall.
func (ai *Index) RecallFilter(in hippo.RecallInput, scopes []string) Filter {
	f := ai.NewFilter(in.Kind, scopes)
	if in.Category != "" {
		id, ok := ai.cats[in.Category]
		f.category, f.none = id, f.none || !ok
	}
	if len(in.Tags) > 0 {
		wanted := make([]bool, len(ai.tags)+1)
		known := false
		for _, t := range in.Tags {
			if id, ok := ai.tags[t]; ok {
				wanted[id], known = true, true
			}
		}
		f.none = f.none || !known
		f.tagSets = make([]bool, max(1, len(ai.tagSets)))
		for i, set := range ai.tagSets {
			for _, t := range set {
				if wanted[t] {
					f.tagSets[i] = true
					break
				}
			}
		}
	}
	if in.Since != nil {
		f.since = in.Since.UnixMilli()
	}
	if in.Until != nil {
		f.until = in.Until.UnixMilli()
	}
	if in.AsOf != nil {
		f.asOf = in.AsOf.UnixMilli()
	}
	return f
}

func (f *Filter) Allows(m *Meta) bool {
	switch {
	case f.none:
		return false
	case f.asOf != 0:
		if m.Created > f.asOf || (m.SupersededAt != 0 && m.SupersededAt <= f.asOf) {
			return false
		}
	case m.SupersededAt != 0 && !f.AllSuperseded:
		return false
	}
	if f.Kind != "" && m.Kind != f.Kind {
		return false
	}
	if f.scopes != nil && (int(m.Scope) >= len(f.scopes) || !f.scopes[m.Scope]) {
		return false
	}
	if f.category != 0 && m.Category != f.category {
		return false
	}
	if f.since != 0 && m.Created < f.since {
		return false
	}
	if f.until != 0 && m.Created > f.until {
		return false
	}
	if f.tagSets != nil {
		return int(m.Tags) < len(f.tagSets) && f.tagSets[m.Tags]
	}
	return true
}

// Clock is the decay Clock at now: wall time, or with the active Clock only
// the hours in which the agent was active. Call with ai.mu held.
func (ai *Index) Clock(db *DB, now int64) hippo.DecayClock {
	if !db.activeClock {
		return hippo.WallHours(now)
	}
	return hippo.ActiveHours(ai.Active, now)
}

// Strength of a row by clock.
func (m *Meta) Strength(clock hippo.DecayClock) float64 {
	return hippo.Decay(float64(m.Intensity), float64(m.DecayRate), clock(m.LastAccess))
}

// syncActivity appends the agent's activity hours recorded since the last
// sync.
func (ai *Index) syncActivity(ctx context.Context, tx *sql.Tx, agentID string) error {
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

func (m *Meta) Recency(cfg hippo.Config, now int64) float64 {
	return cfg.Recency(time.Duration(now-m.Created) * time.Millisecond)
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
