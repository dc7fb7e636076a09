package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/engine"
	"github.com/hippo-mem/hippo/vector"
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
		return fn(storeTx{agentTx{tx: q, agent: m.opts.AgentID}, m, lock})
	})
	if err == nil {
		m.db.maybePrune(ctx)
	}
	return err
}

// View implements engine.Store: a read-only repeatable-read transaction.
func (m *agentStore) View(ctx context.Context, fn func(engine.Tx) error) error {
	return pgx.BeginTxFunc(ctx, m.db.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly},
		func(tx pgx.Tx) error { return fn(storeTx{agentTx{tx: tx, agent: m.opts.AgentID}, m, nil}) })
}

// Contents implements engine.Store.
func (m *agentStore) Contents(ctx context.Context, ids []string) (map[string]string, error) {
	rows, err := m.db.pool.Query(ctx, `SELECT id, content FROM chunks WHERE id = ANY($1) AND agent_id = $2`, ids, m.opts.AgentID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make(map[string]string, len(ids))
	for rows.Next() {
		var id, content string
		if err := rows.Scan(&id, &content); err != nil {
			return nil, err
		}
		out[id] = content
	}
	return out, rows.Err()
}

// ListBlocks implements engine.Store.
func (m *agentStore) ListBlocks(ctx context.Context, scope string) ([]hippo.BlockInfo, error) {
	return m.db.ListBlocks(ctx, m.opts.AgentID, &scope)
}

// Peek implements engine.RecallStore: the chunks as stored (a dry run).
func (m *agentStore) Peek(ctx context.Context, ids []string) (map[string]*hippo.Chunk, error) {
	cs, err := recalledChunks(ctx, m.db.pool, m.opts.AgentID, ids)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]*hippo.Chunk, len(cs))
	for _, c := range cs {
		byID[c.ID] = c
	}
	return byID, nil
}

func recalledChunks(ctx context.Context, q querier, agent string, ids []string) ([]*hippo.Chunk, error) {
	return queryChunks(ctx, q, `SELECT `+recalledColumns+` FROM chunks WHERE id = ANY($1) AND agent_id = $2`, ids, agent)
}

// boostSQL applies the retrieval boost and logs it in one statement: the
// boost is hippo.Boosted, min(1, intensity + boost), written in SQL
// (TestBoostMatchesDomain checks it against hippo.Boosted); the agent's
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
				c, err := scanChunk(boostRow{rows, &version, &epoch})
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

// agentTx is one agent's chunks in a transaction (engine.ChunkWriter and
// engine.FactWriter).
type agentTx struct {
	tx    querier
	agent string
	write bool // an admin write transaction (adminStore.AdminUpdate)
}

func (t agentTx) Chunk(ctx context.Context, id string) (*hippo.Chunk, error) {
	return getChunk(ctx, t.tx, t.agent, id)
}

func (t agentTx) Predecessor(ctx context.Context, id string) (string, error) {
	var prev string
	err := t.tx.QueryRow(ctx, `SELECT id FROM chunks WHERE superseded_by = $1 AND agent_id = $2
		ORDER BY created_at DESC LIMIT 1`, id, t.agent).Scan(&prev)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	return prev, err
}

func (t agentTx) SaveStrength(ctx context.Context, c *hippo.Chunk) error {
	return saveStrength(ctx, t.tx, t.agent, c)
}

// FactsSince implements engine.FactWriter: the live facts of scope the
// agent's versions after since changed; every live fact of scope when
// since is of an older epoch or its changes are pruned.
func (t agentTx) FactsSince(ctx context.Context, scope string, since int64, fn func(id, content string, vec []byte, intensity float64) error) error {
	rows, err := t.tx.Query(ctx, `WITH head AS (
			SELECT (SELECT value FROM hippo_meta WHERE key = 'changes_epoch')::bigint AS epoch,
				coalesce((SELECT version FROM hippo_agents WHERE agent_id = $1), 0) AS version)
		SELECT id, content, embedding, running_intensity FROM chunks, head
		WHERE agent_id = $1 AND scope = $2 AND kind = 'fact' AND superseded_by IS NULL
		AND (head.epoch <> $3::bigint OR $4::bigint < head.version - $5
			OR id IN (SELECT chunk_id FROM hippo_changes WHERE agent_id = $1 AND version > $4))`,
		t.agent, scope, epochOf(since), versionOf(since), changesKeep)
	if err != nil {
		return fmt.Errorf("load new facts: %w", err)
	}
	defer rows.Close()
	var (
		id, content string
		blob        []byte
		intensity   float64
	)
	for rows.Next() {
		if err := rows.Scan(&id, &content, &blob, &intensity); err != nil {
			return fmt.Errorf("load new facts: %w", err)
		}
		if err := fn(id, content, blob, intensity); err != nil {
			return err
		}
	}
	return rows.Err()
}

