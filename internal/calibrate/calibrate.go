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
