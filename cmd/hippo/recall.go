package main

import (
	"fmt"
	"io"
	"math"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/engine"
	"github.com/spf13/cobra"
)

// recallFlags are hippo recall's flags; in holds those that go into the
// RecallInput as they are.
type recallFlags struct {
	in                 hippo.RecallInput
	kind               string
	since, until, asOf string
	explain            bool
	alpha, minRel      float64
}

func (a *app) newRecallCommand() *cobra.Command {
	var o recallFlags
	cmd := &cobra.Command{
		Use:   "recall <query|->",
		Short: "Recall memories and facts by meaning, strength and recency",
		Long: `Rank the agent's live facts and memories against a query by
0.9 × relevance + 0.07 × strength + 0.03 × recency, relevance fusing vector
similarity with full-text (BM25) matching by --alpha. Relevance is
calibrated: 0 is no closer than unrelated text, 0.9 a strong match, and
results below --min-relevance (default: the embedder's calibrated floor; 0
returns everything) are left out. Recalled chunks are strengthened, as when
an agent recalls them. --explain prints each score's parts: the weighted sum of relevance,
strength and recency, and the cosine and BM25 relevance that α fuses
(hippo.Fuse: the stronger side whole, a share of the weaker), after the
discount of content longer than 400 bytes (hippo.Config.LengthFactors), and
where the chunk came from (its provenance; hippo source <id> shows the
text a fact was extracted from). Chunks flagged suspicious (they read as
instructions to the agent) are left out unless --include-suspicious, and
marked when included.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.recall(cmd, args, &o)
		},
	}
	f := cmd.Flags()
	f.IntVar(&o.in.Limit, "limit", 10, "results to return (1-50)")
	f.IntVar(&o.in.Offset, "offset", 0, "skip the best N results")
	f.StringVar(&o.kind, "kind", "", "fact or memory")
	f.StringSliceVar(&o.in.Tags, "tags", nil, "keep chunks with any of these metadata tags")
	f.StringVar(&o.in.Category, "category", "", "keep chunks of this metadata category")
	f.StringVar(&o.since, "since", "", "created at or after (a date, from its start, or an RFC 3339 time)")
	f.StringVar(&o.until, "until", "", "created at or before (a date, to its end, or an RFC 3339 time)")
	f.StringVar(&o.asOf, "as-of", "", "answer with what was current at that time (a date means its end)")
	f.Float64Var(&o.in.MinStrength, "min-strength", 0, "drop results weaker than this")
	f.Float64Var(&o.in.MinScore, "min-score", 0, "drop results scoring below this (the final score)")
	f.Float64Var(&o.minRel, "min-relevance", 0, "drop results less relevant than this, 0-1 (default: the embedder's calibrated floor; 0 returns everything)")
	f.BoolVar(&o.explain, "explain", false, "print each result's relevance with its parts (cosine and BM25, raw and calibrated), strength and recency, and where it came from")
	f.BoolVar(&o.in.IncludeSuspicious, "include-suspicious", false, "include chunks flagged suspicious (marked)")
	f.Float64Var(&o.alpha, "alpha", 0, "weight of full-text (BM25) relevance against vector similarity, 0-1 (default: the embedder's; 0 is pure vector recall)")
	return cmd
}

// recall runs hippo recall: it reads the query and the flags, recalls a
// page and prints it.
func (a *app) recall(cmd *cobra.Command, args []string, o *recallFlags) error {
	if err := a.readRecallInput(cmd, args, o); err != nil {
		return err
	}
	in := o.in
	db, m, err := a.openMemory(cmd.Context(), existingDB, false)
	if err != nil {
		return err
	}
	defer db.Close()
	page, err := m.RecallPage(cmd.Context(), in)
	if err != nil {
		return err
	}
	cfg := m.Config()
	views := make([]recalledView, len(page.Results))
	for i, r := range page.Results {
		views[i] = recalledView{viewChunks([]*hippo.Chunk{r.Chunk}, strengthAt(m.Config()))[0],
			r.Score, r.Similarity, r.BM25, r.Relevance, r.CosineRelevance, r.BM25Relevance, r.LengthExcess, r.Strength, r.Recency,
			r.Weak, r.Corrects, r.Updates, r.Part}
	}
	out := struct {
		Results      []recalledView          `json:"results"`
		Total        int                     `json:"total"`
		Alpha        float64                 `json:"alpha"`
		MinRelevance float64                 `json:"min_relevance"`
		Distribution hippo.ScoreDistribution `json:"score_distribution"`
	}{views, page.Total, page.Alpha, page.MinRelevance, page.Distribution}
	return a.emit(out, func(w io.Writer) error {
		return writeRecalled(w, views, page, cfg, in.Offset, o.explain)
	})
}

// readRecallInput fills o.in from the query argument and the flags, and
// refuses values out of range.
func (a *app) readRecallInput(cmd *cobra.Command, args []string, o *recallFlags) error {
	q, err := a.requiredText(args, 0, "query")
	if err != nil {
		return err
	}
	in := &o.in
	in.Query = q
	if cmd.Flags().Changed("alpha") {
		in.Alpha = &o.alpha
	}
	if cmd.Flags().Changed("min-relevance") {
		in.MinRelevance = &o.minRel
	}
	if in.Limit < 1 || in.Limit > hippo.DefaultConfig().MaxLimit {
		return usageErrorf("--limit must be between 1 and %d, got %d", hippo.DefaultConfig().MaxLimit, in.Limit)
	}
	if err := checkPaging(in.Limit, in.Offset); err != nil {
		return err
	}
	if in.Kind, err = parseKind(o.kind); err != nil {
		return err
	}
	for _, t := range []struct {
		flag, value string
		edge        hippo.DayEdge
		dst         **time.Time
	}{{"since", o.since, hippo.StartOfDay, &in.Since}, {"until", o.until, hippo.EndOfDay, &in.Until}, {"as-of", o.asOf, hippo.EndOfDay, &in.AsOf}} {
		if t.value == "" {
			continue
		}
		v, err := parseDate(t.flag, t.value, t.edge)
		if err != nil {
			return err
		}
		*t.dst = &v
	}
	return nil
}

// writeRecalled prints recalled results for a person, numbered from
// offset+1, each with its score's parts when explain is set.
func writeRecalled(w io.Writer, views []recalledView, page *hippo.RecallPage, cfg hippo.Config, offset int, explain bool) error {
	if len(views) == 0 {
		_, err := fmt.Fprintf(w, "Nothing relevant recalled (relevance floor %.2f).\n", page.MinRelevance)
		return err
	}
	if views[0].Weak {
		fmt.Fprintf(w, "Nothing relevant recalled (relevance floor %.2f); the closest, all weak:\n", page.MinRelevance)
	}
	for i, v := range views {
		marks := ""
		if v.Weak {
			marks = ", weak"
		}
		if v.Corrects != "" {
			marks += ", corrects " + v.Corrects
		}
		if v.Updates != "" {
			marks += ", updates " + v.Updates
		}
		fmt.Fprintf(w, "%d. [%s] %s  (score %.3f, %s%s)\n", offset+i+1, v.Kind, oneLine(v.Content, 200), v.Score, v.ID, marks)
		if v.Suspicious {
			fmt.Fprintf(w, "   SUSPICIOUS: %s\n", v.SuspiciousReason)
		}
		if explain {
			explainRecalled(w, v, page, cfg)
		}
	}
	// The count is part of the answer: on stdout, on its own line.
	_, err := fmt.Fprintf(w, "%d of %d matching\n", len(views), page.Total)
	return err
}

// explainRecalled prints the parts of v's score and where v came from.
func explainRecalled(w io.Writer, v recalledView, page *hippo.RecallPage, cfg hippo.Config) {
	fmt.Fprintf(w, "   score %.3f = %.2f × relevance %.3f + %.2f × strength %.3f + %.2f × recency %.3f\n",
		v.Score, cfg.WeightSimilarity, v.Relevance, cfg.WeightStrength, v.Strength, cfg.WeightRecency, v.Recency)
	// Which word statistics a full-text score was computed with, since the
	// database's move it with other agents' memories.
	stats := ""
	if v.BM25 > 0 {
		stats = ", the database's word statistics"
		if cfg.AgentTextStatistics {
			stats = ", the agent's word statistics"
		}
	}
	fmt.Fprintf(w, "   relevance %.3f fuses cosine %.3f (raw %.3f) and bm25 %.3f (raw %.3f%s) with α %.2f\n",
		v.Relevance, v.CosineRelevance, v.Similarity, v.BM25Relevance, v.BM25, stats, page.Alpha)
	if v.Weak {
		fmt.Fprintf(w, "   weak: under the relevance floor %.2f, one of the %d closest of the rest\n", page.MinRelevance, cfg.WeakResults)
	}
	if v.Corrects != "" {
		fmt.Fprintf(w, "   corrects %s: ranked above that kept text, which states a value this superseded\n", v.Corrects)
	}
	if v.Updates != "" {
		fmt.Fprintf(w, "   updates %s: ranked above that older memory on the same topic, since this one says something changed\n", v.Updates)
	}
	if n := engine.ContextPart(cfg, &hippo.Chunk{Kind: v.Kind, Content: v.Content, ContextOf: v.ContextOf}); n > 0 && v.Part == n {
		fmt.Fprintf(w, "   found read after the memory before it, %s: the cosine is the two texts read together, mixed with this memory's own\n", v.ContextOf)
	} else if ss := engine.Sentences(v.Content); v.Part > 0 && v.Part <= len(ss) {
		fmt.Fprintf(w, "   found by its sentence %d, %q: the cosine is that sentence's, mixed with the whole memory's\n", v.Part, oneLine(ss[v.Part-1], 120))
	}
	if v.LengthExcess > 0 {
		size := int(math.Round(float64(cfg.LengthPivot) * math.Exp(v.LengthExcess)))
		fc, fb := cfg.LengthFactors(size)
		fmt.Fprintf(w, "   long content (%d bytes): cosine relevance ×%.2f, bm25 ×%.2f\n", size, fc, fb)
	}
	fmt.Fprintf(w, "   from %s, %s\n", describeProvenance(v.Provenance), v.CreatedAt.UTC().Format(time.RFC3339))
}
