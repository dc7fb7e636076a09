package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/engine"
	"github.com/hippo-mem/hippo/internal/sqlstore"
)

// MemoryOptions is hippo.MemoryOptions.
type MemoryOptions = hippo.MemoryOptions

// Memory is one agent's memory: engine.Memory over the database (the
// store side is agentStore). It implements hippo.AgentMemory.
type Memory struct {
	*engine.Memory
	db   *DB
	st   *agentStore
	opts MemoryOptions
}

var _ hippo.AgentMemory = (*Memory)(nil)

// Memory returns the memory service of one agent.
func (db *DB) Memory(opts MemoryOptions) (*Memory, error) {
	opts, err := engine.ValidateOptions(opts)
	if err != nil {
		return nil, err
	}
	cfg := db.cfg.ForEmbedder(opts.Embedder)
	st := &agentStore{db: db, cfg: cfg, opts: opts}
	return &Memory{Memory: engine.NewMemory(st, db.clock, db.indexes, cfg, opts), db: db, st: st, opts: opts}, nil
}

// MaxOffset bounds recall paging.
const MaxOffset = engine.MaxOffset

// agentStore is the database as one agent's engine.Store.
type agentStore struct {
	db   *DB
	cfg  hippo.Config // the database's, with the embedder's thresholds
	opts MemoryOptions
}

var _ engine.Store = (*agentStore)(nil)

// AfterBulkWrite implements engine.Store: the store hook, a WAL
// checkpoint (DB.afterBulkWrite).
func (m *agentStore) AfterBulkWrite(ctx context.Context) { m.db.afterBulkWrite(ctx) }

// Update implements engine.Store: a call of a group commit (group.go), one
// transaction on the write connection (BEGIN IMMEDIATE) with the calls
// waiting beside it.
func (m *agentStore) Update(ctx context.Context, fn func(engine.Tx) error) error {
	if err := m.db.beforeWrite(ctx); err != nil {
		return err
	}
	return m.db.storageError(m.db.group.Do(ctx, "", func(g *groupTx) error { return fn(g.in(m)) }))
}

// View implements engine.Store: a read-only transaction on the read pool.
func (m *agentStore) View(ctx context.Context, fn func(engine.Tx) error) error {
	tx, err := m.db.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	err = fn(storeTx{txOf(std{readTx{tx: tx, db: m.db}}, m.opts.AgentID), m})
	tx.Rollback()
	m.db.prepareNoted(ctx)
	return err
}

// HasMemory implements engine.MemoryChecker with one statement: on the
// write connection when no write holds it (DB.lightRead), else prepared on
// the read pool.
func (m *agentStore) HasMemory(ctx context.Context, scope, hash string) (bool, error) {
	query := `SELECT EXISTS (SELECT 1 FROM chunks WHERE ` + sameMemory + `)`
	var ok bool
	ran, err := m.db.lightRead(ctx, func(lc *lightConn) error {
		args := []driver.NamedValue{{Ordinal: 1, Value: m.opts.AgentID}, {Ordinal: 2, Value: scope},
			{Ordinal: 3, Value: hash}, {Ordinal: 4, Value: hash}}
		return lc.query(query, args, func(r driverRow) error {
			n, _ := r[0].(int64)
			ok = n != 0
			return nil
		})
	})
	if ran {
		return ok, err
	}
	st, err := m.db.readStmt(ctx, query)
	if err != nil {
		return false, err
	}
	err = st.QueryRowContext(ctx, m.opts.AgentID, scope, hash, hash).Scan(&ok)
	return ok, err
}

var _ engine.MemoryChecker = (*agentStore)(nil)

// ContentRows implements engine.Store.
func (m *agentStore) ContentRows(ctx context.Context, ids []string) (engine.Rows, error) {
	return m.db.read.QueryContext(ctx, `SELECT id, content FROM chunks WHERE id IN (`+placeholders(len(ids))+`) AND +agent_id = ?`,
		append(anys(ids), m.opts.AgentID)...)
}

// Boost implements engine.RecallStore: one UPDATE … RETURNING on the
// write connection, without waiting for the disk. On a full disk the
// boost, bookkeeping, is dropped and the chunks are read as they are
// (Peek), so that recall answers; positions of -1 tell the index that
// nothing was committed.
func (m *agentStore) Boost(ctx context.Context, ids []string, now int64) (map[string]*hippo.Chunk, int64, int64, error) {
	chunks, before, after, err := m.boost(ctx, ids, now)
	if err = m.db.storageError(err); hippo.ErrorCode(err) != hippo.EUNAVAILABLE {
		return chunks, before, after, err
	}
	chunks, err = m.Peek(ctx, ids)
	return chunks, -1, -1, err
}

// Peek implements engine.RecallStore: the chunks as stored, read without
// the write lock (a dry run).
func (m *agentStore) Peek(ctx context.Context, ids []string) (map[string]*hippo.Chunk, error) {
	return sqlstore.ByID(recalledChunks(ctx, m.db, nil, m.opts.AgentID, ids))
}

