package calibrate

import (
	"context"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hippo-mem/hippo"
)

func TestQuantile(t *testing.T) {
	xs := []float64{0.4, 0.1, 0.3, 0.2, 0.5}
	tests := []struct{ q, want float64 }{
		{0, 0.1}, {0.5, 0.3}, {1, 0.5}, {0.25, 0.2}, {0.95, 0.48}, {0.1, 0.14},
	}
	for _, tt := range tests {
		if got := Quantile(xs, tt.q); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("Quantile(%v) = %v, want %v", tt.q, got, tt.want)
		}
	}
	if !math.IsNaN(Quantile(nil, 0.5)) {
		t.Error("Quantile of nothing is not NaN")
	}
}

// angleEmbedder embeds a text "θ" (a number, in degrees) as the unit
// vector at that angle, so that pairs have known cosines.
type angleEmbedder struct{}

func (angleEmbedder) Model() string  { return "angle" }
func (angleEmbedder) Dimension() int { return 2 }
func (angleEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, s := range texts {
		deg, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, err
		}
		rad := deg * math.Pi / 180
		out[i] = []float32{float32(math.Cos(rad)), float32(math.Sin(rad))}
	}
	return out, nil
}

// levelled is angleEmbedder declaring levels.
type levelled struct {
	angleEmbedder
	u, s float64
}

func (l levelled) RelevanceLevels() (float64, float64) { return l.u, l.s }

