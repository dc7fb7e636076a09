package minilm

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/internal/calibrate"
	"github.com/hippo-mem/hippo/local"
)

// The calibration sets are the offline package's: labelled fact pairs and
// forget_memory requests (../testdata).
const (
	pairsFile  = "../testdata/pairs.tsv"
	forgetFile = "../testdata/forget.json"
)

// calLabels are the pair labels of pairsFile and the verdict each should
// end with in remember_facts (Distinct standing for inserted: DISTINCT or
// NEW).
var calLabels = []struct {
	label string
	want  hippo.Verdict
}{
	{"paraphrase", hippo.Duplicate},
	{"update", hippo.Supersedes},
	{"related", hippo.Distinct},
	{"unrelated", hippo.Distinct},
}

type calPair struct {
	label   string
	sim     float64
	verdict hippo.Verdict // the offline classifier's, used inside the band
}

// loadCalPairs embeds both sides of every labelled pair and asks the
// offline classifier about each.
func loadCalPairs(t *testing.T) []calPair {
	t.Helper()
	f, err := os.Open(pairsFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var pairs []calPair
	var texts []string
	var fp []hippo.FactPair
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		fields := strings.Split(line, "\t")
		if len(fields) != 3 {
			t.Fatalf("%s: want 3 fields in %q", pairsFile, line)
		}
		pairs = append(pairs, calPair{label: fields[0]})
		texts = append(texts, fields[1], fields[2])
		fp = append(fp, hippo.FactPair{Existing: fields[1], New: fields[2]})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	vecs, err := NewEmbedder().Embed(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	verdicts, err := local.NewClassifier().ClassifyFacts(ctx, fp)
	if err != nil {
		t.Fatal(err)
	}
	for i := range pairs {
		pairs[i].sim = cosine(vecs[2*i], vecs[2*i+1])
		pairs[i].verdict = verdicts[i]
	}
	return pairs
}

// calOutcome is what remember_facts does with a pair under the bands: a
// duplicate above dup, new below nu, the classifier's verdict between.
func calOutcome(p calPair, dup, nu float64) hippo.Verdict {
	switch {
	case p.sim > dup:
		return hippo.Duplicate
	case p.sim < nu:
		return hippo.Distinct
	}
	return p.verdict
}

// calBandRight reports whether the bands alone put p where it can end
// right: a paraphrase not auto-new, an update inside the band, a related
// fact not auto-duplicate, an unrelated one auto-new.
func calBandRight(p calPair, dup, nu float64) bool {
	switch p.label {
	case "paraphrase":
		return p.sim >= nu
	case "update":
		return p.sim >= nu && p.sim <= dup
	case "related":
		return p.sim <= dup
	}
	return p.sim < nu
}

// calScores returns the class-balanced accuracy of the outcome and of the
// bands alone.
func calScores(pairs []calPair, dup, nu float64) (outcome, band float64) {
	for _, l := range calLabels {
		var n, ok, inBand int
		for _, p := range pairs {
			if p.label != l.label {
				continue
			}
			n++
			if calOutcome(p, dup, nu) == l.want {
				ok++
			}
			if calBandRight(p, dup, nu) {
				inBand++
			}
		}
		outcome += float64(ok) / float64(n) / float64(len(calLabels))
		band += float64(inBand) / float64(n) / float64(len(calLabels))
	}
	return outcome, band
}

// TestCalibration prints how MiniLM's cosines separate the labelled pairs,
// sweeps the duplicate and new thresholds, and checks that the chosen ones
// are as good as the sweep's best and beat trivial ones.
func TestCalibration(t *testing.T) {
	pairs := loadCalPairs(t)
	if len(pairs) < 200 {
		t.Fatalf("only %d labelled pairs, want ≥ 200", len(pairs))
	}
	for _, l := range calLabels {
		var sims []float64
		for _, p := range pairs {
			if p.label == l.label {
				sims = append(sims, p.sim)
			}
		}
		t.Logf("cosine %-10s n=%3d %s", l.label, len(sims), summary(sims))
	}
	bestOut, bestBand, bestDup, bestNew := 0.0, 0.0, 0.0, 0.0
	for dup := 0.80; dup <= 1.0001; dup += 0.01 {
		for nu := 0.0; nu <= dup; nu += 0.01 {
			o, b := calScores(pairs, dup, nu)
			if b > bestBand+1e-9 || math.Abs(b-bestBand) < 1e-9 && o > bestOut+1e-9 {
				bestOut, bestBand, bestDup, bestNew = o, b, dup, nu
			}
		}
	}
	t.Logf("sweep optimum: duplicate %.2f, new %.2f: band accuracy %.3f, outcome accuracy %.3f", bestDup, bestNew, bestBand, bestOut)
	dup, nu, _ := NewEmbedder().Thresholds()
	out, band := calScores(pairs, dup, nu)
	t.Logf("chosen:        duplicate %.2f, new %.2f: band accuracy %.3f, outcome accuracy %.3f", dup, nu, band, out)
	for _, b := range []struct {
		name    string
		dup, nu float64
		outcome bool // the chosen bands must beat its outcome too
	}{
		{"seed 000 (0.93 / 0.78)", 0.93, 0.78, true},
		{"no classifier, all new", 1.01, 1.01, true},
		{"classifier on every pair", 1.01, -1.01, false},
	} {
		o, bd := calScores(pairs, b.dup, b.nu)
		t.Logf("baseline %-26s band accuracy %.3f, outcome accuracy %.3f", b.name+":", bd, o)
		if band <= bd {
			t.Errorf("chosen band accuracy %.3f does not beat %s (%.3f)", band, b.name, bd)
		}
		if b.outcome && out <= o {
			t.Errorf("chosen outcome accuracy %.3f does not beat %s (%.3f)", out, b.name, o)
		}
		if !b.outcome && out < o-0.02 {
			t.Errorf("chosen outcome accuracy %.3f is well below %s (%.3f)", out, b.name, o)
		}
	}
	for _, l := range calLabels {
		got := map[hippo.Verdict]int{}
		n := 0
		for _, p := range pairs {
			if p.label == l.label {
				n++
				got[calOutcome(p, dup, nu)]++
			}
		}
		t.Logf("chosen outcome %-10s duplicate %2d, supersedes %2d, distinct/new %2d of %d",
			l.label, got[hippo.Duplicate], got[hippo.Supersedes], got[hippo.Distinct], n)
	}
	if band < bestBand-0.02 {
		t.Errorf("chosen band accuracy %.3f, the sweep's best %.3f", band, bestBand)
	}
}

// TestForgetCalibration checks the forget threshold on forgetFile: each
// description must delete exactly the facts listed for it.
func TestForgetCalibration(t *testing.T) {
	raw, err := os.ReadFile(forgetFile)
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
		t.Fatalf("%s: %v", forgetFile, err)
	}
	texts := slices.Clone(set.Facts)
	for _, r := range set.Requests {
		texts = append(texts, r.Description)
	}
	vecs, err := NewEmbedder().Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	type scored struct {
		sim  float64
		want bool
	}
	var rows [][]scored
	var pos, neg []float64
	for i, r := range set.Requests {
		q := vecs[len(set.Facts)+i]
		var row []scored
		for j, f := range set.Facts {
			s := scored{cosine(q, vecs[j]), slices.Contains(r.Forget, f)}
			row = append(row, s)
			if s.want {
				pos = append(pos, s.sim)
			} else {
				neg = append(neg, s.sim)
			}
		}
		rows = append(rows, row)
	}
	t.Logf("forget cosine to the facts to delete: %s", summary(pos))
	t.Logf("forget cosine to the facts to keep:   %s", summary(neg))
	eval := func(th float64) (exact, precision, recall float64) {
		var tp, fp, fn, ok int
		for _, row := range rows {
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
		return float64(ok) / float64(len(rows)), float64(tp) / float64(max(tp+fp, 1)), float64(tp) / float64(max(tp+fn, 1))
	}
	bestTh, bestExact := 0.0, 0.0
	for th := 0.2; th <= 0.9; th += 0.01 {
		if ex, _, _ := eval(th); ex > bestExact+1e-9 {
			bestTh, bestExact = th, ex
		}
	}
	_, _, forget := NewEmbedder().Thresholds()
	ex, p, r := eval(forget)
	bx, bp, br := eval(bestTh)
	sx, sp, sr := eval(0.7)
	t.Logf("forget %.2f (chosen):   requests exactly right %.2f, precision %.2f, recall %.2f", forget, ex, p, r)
	t.Logf("forget %.2f (optimum):  requests exactly right %.2f, precision %.2f, recall %.2f", bestTh, bx, bp, br)
	t.Logf("forget 0.70 (seed 000): requests exactly right %.2f, precision %.2f, recall %.2f", sx, sp, sr)
	if ex < sx || ex < bx-0.05 || p < 0.9 {
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

// TestRelevanceLevels measures MiniLM's relevance levels on the labelled
// pairs and checks them against CosineUnrelated and CosineStrong.
func TestRelevanceLevels(t *testing.T) {
	calibrate.Check(t, NewEmbedder(), "../testdata/pairs.tsv")
}
