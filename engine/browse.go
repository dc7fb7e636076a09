package engine

import (
	"context"
	"fmt"
	"sort"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/internal/timestamp"
)

// BrowseStore is what browsing chunks needs of a store (the web UI's
// listing and overview). Its rows are read by the engine.
type BrowseStore interface {
	// CountBrowse counts the chunks q selects.
	CountBrowse(ctx context.Context, q hippo.BrowseQuery) (int, error)
	// BrowseRows reads rows of StrengthColumns of the chunks q selects:
	// q's page in q's order for OrderCreated and OrderAccessed (newest
	// first, then by ID, descending); every one, in any order, for
	// OrderStrength, which the engine orders.
	BrowseRows(ctx context.Context, q hippo.BrowseQuery) (Rows, error)
	// StrengthRows reads rows of StrengthColumns of agentID's chunks ids.
	StrengthRows(ctx context.Context, agentID string, ids []string) (Rows, error)
	// ListedRows reads chunks by ID, rows of ChunkColumns with an empty
	// embedding.
	ListedRows(ctx context.Context, ids []string) (Rows, error)
	// StateRows reads agentID's chunks counted by kind, scope and state:
	// rows of (kind, scope, superseded, count).
	StateRows(ctx context.Context, agentID string) (Rows, error)
}

// StrengthColumns are what a chunk's strength is computed from, in the
// order BrowseStore's rows hold them.
const StrengthColumns = `id, agent_id, running_intensity, access_count, last_accessed_at`

// checkFilter checks a chunk filter: its kind, limit and offset, and a
// text that still says something once folded (hippo.Fold).
func checkFilter(f hippo.ChunkFilter) error {
	if f.Kind != "" && !f.Kind.Valid() {
		return hippo.Invalidf("kind", "must be %q or %q, got %q", hippo.KindFact, hippo.KindMemory, f.Kind)
	}
	if f.Limit < 0 || f.Offset < 0 {
		return hippo.Invalidf("limit", "limit and offset must not be negative")
	}
	if f.Text != "" && hippo.Fold(f.Text) == "" {
		return hippo.Invalidf("text", "%q has nothing to search for once accents are ignored", f.Text)
	}
	return nil
}

// BrowseChunks returns one page of the chunks q selects, in q's order and
// without embeddings, each with its strength now by the decay clock, and
// how many it selects in all (the web UI's listing). Ordering by strength
// reads the narrow rows of every selected chunk.
func (a *Admin) BrowseChunks(ctx context.Context, q hippo.BrowseQuery) ([]hippo.Browsed, int, error) {
	st := a.st
	if q.OnlySuperseded {
		q.Superseded = true
	}
	if err := checkFilter(q.ChunkFilter); err != nil {
		return nil, 0, err
	}
	switch q.Order {
	case "", hippo.OrderCreated, hippo.OrderStrength, hippo.OrderAccessed:
	default:
		return nil, 0, hippo.Invalidf("order", "must be %q, %q or %q, got %q", hippo.OrderCreated, hippo.OrderStrength, hippo.OrderAccessed, q.Order)
	}
	total, err := st.CountBrowse(ctx, q)
	if err != nil {
		return nil, 0, fmt.Errorf("count chunks: %w", err)
	}
	rows, err := strengthReader{ctx, a.cfg, a.clock}.read(st.BrowseRows(ctx, q))
	if err != nil {
		return nil, 0, fmt.Errorf("browse chunks: %w", err)
	}
	if q.Order == hippo.OrderStrength {
		sort.Slice(rows, func(i, j int) bool {
			if rows[i].strength != rows[j].strength {
				return rows[i].strength > rows[j].strength
			}
			return rows[i].id > rows[j].id
		})
		rows = rows[min(q.Offset, len(rows)):]
		if q.Limit > 0 {
			rows = rows[:min(q.Limit, len(rows))]
		}
	}
	out := make([]hippo.Browsed, 0, len(rows))
	if len(rows) == 0 {
		return out, total, nil
	}
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r.id
	}
	chunks, err := ReadChunks(st.ListedRows(ctx, ids))
	if err != nil {
		return nil, 0, err
	}
	byID := make(map[string]*hippo.Chunk, len(chunks))
	for _, c := range chunks {
		byID[c.ID] = c
	}
	for _, r := range rows {
		if c := byID[r.id]; c != nil {
			out = append(out, hippo.Browsed{Chunk: c, Strength: r.strength})
		}
	}
	return out, total, nil
}

