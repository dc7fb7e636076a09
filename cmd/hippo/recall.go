package main

import (
	"fmt"
	"io"
	"math"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/spf13/cobra"
)

func (a *app) newRecallCommand() *cobra.Command {
	var (
		in                 hippo.RecallInput
		kind               string
		since, until, asOf string
		explain            bool
		alpha, minRel      float64
	)
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
			q, err := a.requiredText(args, 0, "query")
			if err != nil {
				return err
			}
			in.Query = q
			if cmd.Flags().Changed("alpha") {
				in.Alpha = &alpha
			}
			if cmd.Flags().Changed("min-relevance") {
				in.MinRelevance = &minRel
			}
			if in.Limit < 1 || in.Limit > hippo.DefaultConfig().MaxLimit {
				return usageErrorf("--limit must be between 1 and %d, got %d", hippo.DefaultConfig().MaxLimit, in.Limit)
			}
			if err := checkPaging(in.Limit, in.Offset); err != nil {
				return err
			}
			if in.Kind, err = parseKind(kind); err != nil {
				return err
			}
			for _, t := range []struct {
				flag, value string
				edge        hippo.DayEdge
				dst         **time.Time
			}{{"since", since, hippo.StartOfDay, &in.Since}, {"until", until, hippo.EndOfDay, &in.Until}, {"as-of", asOf, hippo.EndOfDay, &in.AsOf}} {
				if t.value == "" {
					continue
				}
				v, err := parseDate(t.flag, t.value, t.edge)
				if err != nil {
					return err
				}
				*t.dst = &v
			}
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
					r.Weak}
			}
			out := struct {
				Results      []recalledView          `json:"results"`
				Total        int                     `json:"total"`
				Alpha        float64                 `json:"alpha"`
				MinRelevance float64                 `json:"min_relevance"`
				Distribution hippo.ScoreDistribution `json:"score_distribution"`
			}{views, page.Total, page.Alpha, page.MinRelevance, page.Distribution}
			return a.emit(out, func(w io.Writer) error {
				if len(views) == 0 {
					_, err := fmt.Fprintf(w, "Nothing relevant recalled (relevance floor %.2f).\n", page.MinRelevance)
					return err
				}
				if views[0].Weak {
					fmt.Fprintf(w, "Nothing relevant recalled (relevance floor %.2f); the closest, all weak:\n", page.MinRelevance)
				}
				for i, v := range views {
					weak := ""
					if v.Weak {
						weak = ", weak"
					}
					fmt.Fprintf(w, "%d. [%s] %s  (score %.3f, %s%s)\n", in.Offset+i+1, v.Kind, oneLine(v.Content, 200), v.Score, v.ID, weak)
					if v.Suspicious {
						fmt.Fprintf(w, "   SUSPICIOUS: %s\n", v.SuspiciousReason)
					}
					if explain {
						fmt.Fprintf(w, "   score %.3f = %.2f × relevance %.3f + %.2f × strength %.3f + %.2f × recency %.3f\n",
							v.Score, cfg.WeightSimilarity, v.Relevance, cfg.WeightStrength, v.Strength, cfg.WeightRecency, v.Recency)
						fmt.Fprintf(w, "   relevance %.3f fuses cosine %.3f (raw %.3f) and bm25 %.3f (raw %.3f) with α %.2f\n",
							v.Relevance, v.CosineRelevance, v.Similarity, v.BM25Relevance, v.BM25, page.Alpha)
						if v.Weak {
							fmt.Fprintf(w, "   weak: under the relevance floor %.2f, shown because fewer than %d results pass it\n", page.MinRelevance, cfg.WeakResults)
						}
						if v.LengthExcess > 0 {
							size := int(math.Round(float64(cfg.LengthPivot) * math.Exp(v.LengthExcess)))
							fc, fb := cfg.LengthFactors(size)
							fmt.Fprintf(w, "   long content (%d bytes): cosine relevance ×%.2f, bm25 ×%.2f\n", size, fc, fb)
						}
						fmt.Fprintf(w, "   from %s, %s\n", describeProvenance(v.Provenance), v.CreatedAt.UTC().Format(time.RFC3339))
					}
				}
				// The count is part of the answer: on stdout, on its own line.
				_, err := fmt.Fprintf(w, "%d of %d matching\n", len(views), page.Total)
				return err
			})
		},
	}
	f := cmd.Flags()
	f.IntVar(&in.Limit, "limit", 10, "results to return (1-50)")
	f.IntVar(&in.Offset, "offset", 0, "skip the best N results")
	f.StringVar(&kind, "kind", "", "fact or memory")
	f.StringSliceVar(&in.Tags, "tags", nil, "keep chunks with any of these metadata tags")
	f.StringVar(&in.Category, "category", "", "keep chunks of this metadata category")
	f.StringVar(&since, "since", "", "created at or after (a date, from its start, or an RFC 3339 time)")
	f.StringVar(&until, "until", "", "created at or before (a date, to its end, or an RFC 3339 time)")
	f.StringVar(&asOf, "as-of", "", "answer with what was current at that time (a date means its end)")
	f.Float64Var(&in.MinStrength, "min-strength", 0, "drop results weaker than this")
	f.Float64Var(&in.MinScore, "min-score", 0, "drop results scoring below this (the final score)")
	f.Float64Var(&minRel, "min-relevance", 0, "drop results less relevant than this, 0-1 (default: the embedder's calibrated floor; 0 returns everything)")
	f.BoolVar(&explain, "explain", false, "print each result's relevance with its parts (cosine and BM25, raw and calibrated), strength and recency, and where it came from")
	f.BoolVar(&in.IncludeSuspicious, "include-suspicious", false, "include chunks flagged suspicious (marked)")
	f.Float64Var(&alpha, "alpha", 0, "weight of full-text (BM25) relevance against vector similarity, 0-1 (default: the embedder's; 0 is pure vector recall)")
	return cmd
}
