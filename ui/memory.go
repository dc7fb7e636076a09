package ui

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/hippo-mem/hippo"
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
	// Suspicious lists only chunks flagged suspicious, for review.
	Suspicious bool
}

func parseChunkQuery(r *http.Request, agent string) (chunkQuery, error) {
	q := r.URL.Query()
	cq := chunkQuery{Agent: agent, Kind: q.Get("kind"), Scope: "*", Tag: strings.TrimSpace(q.Get("tag")),
		Category: strings.TrimSpace(q.Get("category")), State: cmp.Or(q.Get("state"), "live"),
		Text: strings.TrimSpace(q.Get("q")), Sort: cmp.Or(q.Get("sort"), "created"), Page: 1,
		Suspicious: q.Get("suspicious") == "1"}
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

// browse is the query the store runs.
func (cq chunkQuery) browse() hippo.BrowseQuery {
	q := hippo.BrowseQuery{ChunkFilter: hippo.ChunkFilter{AgentID: cq.Agent, Kind: hippo.Kind(cq.Kind),
		Superseded: cq.State != "live", Suspicious: cq.Suspicious, Text: cq.Text, Limit: PageSize, Offset: (cq.Page - 1) * PageSize},
		OnlySuperseded: cq.State == "superseded", Tag: cq.Tag, Category: cq.Category, Order: hippo.OrderCreated}
	if cq.Scope != "*" {
		s := cq.Scope
		q.Scope = &s
	}
	switch cq.Sort {
	case "strength":
		q.Order = hippo.OrderStrength
	case "recency":
		q.Order = hippo.OrderAccessed
	}
	return q
}

// SuspiciousParam is the query value of Suspicious: "1" or "".
func (cq chunkQuery) SuspiciousParam() string {
	if cq.Suspicious {
		return "1"
	}
	return ""
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
	Model      hippo.DecayModel
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
	cfg := h.cfg.Store.Config()
	d := &memoryData{Q: cq, Floor: cfg.StrengthFloor, DecayClock: h.cfg.Store.DecayClock(), Model: cfg.Decay, Lambda: cfg.Lambda}
	rows, total, err := h.cfg.Store.BrowseChunks(r.Context(), cq.browse())
	if err != nil {
		h.fail(w, r, err)
		return
	}
	d.Total, d.Pages = total, max(1, (total+PageSize-1)/PageSize)
	for _, b := range rows {
		tags, cat := metaTags(b.Chunk.Metadata)
		d.Rows = append(d.Rows, chunkRow{C: b.Chunk, Strength: b.Strength, Curve: projectCurve(cfg, b.Chunk, b.Strength), Tags: tags, Category: cat})
	}
	h.render(w, r, "memory", http.StatusOK, page{Title: "Memory of " + agent, Agent: agent, Tab: "memory", Data: d})
}

// metaTags reads the "tags" and "category" of a chunk's metadata.
func metaTags(raw json.RawMessage) (tags []string, category string) {
	if len(raw) == 0 {
		return nil, ""
	}
	var m struct {
		Tags     any `json:"tags"`
		Category any `json:"category"`
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
	category, _ = m.Category.(string)
	return tags, category
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
	Lock       *hippo.ModelLock
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
	cc, err := h.cfg.Store.CountAgentChunks(ctx, agent, histBins)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	lock, err := h.cfg.Store.EmbeddingModel(ctx)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	cfg := h.cfg.Store.Config()
	d := overviewData{Floor: cfg.StrengthFloor, Lock: lock, DecayClock: h.cfg.Store.DecayClock(), Config: cfg,
		HalfLife: fmt.Sprintf("%.1f days", cfg.HalfLife(cfg.DefaultIntensity, 0).Hours()/24), Live: cc.Live, Superseded: cc.Superseded}
	for _, n := range cc.Strength {
		d.MaxCount = max(d.MaxCount, n)
	}
	for i, n := range cc.Strength {
		b := histBar{From: float64(i) / histBins, To: float64(i+1) / histBins, Count: n, X: float64(i) * 30}
		if d.MaxCount > 0 {
			b.H = 100 * float64(n) / float64(d.MaxCount)
		}
		b.Y = 110 - b.H
		d.Histogram = append(d.Histogram, b)
	}
	kinds, scopes := cc.ByKind, cc.ByScope
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
