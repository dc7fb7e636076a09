package ui

import (
	"net/http"
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
}

// agents lists every agent with its counts and last write, and the
// database's size.
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
	d := agentsData{Stats: st}
	for _, a := range list {
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
