package eval_test

import (
	"context"
	"math"
	"testing"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/internal/calibrate"
	"github.com/hippo-mem/hippo/local/minilm"
)

// TestRelevanceLevels measures MiniLM's relevance levels where recall uses
// them, between a question and a memory, on the own set's tune half: the
// unrelated level is the p90 of a question against the memories that do
// not answer it, the strong level the median against those that do. They
// must match the levels the embedder declares (minilm.CosineUnrelated,
// minilm.CosineStrong). GloVe's levels come from fact pairs instead
// (local's TestRelevanceLevels): on the tune half its question levels
// (0.319, 0.531) rank worse, R@10 0.668 against 0.682.
func TestRelevanceLevels(t *testing.T) {
	s := loadOwnSet(t)
	e := minilm.NewEmbedder()
	ctx := context.Background()
	texts := make([]string, len(s.ids))
	for i, id := range s.ids {
		texts[i] = s.content[id]
	}
	mv, err := e.Embed(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	var rel, irr []float64
	for _, q := range s.queries {
		if splitOf(q.id) != tune {
			continue
		}
		qv, err := e.Embed(ctx, []string{q.text})
		if err != nil {
			t.Fatal(err)
		}
		for i, id := range s.ids {
			c := calibrate.Cosine(qv[0], mv[i])
			if q.relevant[id] {
				rel = append(rel, c)
			} else {
				irr = append(irr, c)
			}
		}
	}
	u, st := calibrate.Quantile(irr, 0.9), calibrate.Quantile(rel, 0.5)
	t.Logf("%s on the tune half: unrelated p50 %.3f p90 %.3f p95 %.3f; relevant p10 %.3f p25 %.3f p50 %.3f p90 %.3f",
		e.Model(), calibrate.Quantile(irr, 0.5), u, calibrate.Quantile(irr, 0.95),
		calibrate.Quantile(rel, 0.1), calibrate.Quantile(rel, 0.25), st, calibrate.Quantile(rel, 0.9))
	var _ hippo.RelevanceCalibrated = e
	du, ds := e.RelevanceLevels()
	if math.Abs(du-u) > calibrate.Tolerance || math.Abs(ds-st) > calibrate.Tolerance {
		t.Errorf("%s declares levels %.3f, %.3f; measured %.3f, %.3f", e.Model(), du, ds, u, st)
	}
}
