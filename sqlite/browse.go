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

// BrowseChunks returns one page of the chunks q selects, in q's order and
// without embeddings, and how many it selects in all (engine.Browse).
func (db *DB) BrowseChunks(ctx context.Context, q BrowseQuery) ([]Browsed, int, error) {
	return engine.Browse(ctx, browseStore{db}, db.cfg, db.clock, q)
}

// ChunkStrengths maps the given chunks of an agent to their effective
// strength now, by the database's decay clock; unknown IDs are left out.
func (db *DB) ChunkStrengths(ctx context.Context, agentID string, ids []string) (map[string]float64, error) {
	return engine.ChunkStrengths(ctx, browseStore{db}, db.cfg, db.clock, agentID, ids)
}

// ChunkCounts is hippo.ChunkCounts.
type ChunkCounts = hippo.ChunkCounts

// CountAgentChunks counts an agent's chunks by kind, scope and state, and
// its live chunks by strength in bins bands (1 to 100), from its index.
func (db *DB) CountAgentChunks(ctx context.Context, agentID string, bins int) (*ChunkCounts, error) {
	return engine.CountAgentChunks(ctx, browseStore{db}, db.clock, agentID, bins, func(ctx context.Context) (*engine.Index, error) {
		return db.indexes.Sync(ctx, agentID, db.cfg, db.clock.Active(), nil)
	})
}

// browseStore is the database as engine.BrowseStore.
type browseStore struct{ db *DB }

// browseWhere is chunkWhere with q's own filters.
func browseWhere(q BrowseQuery) (string, []any, error) {
	where, args, err := chunkWhere(q.ChunkFilter)
	if err != nil {
		return "", nil, err
	}
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
	return where, args, nil
}

func (s browseStore) CountBrowse(ctx context.Context, q BrowseQuery) (int, error) {
	where, args, err := browseWhere(q)
	if err != nil {
		return 0, err
	}
	var n int
	err = s.db.read.QueryRowContext(ctx, `SELECT COUNT(*) FROM chunks WHERE `+where, args...).Scan(&n)
	return n, err
}

// BrowseRows implements engine.BrowseStore: a page is ordered and cut in
// SQL over narrow rows, so that it costs about the same however deep.
func (s browseStore) BrowseRows(ctx context.Context, q BrowseQuery) (engine.Rows, error) {
	where, args, err := browseWhere(q)
	if err != nil {
		return nil, err
	}
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

func (s browseStore) StrengthRows(ctx context.Context, agentID string, ids []string) (engine.Rows, error) {
	return s.db.read.QueryContext(ctx, `SELECT `+engine.StrengthColumns+` FROM chunks WHERE id IN (`+
		placeholders(len(ids))+`) AND agent_id = ?`, append(anys(ids), agentID)...)
}

func (s browseStore) ListedRows(ctx context.Context, ids []string) (engine.Rows, error) {
	return s.db.read.QueryContext(ctx, `SELECT `+listColumns+` FROM chunks WHERE id IN (`+placeholders(len(ids))+`)`, anys(ids)...)
}

func (s browseStore) StateRows(ctx context.Context, agentID string) (engine.Rows, error) {
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
