package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/engine"
	"github.com/hippo-mem/hippo/internal/sqlstore"
	"github.com/jackc/pgx/v5"
)

// agentStore is the database as one agent's engine.Store.
type agentStore struct {
	db   *DB
	cfg  hippo.Config // the database's, with the embedder's thresholds
	opts hippo.MemoryOptions
}

var _ engine.Store = (*agentStore)(nil)

// AfterBulkWrite implements engine.Store. PostgreSQL keeps deleted tuples
// until VACUUM, which autovacuum runs; `hippo purge --vacuum` runs it at
// once (docs/RELIABILITY.md).
func (m *agentStore) AfterBulkWrite(ctx context.Context) {}

// Update implements engine.Store: a transaction that takes the agent's
// lock first, which serialises the agent's writers across servers
// (DB.agentWrite).
func (m *agentStore) Update(ctx context.Context, fn func(engine.Tx) error) error {
	err := m.db.agentWrite(ctx, m.opts.AgentID, func(q querier, lock *hippo.ModelLock) error {
		return fn(storeTx{txOf(q, m.opts.AgentID), m, lock})
	})
	if err == nil {
		m.db.maybePrune(ctx)
	}
	return err
}

// View implements engine.Store: a read-only repeatable-read transaction.
func (m *agentStore) View(ctx context.Context, fn func(engine.Tx) error) error {
	return pgx.BeginTxFunc(ctx, m.db.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly},
		func(tx pgx.Tx) error { return fn(storeTx{txOf(tx, m.opts.AgentID), m, nil}) })
}

// ContentRows implements engine.Store.
func (m *agentStore) ContentRows(ctx context.Context, ids []string) (engine.Rows, error) {
	return m.db.pool.Query(ctx, `SELECT id, content FROM chunks WHERE id = ANY($1) AND agent_id = $2`, ids, m.opts.AgentID)
}

// ListBlocks implements engine.Store.
func (m *agentStore) ListBlocks(ctx context.Context, scope string) ([]hippo.BlockInfo, error) {
	return m.db.ListBlocks(ctx, m.opts.AgentID, &scope)
}

// Peek implements engine.RecallStore: the chunks as stored (a dry run).
func (m *agentStore) Peek(ctx context.Context, ids []string) (map[string]*hippo.Chunk, error) {
	return sqlstore.ByID(recalledChunks(ctx, m.db.pool, m.opts.AgentID, ids))
}

func recalledChunks(ctx context.Context, q querier, agent string, ids []string) ([]*hippo.Chunk, error) {
	return queryChunks(ctx, q, `SELECT `+recalledColumns+` FROM chunks WHERE id = ANY($1) AND agent_id = $2`, ids, agent)
}

// boostSQL applies the retrieval boost and logs it in one statement: the
// boost is hippo.Boosted, min(1, intensity + boost), written in SQL
// (storetest BoostMatchesDomain checks it against hippo.Boosted); the agent's
// version is bumped and the boosted IDs logged at it here rather than by
// the triggers (hippo.bulk is on for the transaction), which cost the
// boost more than the update itself. Each row returns the chunk, the new
// version (NULL when nothing was boosted) and the epoch.
var boostSQL = `WITH u AS (UPDATE chunks SET access_count = access_count + 1, last_accessed_at = $1,
		running_intensity = least(1.0, running_intensity + $2)
		WHERE id = ANY($3) AND agent_id = $4 RETURNING ` + recalledColumns + `),
	v AS (INSERT INTO hippo_agents AS h (agent_id, version) SELECT $4, 1 WHERE EXISTS (SELECT 1 FROM u)
		ON CONFLICT (agent_id) DO UPDATE SET version = h.version + 1 RETURNING version),
	l AS (INSERT INTO hippo_changes (agent_id, version, chunk_id) SELECT $4, v.version, u.id FROM u, v)
	SELECT u.*, v.version, (SELECT value FROM hippo_meta WHERE key = 'changes_epoch')::bigint
	FROM u LEFT JOIN v ON true`

// Boost implements engine.RecallStore in one round trip: the agent's
// lock, the boost with its change logged, and the commit, which does not
// wait for the WAL flush (synchronous_commit off: a crash may lose the
// last boosts, never corrupt anything; every other write waits).
func (m *agentStore) Boost(ctx context.Context, ids []string, now int64) (map[string]*hippo.Chunk, int64, int64, error) {
	if len(ids) == 0 {
		return nil, 0, 0, nil
	}
	conn, err := m.db.pool.Acquire(ctx)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("boost chunks: %w", err)
	}
	defer conn.Release()
	b := &pgx.Batch{}
	b.Queue(`BEGIN`)
	b.Queue(`SELECT set_config('synchronous_commit', 'off', true), set_config('hippo.bulk', 'on', true),
		pg_advisory_xact_lock(hashtextextended($1, 0))`, m.opts.AgentID) // the agent's lock, as lockAgent
	byID := make(map[string]*hippo.Chunk, len(ids))
	var epoch, version int64
	b.Queue(boostSQL, formatTime(time.UnixMilli(now)), m.cfg.RecallBoost(), ids, m.opts.AgentID).
		Query(func(rows pgx.Rows) error {
			for rows.Next() {
				c, err := engine.ScanChunk(boostRow{rows, &version, &epoch}.Scan)
				if err != nil {
					return err
				}
				byID[c.ID] = c
			}
			return rows.Err()
		})
	b.Queue(`COMMIT`)
	if err := conn.SendBatch(ctx, b).Close(); err != nil {
		// A failed batch leaves the connection in an aborted transaction:
		// roll back before handing it back to the pool.
		_, _ = conn.Exec(context.WithoutCancel(ctx), `ROLLBACK`)
		return nil, 0, 0, fmt.Errorf("boost chunks: %w", err)
	}
	m.db.maybePrune(ctx)
	if len(byID) == 0 {
		return byID, -1, -1, nil // nothing changed, nothing to fold
	}
	return byID, position(epoch, version-1), position(epoch, version), nil
}

