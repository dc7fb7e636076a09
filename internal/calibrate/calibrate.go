// Package calibrate measures the cosine levels that recall relevance is
// calibrated on (hippo.RelevanceCalibrated) for any hippo.Embedder, from
// labelled text pairs such as local/testdata/pairs.tsv.
//
// For a new embedder, embed the pairs and read the levels off:
//
//	pairs, err := calibrate.ReadPairs("../testdata/pairs.tsv")
//	levels, err := calibrate.Measure(ctx, embedder, pairs)
//	t.Log(levels) // the figures to put beside the embedder's constants
//
// or, in the embedder's tests, calibrate.Check(t, embedder, path), which
// logs the figures and fails when the levels the embedder declares are
// more than Tolerance from the measured ones.
package calibrate

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
)

// The labels of a pairs file whose cosines set the levels: unrelated pairs
// set the unrelated level, paraphrases the strong one.
const (
	LabelUnrelated  = "unrelated"
	LabelParaphrase = "paraphrase"
)

// UnrelatedQuantile and StrongQuantile say where the levels are taken: the
// unrelated level is the cosine that this share of unrelated pairs stays
// at or below, the strong level the median paraphrase's.
const (
	UnrelatedQuantile = 0.95
	StrongQuantile    = 0.5
)

// Tolerance is how far Check lets declared levels be from measured ones.
const Tolerance = 0.02

// Pair is one labelled pair of texts.
type Pair struct {
	Label, A, B string
}

// ReadPairs reads a pairs file: label, a tab, a text, a tab, a text per
// line; blank lines and lines starting with # are skipped.
func ReadPairs(path string) ([]Pair, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var pairs []Pair
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		p := strings.Split(line, "\t")
		if len(p) != 3 {
			return nil, fmt.Errorf("%s:%d: %d fields, want label, text, text", path, n, len(p))
		}
		pairs = append(pairs, Pair{p[0], p[1], p[2]})
	}
	return pairs, sc.Err()
}

// Band summarises the cosines of one label's pairs.
type Band struct {
	Label                        string
	N                            int
	Min, P10, P50, P90, P95, Max float64
}

func (b Band) String() string {
	return fmt.Sprintf("%-10s n=%3d  min %.3f  p10 %.3f  p50 %.3f  p90 %.3f  p95 %.3f  max %.3f",
		b.Label, b.N, b.Min, b.P10, b.P50, b.P90, b.P95, b.Max)
}

// Levels are an embedder's measured cosine levels with the bands they
// come from, label by label in order of first appearance.
type Levels struct {
	Unrelated, Strong float64
	Bands             []Band
}

func (l Levels) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "unrelated %.3f (p%.0f of unrelated pairs), strong %.3f (p%.0f of paraphrases)",
		l.Unrelated, 100*UnrelatedQuantile, l.Strong, 100*StrongQuantile)
	for _, band := range l.Bands {
		b.WriteString("\n  " + band.String())
	}
	return b.String()
}

// Measure embeds every pair with e and returns the levels: the
// UnrelatedQuantile of the unrelated pairs' cosines and the StrongQuantile
// of the paraphrases'. It fails when either label is missing.
func Measure(ctx context.Context, e hippo.Embedder, pairs []Pair) (Levels, error) {
	texts := make([]string, 0, 2*len(pairs))
	for _, p := range pairs {
		texts = append(texts, p.A, p.B)
	}
	vecs, err := e.Embed(ctx, texts)
	if err != nil {
		return Levels{}, err
	}
	if len(vecs) != len(texts) {
		return Levels{}, fmt.Errorf("embedder %s returned %d vectors for %d texts", e.Model(), len(vecs), len(texts))
	}
	by := map[string][]float64{}
	var order []string
	for i, p := range pairs {
		if by[p.Label] == nil {
			order = append(order, p.Label)
		}
		by[p.Label] = append(by[p.Label], Cosine(vecs[2*i], vecs[2*i+1]))
	}
	if len(by[LabelUnrelated]) == 0 || len(by[LabelParaphrase]) == 0 {
		return Levels{}, fmt.Errorf("pairs need both %q and %q labels", LabelUnrelated, LabelParaphrase)
	}
	l := Levels{Unrelated: Quantile(by[LabelUnrelated], UnrelatedQuantile), Strong: Quantile(by[LabelParaphrase], StrongQuantile)}
	for _, label := range order {
		xs := by[label]
		l.Bands = append(l.Bands, Band{Label: label, N: len(xs), Min: Quantile(xs, 0), P10: Quantile(xs, 0.1),
			P50: Quantile(xs, 0.5), P90: Quantile(xs, 0.9), P95: Quantile(xs, 0.95), Max: Quantile(xs, 1)})
	}
	return l, nil
}

