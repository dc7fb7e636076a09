package local

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"testing"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/internal/calibrate"
)

// The pair labels of testdata/pairs.tsv and the verdict each should end
// with in remember_facts.
var pairLabels = []struct {
	label string
	want  hippo.Verdict // Distinct stands for "inserted": DISTINCT or NEW
}{
	{"paraphrase", hippo.Duplicate},
	{"update", hippo.Supersedes},
	{"related", hippo.Distinct},
	{"unrelated", hippo.Distinct},
}

type labelledPair struct {
	label   string
	a, b    string
	sim     float64
	verdict hippo.Verdict // the classifier's, used inside the band
}

func loadPairs(t testing.TB) []labelledPair {
	t.Helper()
	rows := readTSV(t, "testdata/pairs.tsv")
	var pairs []labelledPair
	var texts []string
	var fp []hippo.FactPair
	for _, r := range rows {
		pairs = append(pairs, labelledPair{label: r[0], a: r[1], b: r[2]})
		texts = append(texts, r[1], r[2])
		fp = append(fp, hippo.FactPair{Existing: r[1], New: r[2]})
	}
	vecs, err := NewEmbedder().Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	verdicts, err := NewClassifier().ClassifyFacts(context.Background(), fp)
	if err != nil {
		t.Fatal(err)
	}
	for i := range pairs {
		pairs[i].sim = cosine(vecs[2*i], vecs[2*i+1])
		pairs[i].verdict = verdicts[i]
	}
	return pairs
}

// outcome is what remember_facts does with a pair under the thresholds:
// seed 000's bands, with the classifier deciding inside.
func outcome(p labelledPair, dup, new float64) hippo.Verdict {
	switch {
	case p.sim > dup:
		return hippo.Duplicate
	case p.sim < new:
		return hippo.Distinct // inserted as new
	}
	return p.verdict
}

// bandRight reports whether the thresholds alone put p where it can end
// right: a paraphrase not auto-new, an update inside the band (it can only
// supersede there), a related fact not auto-duplicate, an unrelated one
// auto-new.
func bandRight(p labelledPair, dup, new float64) bool {
	switch p.label {
	case "paraphrase":
		return p.sim >= new
	case "update":
		return p.sim >= new && p.sim <= dup
	case "related":
		return p.sim <= dup
	}
	return p.sim < new
}

// scores returns the class-balanced accuracy of the end-to-end outcome and
// of the bands alone.
func scores(pairs []labelledPair, dup, new float64) (outcomeAcc, bandAcc float64) {
	for _, l := range pairLabels {
		var n, ok, band int
		for _, p := range pairs {
			if p.label != l.label {
				continue
			}
			n++
			if outcome(p, dup, new) == l.want {
				ok++
			}
			if bandRight(p, dup, new) {
				band++
			}
		}
		outcomeAcc += float64(ok) / float64(n) / float64(len(pairLabels))
		bandAcc += float64(band) / float64(n) / float64(len(pairLabels))
	}
	return outcomeAcc, bandAcc
}

// TestCalibration reports how the default embedder's cosines separate the
// labelled pairs, sweeps the duplicate and new thresholds, and checks that
// the chosen ones are near the best and beat trivial ones.
func TestCalibration(t *testing.T) {
	pairs := loadPairs(t)
	if len(pairs) < 200 {
		t.Fatalf("only %d labelled pairs, want ≥ 200", len(pairs))
	}
	for _, l := range pairLabels {
		var sims []float64
		for _, p := range pairs {
			if p.label == l.label {
				sims = append(sims, p.sim)
			}
		}
		t.Logf("cosine %-10s n=%3d %s", l.label, len(sims), summary(sims))
	}

	// Sweep, for the best band accuracy, then the best outcome.
	bestOut, bestBand, bestDup, bestNew := 0.0, 0.0, 0.0, 0.0
	for dup := 0.80; dup <= 1.0001; dup += 0.01 {
		for new := 0.0; new <= dup; new += 0.01 {
			o, b := scores(pairs, dup, new)
			if b > bestBand+1e-9 || math.Abs(b-bestBand) < 1e-9 && o > bestOut+1e-9 {
				bestOut, bestBand, bestDup, bestNew = o, b, dup, new
			}
		}
	}
	t.Logf("sweep optimum: duplicate %.2f, new %.2f: band accuracy %.3f, outcome accuracy %.3f", bestDup, bestNew, bestBand, bestOut)

	dup, new, _ := NewEmbedder().Thresholds()
	chosenOut, chosenBand := scores(pairs, dup, new)
	t.Logf("chosen:        duplicate %.2f, new %.2f: band accuracy %.3f, outcome accuracy %.3f", dup, new, chosenBand, chosenOut)
	baselines := []struct {
		name     string
		dup, new float64
		outcome  bool // the chosen thresholds must beat its outcome too
	}{
		{"seed 000 (0.93 / 0.78)", 0.93, 0.78, true},
		{"no classifier, all new", 1.01, 1.01, true},
		{"classifier on every pair", 1.01, -1.01, false},
	}
	for _, b := range baselines {
		o, bd := scores(pairs, b.dup, b.new)
		t.Logf("baseline %-24s band accuracy %.3f, outcome accuracy %.3f", b.name+":", bd, o)
		if chosenBand <= bd {
			t.Errorf("chosen thresholds' band accuracy %.3f does not beat %s (%.3f)", chosenBand, b.name, bd)
		}
		if b.outcome && chosenOut <= o {
			t.Errorf("chosen thresholds' outcome accuracy %.3f does not beat %s (%.3f)", chosenOut, b.name, o)
		}
		// The offline classifier is safe on unrelated pairs, so sending
		// it everything costs little outcome; the bands must not cost more.
		if !b.outcome && chosenOut < o-0.02 {
			t.Errorf("chosen thresholds' outcome accuracy %.3f is well below %s (%.3f)", chosenOut, b.name, o)
		}
	}
	for _, l := range pairLabels {
		var n int
		var got = map[hippo.Verdict]int{}
		for _, p := range pairs {
			if p.label == l.label {
				n++
				got[outcome(p, dup, new)]++
			}
		}
		t.Logf("chosen outcome %-10s duplicate %2d, supersedes %2d, distinct/new %2d of %d",
			l.label, got[hippo.Duplicate], got[hippo.Supersedes], got[hippo.Distinct], n)
	}
	if chosenBand < bestBand-0.02 {
		t.Errorf("chosen thresholds' band accuracy %.3f, the sweep optimum %.3f", chosenBand, bestBand)
	}
}

