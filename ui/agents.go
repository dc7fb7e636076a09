package ui

import (
	"net/http"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/sqlite"
)

// agentRow is one line of the agents page.
type agentRow struct {
	sqlite.AgentSummary
	// LastWrite is the newest chunk's creation or block's update.
	LastWrite time.Time
}

type agentsData struct {
	Agents []agentRow
	Stats  *sqlite.Stats
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
		newest, err := h.cfg.Store.ListChunks(ctx, sqlite.ChunkFilter{AgentID: a.AgentID, Superseded: true, Limit: 1})
		if err != nil {
			h.fail(w, r, err)
			return
		}
		if len(newest) > 0 {
			row.LastWrite = newest[0].CreatedAt
		}
		blocks, err := h.cfg.Store.ListBlocks(ctx, a.AgentID, nil)
		if err != nil {
			h.fail(w, r, err)
			return
		}
		for _, b := range blocks {
			if b.UpdatedAt.After(row.LastWrite) {
				row.LastWrite = b.UpdatedAt
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