func TestMeasure(t *testing.T) {
	// Unrelated pairs at 90° (cosine 0) but one at 60° (0.5); paraphrases
	// at 0°, 30° and 60° (1, 0.866, 0.5).
	file := "# comment\n\n" + strings.Join([]string{
		"unrelated\t0\t90", "unrelated\t0\t90", "unrelated\t0\t90", "unrelated\t0\t90", "unrelated\t0\t60",
		"paraphrase\t0\t0", "paraphrase\t0\t30", "paraphrase\t10\t70",
	}, "\n")
	path := filepath.Join(t.TempDir(), "pairs.tsv")
	if err := os.WriteFile(path, []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	pairs, err := ReadPairs(path)
	if err != nil || len(pairs) != 8 {
		t.Fatalf("ReadPairs: %d pairs, %v", len(pairs), err)
	}
	l, err := Measure(context.Background(), angleEmbedder{}, pairs)
	if err != nil {
		t.Fatal(err)
	}
	// p95 of {0, 0, 0, 0, 0.5}: 0.8 of the way from 0 to 0.5.
	if math.Abs(l.Unrelated-0.4) > 1e-6 || math.Abs(l.Strong-math.Sqrt(3)/2) > 1e-6 {
		t.Errorf("levels %v, %v; want 0.4, 0.866", l.Unrelated, l.Strong)
	}
	if len(l.Bands) != 2 || l.Bands[0].Label != "unrelated" || l.Bands[0].N != 5 || math.Abs(l.Bands[1].Max-1) > 1e-6 {
		t.Errorf("bands %+v", l.Bands)
	}
	if got := Check(t, levelled{u: 0.41, s: 0.87}, path); math.Abs(got.Unrelated-0.4) > 1e-6 {
		t.Errorf("Check returned %v", got)
	}

	// A file without both labels, or with a bad line, is refused.
	if _, err := Measure(context.Background(), angleEmbedder{}, pairs[:5]); err == nil {
		t.Error("pairs without paraphrases measured")
	}
	os.WriteFile(path, []byte("unrelated\tonly two"), 0o644)
	if _, err := ReadPairs(path); err == nil {
		t.Error("a line of two fields read")
	}
}

// factPairs are eight pairs whose scores are worked out by hand below; no
// cosine sits on the sweeps' 0.01 grid.
var factPairs = []FactPair{
	{"paraphrase", 0.955, hippo.Duplicate},
	{"paraphrase", 0.855, hippo.Distinct},
	{"update", 0.855, hippo.Supersedes},
	{"update", 0.505, hippo.Supersedes},
	{"related", 0.855, hippo.Distinct},
	{"related", 0.975, hippo.Distinct},
	{"unrelated", 0.105, hippo.Distinct},
	{"unrelated", 0.605, hippo.Supersedes},
}

func TestScores(t *testing.T) {
	tests := []struct {
		name             string
		dup, new         float64
		outcome, band    float64
		paraphraseCounts map[hippo.Verdict]int
	}{
		// Outcome: paraphrase 1/2 (0.855 in the band, classified distinct),
		// update 1/2 (0.505 auto-new), related 1/2 (0.975 auto-duplicate),
		// unrelated 2/2. Bands: 2/2, 1/2, 1/2, 2/2.
		{"bands", 0.9, 0.7, (0.5 + 0.5 + 0.5 + 1) / 4, (1 + 0.5 + 0.5 + 1) / 4,
			map[hippo.Verdict]int{hippo.Duplicate: 1, hippo.Distinct: 1}},
		// Everything new: only related and unrelated end (and sit) right.
		{"all new", 1.01, 1.01, 0.5, 0.5, map[hippo.Verdict]int{hippo.Distinct: 2}},
		// The classifier on everything: paraphrase 1/2, update 2/2, related
		// 2/2, unrelated 1/2; no unrelated pair is auto-new.
		{"classifier only", 1.01, -1.01, 0.75, 0.75, map[hippo.Verdict]int{hippo.Duplicate: 1, hippo.Distinct: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, b := Scores(factPairs, tt.dup, tt.new)
			if math.Abs(o-tt.outcome) > 1e-12 || math.Abs(b-tt.band) > 1e-12 {
				t.Errorf("Scores = %v, %v; want %v, %v", o, b, tt.outcome, tt.band)
			}
			got, n := Outcomes(factPairs, "paraphrase", tt.dup, tt.new)
			if n != 2 || !maps.Equal(got, tt.paraphraseCounts) {
				t.Errorf("Outcomes = %v of %d; want %v of 2", got, n, tt.paraphraseCounts)
			}
		})
	}
	if got := Sims(factPairs, "update"); !slices.Equal(got, []float64{0.855, 0.505}) {
		t.Errorf("Sims(update) = %v", got)
	}
}

func TestSweepThresholds(t *testing.T) {
	// No thresholds put every pair in its band: an unrelated pair at 0.605
	// needs new > 0.605, an update at 0.505 new ≤ 0.505. The best band
	// accuracy, 3.5/4, needs duplicate ≥ 0.975 (the related pair) and new
	// above 0.105 and at most 0.505, or above 0.605 and at most 0.855; both
	// give outcome 3/4, and the first tried, 0.98 / 0.11, wins.
	dup, new, band, outcome := SweepThresholds(factPairs)
	if math.Abs(dup-0.98) > 1e-9 || math.Abs(new-0.11) > 1e-9 || math.Abs(band-0.875) > 1e-12 || math.Abs(outcome-0.75) > 1e-12 {
		t.Errorf("SweepThresholds = %v, %v, %v, %v; want 0.98, 0.11, 0.875, 0.75", dup, new, band, outcome)
	}
}

func TestSummary(t *testing.T) {
	// Sorted 0.1 … 0.5: p10 at rank 0.4 (rounded down to 0), the median
	// at rank 2, p90 at rank 3.6 (3).
	want := "min 0.10  p10 0.10  mean 0.30  median 0.30  p90 0.40  max 0.50"
	if got := Summary([]float64{0.4, 0.1, 0.3, 0.2, 0.5}); got != want {
		t.Errorf("Summary = %q, want %q", got, want)
	}
}

// verdictClassifier answers every pair with v.
type verdictClassifier struct{ v hippo.Verdict }

func (c verdictClassifier) ClassifyFacts(_ context.Context, pairs []hippo.FactPair) ([]hippo.Verdict, []hippo.LLMCall, error) {
	out := make([]hippo.Verdict, len(pairs))
	for i := range out {
		out[i] = c.v
	}
	return out, nil, nil
}

func TestLoadFactPairs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pairs.tsv")
	if err := os.WriteFile(path, []byte("# c\nparaphrase\t0\t0\nunrelated\t10\t70\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pairs, err := LoadFactPairs(context.Background(), angleEmbedder{}, verdictClassifier{hippo.Supersedes}, path)
	if err != nil {
		t.Fatal(err)
	}
	want := []FactPair{{"paraphrase", 1, hippo.Supersedes}, {"unrelated", 0.5, hippo.Supersedes}}
	if len(pairs) != len(want) {
		t.Fatalf("LoadFactPairs = %+v, want %+v", pairs, want)
	}
	for i, p := range pairs {
		if p.Label != want[i].Label || p.Verdict != want[i].Verdict || math.Abs(p.Sim-want[i].Sim) > 1e-6 {
			t.Errorf("pair %d = %+v, want %+v", i, p, want[i])
		}
	}
}

// deg is the unit vector at the angle, in degrees.
func deg(d float64) []float32 {
	r := d * math.Pi / 180
	return []float32{float32(math.Cos(r)), float32(math.Sin(r))}
}

func TestForgetScores(t *testing.T) {
	// Facts a, b, c at 0°, 55° and 90°; one request at 0° deletes a, one at
	// 90° deletes b and c. Its cosines: a 1, b 0.574, c 0; a 0, b 0.819, c 1.
	path := filepath.Join(t.TempDir(), "forget.json")
	js := `{"facts": ["a", "b", "c"], "requests": [
		{"description": "first", "forget": ["a"]},
		{"description": "second", "forget": ["b", "c"]}]}`
	if err := os.WriteFile(path, []byte(js), 0o644); err != nil {
		t.Fatal(err)
	}
	set, err := ReadForgetSet(path)
	if err != nil || len(set.Facts) != 3 || len(set.Requests) != 2 || set.Requests[1].Description != "second" {
		t.Fatalf("ReadForgetSet = %+v, %v", set, err)
	}
	rows := set.Score([][]float32{deg(0), deg(55), deg(90)}, [][]float32{deg(0), deg(90)})
	del, keep := rows.Sims()
	near := func(a, b []float64) bool {
		if len(a) != len(b) {
			return false
		}
		for i := range a {
			if math.Abs(a[i]-b[i]) > 1e-6 {
				return false
			}
		}
		return true
	}
	c55, s55 := math.Cos(55*math.Pi/180), math.Sin(55*math.Pi/180)
	if !near(del, []float64{1, s55, 1}) || !near(keep, []float64{c55, 0, 0}) {
		t.Errorf("Sims = %v, %v; want [1 %.3f 1], [%.3f 0 0]", del, keep, s55, c55)
	}
	tests := []struct{ th, exact, precision, recall float64 }{
		{0.7, 1, 1, 1},         // each request deletes exactly its facts
		{0.4, 0.5, 0.75, 1},    // the first also deletes b: 3 of 4 right
		{0.9, 0.5, 1, 2.0 / 3}, // the second keeps b: 2 of 3 deleted
		{1.1, 0, 0, 0},         // nothing deleted
	}
	for _, tt := range tests {
		ex, p, r := rows.Eval(tt.th)
		if math.Abs(ex-tt.exact) > 1e-12 || math.Abs(p-tt.precision) > 1e-12 || math.Abs(r-tt.recall) > 1e-12 {
			t.Errorf("Eval(%v) = %v, %v, %v; want %v, %v, %v", tt.th, ex, p, r, tt.exact, tt.precision, tt.recall)
		}
	}
	// From 0.20 the first request also deletes b until the threshold
	// passes 0.574: 0.58 is the first with both right.
	if th, ex := rows.Sweep(); math.Abs(th-0.58) > 1e-9 || ex != 1 {
		t.Errorf("Sweep = %v, %v; want 0.58, 1", th, ex)
	}
}

// recorder is a testing.TB that counts the failures reported to it.
type recorder struct {
	testing.TB
	errors int
}

func (r *recorder) Errorf(string, ...any) { r.errors++ }

func TestForgetScoresCheck(t *testing.T) {
	// One request, one fact at cosine 0.8 to delete, one at 0.3 to keep:
	// every threshold from 0.31 to 0.80 gets it exactly right, seed 000's
	// 0.70 among them, so the chosen 0.5 ties the seed.
	set := ForgetSet{Facts: []string{"a", "b"}}
	set.Requests = append(set.Requests, struct {
		Description string   `json:"description"`
		Forget      []string `json:"forget"`
	}{"d", []string{"a"}})
	rows := set.Score([][]float32{{0.8, 0.6}, {0.3, float32(math.Sqrt(1 - 0.09))}}, [][]float32{{1, 0}})
	tests := []struct {
		forget   float64
		beatSeed bool
		errors   int
	}{
		{0.5, false, 0}, // ties the seed: enough
		{0.5, true, 1},  // ties the seed: not enough
		{0.2, false, 1}, // deletes b too: below the seed and the optimum
		{0.9, false, 1}, // deletes nothing: precision 0
	}
	for _, tt := range tests {
		r := &recorder{TB: t}
		rows.Check(r, tt.forget, tt.beatSeed)
		if r.errors != tt.errors {
			t.Errorf("Check(%v, %v): %d failures, want %d", tt.forget, tt.beatSeed, r.errors, tt.errors)
		}
	}
}
