package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/engine"
	"github.com/hippo-mem/hippo/internal/sqlstore"
	"github.com/jackc/pgx/v5"
)

// queryChunks runs query and reads its chunks, without embeddings.
func queryChunks(ctx context.Context, q querier, query string, args ...any) ([]*hippo.Chunk, error) {
	return engine.ReadChunks(q.Query(ctx, query, args...))
}

// recalledColumns is engine.ChunkColumns without the embedding, which
// recall results and listings leave out.
var recalledColumns = engine.ChunkColumnsAs("NULL::bytea", "NULL::bytea")

// deref is *s, "" for nil.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// Chunk returns one chunk by ID, of agentID unless agentID is "".
func (db *DB) Chunk(ctx context.Context, agentID, id string) (*hippo.Chunk, error) {
	return txOf(db.pool, agentID).Chunk(ctx, id)
}

// sameMemory finds the memory an agent holds with a content hash in a
// scope ($1 agent, $2 scope, $3 hash), by the dedup index.
const sameMemory = `agent_id = $1 AND scope = $2 AND left(content_hash, 32) = left($3, 32) AND content_hash = $3 AND kind = 'memory'`

func (s adminStore) AdminView(ctx context.Context, fn func(engine.AdminTx) error) error {
	return pgx.BeginTxFunc(ctx, s.db.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly},
		func(tx pgx.Tx) error { return fn(txOf(tx, "")) })
}

func (s adminStore) AdminUpdate(ctx context.Context, agentID string, fn func(engine.AdminTx) error) error {
	return pgx.BeginFunc(ctx, s.db.pool, func(tx pgx.Tx) error {
		if agentID != "" {
			if err := lockAgent(ctx, tx, agentID); err != nil {
				return err
			}
		}
		t := txOf(tx, "")
		t.write = true
		return fn(t)
	})
}

// AfterDelete implements engine.AdminStore: PostgreSQL keeps deleted
// tuples until VACUUM.
func (s adminStore) AfterDelete(context.Context) {}

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
		if err := sqlstore.LockModel(ctx, pgQuerier{tx}, model, len(chunks[0].Embedding)); err != nil {
			return err
		}
		rows := make([][]any, 0, len(chunks))
		for _, c := range chunks {
			if err := engine.PrepareBulk(c, agentID, scope, db.cfg.DefaultIntensity, now, len(chunks[0].Embedding)); err != nil {
				return err
			}
			rows = append(rows, sqlstore.ChunkArgs(c))
		}
		cols := strings.Split(strings.NewReplacer("\n", "", "\t", "", " ", "").Replace(engine.ChunkColumns), ",")
		_, err := tx.CopyFrom(ctx, pgx.Identifier{"chunks"}, cols, pgx.CopyFromRows(rows))
		if isUniqueViolation(err) {
			return hippo.Errorf(hippo.ECONFLICT, "a chunk's ID, or a memory's content in its scope, is taken")
		}
		return err
	})
}
