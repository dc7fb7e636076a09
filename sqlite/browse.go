package sqlite

import (
	"context"
	"strings"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/engine"
)

// Orders of BrowseChunks (hippo's).
const (
	OrderCreated  = hippo.OrderCreated
	OrderStrength = hippo.OrderStrength
	OrderAccessed = hippo.OrderAccessed
)

// BrowseQuery is hippo.BrowseQuery.
type BrowseQuery = hippo.BrowseQuery

// Browsed is hippo.Browsed.
type Browsed = hippo.Browsed

// ChunkCounts is hippo.ChunkCounts.
type ChunkCounts = hippo.ChunkCounts

// browseWhere is chunkWhere with q's own filters.
func browseWhere(q BrowseQuery) (string, []any) {
	where, args := chunkWhere(q.ChunkFilter)
	if q.OnlySuperseded {
		where += ` AND superseded_by IS NOT NULL`
	}
	if q.Tag != "" {
		where += prefilter(q.Tag) + ` AND EXISTS (SELECT 1 FROM json_each(CASE WHEN json_valid(metadata) THEN metadata END, '$.tags') WHERE value = ?)`
		args = append(args, prefilterArgs(q.Tag, q.Tag)...)
	}
	if q.Category != "" {
		where += prefilter(q.Category) + ` AND CASE WHEN json_valid(metadata) THEN json_extract(metadata, '$.category') END = ?`
		args = append(args, prefilterArgs(q.Category, q.Category)...)
	}
	return where, args
}

func (s adminStore) CountBrowse(ctx context.Context, q BrowseQuery) (n int, err error) {
	where, args := browseWhere(q)
	err = s.db.read.QueryRowContext(ctx, `SELECT COUNT(*) FROM chunks WHERE `+where, args...).Scan(&n)
	return n, err
}

// BrowseRows implements engine.BrowseStore: a page is ordered and cut in
// SQL over narrow rows, so that it costs about the same however deep.
func (s adminStore) BrowseRows(ctx context.Context, q BrowseQuery) (engine.Rows, error) {
	where, args := browseWhere(q)
	query := `SELECT ` + engine.StrengthColumns + ` FROM chunks WHERE ` + where
	if q.Order != OrderStrength {
		order := `created_at`
		if q.Order == OrderAccessed {
			order = `last_accessed_at`
		}
		limit := q.Limit
		if limit == 0 {
			limit = -1 // SQLite: no limit
		}
		query += ` ORDER BY ` + order + ` DESC, id DESC LIMIT ? OFFSET ?`
		args = append(args, limit, q.Offset)
	}
	return s.db.read.QueryContext(ctx, query, args...)
}

func (s adminStore) StrengthRows(ctx context.Context, agentID string, ids []string) (engine.Rows, error) {
	return s.db.read.QueryContext(ctx, `SELECT `+engine.StrengthColumns+` FROM chunks WHERE id IN (`+
		placeholders(len(ids))+`) AND +agent_id = ?`, append(anys(ids), agentID)...)
}

func (s adminStore) ListedRows(ctx context.Context, ids []string) (engine.Rows, error) {
	return s.db.read.QueryContext(ctx, `SELECT `+listColumns+` FROM chunks WHERE id IN (`+placeholders(len(ids))+`)`, anys(ids)...)
}

func (s adminStore) StateRows(ctx context.Context, agentID string) (engine.Rows, error) {
	return s.db.read.QueryContext(ctx, `SELECT kind, scope, superseded_by IS NOT NULL, COUNT(*)
		FROM chunks WHERE agent_id = ? GROUP BY 1, 2, 3`, agentID)
}

// anys is ids as query arguments.
func anys(ids []string) []any {
	args := make([]any, len(ids), len(ids)+1)
	for i, id := range ids {
		args[i] = id
	}
	return args
}

// prefilter is a cheap first cut before a metadata value is looked up in
// the parsed JSON: most rows do not hold its text at all. It applies only
// to values of plain characters (letters, digits, " _-.:#@+"), which no
// JSON encoder escapes, so that a stored value always holds them as they
// are; for others it is empty and every row's JSON is parsed.
func prefilter(v string) string {
	if !plain(v) {
		return ""
	}
	return ` AND instr(metadata, ?) > 0`
}

// prefilterArgs are the arguments of prefilter(v) followed by rest.
func prefilterArgs(v string, rest ...any) []any {
	if !plain(v) {
		return rest
	}
	return append([]any{`"` + v + `"`}, rest...)
}

func plain(v string) bool {
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte(" _-.:#@+", c) >= 0) {
			return false
		}
	}
	return true
}
