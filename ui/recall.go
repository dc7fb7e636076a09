package ui

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/hippo-mem/hippo"
)

// recallForm is the playground's input as typed, kept for redisplay.
type recallForm struct {
	Query, Limit, Alpha, MinRelevance string
	// Suspicious is "1" to include suspicious chunks (marked).
	Suspicious string
}

// explained is one result with its score split into stacked segments.
type explained struct {
	hippo.Recalled
	// Cosine and BM25 are relevance's weighted share of each side,
	// Strength and Recency theirs: the segments add up to Score.
	Cosine, BM25, Strength, Recency float64
}

type recallData struct {
	Form    recallForm
	Page    *hippo.RecallPage
	Results []explained
	Boosted bool
	Config  hippo.Config
}

// recall runs the playground: a GET previews (RecallInput.DryRun, nothing
// changes), a POST recalls as an agent would, boosting what it returns.
func (h *Handler) recall(w http.ResponseWriter, r *http.Request) {
	agent, err := agentParam(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	d := recallData{Boosted: r.Method == http.MethodPost, Form: recallForm{Query: r.FormValue("q"),
		Limit: r.FormValue("limit"), Alpha: r.FormValue("alpha"), MinRelevance: r.FormValue("min_relevance"),
		Suspicious: r.FormValue("suspicious")}}
	p := page{Title: "Recall · " + agent, Agent: agent, Tab: "recall", Data: &d}
	if strings.TrimSpace(d.Form.Query) == "" {
		h.render(w, r, "recall", http.StatusOK, p)
		return
	}
	in, err := d.Form.input()
	if err == nil {
		in.DryRun = !d.Boosted
		var m hippo.MemoryService
		if m, err = h.service(r, agent, ""); err == nil {
			d.Page, err = m.RecallPage(r.Context(), in)
		}
	}
	if hippo.ErrorCode(err) == hippo.EINVALID {
		p.Error = hippo.ErrorMessage(err)
		h.render(w, r, "recall", http.StatusBadRequest, p)
		return
	} else if err != nil {
		h.fail(w, r, err)
		return
	}
	d.Config = h.cfg.Store.Config()
	for _, res := range d.Page.Results {
		d.Results = append(d.Results, explain(d.Config, res, d.Page.Alpha))
	}
	h.render(w, r, "recall", http.StatusOK, p)
}

func (f recallForm) input() (hippo.RecallInput, error) {
	in := hippo.RecallInput{Query: f.Query, IncludeSuspicious: f.Suspicious == "1"}
	if f.Limit != "" {
		n, err := strconv.Atoi(f.Limit)
		if err != nil {
			return in, hippo.Invalidf("limit", "must be a whole number, got %q", f.Limit)
		}
		in.Limit = n
	}
	var err error
	if in.Alpha, err = optFloat("alpha", f.Alpha); err != nil {
		return in, err
	}
	in.MinRelevance, err = optFloat("min_relevance", f.MinRelevance)
	return in, err
}

func optFloat(field, s string) (*float64, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return nil, hippo.Invalidf(field, "must be a number, got %q", s)
	}
	return &v, nil
}

// explain splits a result's score into its weighted parts. Relevance is
// hippo.Fuse of the two sides, not a sum: it is shared between them in
// proportion to the evidence each side brings at α.
func explain(cfg hippo.Config, r hippo.Recalled, alpha float64) explained {
	e := explained{Recalled: r, Strength: cfg.WeightStrength * r.Strength, Recency: cfg.WeightRecency * r.Recency}
	rel := cfg.WeightSimilarity * min(1, max(0, r.Relevance))
	var c, b float64
	switch {
	case !(alpha > 0):
		c = r.CosineRelevance
	case alpha >= 1:
		b = r.BM25Relevance
	default:
		wc, wb := hippo.FuseWeights(alpha)
		c, b = 1-hippo.Pow1m(r.CosineRelevance, wc), 1-hippo.Pow1m(r.BM25Relevance, wb)
	}
	if c+b > 0 {
		e.Cosine, e.BM25 = rel*c/(c+b), rel*b/(c+b)
	}
	return e
}
