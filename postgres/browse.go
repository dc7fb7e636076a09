package postgres

import (
	"context"
	"fmt"
	"sort"

	"github.com/hippo-mem/hippo"
)

// BrowseChunks returns one page of the chunks q selects, in q's order and
// without embeddings, and how many it selects in all (the web UI's
// listing, ui.Store). Strength is computed by the domain's decay
// (hippo.Config.StrengthBy) under the database's clock, in Go: ordering
// by it reads the narrow rows of every selected chunk.
func (db *DB) BrowseChunks(ctx context.Context, q hippo.BrowseQuery) ([]hippo.Browsed, int, error) {
	if q.OnlySuperseded {
		q.Superseded = true
	}
	where, args, err := chunkWhere(q.ChunkFilter)
	if err != nil {
		return nil, 0, err
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
	var order string
	switch q.Order {
	case "", hippo.OrderCreated:
		order = `created_at DESC, id DESC`
	case hippo.OrderAccessed:
		order = `last_accessed_at DESC, id DESC`
	case hippo.OrderStrength:
	default:
		return nil, 0, hippo.Invalidf("order", "must be %q, %q or %q, got %q", hippo.OrderCreated, hippo.OrderStrength, hippo.OrderAccessed, q.Order)
	}
	clock, err := db.DecayClockAt(ctx, q.AgentID, db.now())
	if err != nil {
		return nil, 0, err
	}
	var total int
	if err := db.pool.QueryRow(ctx, `SELECT count(*) FROM chunks WHERE `+where, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count chunks: %w", err)
	}
	var ids []string
	strengths := map[string]float64{}
	if order != "" {
		page := ` OFFSET ` + fmt.Sprint(q.Offset)
		if q.Limit > 0 {
			page = fmt.Sprintf(` LIMIT %d`, q.Limit) + page
		}
		rows, err := db.pool.Query(ctx, `SELECT `+strengthColumns+` FROM chunks WHERE `+where+` ORDER BY `+order+page, args...)
		if err != nil {
			return nil, 0, fmt.Errorf("browse chunks: %w", err)
		}
		if ids, err = scanStrengths(rows, db.cfg, clock, strengths); err != nil {
			return nil, 0, err
		}
	} else {
		rows, err := db.pool.Query(ctx, `SELECT `+strengthColumns+` FROM chunks WHERE `+where, args...)
		if err != nil {
			return nil, 0, fmt.Errorf("browse chunks: %w", err)
		}
		if ids, err = scanStrengths(rows, db.cfg, clock, strengths); err != nil {
			return nil, 0, err
		}
		sort.Slice(ids, func(i, j int) bool {
			if si, sj := strengths[ids[i]], strengths[ids[j]]; si != sj {
				return si > sj
			}
			return ids[i] > ids[j]
		})
		ids = ids[min(q.Offset, len(ids)):]
		if q.Limit > 0 {
			ids = ids[:min(q.Limit, len(ids))]
		}
	}
	out := make([]hippo.Browsed, 0, len(ids))
	if len(ids) == 0 {
		return out, total, nil
	}
	chunks, err := queryChunks(ctx, db.pool, `SELECT `+listColumns+` FROM chunks WHERE id = ANY($1)`, ids)
	if err != nil {
		return nil, 0, err
	}
	byID := make(map[string]*hippo.Chunk, len(chunks))
	for _, c := range chunks {
		byID[c.ID] = c
	}
	for _, id := range ids {
		if c := byID[id]; c != nil {
			out = append(out, hippo.Browsed{Chunk: c, Strength: strengths[id]})
		}
	}
	return out, total, nil
}

// strengthColumns are what a chunk's strength is computed from.
const strengthColumns = `id, running_intensity, access_count, last_accessed_at`

// scanStrengths reads rows of strengthColumns, records each chunk's
// strength under clock and returns the IDs in row order.
func scanStrengths(rows interface {
	Next() bool
	Scan(...any) error
	Err() error
	Close()
}, cfg hippo.Config, clock hippo.DecayClock, out map[string]float64) ([]string, error) {
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var (
			c    hippo.Chunk
			last string
		)
		if err := rows.Scan(&c.ID, &c.RunningIntensity, &c.AccessCount, &last); err != nil {
			return nil, fmt.Errorf("chunk strengths: %w", err)
		}
		at, err := parseTime(last)
		if err != nil {
			return nil, fmt.Errorf("chunk %s: %w", c.ID, err)
		}
		c.LastAccessedAt = at
		out[c.ID] = cfg.StrengthBy(&c, clock)
		ids = append(ids, c.ID)
	}
	return ids, rows.Err()
}

// ChunkStrengths maps the given chunks of an agent to their effective
// strength now, by the database's decay clock; unknown IDs are left out.
func (db *DB) ChunkStrengths(ctx context.Context, agentID string, ids []string) (map[string]float64, error) {
	out := map[string]float64{}
	if len(ids) == 0 {
		return out, nil
	}
	clock, err := db.DecayClockAt(ctx, agentID, db.now())
	if err != nil {
		return nil, err
	}
	rows, err := db.pool.Query(ctx, `SELECT `+strengthColumns+` FROM chunks WHERE id = ANY($1) AND agent_id = $2`, ids, agentID)
	if err != nil {
		return nil, fmt.Errorf("chunk strengths: %w", err)
	}
	if _, err := scanStrengths(rows, db.cfg, clock, out); err != nil {
		return nil, err
	}
	return out, nil
}

// CountAgentChunks counts an agent's chunks by kind, scope and state, and
// its live chunks by strength in bins bands (1 to 100), from the agent's
// index.
func (db *DB) CountAgentChunks(ctx context.Context, agentID string, bins int) (*hippo.ChunkCounts, error) {
	if bins < 1 || bins > 100 {
		return nil, hippo.Invalidf("bins", "must be 1 to 100, got %d", bins)
	}
	c := &hippo.ChunkCounts{ByKind: map[string]int{}, ByScope: map[string]int{}}
	rows, err := db.pool.Query(ctx, `SELECT kind, scope, superseded_by IS NOT NULL, count(*)
		FROM chunks WHERE agent_id = $1 GROUP BY 1, 2, 3`, agentID)
	if err != nil {
		return nil, fmt.Errorf("count chunks: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var kind, scope string
		var superseded bool
		var n int
		if err := rows.Scan(&kind, &scope, &superseded, &n); err != nil {
			return nil, fmt.Errorf("count chunks: %w", err)
		}
		c.ByKind[kind] += n
		c.ByScope[scope] += n
		if superseded {
			c.Superseded += n
		} else {
			c.Live += n
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	ai, err := db.indexes.Sync(ctx, agentID, db.cfg, db.clock.Active(), nil)
	if err != nil {
		return nil, err
	}
	c.Strength = ai.StrengthHistogram(db.clock.Active(), db.now().UnixMilli(), bins)
	return c, nil
}
