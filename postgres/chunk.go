package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/engine"
	"github.com/hippo-mem/hippo/vector"
	"github.com/jackc/pgx/v5"
)

// chunkColumns is the column list scanChunk reads, in order.
const chunkColumns = engine.ChunkColumns

// recalledColumns is chunkColumns without the embedding, which recall
// results and listings leave out.
var recalledColumns = strings.Replace(chunkColumns, "embedding", "NULL::bytea", 1)

func scanChunk(r pgx.Row) (*hippo.Chunk, error) { return engine.ScanChunk(r.Scan) }

// queryChunks runs query and reads its chunks, without embeddings.
func queryChunks(ctx context.Context, q querier, query string, args ...any) ([]*hippo.Chunk, error) {
	return engine.ReadChunks(q.Query(ctx, query, args...))
}

// nullIfEmpty stores "" as NULL.
func nullIfEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// deref is *s, "" for nil.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// chunkValues are c's values in chunkColumns' order.
func chunkValues(c *hippo.Chunk, supAt *string) []any {
	var prov hippo.Provenance
	if c.Provenance != nil {
		prov = *c.Provenance
	}
	return []any{c.ID, c.AgentID, c.Scope, string(c.Kind), c.Content, nullIfEmpty(c.ContentHash),
		vector.Encode(c.Embedding), nullIfEmpty(string(c.Metadata)),
		c.RunningIntensity, int64(c.EncounterCount), int64(c.AccessCount), formatTime(c.LastAccessedAt),
		nullIfEmpty(c.SupersededBy), supAt, formatTime(c.CreatedAt),
		nullIfEmpty(c.SuspiciousReason), nullIfEmpty(prov.Origin), nullIfEmpty(prov.Caller),
		nullIfEmpty(prov.Source), nullIfEmpty(prov.InputHash)}
}

// insertChunkSQL inserts a chunk unless its ID or, for a memory, its
// content in its scope is taken (no row then): a unique violation would
// abort the whole transaction.
const insertChunkSQL = `INSERT INTO chunks (` + chunkColumns + `)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20) ON CONFLICT DO NOTHING`

// insertChunk inserts c; ECONFLICT when its ID or, for a memory, its
// content in its scope is taken.
func insertChunk(ctx context.Context, q querier, c *hippo.Chunk) error {
	var supAt *string
	if c.SupersededAt != nil {
		s := formatTime(*c.SupersededAt)
		supAt = &s
	}
	tag, err := q.Exec(ctx, insertChunkSQL, chunkValues(c, supAt)...)
	if err != nil {
		return fmt.Errorf("insert chunk: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return &hippo.Error{Code: hippo.ECONFLICT, Message: fmt.Sprintf("chunk %s: a chunk with this ID, or a memory with this content in scope %q, already exists", c.ID, c.Scope)}
	}
	return nil
}

// Chunk returns one chunk by ID, of agentID unless agentID is "".
func (db *DB) Chunk(ctx context.Context, agentID, id string) (*hippo.Chunk, error) {
	return getChunk(ctx, db.pool, agentID, id)
}

func getChunk(ctx context.Context, q querier, agentID, id string) (*hippo.Chunk, error) {
	query := `SELECT ` + chunkColumns + ` FROM chunks WHERE id = $1`
	args := []any{id}
	if agentID != "" {
		query += ` AND agent_id = $2`
		args = append(args, agentID)
	}
	c, err := scanChunk(q.QueryRow(ctx, query, args...))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, hippo.Errorf(hippo.ENOTFOUND, "chunk %s not found", id)
	}
	return c, err
}

// saveStrength writes a chunk's strength fields.
func saveStrength(ctx context.Context, q querier, agent string, c *hippo.Chunk) error {
	_, err := q.Exec(ctx, `UPDATE chunks SET running_intensity = $1, encounter_count = $2,
		access_count = $3, last_accessed_at = $4 WHERE id = $5 AND agent_id = $6`,
		c.RunningIntensity, c.EncounterCount, c.AccessCount, formatTime(c.LastAccessedAt), c.ID, agent)
	return err
}

// sameMemory finds the memory an agent holds with a content hash in a
// scope ($1 agent, $2 scope, $3 hash), by the dedup index.
const sameMemory = `agent_id = $1 AND scope = $2 AND left(content_hash, 32) = left($3, 32) AND content_hash = $3 AND kind = 'memory'`

// DeleteChunks implements hippo.Admin: engine.DeleteChunks, in one
// transaction holding the agent's lock when one is given.
func (db *DB) DeleteChunks(ctx context.Context, agentID string, ids []string) (deleted, resurrected []string, err error) {
	return engine.DeleteChunks(ctx, adminStore{db}, agentID, ids)
}

// PlanDelete implements hippo.Admin: engine.PlanDelete.
func (db *DB) PlanDelete(ctx context.Context, agentID string, ids []string) (*hippo.DeletePlan, error) {
	return engine.PlanDelete(ctx, adminStore{db}, agentID, ids)
}

// PurgeSuperseded implements hippo.Admin: engine.PurgeSuperseded. The
// deleted tuples stay in the table's pages until VACUUM (Vacuum).
func (db *DB) PurgeSuperseded(ctx context.Context, f hippo.PurgeFilter) ([]*hippo.Chunk, error) {
	return engine.PurgeSuperseded(ctx, adminStore{db}, f)
}

// adminStore is the database as engine.AdminStore; its transactions are
// agentTx of no agent.
type adminStore struct{ db *DB }

