package local

import (
	"bufio"
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/hippo-mem/hippo"
)

func TestClassifyFacts(t *testing.T) {
	tests := []struct {
		existing, new string
		want          hippo.Verdict
	}{
		{"User lives in Berlin", "User lives in Bangkok", hippo.Supersedes},
		{"User lives in Berlin", "User moved to Bangkok", hippo.Supersedes},
		{"User lives in Berlin", "User's home is in Berlin", hippo.Duplicate},
		{"User lives in Berlin", "User works in Berlin", hippo.Distinct},
		{"User works at Google", "User is employed by Google", hippo.Duplicate},
		{"User works at Google", "User now works at Stripe", hippo.Supersedes},
		{"User's wife is called Ana", "User's wife's name is Ana", hippo.Duplicate},
		{"User's wife is called Ana", "User's sister is called Ana", hippo.Distinct},
		{"User is 34 years old", "User is 35 years old", hippo.Supersedes},
		{"User has two kids", "User has two children", hippo.Duplicate},
		{"User likes Redux", "User hates Redux", hippo.Supersedes},
		{"User strongly dislikes Redux", "User hates Redux", hippo.Duplicate},
		{"User likes pizza", "User likes sushi", hippo.Distinct},
		{"User drinks coffee every morning", "User quit coffee", hippo.Supersedes},
		{"User prefers tabs over spaces", "User prefers spaces over tabs", hippo.Supersedes},
		{"User prefers dark mode", "User prefers light mode", hippo.Supersedes},
		// A standing wish of the assistant, changed or added to.
		{"User would like the assistant to always answer in Spanish", "User would like the assistant to always answer in French", hippo.Supersedes},
		{"User wants the assistant to use metric units", "User wants the assistant to use imperial units", hippo.Supersedes},
		{"User wants the assistant to use metric units", "User wants the assistant to keep answers short", hippo.Distinct},
		{"User wants the assistant to use bullet points", "User wants the assistant to use tables", hippo.Distinct},
		// A count changed, whatever else the old fact said; pronouns
		// written with a slash are a value.
		{"User has two kids: Emma, who is 6, and Noah, who is 3", "User has three kids", hippo.Supersedes},
		{"User has two kids: Emma, who is 6, and Noah, who is 3", "User has two kids", hippo.Duplicate},
		{"User's pronouns are she/her", "User's pronouns are they/them", hippo.Supersedes},
		{"User's pronouns are she/her", "User's pronouns are she/her", hippo.Duplicate},
		{"User is 34", "User turned 35 last week", hippo.Supersedes},
		{"User is 34", "User turned 34 in May", hippo.Duplicate},
		{"User is single", "User got engaged last month", hippo.Supersedes},
		{"User is married", "User got married in 2019", hippo.Duplicate},
		{"User is single", "User is married", hippo.Supersedes},
		{"User works at Shopify", "User worked at Google before", hippo.Distinct},
		{"User never wants to use Redux again", "User tried a new café on Sukhumvit", hippo.Distinct},
		// A move states the place reached; when it happened is no new value.
		{"User lives in Berlin", "User moved to Berlin last year", hippo.Duplicate},
		{"User lives in Berlin", "User moved from Paris to Berlin last year", hippo.Duplicate},
		{"User lives in Paris", "User moved from Paris to Berlin last year", hippo.Supersedes},
		{"User lives in Paris", "User moved to Berlin last year", hippo.Supersedes},
		{"User moved to Berlin last year", "User lives in Berlin", hippo.Duplicate},
		{"User lives in Paris", "User moved away from Paris", hippo.Supersedes},
		{"User's birthday is in May", "User's birthday is in June", hippo.Supersedes},
		{"User's name is Sam", "User's name is Jo", hippo.Supersedes},
		{"User takes User's coffee black", "User takes their coffee black", hippo.Duplicate},
		// Another attribute of the same subject is no new value (issue
		// 29): a trip and the city, a hobby and how often, a name and a
		// remark, a move and a café visit.
		{"User lives in Lisbon", "User is planning a trip to Japan in May", hippo.Distinct},
		{"User lives in Berlin", "User is moving to Osaka next year", hippo.Distinct},
		{"User loves climbing", "User goes climbing twice a week", hippo.Distinct},
		{"User's sister is called Ana", "User's sister is so bossy", hippo.Distinct},
		{"User's manager is Tom", "User's manager is very demanding", hippo.Distinct},
		{"User had brunch at a café in Alfama", "User relocated to Madrid", hippo.Distinct},
		{"User lives in Porto", "User lives with their partner", hippo.Distinct},
		// A correction in a later message supersedes what it corrects,
		// with or without a person as subject.
		{"User's design review is on Thursday", "User moved the review to Friday", hippo.Supersedes},
		{"User lives in Lisbon with their partner", "User is now in Porto", hippo.Supersedes},
		{"User's budget for the kitchen is 5k", "The budget is now 8k", hippo.Supersedes},
		{"User's budget for the kitchen is 5k", "Budget is more like 8k now", hippo.Supersedes},
		{"User goes climbing twice a week", "User goes climbing four times a week now", hippo.Supersedes},
		{"User's daughter is 6", "User's daughter is 7, not 6", hippo.Supersedes},
		// A number written against a currency sign is an amount, not an
		// age or a time.
		{"User's kitchen budget is about $30,000", "User's kitchen budget is $42,000", hippo.Supersedes},
		{"User's rent is €900", "User's rent is 1,100€ a month", hippo.Supersedes},
		{"User's rent is £900", "User's deposit is £1,800", hippo.Distinct},
	}
	var pairs []hippo.FactPair
	for _, tt := range tests {
		pairs = append(pairs, hippo.FactPair{New: tt.new, Existing: tt.existing})
	}
	got, _, err := NewClassifier().ClassifyFacts(context.Background(), pairs)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(tests) {
		t.Fatalf("got %d verdicts for %d pairs", len(got), len(tests))
	}
	for i, tt := range tests {
		if got[i] != tt.want {
			t.Errorf("%q → %q: %s, want %s", tt.existing, tt.new, got[i], tt.want)
		}
	}
}

