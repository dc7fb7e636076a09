package ui

import (
	"net/http"
	"strconv"
	"time"

	"github.com/hippo-mem/hippo"
)

// agentRow is one line of the agents page.
type agentRow struct {
	hippo.AgentSummary
	// LastActive is the latest chunk creation or recall, or block update.
	LastActive time.Time
}

type agentsData struct {
	Agents []agentRow
	Stats  *hippo.Stats
	// The page: agents First to Last (from 1) of Total; Prev and Next are
	// page numbers, 0 when there is none.
	First, Last, Total int
	Prev, Next         int
}

// AgentsPerPage is how many agents a page of the agents list shows: each
// costs two queries (its last activity), so a database of 20,000 agents
// is shown a page at a time.
const AgentsPerPage = 100

// agents lists the agents, a page at a time (?page=, from 1), with their
// counts and last activity, and the database's size.
func (h *Handler) agents(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	list, err := h.cfg.Store.Agents(ctx)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	st, err := h.cfg.Store.Stats(ctx)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	pageNo := 1
	if v := r.FormValue("page"); v != "" {
		if pageNo, err = strconv.Atoi(v); err != nil || pageNo < 1 {
			h.fail(w, r, hippo.Invalidf("page", "must be a page number from 1, got %q", v))
			return
		}
	}
	d := agentsData{Stats: st, Total: len(list)}
	lo := min((pageNo-1)*AgentsPerPage, len(list))
	hi := min(lo+AgentsPerPage, len(list))
	if lo < hi {
		d.First, d.Last = lo+1, hi
	}
	if pageNo > 1 {
		d.Prev = pageNo - 1
	}
	if hi < len(list) {
		d.Next = pageNo + 1
	}
	for _, a := range list[lo:hi] {
		row := agentRow{AgentSummary: a}
		latest, _, err := h.cfg.Store.BrowseChunks(ctx, hippo.BrowseQuery{Order: hippo.OrderAccessed,
			ChunkFilter: hippo.ChunkFilter{AgentID: a.AgentID, Superseded: true, Limit: 1}})
		if err != nil {
			h.fail(w, r, err)
			return
		}
		if len(latest) > 0 {
			row.LastActive = latest[0].Chunk.LastAccessedAt
		}
		blocks, err := h.cfg.Store.ListBlocks(ctx, a.AgentID, nil)
		if err != nil {
			h.fail(w, r, err)
			return
		}
		for _, b := range blocks {
			if b.UpdatedAt.After(row.LastActive) {
				row.LastActive = b.UpdatedAt
			}
		}
		d.Agents = append(d.Agents, row)
	}
	h.render(w, r, "agents", http.StatusOK, page{Title: "Agents", Data: d})
}

// agentParam reads and checks the agent query parameter.
func agentParam(r *http.Request) (string, error) {
	a := r.FormValue("agent")
	if err := hippo.ValidateAgentID(a); err != nil {
		return "", err
	}
	return a, nil
}