func (s adminStore) AdminView(ctx context.Context, fn func(engine.AdminTx) error) error {
	return pgx.BeginTxFunc(ctx, s.db.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly},
		func(tx pgx.Tx) error { return fn(agentTx{tx: tx}) })
}

func (s adminStore) AdminUpdate(ctx context.Context, agentID string, fn func(engine.AdminTx) error) error {
	return pgx.BeginFunc(ctx, s.db.pool, func(tx pgx.Tx) error {
		if agentID != "" {
			if err := lockAgent(ctx, tx, agentID); err != nil {
				return err
			}
		}
		return fn(agentTx{tx: tx, write: true})
	})
}

// AfterDelete implements engine.AdminStore: PostgreSQL keeps deleted
// tuples until VACUUM.
func (s adminStore) AfterDelete(context.Context) {}

// DeleteChunk implements engine.ChunkDeleter.
func (t agentTx) DeleteChunk(ctx context.Context, agentID, id string) (string, error) {
	query, args := `DELETE FROM chunks WHERE id = $1`, []any{id}
	if agentID != "" {
		query += ` AND agent_id = $2`
		args = append(args, agentID)
	}
	var owner string
	err := t.tx.QueryRow(ctx, query+` RETURNING agent_id`, args...).Scan(&owner)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	return owner, err
}

// Unsupersede implements engine.ChunkDeleter.
func (t agentTx) Unsupersede(ctx context.Context, owner, id string) ([]string, error) {
	return engine.ReadIDs(t.tx.Query(ctx, `UPDATE chunks SET superseded_by = NULL, superseded_at = NULL
		WHERE superseded_by = $1 AND agent_id = $2 RETURNING id`, id, owner))
}

// Listed implements engine.AdminTx.
func (t agentTx) Listed(ctx context.Context, agentID, id string) (*hippo.Chunk, error) {
	query, args := `SELECT `+listColumns+` FROM chunks WHERE id = $1`, []any{id}
	if agentID != "" {
		query += ` AND agent_id = $2`
		args = append(args, agentID)
	}
	cs, err := queryChunks(ctx, t.tx, query, args...)
	if err != nil || len(cs) == 0 {
		return nil, err
	}
	return cs[0], nil
}

// SupersededBy implements engine.AdminTx.
func (t agentTx) SupersededBy(ctx context.Context, owner, id string) ([]string, error) {
	return engine.ReadIDs(t.tx.Query(ctx, `SELECT id FROM chunks WHERE superseded_by = $1 AND agent_id = $2 ORDER BY id`, id, owner))
}

// Superseded implements engine.AdminTx, locking the rows in a write
// transaction.
func (t agentTx) Superseded(ctx context.Context, f hippo.PurgeFilter) ([]*hippo.Chunk, error) {
	query := `SELECT ` + listColumns + ` FROM chunks WHERE superseded_by IS NOT NULL`
	var args []any
	if f.AgentID != "" {
		args = append(args, f.AgentID)
		query += fmt.Sprintf(` AND agent_id = $%d`, len(args))
	}
	if !f.Before.IsZero() {
		args = append(args, formatTime(f.Before))
		query += fmt.Sprintf(` AND coalesce(superseded_at, created_at) < $%d`, len(args))
	}
	query += ` ORDER BY created_at, id`
	if t.write {
		query += ` FOR UPDATE`
	}
	return queryChunks(ctx, t.tx, query, args...)
}

// Repoint implements engine.AdminTx.
func (t agentTx) Repoint(ctx context.Context, owner, id, next string) error {
	_, err := t.tx.Exec(ctx, `UPDATE chunks SET superseded_by = $1 WHERE superseded_by = $2 AND agent_id = $3`, next, id, owner)
	return err
}

// Purge implements engine.AdminTx.
func (t agentTx) Purge(ctx context.Context, ids []string) error {
	_, err := t.tx.Exec(ctx, `DELETE FROM chunks WHERE id = ANY($1)`, ids)
	return err
}

// InsertChunks writes chunks as they are (IDs, counters and times kept
// when set, filled in when not) in one bulk transaction, checking the
// model lock: a loader for benchmarks, evaluation sets and tests, as
// sqlite.DB.InsertChunks. Chunks without an agent or scope take agentID
// and scope. It skips the trust check (SuspiciousReason is stored as
// given; Provenance, when nil, records hippo.OriginBulk). Every reader
// reloads afterwards (the feed's epoch).
func (db *DB) InsertChunks(ctx context.Context, agentID, scope, model string, chunks []*hippo.Chunk) error {
	if len(chunks) == 0 {
		return nil
	}
	now := db.now()
	return db.bulk(ctx, func(tx pgx.Tx) error {
		if err := lockModelTx(ctx, tx, model, len(chunks[0].Embedding)); err != nil {
			return err
		}
		rows := make([][]any, 0, len(chunks))
		for _, c := range chunks {
			if err := engine.PrepareBulk(c, agentID, scope, db.cfg.DefaultIntensity, now, len(chunks[0].Embedding)); err != nil {
				return err
			}
			var supAt *string
			if c.SupersededAt != nil {
				s := formatTime(*c.SupersededAt)
				supAt = &s
			}
			rows = append(rows, chunkValues(c, supAt))
		}
		cols := strings.Split(strings.NewReplacer("\n", "", "\t", "", " ", "").Replace(chunkColumns), ",")
		_, err := tx.CopyFrom(ctx, pgx.Identifier{"chunks"}, cols, pgx.CopyFromRows(rows))
		if isUniqueViolation(err) {
			return hippo.Errorf(hippo.ECONFLICT, "a chunk's ID, or a memory's content in its scope, is taken")
		}
		return err
	})
}
