package ui

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/hippo-mem/hippo"
)

type blocksData struct {
	Blocks []hippo.BlockInfo
}

// blocks lists the agent's blocks in every scope.
func (h *Handler) blocks(w http.ResponseWriter, r *http.Request) {
	agent, err := agentParam(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	list, err := h.cfg.Store.ListBlocks(r.Context(), agent, nil)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.render(w, r, "blocks", http.StatusOK, page{Title: "Blocks · " + agent, Agent: agent, Tab: "blocks", Data: blocksData{Blocks: list}})
}

// blockEdit is one change to a block, as the forms send it.
type blockEdit struct {
	Scope, Key  string
	Action      string // "replace", "append", "set", "describe" or "delete"
	Old, New    string // replace
	Text        string // append, set (the whole value), describe
	Count       int    // replace: occurrences of Old
	Before      *hippo.Block
	After       string
	Description string
}

func parseBlockEdit(r *http.Request) (blockEdit, error) {
	e := blockEdit{Scope: r.FormValue("scope"), Key: r.FormValue("key"), Action: r.FormValue("action"),
		Old: r.FormValue("old"), New: r.FormValue("new"), Text: r.FormValue("text")}
	if err := hippo.ValidateScope(e.Scope); err != nil {
		return e, err
	}
	if err := hippo.ValidateBlockKey(e.Key); err != nil {
		return e, err
	}
	switch e.Action {
	case "replace", "append", "set", "describe", "delete":
	default:
		return e, hippo.Invalidf("action", "must be replace, append, set, describe or delete, got %q", e.Action)
	}
	return e, nil
}

// blockRequest reads an edit's agent and fields and opens the memory of
// its scope.
func (h *Handler) blockRequest(r *http.Request) (string, *blockEdit, hippo.MemoryService, error) {
	agent, err := agentParam(r)
	if err != nil {
		return "", nil, nil, err
	}
	e, err := parseBlockEdit(r)
	if err != nil {
		return "", nil, nil, err
	}
	m, err := h.service(r, agent, e.Scope)
	return agent, &e, m, err
}

type blockData struct {
	Scope, Key string
	Block      *hippo.Block
}

// block shows one block with its edit forms.
func (h *Handler) block(w http.ResponseWriter, r *http.Request) {
	agent, err := agentParam(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	scope, key := r.FormValue("scope"), r.FormValue("key")
	if err := hippo.ValidateBlockKey(key); err != nil {
		h.fail(w, r, err)
		return
	}
	m, err := h.service(r, agent, scope)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	b, err := m.Block(r.Context(), key)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.render(w, r, "block", http.StatusOK, page{Title: "Block " + key + " · " + agent, Agent: agent, Tab: "blocks",
		Data: blockData{Scope: scope, Key: key, Block: b}})
}

// blockPreview shows what an edit would make of the block, and asks for
// confirmation. It changes nothing.
func (h *Handler) blockPreview(w http.ResponseWriter, r *http.Request) {
	agent, e, m, err := h.blockRequest(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if e.Before, err = m.Block(r.Context(), e.Key); err != nil {
		h.fail(w, r, err)
		return
	}
	p := page{Title: "Preview · block " + e.Key, Agent: agent, Tab: "blocks", Data: e}
	old := ""
	if e.Before != nil {
		old = e.Before.Value
		e.Description = e.Before.Description
	}
	switch e.Action {
	case "replace":
		if e.Old == "" {
			p.Error = "Say which text to replace."
		} else if e.Count = strings.Count(old, e.Old); e.Count == 0 {
			p.Error = "The block does not contain that text: nothing to replace."
		}
		e.After = strings.ReplaceAll(old, e.Old, e.New)
	case "append":
		e.After = e.Text
		if old != "" {
			e.After = old + "\n" + e.Text
		}
	case "set":
		e.After = e.Text
	case "describe":
		e.After, e.Description = old, e.Text
	case "delete":
		if e.Before == nil {
			p.Error = "There is no such block to delete."
		}
	}
	status := http.StatusOK
	if p.Error != "" {
		status = http.StatusBadRequest
	}
	h.render(w, r, "blockpreview", status, p)
}

// blockApply makes a confirmed edit and returns to the block.
func (h *Handler) blockApply(w http.ResponseWriter, r *http.Request) {
	agent, e, m, err := h.blockRequest(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	ctx := r.Context()
	switch e.Action {
	case "replace":
		_, _, err = m.ReplaceBlock(ctx, e.Key, e.Old, e.New)
	case "append":
		_, err = m.AppendBlock(ctx, e.Key, e.Text)
	case "set":
		_, err = m.SetBlock(ctx, e.Key, e.Text)
	case "describe":
		_, err = m.DescribeBlock(ctx, e.Key, e.Text)
	case "delete":
		err = m.DeleteBlock(ctx, e.Key)
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	q := url.Values{"agent": {agent}}
	if e.Action == "delete" {
		http.Redirect(w, r, "/ui/blocks?"+q.Encode(), http.StatusSeeOther)
		return
	}
	q.Set("scope", e.Scope)
	q.Set("key", e.Key)
	http.Redirect(w, r, "/ui/block?"+q.Encode(), http.StatusSeeOther)
}