// Check measures e's levels on the pairs file at path, logs them with
// their bands, and fails t when e is not hippo.RelevanceCalibrated or
// declares levels more than Tolerance from the measured ones.
func Check(t testing.TB, e hippo.Embedder, path string) Levels {
	t.Helper()
	pairs, err := ReadPairs(path)
	if err != nil {
		t.Fatal(err)
	}
	l, err := Measure(context.Background(), e, pairs)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %v", e.Model(), l)
	rc, ok := e.(hippo.RelevanceCalibrated)
	if !ok {
		t.Errorf("%s does not implement hippo.RelevanceCalibrated: declare RelevanceLevels() (%.3f, %.3f)", e.Model(), l.Unrelated, l.Strong)
		return l
	}
	u, s := rc.RelevanceLevels()
	if math.Abs(u-l.Unrelated) > Tolerance || math.Abs(s-l.Strong) > Tolerance {
		t.Errorf("%s declares levels %.3f, %.3f; measured %.3f, %.3f", e.Model(), u, s, l.Unrelated, l.Strong)
	}
	return l
}

// Quantile is the q-quantile of xs (0 the least, 1 the greatest), by
// linear interpolation between the nearest ranks; NaN for no values.
func Quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	pos := q * float64(len(s)-1)
	i := int(math.Floor(pos))
	if i >= len(s)-1 {
		return s[len(s)-1]
	}
	return s[i] + (pos-float64(i))*(s[i+1]-s[i])
}