// IsLive implements engine.FactWriter.
func (t agentTx) IsLive(ctx context.Context, id string) (bool, error) {
	var live bool
	err := t.tx.QueryRow(ctx, `SELECT superseded_by IS NULL FROM chunks WHERE id = $1 AND agent_id = $2`, id, t.agent).Scan(&live)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	return live, err
}

// Insert implements engine.FactWriter.
func (t agentTx) Insert(ctx context.Context, c *hippo.Chunk) error {
	return insertChunk(ctx, t.tx, c)
}

// Supersede implements engine.FactWriter.
func (t agentTx) Supersede(ctx context.Context, id, by string, at time.Time) (string, bool, error) {
	var content string
	err := t.tx.QueryRow(ctx, `UPDATE chunks SET superseded_by = $1, superseded_at = $2
		WHERE id = $3 AND agent_id = $4 AND superseded_by IS NULL RETURNING content`,
		by, formatTime(at), id, t.agent).Scan(&content)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", false, nil
	}
	return content, err == nil, err
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
	c, err := scanChunk(t.tx.QueryRow(ctx, `SELECT `+chunkColumns+` FROM chunks WHERE `+sameMemory, t.agent, scope, hash))
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
	return lockModelTx(ctx, t.tx, model, dim)
}

// Recalled implements engine.Tx.
func (t storeTx) Recalled(ctx context.Context, ids []string) ([]*hippo.Chunk, error) {
	return recalledChunks(ctx, t.tx, t.agent, ids)
}

// Supersedes implements engine.Tx.
func (t storeTx) Supersedes(ctx context.Context, id string) (bool, error) {
	var ok bool
	err := t.tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM chunks WHERE superseded_by = $1 AND agent_id = $2)`, id, t.agent).Scan(&ok)
	return ok, err
}

// SetContent implements engine.Tx: a memory with that content in the
// chunk's scope is ECONFLICT, checked first (the agent's writers are
// serialised) since a unique violation would abort the transaction.
func (t storeTx) SetContent(ctx context.Context, id, content, hash string, vec []float32) error {
	var taken bool
	err := t.tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM chunks AS o, chunks AS c
		WHERE c.id = $1 AND c.agent_id = $2 AND c.kind = 'memory' AND o.agent_id = c.agent_id AND o.scope = c.scope
		AND o.kind = 'memory' AND left(o.content_hash, 32) = left($3, 32) AND o.id <> c.id)`, id, t.agent, hash).Scan(&taken)
	if err != nil {
		return fmt.Errorf("update chunk: %w", err)
	}
	if taken {
		return hippo.Errorf(hippo.ECONFLICT, "a memory with this content already exists in scope %q", t.m.opts.Scope)
	}
	if _, err := t.tx.Exec(ctx, `UPDATE chunks SET content = $1, content_hash = $2, embedding = $3
		WHERE id = $4 AND agent_id = $5`, content, hash, vector.Encode(vec), id, t.agent); err != nil {
		if isUniqueViolation(err) {
			return hippo.Errorf(hippo.ECONFLICT, "a memory with this content already exists in scope %q", t.m.opts.Scope)
		}
		return fmt.Errorf("update chunk: %w", err)
	}
	return nil
}

// GetBlock implements engine.Tx.
func (t storeTx) GetBlock(ctx context.Context, scope, key string) (*hippo.Block, error) {
	var b hippo.Block
	var updated string
	err := t.tx.QueryRow(ctx, `SELECT agent_id, scope, key, value, description, updated_at FROM memory_blocks
		WHERE agent_id = $1 AND scope = $2 AND key = $3`, t.agent, scope, key).
		Scan(&b.AgentID, &b.Scope, &b.Key, &b.Value, &b.Description, &updated)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	if b.UpdatedAt, err = parseTime(updated); err != nil {
		return nil, fmt.Errorf("block %q: %w", key, err)
	}
	return &b, nil
}