// TestForgetCalibration checks the forget threshold on testdata/forget.json:
// each description must delete exactly the facts listed for it.
func TestForgetCalibration(t *testing.T) {
	raw, err := os.ReadFile("testdata/forget.json")
	if err != nil {
		t.Fatal(err)
	}
	var set struct {
		Facts    []string `json:"facts"`
		Requests []struct {
			Description string   `json:"description"`
			Forget      []string `json:"forget"`
		} `json:"requests"`
	}
	if err := json.Unmarshal(raw, &set); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	e := NewEmbedder()
	factVecs, err := e.Embed(ctx, set.Facts)
	if err != nil {
		t.Fatal(err)
	}
	type scored struct {
		sim  float64
		want bool
	}
	var all [][]scored
	var pos, neg []float64
	for _, r := range set.Requests {
		q, err := e.Embed(ctx, []string{r.Description})
		if err != nil {
			t.Fatal(err)
		}
		var row []scored
		for i, f := range set.Facts {
			s := scored{cosine(q[0], factVecs[i]), slices.Contains(r.Forget, f)}
			row = append(row, s)
			if s.want {
				pos = append(pos, s.sim)
			} else {
				neg = append(neg, s.sim)
			}
		}
		all = append(all, row)
	}
	t.Logf("forget cosine to the facts to delete: %s", summary(pos))
	t.Logf("forget cosine to the facts to keep:   %s", summary(neg))
	eval := func(th float64) (exact, precision, recall float64) {
		var tp, fp, fn, ok int
		for _, row := range all {
			right := true
			for _, s := range row {
				hit := s.sim >= th
				switch {
				case hit && s.want:
					tp++
				case hit:
					fp++
					right = false
				case s.want:
					fn++
					right = false
				}
			}
			if right {
				ok++
			}
		}
		return float64(ok) / float64(len(all)), float64(tp) / float64(max(tp+fp, 1)), float64(tp) / float64(max(tp+fn, 1))
	}
	bestTh, bestExact := 0.0, 0.0
	for th := 0.2; th <= 0.9; th += 0.01 {
		if ex, _, _ := eval(th); ex > bestExact+1e-9 {
			bestTh, bestExact = th, ex
		}
	}
	_, _, forget := e.Thresholds()
	ex, p, r := eval(forget)
	bx, bp, br := eval(bestTh)
	sx, sp, sr := eval(0.7)
	t.Logf("forget %.2f (chosen):   requests exactly right %.2f, precision %.2f, recall %.2f", forget, ex, p, r)
	t.Logf("forget %.2f (optimum):  requests exactly right %.2f, precision %.2f, recall %.2f", bestTh, bx, bp, br)
	t.Logf("forget 0.70 (seed 000): requests exactly right %.2f, precision %.2f, recall %.2f", sx, sp, sr)
	if ex <= sx || ex < bx-0.05 || p < 0.9 {
		t.Errorf("forget threshold %.2f: exact %.2f (seed %.2f, optimum %.2f), precision %.2f", forget, ex, sx, bx, p)
	}
}

// summary renders min, p10, mean, median, p90 and max.
func summary(xs []float64) string {
	s := slices.Clone(xs)
	slices.Sort(s)
	var mean float64
	for _, x := range s {
		mean += x
	}
	mean /= float64(len(s))
	q := func(f float64) float64 { return s[int(f*float64(len(s)-1))] }
	return fmt.Sprintf("min %.2f  p10 %.2f  mean %.2f  median %.2f  p90 %.2f  max %.2f", s[0], q(0.1), mean, q(0.5), q(0.9), s[len(s)-1])
}

func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	return dot / math.Sqrt(na*nb)
}

// TestRelevanceLevels measures the default embedder's relevance levels on
// testdata/pairs.tsv and checks them against the declared ones
// (CosineUnrelated, CosineStrong). For another embedder:
//
//	calibrate.Check(t, embedder, "path/to/pairs.tsv")
func TestRelevanceLevels(t *testing.T) {
	calibrate.Check(t, NewEmbedder(), "testdata/pairs.tsv")
}