// boostRow scans a row of boostSQL: a chunk, then the version and epoch.
type boostRow struct {
	pgx.Row
	version, epoch *int64
}

func (r boostRow) Scan(dest ...any) error {
	return r.Row.Scan(append(dest, r.version, r.epoch)...)
}

// agentTx is one agent's chunks in a transaction (agent "": every
// agent's): the statements both stores share (sqlstore.Tx), and tx for
// this store's own.
type agentTx struct {
	sqlstore.Tx
	tx    querier
	write bool // an admin write transaction (adminStore.AdminUpdate)
}

func txOf(tx querier, agent string) agentTx {
	return agentTx{Tx: sqlstore.Tx{Q: pgQuerier{tx}, Agent: agent}, tx: tx}
}

// pgQuerier is a pool, connection or transaction as sqlstore.Querier:
// its ? placeholders numbered.
type pgQuerier struct{ q querier }

func (p pgQuerier) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	tag, err := p.q.Exec(ctx, sqlstore.Numbered(query), args...)
	return tag.RowsAffected(), err
}

func (p pgQuerier) Query(ctx context.Context, query string, args ...any) (engine.Rows, error) {
	return p.q.Query(ctx, sqlstore.Numbered(query), args...)
}

func (p pgQuerier) QueryRow(ctx context.Context, query string, args ...any) sqlstore.Row {
	return pgRow{p.q.QueryRow(ctx, sqlstore.Numbered(query), args...)}
}

// pgRow is a row whose Scan reports a missing row as sqlstore.ErrNoRows.
type pgRow struct{ pgx.Row }

func (r pgRow) Scan(dest ...any) error {
	if err := r.Row.Scan(dest...); !errors.Is(err, pgx.ErrNoRows) {
		return err
	}
	return sqlstore.ErrNoRows
}

// FactRows implements engine.FactWriter: the live facts of scope the
// agent's versions after since changed; every live fact of scope when
// since is of an older epoch or its changes are pruned.
func (t agentTx) FactRows(ctx context.Context, scope string, since int64) (engine.Rows, error) {
	return t.tx.Query(ctx, `WITH head AS (
			SELECT (SELECT value FROM hippo_meta WHERE key = 'changes_epoch')::bigint AS epoch,
				coalesce((SELECT version FROM hippo_agents WHERE agent_id = $1), 0) AS version)
		SELECT id, content, embedding, running_intensity FROM chunks, head
		WHERE agent_id = $1 AND scope = $2 AND kind = 'fact' AND superseded_by IS NULL
		AND (head.epoch <> $3::bigint OR $4::bigint < head.version - $5
			OR id IN (SELECT chunk_id FROM hippo_changes WHERE agent_id = $1 AND version > $4))`,
		t.Agent, scope, epochOf(since), versionOf(since), changesKeep)
}

// storeTx is a transaction of agentStore (engine.Tx).
type storeTx struct {
	agentTx
	m *agentStore
	// lock is the model lock read once the transaction held its locks
	// (agentWrite), nil when there was none or in a View.
	lock *hippo.ModelLock
}

// SameMemory implements engine.Tx with the dedup index.
func (t storeTx) SameMemory(ctx context.Context, scope, hash string) (*hippo.Chunk, error) {
	c, err := engine.ScanChunk(t.tx.QueryRow(ctx, `SELECT `+engine.ChunkColumns+` FROM chunks WHERE `+sameMemory, t.Agent, scope, hash).Scan)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	return c, err
}

// LockModel implements engine.Tx: the model lock read with the
// transaction's locks is checked, else the lock is taken.
func (t storeTx) LockModel(ctx context.Context, model string, dim int) error {
	if t.lock != nil {
		return t.lock.Check(model, dim)
	}
	return sqlstore.LockModel(ctx, t.Q, model, dim)
}

// Recalled implements engine.Tx.
func (t storeTx) Recalled(ctx context.Context, ids []string) ([]*hippo.Chunk, error) {
	return recalledChunks(ctx, t.tx, t.Agent, ids)
}

// SetContent implements engine.Tx: a memory with that content in the
// chunk's scope is ECONFLICT, checked first (the agent's writers are
// serialised) since a unique violation would abort the transaction.
func (t storeTx) SetContent(ctx context.Context, id, content, hash string, vec, parts []float32) error {
	var taken bool
	err := t.tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM chunks AS o, chunks AS c
		WHERE c.id = $1 AND c.agent_id = $2 AND c.kind = 'memory' AND o.agent_id = c.agent_id AND o.scope = c.scope
		AND o.kind = 'memory' AND left(o.content_hash, 32) = left($3, 32) AND o.id <> c.id)`, id, t.Agent, hash).Scan(&taken)
	switch {
	case err == nil && taken:
		return sqlstore.ContentTaken(t.m.opts.Scope)
	case err == nil:
		err = t.Tx.SetContent(ctx, id, content, hash, vec, parts)
	}
	if err != nil {
		return fmt.Errorf("update chunk: %w", err)
	}
	return nil
}