// Cosine is the cosine of a and b, in float64; 0 when either is zero.
func Cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range min(len(a), len(b)) {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

// FactLabel is a label of a pairs file used to calibrate remember_facts,
// with the verdict a pair of it should end with (Distinct standing for
// inserted: DISTINCT or NEW).
type FactLabel struct {
	Label string
	Want  hippo.Verdict
}

// FactLabels are the labels of local/testdata/pairs.tsv, in the order the
// calibration tests report them.
var FactLabels = []FactLabel{
	{"paraphrase", hippo.Duplicate},
	{"update", hippo.Supersedes},
	{"related", hippo.Distinct},
	{"unrelated", hippo.Distinct},
}

// FactPair is a labelled pair as remember_facts sees it: the cosine of its
// two texts and the classifier's verdict, used inside the band.
type FactPair struct {
	Label   string
	Sim     float64
	Verdict hippo.Verdict
}

// LoadFactPairs reads the pairs file at path (see ReadPairs), embeds both
// sides of every pair with e in one call and asks c about each pair, the
// first text as the existing fact and the second as the new one.
func LoadFactPairs(ctx context.Context, e hippo.Embedder, c hippo.Classifier, path string) ([]FactPair, error) {
	raw, err := ReadPairs(path)
	if err != nil {
		return nil, err
	}
	texts := make([]string, 0, 2*len(raw))
	fp := make([]hippo.FactPair, 0, len(raw))
	for _, p := range raw {
		texts = append(texts, p.A, p.B)
		fp = append(fp, hippo.FactPair{Existing: p.A, New: p.B})
	}
	vecs, err := e.Embed(ctx, texts)
	if err != nil {
		return nil, err
	}
	if len(vecs) != len(texts) {
		return nil, fmt.Errorf("embedder %s returned %d vectors for %d texts", e.Model(), len(vecs), len(texts))
	}
	verdicts, _, err := c.ClassifyFacts(ctx, fp)
	if err != nil {
		return nil, err
	}
	if len(verdicts) != len(fp) {
		return nil, fmt.Errorf("classifier returned %d verdicts for %d pairs", len(verdicts), len(fp))
	}
	pairs := make([]FactPair, len(raw))
	for i, p := range raw {
		pairs[i] = FactPair{Label: p.Label, Sim: Cosine(vecs[2*i], vecs[2*i+1]), Verdict: verdicts[i]}
	}
	return pairs, nil
}

// Outcome is what remember_facts does with p under the thresholds: a
// duplicate above dup, new (Distinct) below new, the classifier's verdict
// between.
func (p FactPair) Outcome(dup, new float64) hippo.Verdict {
	switch {
	case p.Sim > dup:
		return hippo.Duplicate
	case p.Sim < new:
		return hippo.Distinct
	}
	return p.Verdict
}

// BandRight reports whether the thresholds alone put p where it can end
// right: a paraphrase not auto-new, an update inside the band (it can only
// supersede there), a related fact not auto-duplicate, an unrelated one
// (or any other label) auto-new.
func (p FactPair) BandRight(dup, new float64) bool {
	switch p.Label {
	case "paraphrase":
		return p.Sim >= new
	case "update":
		return p.Sim >= new && p.Sim <= dup
	case "related":
		return p.Sim <= dup
	}
	return p.Sim < new
}

// Sims are the cosines of the pairs labelled label, in order.
func Sims(pairs []FactPair, label string) []float64 {
	var sims []float64
	for _, p := range pairs {
		if p.Label == label {
			sims = append(sims, p.Sim)
		}
	}
	return sims
}

// Outcomes counts the outcomes of the pairs labelled label under the
// thresholds, and returns how many pairs have the label.
func Outcomes(pairs []FactPair, label string, dup, new float64) (got map[hippo.Verdict]int, n int) {
	got = map[hippo.Verdict]int{}
	for _, p := range pairs {
		if p.Label == label {
			n++
			got[p.Outcome(dup, new)]++
		}
	}
	return got, n
}

// Scores returns the class-balanced accuracy, over FactLabels, of the
// end-to-end outcome (Outcome is the label's Want) and of the bands alone
// (BandRight). Every label of FactLabels must have a pair.
func Scores(pairs []FactPair, dup, new float64) (outcomeAcc, bandAcc float64) {
	for _, l := range FactLabels {
		var n, ok, band int
		for _, p := range pairs {
			if p.Label != l.Label {
				continue
			}
			n++
			if p.Outcome(dup, new) == l.Want {
				ok++
			}
			if p.BandRight(dup, new) {
				band++
			}
		}
		outcomeAcc += float64(ok) / float64(n) / float64(len(FactLabels))
		bandAcc += float64(band) / float64(n) / float64(len(FactLabels))
	}
	return outcomeAcc, bandAcc
}

// SweepThresholds tries the duplicate threshold from 0.80 to 1.00 and the
// new one from 0 to it, in steps of 0.01, and returns the pair with the
// best band accuracy, ties going to the best outcome accuracy, then to the
// first tried, with both accuracies.
func SweepThresholds(pairs []FactPair) (dup, new, bandAcc, outcomeAcc float64) {
	for d := 0.80; d <= 1.0001; d += 0.01 {
		for n := 0.0; n <= d; n += 0.01 {
			o, b := Scores(pairs, d, n)
			if b > bandAcc+1e-9 || math.Abs(b-bandAcc) < 1e-9 && o > outcomeAcc+1e-9 {
				outcomeAcc, bandAcc, dup, new = o, b, d, n
			}
		}
	}
	return dup, new, bandAcc, outcomeAcc
}

// Summary renders min, p10, mean, median, p90 and max of xs, which must not
// be empty; the quantiles are the values at the rank rounded down, not
// interpolated as Quantile's are.
func Summary(xs []float64) string {
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

// ForgetSet is a forget_memory calibration set such as
// local/testdata/forget.json: facts, and requests each naming the facts its
// description should delete.
type ForgetSet struct {
	Facts    []string `json:"facts"`
	Requests []struct {
		Description string   `json:"description"`
		Forget      []string `json:"forget"`
	} `json:"requests"`
}

// ReadForgetSet reads a forget set from the JSON file at path.
func ReadForgetSet(path string) (ForgetSet, error) {
	var set ForgetSet
	raw, err := os.ReadFile(path)
	if err != nil {
		return set, err
	}
	if err := json.Unmarshal(raw, &set); err != nil {
		return set, fmt.Errorf("%s: %v", path, err)
	}
	return set, nil
}

// ForgetScore is the cosine of a request's description to one fact, and
// whether the request should delete that fact.
type ForgetScore struct {
	Sim  float64
	Want bool
}

// ForgetScores holds, per request, the scores of every fact, in order.
type ForgetScores [][]ForgetScore

// Score scores every fact of s against every request, given the facts'
// vectors and the descriptions', both in order.
func (s ForgetSet) Score(facts, descriptions [][]float32) ForgetScores {
	rows := make(ForgetScores, 0, len(s.Requests))
	for i, r := range s.Requests {
		row := make([]ForgetScore, 0, len(s.Facts))
		for j, f := range s.Facts {
			row = append(row, ForgetScore{Cosine(descriptions[i], facts[j]), slices.Contains(r.Forget, f)})
		}
		rows = append(rows, row)
	}
	return rows
}

// Sims returns the cosines of the descriptions to the facts to delete and
// to the facts to keep.
func (rows ForgetScores) Sims() (del, keep []float64) {
	for _, row := range rows {
		for _, s := range row {
			if s.Want {
				del = append(del, s.Sim)
			} else {
				keep = append(keep, s.Sim)
			}
		}
	}
	return del, keep
}

// Eval deletes the facts at or above the threshold th and returns the
// share of requests that delete exactly their facts, and the precision and
// recall of the deletions over all requests (0 when no deletion is made,
// or there is none to make).
func (rows ForgetScores) Eval(th float64) (exact, precision, recall float64) {
	var tp, fp, fn, ok int
	for _, row := range rows {
		right := true
		for _, s := range row {
			hit := s.Sim >= th
			switch {
			case hit && s.Want:
				tp++
			case hit:
				fp++
				right = false
			case s.Want:
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

// Sweep tries the forget threshold from 0.20 to 0.90 in steps of 0.01 and
// returns the first with the most requests exactly right, with that share.
func (rows ForgetScores) Sweep() (th, exact float64) {
	for t := 0.2; t <= 0.9; t += 0.01 {
		if ex, _, _ := rows.Eval(t); ex > exact+1e-9 {
			th, exact = t, ex
		}
	}
	return th, exact
}

// MinFactPairs is how many labelled pairs CheckFactThresholds wants.
const MinFactPairs = 200

// Baselines are the thresholds CheckFactThresholds compares the chosen ones
// with. Outcome says whether the chosen thresholds must beat the
// baseline's outcome accuracy too; where not, they must come within 0.02
// of it.
var Baselines = []struct {
	Name     string
	Dup, New float64
	Outcome  bool
}{
	{"seed 000 (0.93 / 0.78)", 0.93, 0.78, true},
	{"no classifier, all new", 1.01, 1.01, true},
	// The offline classifier is safe on unrelated pairs, so sending it
	// everything costs little outcome; the bands must not cost more.
	{"classifier on every pair", 1.01, -1.01, false},
}

// CheckFactThresholds logs how the cosines of pairs separate the
// FactLabels, the sweep's optimum (SweepThresholds), the accuracies of the
// chosen thresholds dup and new and of the Baselines, and the chosen
// outcomes label by label. It fails t when there are fewer than
// MinFactPairs pairs, when the chosen band accuracy does not beat every
// baseline's or is more than 0.02 below the optimum's, or when the chosen
// outcome accuracy falls short of a baseline's as Baselines says.
func CheckFactThresholds(t testing.TB, pairs []FactPair, dup, new float64) {
	t.Helper()
	if len(pairs) < MinFactPairs {
		t.Fatalf("only %d labelled pairs, want ≥ %d", len(pairs), MinFactPairs)
	}
	for _, l := range FactLabels {
		sims := Sims(pairs, l.Label)
		t.Logf("cosine %-10s n=%3d %s", l.Label, len(sims), Summary(sims))
	}
	bestDup, bestNew, bestBand, bestOut := SweepThresholds(pairs)
	t.Logf("sweep optimum: duplicate %.2f, new %.2f: band accuracy %.3f, outcome accuracy %.3f", bestDup, bestNew, bestBand, bestOut)
	out, band := Scores(pairs, dup, new)
	t.Logf("chosen:        duplicate %.2f, new %.2f: band accuracy %.3f, outcome accuracy %.3f", dup, new, band, out)
	for _, b := range Baselines {
		o, bd := Scores(pairs, b.Dup, b.New)
		t.Logf("baseline %-26s band accuracy %.3f, outcome accuracy %.3f", b.Name+":", bd, o)
		if band <= bd {
			t.Errorf("chosen thresholds' band accuracy %.3f does not beat %s (%.3f)", band, b.Name, bd)
		}
		if b.Outcome && out <= o {
			t.Errorf("chosen thresholds' outcome accuracy %.3f does not beat %s (%.3f)", out, b.Name, o)
		}
		if !b.Outcome && out < o-0.02 {
			t.Errorf("chosen thresholds' outcome accuracy %.3f is well below %s (%.3f)", out, b.Name, o)
		}
	}
	for _, l := range FactLabels {
		got, n := Outcomes(pairs, l.Label, dup, new)
		t.Logf("chosen outcome %-10s duplicate %2d, supersedes %2d, distinct/new %2d of %d",
			l.Label, got[hippo.Duplicate], got[hippo.Supersedes], got[hippo.Distinct], n)
	}
	if band < bestBand-0.02 {
		t.Errorf("chosen thresholds' band accuracy %.3f, the sweep optimum %.3f", band, bestBand)
	}
}

// SeedForget is the forget threshold of seed 000, which Check compares the
// chosen one with.
const SeedForget = 0.7

// Check logs the cosines of the descriptions to the facts to delete and to
// keep, and how the chosen forget threshold, the sweep's optimum (Sweep)
// and SeedForget do. It fails t when the chosen threshold gets fewer
// requests exactly right than SeedForget (or, with beatSeed, not more),
// more than 0.05 fewer than the optimum, or a precision below 0.9.
func (rows ForgetScores) Check(t testing.TB, forget float64, beatSeed bool) {
	t.Helper()
	pos, neg := rows.Sims()
	t.Logf("forget cosine to the facts to delete: %s", Summary(pos))
	t.Logf("forget cosine to the facts to keep:   %s", Summary(neg))
	bestTh, _ := rows.Sweep()
	ex, p, r := rows.Eval(forget)
	bx, bp, br := rows.Eval(bestTh)
	sx, sp, sr := rows.Eval(SeedForget)
	t.Logf("forget %.2f (chosen):   requests exactly right %.2f, precision %.2f, recall %.2f", forget, ex, p, r)
	t.Logf("forget %.2f (optimum):  requests exactly right %.2f, precision %.2f, recall %.2f", bestTh, bx, bp, br)
	t.Logf("forget %.2f (seed 000): requests exactly right %.2f, precision %.2f, recall %.2f", SeedForget, sx, sp, sr)
	if ex < sx || beatSeed && ex == sx || ex < bx-0.05 || p < 0.9 {
		t.Errorf("forget threshold %.2f: exact %.2f (seed %.2f, optimum %.2f), precision %.2f", forget, ex, sx, bx, p)
	}
}
