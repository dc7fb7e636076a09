package ui

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/sqlite"
)

// PageSize is the number of chunks on a page of the memory table.
const PageSize = 50

// chunkQuery is the memory table's filter, sort and page.
type chunkQuery struct {
	Agent    string
	Kind     string // "", "fact" or "memory"
	Scope    string // "*" for every scope, "" the global one
	Tag      string
	Category string
	State    string // "live", "superseded" or "all"
	Text     string
	Sort     string // "created", "strength" or "recency" (last access)
	Page     int    // from 1
}

func parseChunkQuery(r *http.Request, agent string) (chunkQuery, error) {
	q := r.URL.Query()
	cq := chunkQuery{Agent: agent, Kind: q.Get("kind"), Scope: "*", Tag: strings.TrimSpace(q.Get("tag")),
		Category: strings.TrimSpace(q.Get("category")), State: cmp.Or(q.Get("state"), "live"),
		Text: strings.TrimSpace(q.Get("q")), Sort: cmp.Or(q.Get("sort"), "created"), Page: 1}
	if q.Has("scope") && q.Get("scope") != "*" {
		cq.Scope = q.Get("scope")
		if err := hippo.ValidateScope(cq.Scope); err != nil {
			return cq, err
		}
	}
	if cq.Kind != "" && !hippo.Kind(cq.Kind).Valid() {
		return cq, hippo.Invalidf("kind", "must be fact or memory, got %q", cq.Kind)
	}
	if !slices.Contains([]string{"live", "superseded", "all"}, cq.State) {
		return cq, hippo.Invalidf("state", "must be live, superseded or all, got %q", cq.State)
	}
	if !slices.Contains([]string{"created", "strength", "recency"}, cq.Sort) {
		return cq, hippo.Invalidf("sort", "must be created, strength or recency, got %q", cq.Sort)
	}
	if p := q.Get("page"); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 1_000_000 {
			return cq, hippo.Invalidf("page", "must be a page number, got %q", p)
		}
		cq.Page = n
	}
	return cq, nil
}

// filter is the part of the query the store applies.
func (cq chunkQuery) filter() sqlite.ChunkFilter {
	f := sqlite.ChunkFilter{AgentID: cq.Agent, Kind: hippo.Kind(cq.Kind), Superseded: cq.State != "live", Text: cq.Text}
	if cq.Scope != "*" {
		s := cq.Scope
		f.Scope = &s
	}
	return f
}

// paged reports whether the store can page the result itself: ordered by
// creation, with no filter it does not know.
func (cq chunkQuery) paged() bool {
	return cq.Sort == "created" && cq.Tag == "" && cq.Category == "" && cq.State != "superseded"
}

// chunkRow is one row of the memory table.
type chunkRow struct {
	C        *hippo.Chunk
	Strength float64
	Curve    Curve
	Tags     []string
	Category string
}

type memoryData struct {
	Q          chunkQuery
	Rows       []chunkRow
	Total      int
	Pages      int
	Floor      float64
	DecayClock string
	Lambda     float64
}