// recalledChunks reads the agent's chunks ids without their vectors,
// through q (nil: the read pool). "+agent_id" keeps the planner on the
// primary key.
func recalledChunks(ctx context.Context, db *DB, q sqlTx, agent string, ids []string) ([]*hippo.Chunk, error) {
	args := make([]any, 0, len(ids)+1)
	for _, id := range ids {
		args = append(args, id)
	}
	args = append(args, agent)
	query := `SELECT ` + recalledColumns + ` FROM chunks WHERE id IN (` + placeholders(len(ids)) + `) AND +agent_id = ?`
	// On the read pool, a statement prepared once per length of the list
	// (recall reads the results it does not boost on every call).
	if q == nil {
		if st, err := db.readStmt(ctx, query); err == nil {
			return engine.ReadChunks(st.QueryContext(ctx, args...))
		}
		q = std{db.read}
	}
	return engine.ReadChunks(q.QueryContext(ctx, query, args...))
}

// recalledColumns is engine.ChunkColumns without the embedding, which
// recall results leave out: decoding it cost every recall a copy of each
// vector its caller has no use for.
var recalledColumns = engine.ChunkColumnsAs("NULL", "NULL")

// storeTx is a transaction of agentStore (engine.Tx).
type storeTx struct {
	agentTx
	m *agentStore
}

// SameMemory implements engine.Tx with the dedup index.
func (t storeTx) SameMemory(ctx context.Context, scope, hash string) (*hippo.Chunk, error) {
	c, err := engine.ScanChunk(t.tx.QueryRowContext(ctx, `SELECT `+engine.ChunkColumns+` FROM chunks
		WHERE `+sameMemory, t.Agent, scope, hash, hash).Scan)
	if err == sql.ErrNoRows {
		return nil, nil
	}
	return c, err
}

// LockModel implements engine.Tx.
func (t storeTx) LockModel(ctx context.Context, model string, dim int) error {
	return sqlstore.LockModel(ctx, t.Q, model, dim)
}

// Recalled implements engine.Tx.
func (t storeTx) Recalled(ctx context.Context, ids []string) ([]*hippo.Chunk, error) {
	return recalledChunks(ctx, t.m.db, t.tx, t.Agent, ids)
}

// SetContent implements engine.Tx: the dedup index refuses a memory's
// content already held in its scope.
func (t storeTx) SetContent(ctx context.Context, id, content, hash string, vec, parts []float32) error {
	if err := t.Tx.SetContent(ctx, id, content, hash, vec, parts); isUniqueViolation(err) {
		return sqlstore.ContentTaken(t.m.opts.Scope)
	} else if err != nil {
		return fmt.Errorf("update chunk: %w", err)
	}
	return nil
}

// boost applies the retrieval boost to the chosen chunks and reads them
// back, in one write transaction, with the change-log positions before and
// after it. Chunks deleted since the search are missing.
func (m *agentStore) boost(ctx context.Context, ids []string, now int64) (map[string]*hippo.Chunk, int64, int64, error) {
	if len(ids) == 0 {
		return nil, 0, 0, nil
	}
	// "+agent_id" keeps the planner on the primary key rather than the
	// agent's index.
	upd := `UPDATE chunks SET access_count = access_count + 1,
		last_accessed_at = ?, running_intensity = ` + boostFunc + `(running_intensity, ?)
		WHERE id IN (` + placeholders(len(ids)) + `) AND +agent_id = ? RETURNING ` + recalledColumns
	args := make([]driver.NamedValue, 0, len(ids)+3)
	for _, v := range []any{formatTime(time.UnixMilli(now)), m.cfg.RecallBoost()} {
		args = append(args, driver.NamedValue{Ordinal: len(args) + 1, Value: v})
	}
	for _, id := range ids {
		args = append(args, driver.NamedValue{Ordinal: len(args) + 1, Value: id})
	}
	args = append(args, driver.NamedValue{Ordinal: len(args) + 1, Value: m.opts.AgentID})
	byID := make(map[string]*hippo.Chunk, len(ids))
	var after int64
	err := m.db.lightTx(ctx, func(lc *lightConn) error {
		err := lc.query(upd, args, func(r driverRow) error {
			c, err := engine.ScanChunk(r.Scan)
			if err != nil {
				return err
			}
			byID[c.ID] = c
			return nil
		})
		if err != nil {
			return err
		}
		return lc.query(lastChangeQuery, nil, func(r driverRow) error {
			after, _ = r[0].(int64)
			return nil
		})
	})
	if err != nil {
		return nil, 0, 0, fmt.Errorf("boost chunks: %w", err)
	}
	m.db.maybePrune(ctx)
	// The transaction held the write lock, and the boost's trigger logged
	// one change per chunk, numbered on from the last: so the log stood at
	// after minus their number before it.
	return byID, after - int64(len(byID)), after, nil
}
