package postgres

import (
	"context"
	"fmt"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/engine"
)

// BrowseChunks returns one page of the chunks q selects, in q's order and
// without embeddings, and how many it selects in all (engine.Browse, the
// web UI's listing).
func (db *DB) BrowseChunks(ctx context.Context, q hippo.BrowseQuery) ([]hippo.Browsed, int, error) {
	return engine.Browse(ctx, browseStore{db}, db.cfg, db.clock, q)
}

// ChunkStrengths maps the given chunks of an agent to their effective
// strength now, by the database's decay clock; unknown IDs are left out.
func (db *DB) ChunkStrengths(ctx context.Context, agentID string, ids []string) (map[string]float64, error) {
	return engine.ChunkStrengths(ctx, browseStore{db}, db.cfg, db.clock, agentID, ids)
}

// CountAgentChunks counts an agent's chunks by kind, scope and state, and
// its live chunks by strength in bins bands (1 to 100), from its index.
func (db *DB) CountAgentChunks(ctx context.Context, agentID string, bins int) (*hippo.ChunkCounts, error) {
	return engine.CountAgentChunks(ctx, browseStore{db}, db.clock, agentID, bins, func(ctx context.Context) (*engine.Index, error) {
		return db.indexes.Sync(ctx, agentID, db.cfg, db.clock.Active(), nil)
	})
}

// browseStore is the database as engine.BrowseStore.
type browseStore struct{ db *DB }

// browseWhere is chunkWhere with q's own filters.
func browseWhere(q hippo.BrowseQuery) (string, []any, error) {
	where, args, err := chunkWhere(q.ChunkFilter)
	if err != nil {
		return "", nil, err
	}
	if q.OnlySuperseded {
		where += ` AND superseded_by IS NOT NULL`
	}
	if q.Tag != "" {
		args = append(args, q.Tag)
		where += fmt.Sprintf(` AND hippo_json(metadata) -> 'tags' @> to_jsonb($%d::text)`, len(args))
	}
	if q.Category != "" {
		args = append(args, q.Category)
		where += fmt.Sprintf(` AND hippo_json(metadata) ->> 'category' = $%d`, len(args))
	}
	return where, args, nil
}

func (s browseStore) CountBrowse(ctx context.Context, q hippo.BrowseQuery) (int, error) {
	where, args, err := browseWhere(q)
	if err != nil {
		return 0, err
	}
	var n int
	err = s.db.pool.QueryRow(ctx, `SELECT count(*) FROM chunks WHERE `+where, args...).Scan(&n)
	return n, err
}

func (s browseStore) BrowseRows(ctx context.Context, q hippo.BrowseQuery) (engine.Rows, error) {
	where, args, err := browseWhere(q)
	if err != nil {
		return nil, err
	}
	query := `SELECT ` + engine.StrengthColumns + ` FROM chunks WHERE ` + where
	if q.Order != hippo.OrderStrength {
		order := `created_at`
		if q.Order == hippo.OrderAccessed {
			order = `last_accessed_at`
		}
		query += ` ORDER BY ` + order + ` DESC, id DESC`
		if q.Limit > 0 {
			query += fmt.Sprintf(` LIMIT %d`, q.Limit)
		}
		query += fmt.Sprintf(` OFFSET %d`, q.Offset)
	}
	return s.db.pool.Query(ctx, query, args...)
}

func (s browseStore) StrengthRows(ctx context.Context, agentID string, ids []string) (engine.Rows, error) {
	return s.db.pool.Query(ctx, `SELECT `+engine.StrengthColumns+` FROM chunks WHERE id = ANY($1) AND agent_id = $2`, ids, agentID)
}

func (s browseStore) ListedRows(ctx context.Context, ids []string) (engine.Rows, error) {
	return s.db.pool.Query(ctx, `SELECT `+listColumns+` FROM chunks WHERE id = ANY($1)`, ids)
}

func (s browseStore) StateRows(ctx context.Context, agentID string) (engine.Rows, error) {
	return s.db.pool.Query(ctx, `SELECT kind, scope, superseded_by IS NOT NULL, count(*)
		FROM chunks WHERE agent_id = $1 GROUP BY 1, 2, 3`, agentID)
}
