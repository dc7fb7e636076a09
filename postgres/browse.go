package postgres

import (
	"context"
	"fmt"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/engine"
)

// browseWhere is chunkWhere with q's own filters.
func browseWhere(q hippo.BrowseQuery) (string, []any) {
	where, args := chunkWhere(q.ChunkFilter)
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
	return where, args
}

func (s adminStore) CountBrowse(ctx context.Context, q hippo.BrowseQuery) (n int, err error) {
	where, args := browseWhere(q)
	err = s.db.pool.QueryRow(ctx, `SELECT count(*) FROM chunks WHERE `+where, args...).Scan(&n)
	return n, err
}

func (s adminStore) BrowseRows(ctx context.Context, q hippo.BrowseQuery) (engine.Rows, error) {
	where, args := browseWhere(q)
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

func (s adminStore) StrengthRows(ctx context.Context, agentID string, ids []string) (engine.Rows, error) {
	return s.db.pool.Query(ctx, `SELECT `+engine.StrengthColumns+` FROM chunks WHERE id = ANY($1) AND agent_id = $2`, ids, agentID)
}

func (s adminStore) ListedRows(ctx context.Context, ids []string) (engine.Rows, error) {
	return s.db.pool.Query(ctx, `SELECT `+listColumns+` FROM chunks WHERE id = ANY($1)`, ids)
}

func (s adminStore) StateRows(ctx context.Context, agentID string) (engine.Rows, error) {
	return s.db.pool.Query(ctx, `SELECT kind, scope, superseded_by IS NOT NULL, count(*)
		FROM chunks WHERE agent_id = $1 GROUP BY 1, 2, 3`, agentID)
}