// PutBlock implements engine.Tx.
func (t storeTx) PutBlock(ctx context.Context, scope, key, value string, at time.Time) error {
	if _, err := t.tx.Exec(ctx, `INSERT INTO memory_blocks (agent_id, scope, key, value, updated_at)
		VALUES ($1, $2, $3, $4, $5) ON CONFLICT (agent_id, scope, key)
		DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
		t.agent, scope, key, value, formatTime(at)); err != nil {
		return fmt.Errorf("write block %q: %w", key, err)
	}
	return nil
}

// DescribeBlock implements engine.Tx.
func (t storeTx) DescribeBlock(ctx context.Context, scope, key, description string, at time.Time) error {
	if _, err := t.tx.Exec(ctx, `INSERT INTO memory_blocks (agent_id, scope, key, value, description, updated_at)
		VALUES ($1, $2, $3, '', $4, $5) ON CONFLICT (agent_id, scope, key)
		DO UPDATE SET description = excluded.description, updated_at = excluded.updated_at`,
		t.agent, scope, key, description, formatTime(at)); err != nil {
		return fmt.Errorf("describe block %q: %w", key, err)
	}
	return nil
}

// DeleteBlock implements engine.Tx.
func (t storeTx) DeleteBlock(ctx context.Context, scope, key string) (bool, error) {
	tag, err := t.tx.Exec(ctx, `DELETE FROM memory_blocks WHERE agent_id = $1 AND scope = $2 AND key = $3`, t.agent, scope, key)
	if err != nil {
		return false, fmt.Errorf("delete block %q: %w", key, err)
	}
	return tag.RowsAffected() > 0, nil
}

// SetSuspicious implements engine.Tx: ENOTFOUND when the chunk is not
// the agent's.
func (t storeTx) SetSuspicious(ctx context.Context, id, reason string) error {
	tag, err := t.tx.Exec(ctx, `UPDATE chunks SET suspicious = $1 WHERE id = $2 AND agent_id = $3`,
		nullIfEmpty(reason), id, t.agent)
	if err != nil {
		return fmt.Errorf("flag chunk %s: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return hippo.Errorf(hippo.ENOTFOUND, "chunk %s not found", id)
	}
	return nil
}

// PutInput implements engine.Tx: kept once per agent and hash.
func (t storeTx) PutInput(ctx context.Context, hash, text string, at time.Time) error {
	if _, err := t.tx.Exec(ctx, `INSERT INTO chunk_inputs (agent_id, hash, text, created_at)
		VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`, t.agent, hash, text, formatTime(at)); err != nil {
		return fmt.Errorf("keep input: %w", err)
	}
	return nil
}

// Input implements engine.Tx.
func (t storeTx) Input(ctx context.Context, hash string) (string, bool, error) {
	var text string
	err := t.tx.QueryRow(ctx, `SELECT text FROM chunk_inputs WHERE agent_id = $1 AND hash = $2`, t.agent, hash).Scan(&text)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("read input: %w", err)
	}
	return text, true, nil
}

// SameFact implements engine.Tx: the oldest live fact of the scope with
// this content.
func (t storeTx) SameFact(ctx context.Context, scope, hash string) (*hippo.Chunk, error) {
	c, err := scanChunk(t.tx.QueryRow(ctx, `SELECT `+chunkColumns+` FROM chunks
		WHERE agent_id = $1 AND kind = 'fact' AND scope = $2 AND content_hash = $3 AND superseded_by IS NULL
		ORDER BY created_at, id LIMIT 1`, t.agent, scope, hash))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	return c, err
}

// SetMetadata implements engine.Tx.
func (t storeTx) SetMetadata(ctx context.Context, id, metadata string) error {
	if _, err := t.tx.Exec(ctx, `UPDATE chunks SET metadata = $1 WHERE id = $2 AND agent_id = $3`,
		nullIfEmpty(metadata), id, t.agent); err != nil {
		return fmt.Errorf("update metadata: %w", err)
	}
	return nil
}