func TestClassifyFactsEmpty(t *testing.T) {
	got, _, err := NewClassifier().ClassifyFacts(context.Background(), nil)
	if err != nil || len(got) != 0 {
		t.Fatalf("got %v, %v; want no verdicts", got, err)
	}
	got, _, err = NewClassifier().ClassifyFacts(context.Background(), []hippo.FactPair{{New: "", Existing: "!!!"}})
	if err != nil || len(got) != 1 {
		t.Fatalf("got %v, %v; want one verdict", got, err)
	}
}

// TestVerdictSet measures the classifier on its labelled sets and logs
// the confusion matrix with each verdict's precision and recall:
// verdicts.tsv, written before the classifier; verdicts_tune.tsv, written
// before the classifier kept supersession to one attribute (issue 29) and
// tuned on; verdicts_holdout.tsv, written after that change and never
// tuned on. A wrong SUPERSEDES hides a true fact, so its precision is held
// to a floor.
func TestVerdictSet(t *testing.T) {
	sets := []struct {
		file          string
		minAccuracy   float64
		minSupersedes float64 // SUPERSEDES precision
	}{
		{"testdata/verdicts.tsv", 0.75, 0.95},
		{"testdata/verdicts_tune.tsv", 0.75, 0.95},
		{"testdata/verdicts_holdout.tsv", 0.75, 0.95},
	}
	for _, set := range sets {
		t.Run(strings.TrimSuffix(strings.TrimPrefix(set.file, "testdata/"), ".tsv"), func(t *testing.T) {
			m := measureVerdicts(t, set.file)
			if acc := m.accuracy(); acc < set.minAccuracy {
				t.Errorf("verdict accuracy %.2f, want ≥ %.2f", acc, set.minAccuracy)
			}
			if p, _, _ := m.precision(hippo.Supersedes); p < set.minSupersedes {
				t.Errorf("SUPERSEDES precision %.2f, want ≥ %.2f", p, set.minSupersedes)
			}
		})
	}
}

var allVerdicts = []hippo.Verdict{hippo.Duplicate, hippo.Supersedes, hippo.Distinct}

// verdictMatrix counts labelled verdicts (want) against the classifier's
// (got).
type verdictMatrix map[[2]hippo.Verdict]int

func (m verdictMatrix) accuracy() float64 {
	right, all := 0, 0
	for k, n := range m {
		all += n
		if k[0] == k[1] {
			right += n
		}
	}
	return float64(right) / float64(max(all, 1))
}

// precision is the share of v verdicts given that were right; recall, the
// share of pairs labelled v that got it.
func (m verdictMatrix) precision(v hippo.Verdict) (float64, int, int) {
	given := 0
	for _, w := range allVerdicts {
		given += m[[2]hippo.Verdict{w, v}]
	}
	return ratio(m[[2]hippo.Verdict{v, v}], given), m[[2]hippo.Verdict{v, v}], given
}

func (m verdictMatrix) recall(v hippo.Verdict) (float64, int, int) {
	labelled := 0
	for _, g := range allVerdicts {
		labelled += m[[2]hippo.Verdict{v, g}]
	}
	return ratio(m[[2]hippo.Verdict{v, v}], labelled), m[[2]hippo.Verdict{v, v}], labelled
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}

// measureVerdicts classifies the labelled pairs of file (verdict, existing
// fact, new fact), logs each wrong verdict, the confusion matrix and each
// verdict's precision and recall, and returns the matrix.
func measureVerdicts(t *testing.T, file string) verdictMatrix {
	t.Helper()
	rows := readTSV(t, file)
	pairs := make([]hippo.FactPair, len(rows))
	for i, f := range rows {
		pairs[i] = hippo.FactPair{Existing: f[1], New: f[2]}
	}
	got, _, err := NewClassifier().ClassifyFacts(context.Background(), pairs)
	if err != nil {
		t.Fatal(err)
	}
	m := verdictMatrix{}
	for i, f := range rows {
		want := hippo.Verdict(f[0])
		m[[2]hippo.Verdict{want, got[i]}]++
		if got[i] != want {
			t.Logf("%-10s as %-10s %q → %q", want, got[i], f[1], f[2])
		}
	}
	for _, w := range allVerdicts {
		line := ""
		for _, g := range allVerdicts {
			line += " " + strings.ToLower(string(g)) + "=" + strconv.Itoa(m[[2]hippo.Verdict{w, g}])
		}
		p, pn, pd := m.precision(w)
		r, rn, rd := m.recall(w)
		t.Logf("verdicts: %-10s →%s  precision %.2f (%d/%d) recall %.2f (%d/%d)", w, line, p, pn, pd, r, rn, rd)
	}
	t.Logf("verdicts: accuracy %.2f (%d pairs)", m.accuracy(), len(rows))
	return m
}

// readTSV reads a tab-separated file, skipping blank lines and # comments.
func readTSV(t testing.TB, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows [][]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		fields := strings.Split(line, "\t")
		if len(fields) != 3 {
			t.Fatalf("%s: want 3 fields in %q", path, line)
		}
		rows = append(rows, fields)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}