// ChunkStrengths maps agentID's chunks ids to their strength now by the
// decay clock; unknown IDs are left out.
func (a *Admin) ChunkStrengths(ctx context.Context, agentID string, ids []string) (map[string]float64, error) {
	out := map[string]float64{}
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := strengthReader{ctx, a.cfg, a.clock}.read(a.st.StrengthRows(ctx, agentID, ids))
	if err != nil {
		return nil, fmt.Errorf("chunk strengths: %w", err)
	}
	for _, r := range rows {
		out[r.id] = r.strength
	}
	return out, nil
}

// CountAgentChunks counts agentID's chunks by kind, scope and state, and
// its live chunks by strength now in bins bands (1 to 100), from its
// index.
func (a *Admin) CountAgentChunks(ctx context.Context, agentID string, bins int) (*hippo.ChunkCounts, error) {
	if bins < 1 || bins > 100 {
		return nil, hippo.Invalidf("bins", "must be 1 to 100, got %d", bins)
	}
	c := &hippo.ChunkCounts{ByKind: map[string]int{}, ByScope: map[string]int{}}
	rows, err := a.st.StateRows(ctx, agentID)
	err = ReadRows(rows, err, func() error {
		var kind, scope string
		var superseded bool
		var n int
		if err := rows.Scan(&kind, &scope, &superseded, &n); err != nil {
			return err
		}
		c.ByKind[kind] += n
		c.ByScope[scope] += n
		if superseded {
			c.Superseded += n
		} else {
			c.Live += n
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("count chunks: %w", err)
	}
	ai, err := a.indexes.Sync(ctx, agentID, a.cfg, a.clock.Active(), nil)
	if err != nil {
		return nil, err
	}
	c.Strength = ai.strengthHistogram(a.clock.Active(), a.clock.Now().UnixMilli(), bins)
	return c, nil
}

// strengthRow is a chunk's ID with its strength.
type strengthRow struct {
	id       string
	strength float64
}

// strengthReader reads rows of StrengthColumns, each chunk's strength
// computed by its agent's clock now.
type strengthReader struct {
	ctx   context.Context
	cfg   hippo.Config
	clock *Clock
}

func (r strengthReader) read(rows Rows, err error) ([]strengthRow, error) {
	var cs []hippo.Chunk
	err = ReadRows(rows, err, func() error {
		var c hippo.Chunk
		var last string
		if err := rows.Scan(&c.ID, &c.AgentID, &c.RunningIntensity, &c.AccessCount, &last); err != nil {
			return err
		}
		var err error
		if c.LastAccessedAt, err = timestamp.Parse(last); err != nil {
			return fmt.Errorf("chunk %s: %w", c.ID, err)
		}
		cs = append(cs, c)
		return nil
	})
	if err != nil {
		return nil, err
	}
	now := r.clock.Now()
	clocks := map[string]hippo.DecayClock{}
	out := make([]strengthRow, len(cs))
	for i := range cs {
		c := &cs[i]
		at, ok := clocks[c.AgentID]
		if !ok {
			if at, err = r.clock.At(r.ctx, c.AgentID, now); err != nil {
				return nil, err
			}
			clocks[c.AgentID] = at
		}
		out[i] = strengthRow{c.ID, r.cfg.StrengthBy(c, at)}
	}
	return out, nil
}