// memory is the agent's chunk table.
func (h *Handler) memory(w http.ResponseWriter, r *http.Request) {
	agent, err := agentParam(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	cq, err := parseChunkQuery(r, agent)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	d, err := h.chunkPage(r.Context(), cq)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.render(w, r, "memory", http.StatusOK, page{Title: "Memory of " + agent, Agent: agent, Tab: "memory", Data: d})
}

// chunkPage selects, sorts and pages the chunks. Ordered by creation the
// store pages; otherwise every matching chunk is read (without vectors)
// and sorted here.
func (h *Handler) chunkPage(ctx context.Context, cq chunkQuery) (*memoryData, error) {
	cfg := h.cfg.Store.Config()
	now := h.cfg.Now()
	d := &memoryData{Q: cq, Floor: cfg.StrengthFloor, DecayClock: h.cfg.Store.DecayClock(), Lambda: cfg.Lambda}
	f := cq.filter()
	var chunks []*hippo.Chunk
	var err error
	if cq.paged() {
		if d.Total, err = h.cfg.Store.CountChunks(ctx, f); err != nil {
			return nil, err
		}
		f.Limit, f.Offset = PageSize, (cq.Page-1)*PageSize
		if chunks, err = h.cfg.Store.ListChunks(ctx, f); err != nil {
			return nil, err
		}
	} else {
		all, err := h.cfg.Store.ListChunks(ctx, f)
		if err != nil {
			return nil, err
		}
		all = slices.DeleteFunc(all, func(c *hippo.Chunk) bool { return !cq.keeps(c) })
		switch cq.Sort {
		case "strength":
			strength := make(map[string]float64, len(all))
			for _, c := range all {
				strength[c.ID] = c.Strength(cfg, now)
			}
			slices.SortStableFunc(all, func(a, b *hippo.Chunk) int { return cmp.Compare(strength[b.ID], strength[a.ID]) })
		case "recency":
			slices.SortStableFunc(all, func(a, b *hippo.Chunk) int { return b.LastAccessedAt.Compare(a.LastAccessedAt) })
		}
		d.Total = len(all)
		lo := min(len(all), (cq.Page-1)*PageSize)
		chunks = all[lo:min(len(all), lo+PageSize)]
	}
	d.Pages = max(1, (d.Total+PageSize-1)/PageSize)
	for _, c := range chunks {
		tags, cat := metaTags(c.Metadata)
		d.Rows = append(d.Rows, chunkRow{C: c, Strength: c.Strength(cfg, now), Curve: projectCurve(cfg, c, now), Tags: tags, Category: cat})
	}
	return d, nil
}

// keeps applies the filters the store does not know.
func (cq chunkQuery) keeps(c *hippo.Chunk) bool {
	if cq.State == "superseded" && c.SupersededBy == "" {
		return false
	}
	if cq.Tag == "" && cq.Category == "" {
		return true
	}
	tags, cat := metaTags(c.Metadata)
	if cq.Category != "" && !strings.EqualFold(cat, cq.Category) {
		return false
	}
	return cq.Tag == "" || slices.ContainsFunc(tags, func(t string) bool { return strings.EqualFold(t, cq.Tag) })
}

// metaTags reads the "tags" and "category" of a chunk's metadata.
func metaTags(raw json.RawMessage) (tags []string, category string) {
	if len(raw) == 0 {
		return nil, ""
	}
	var m struct {
		Tags     any    `json:"tags"`
		Category string `json:"category"`
	}
	if json.Unmarshal(raw, &m) != nil {
		return nil, ""
	}
	switch t := m.Tags.(type) {
	case string:
		tags = []string{t}
	case []any:
		for _, v := range t {
			if s, ok := v.(string); ok {
				tags = append(tags, s)
			}
		}
	}
	return tags, m.Category
}

// overviewData is the overview page: the strength distribution of live
// chunks, chunks by kind and scope, and the model lock.
type overviewData struct {
	Histogram  []histBar
	MaxCount   int
	Floor      float64
	Live       int
	Superseded int
	ByKind     []countRow
	ByScope    []countRow
	Stats      *sqlite.Stats
	DecayClock string
	Config     hippo.Config
	HalfLife   string
}

type histBar struct {
	From, To float64
	Count    int
	X, Y, H  float64 // SVG position and height
}

type countRow struct {
	Name  string
	Count int
}

const histBins = 10

func (h *Handler) overview(w http.ResponseWriter, r *http.Request) {
	agent, err := agentParam(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	ctx := r.Context()
	all, err := h.cfg.Store.ListChunks(ctx, sqlite.ChunkFilter{AgentID: agent, Superseded: true})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	st, err := h.cfg.Store.Stats(ctx)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	cfg, now := h.cfg.Store.Config(), h.cfg.Now()
	d := overviewData{Floor: cfg.StrengthFloor, Stats: st, DecayClock: h.cfg.Store.DecayClock(), Config: cfg, HalfLife: fmt.Sprintf("%.1f days", cfg.HalfLife(0).Hours()/24)}
	var bins [histBins]int
	kinds, scopes := map[string]int{}, map[string]int{}
	for _, c := range all {
		kinds[string(c.Kind)]++
		scopes[c.Scope]++
		if c.SupersededBy != "" {
			d.Superseded++
			continue
		}
		d.Live++
		bins[min(histBins-1, int(c.Strength(cfg, now)*histBins))]++
	}
	for _, n := range bins {
		d.MaxCount = max(d.MaxCount, n)
	}
	for i, n := range bins {
		b := histBar{From: float64(i) / histBins, To: float64(i+1) / histBins, Count: n, X: float64(i) * 30}
		if d.MaxCount > 0 {
			b.H = 100 * float64(n) / float64(d.MaxCount)
		}
		b.Y = 110 - b.H
		d.Histogram = append(d.Histogram, b)
	}
	d.ByKind, d.ByScope = counts(kinds), counts(scopes)
	h.render(w, r, "overview", http.StatusOK, page{Title: "Overview of " + agent, Agent: agent, Tab: "overview", Data: d})
}

// counts sorts a tally by count, then name.
func counts(m map[string]int) []countRow {
	out := make([]countRow, 0, len(m))
	for k, n := range m {
		out = append(out, countRow{k, n})
	}
	slices.SortFunc(out, func(a, b countRow) int { return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Name, b.Name)) })
	return out
}
