package ui

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/hippo-mem/hippo"
)

type forgetData struct {
	Description, Threshold string
	Preview                *hippo.ForgetResult
	// Done is set after a confirmed deletion.
	Done *deleted
}

// deleted is what a confirmed deletion removed and brought back.
type deleted struct {
	IDs         []string
	Resurrected []*hippo.Chunk
}

// forget previews what a description would forget: Forget with DryRun.
func (h *Handler) forget(w http.ResponseWriter, r *http.Request) {
	agent, err := agentParam(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	d := forgetData{Description: r.FormValue("description"), Threshold: r.FormValue("threshold")}
	p := page{Title: "Forget · " + agent, Agent: agent, Tab: "forget", Data: &d}
	if strings.TrimSpace(d.Description) == "" {
		h.render(w, r, "forget", http.StatusOK, p)
		return
	}
	in := hippo.ForgetInput{Description: d.Description, DryRun: true}
	if d.Threshold != "" {
		if in.Threshold, err = strconv.ParseFloat(d.Threshold, 64); err != nil {
			err = hippo.Invalidf("threshold", "must be a number, got %q", d.Threshold)
		}
	}
	if err == nil {
		var m hippo.MemoryService
		if m, err = h.service(r, agent, ""); err == nil {
			d.Preview, err = m.Forget(r.Context(), in)
		}
	}
	if hippo.ErrorCode(err) == hippo.EINVALID {
		p.Error = hippo.ErrorMessage(err)
		h.render(w, r, "forget", http.StatusBadRequest, p)
		return
	} else if err != nil {
		h.fail(w, r, err)
		return
	}
	h.render(w, r, "forget", http.StatusOK, p)
}

// forgetConfirm deletes exactly the chunks the preview listed, not what
// the description matches now: the user confirmed those.
func (h *Handler) forgetConfirm(w http.ResponseWriter, r *http.Request) {
	agent, err := agentParam(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	ids := r.PostForm["id"]
	if len(ids) == 0 {
		h.fail(w, r, hippo.Invalidf("id", "no chunk selected to forget"))
		return
	}
	done, err := h.deleteChunks(r.Context(), agent, ids)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	d := forgetData{Description: r.FormValue("description"), Done: done}
	h.render(w, r, "forget", http.StatusOK, page{Title: "Forgotten · " + agent, Agent: agent, Tab: "forget", Data: &d})
}

func (h *Handler) deleteChunks(ctx context.Context, agent string, ids []string) (*deleted, error) {
	gone, back, err := h.cfg.Store.DeleteChunks(ctx, agent, ids)
	if err != nil {
		return nil, err
	}
	d := &deleted{IDs: gone}
	for _, id := range back {
		c, err := h.cfg.Store.Chunk(ctx, agent, id)
		if err != nil {
			return nil, err
		}
		d.Resurrected = append(d.Resurrected, c)
	}
	return d, nil
}

type chunkData struct {
	C          *hippo.Chunk
	Strength   float64
	Curve      Curve
	Resurrects []*hippo.Chunk
	Done       *deleted
	// Trusted is set after the chunk's suspicious flag was cleared.
	Trusted bool
}

// truster is the memory of a store that lets a person clear a chunk's
// suspicious flag (hippo.AgentMemory.Trust).
type truster interface {
	Trust(ctx context.Context, id string) (*hippo.Chunk, error)
}

// chunk shows one chunk and what deleting it would bring back.
func (h *Handler) chunk(w http.ResponseWriter, r *http.Request) {
	agent, err := agentParam(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.showChunk(w, r, agent, r.FormValue("id"), false)
}

// chunkTrust clears a chunk's suspicious flag after a person's review.
func (h *Handler) chunkTrust(w http.ResponseWriter, r *http.Request) {
	agent, err := agentParam(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	id := r.PostFormValue("id")
	m, err := h.service(r, agent, "")
	if err != nil {
		h.fail(w, r, err)
		return
	}
	t, ok := m.(truster)
	if !ok {
		h.fail(w, r, hippo.Errorf(hippo.EINVALID, "this store cannot clear suspicious flags"))
		return
	}
	if _, err := t.Trust(r.Context(), id); err != nil {
		h.fail(w, r, err)
		return
	}
	h.showChunk(w, r, agent, id, true)
}

// showChunk renders the chunk page of one of agent's chunks.
func (h *Handler) showChunk(w http.ResponseWriter, r *http.Request, agent, id string, trusted bool) {
	ctx := r.Context()
	plan, err := h.cfg.Store.PlanDelete(ctx, agent, []string{id})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if len(plan.Chunks) == 0 {
		h.fail(w, r, hippo.Errorf(hippo.ENOTFOUND, "agent %s has no chunk %s", agent, id))
		return
	}
	cfg := h.cfg.Store.Config()
	c := plan.Chunks[0]
	st, err := h.cfg.Store.ChunkStrengths(ctx, agent, []string{c.ID})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	d := chunkData{C: c, Strength: st[c.ID], Curve: projectCurve(cfg, c, st[c.ID]), Trusted: trusted}
	for _, rid := range plan.Resurrected {
		rc, err := h.cfg.Store.Chunk(ctx, agent, rid)
		if err != nil {
			h.fail(w, r, err)
			return
		}
		d.Resurrects = append(d.Resurrects, rc)
	}
	h.render(w, r, "chunk", http.StatusOK, page{Title: "Chunk " + id, Agent: agent, Tab: "memory", Data: d})
}

// chunkDelete deletes one chunk after confirmation.
func (h *Handler) chunkDelete(w http.ResponseWriter, r *http.Request) {
	agent, err := agentParam(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	id := r.PostFormValue("id")
	done, err := h.deleteChunks(r.Context(), agent, []string{id})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if len(done.IDs) == 0 {
		h.fail(w, r, hippo.Errorf(hippo.ENOTFOUND, "agent %s has no chunk %s", agent, id))
		return
	}
	h.render(w, r, "chunk", http.StatusOK, page{Title: "Deleted " + id, Agent: agent, Tab: "memory", Data: chunkData{Done: done}})
}

var unsafeFileChars = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// export downloads the agent's blocks and chunks in Hippo's export format.
func (h *Handler) export(w http.ResponseWriter, r *http.Request) {
	agent, err := agentParam(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	name := "hippo-export-" + strings.Trim(unsafeFileChars.ReplaceAllString(agent, "_"), "_") + ".json"
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", name))
	if _, err := h.cfg.Store.Export(r.Context(), w, hippo.ExportOptions{AgentID: agent}); err != nil {
		// Headers are gone: the download ends short, and the log says why.
		h.cfg.Logger.Error("ui export", "agent", agent, "err", err)
	}
}
