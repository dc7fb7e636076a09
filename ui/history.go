package ui

import (
	"net/http"
	"strings"
	"time"

	"github.com/hippo-mem/hippo"
)

// span is one version of a fact on the timeline.
type span struct {
	hippo.HistoryEntry
	// X and W place it on the timeline, in percent of its width.
	X, W float64
	// AtAsOf is set for the version that was current at the as-of time.
	AtAsOf bool
}

type historyData struct {
	ID, Query, AsOf string
	Chain           []span
	AsOfX           float64
	AsOfTime        *time.Time
	// Current lists the facts recalled as they stood at the as-of time.
	Current []hippo.Recalled
	Start   time.Time
	End     time.Time
}

// history shows a fact's supersession chain on a timeline and, with an
// as-of date, which version was current then.
func (h *Handler) history(w http.ResponseWriter, r *http.Request) {
	agent, err := agentParam(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	q := r.URL.Query()
	d := historyData{ID: q.Get("id"), Query: q.Get("q"), AsOf: strings.TrimSpace(q.Get("as_of"))}
	p := page{Title: "Fact history · " + agent, Agent: agent, Tab: "history", Data: &d}
	if d.AsOf != "" {
		t, err := hippo.ParseTime("as_of", d.AsOf, hippo.EndOfDay)
		if err != nil {
			p.Error = err.Error()
			h.render(w, r, "history", http.StatusBadRequest, p)
			return
		}
		d.AsOfTime = &t
	}
	if d.ID == "" && strings.TrimSpace(d.Query) == "" {
		h.render(w, r, "history", http.StatusOK, p)
		return
	}
	m, err := h.service(r, agent, "")
	if err != nil {
		h.fail(w, r, err)
		return
	}
	chain, err := m.FactHistory(r.Context(), d.Query, d.ID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if d.AsOfTime != nil && strings.TrimSpace(d.Query) != "" {
		d.Current, err = m.Recall(r.Context(), hippo.RecallInput{Query: d.Query, Kind: hippo.KindFact, AsOf: d.AsOfTime, Limit: 5, DryRun: true})
		if err != nil {
			h.fail(w, r, err)
			return
		}
	}
	d.Chain = timeline(chain, h.cfg.Now(), d.AsOfTime)
	if len(chain) > 0 {
		d.Start, d.End = chain[0].ValidFrom, h.cfg.Now()
		if d.AsOfTime != nil {
			d.AsOfX = position(*d.AsOfTime, d.Start, d.End)
		}
	}
	h.render(w, r, "history", http.StatusOK, p)
}

// timeline places each version between the first version's start and now.
func timeline(chain []hippo.HistoryEntry, now time.Time, asOf *time.Time) []span {
	out := make([]span, len(chain))
	if len(chain) == 0 {
		return out
	}
	start := chain[0].ValidFrom
	for i, e := range chain {
		end := now
		if e.ValidUntil != nil {
			end = *e.ValidUntil
		}
		x := position(e.ValidFrom, start, now)
		out[i] = span{HistoryEntry: e, X: x, W: max(0.5, position(end, start, now)-x)}
		if asOf != nil && !asOf.Before(e.ValidFrom) && (e.ValidUntil == nil || asOf.Before(*e.ValidUntil)) {
			out[i].AtAsOf = true
		}
	}
	return out
}

// position is t's place between start and end, in percent, clamped.
func position(t, start, end time.Time) float64 {
	total := end.Sub(start)
	if total <= 0 {
		return 0
	}
	return min(100, max(0, 100*float64(t.Sub(start))/float64(total)))
}
