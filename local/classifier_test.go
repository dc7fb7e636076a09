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

// TestVerdictSet measures the classifier on testdata/verdicts.tsv, written
// before the classifier, and reports the confusion matrix.
func TestVerdictSet(t *testing.T) {
	type pair struct {
		want hippo.Verdict
		p    hippo.FactPair
	}
	var set []pair
	for _, f := range readTSV(t, "testdata/verdicts.tsv") {
		set = append(set, pair{hippo.Verdict(f[0]), hippo.FactPair{Existing: f[1], New: f[2]}})
	}
	pairs := make([]hippo.FactPair, len(set))
	for i, s := range set {
		pairs[i] = s.p
	}
	got, _, err := NewClassifier().ClassifyFacts(context.Background(), pairs)
	if err != nil {
		t.Fatal(err)
	}
	verdicts := []hippo.Verdict{hippo.Duplicate, hippo.Supersedes, hippo.Distinct}
	confusion := map[[2]hippo.Verdict]int{}
	correct := 0
	for i, s := range set {
		confusion[[2]hippo.Verdict{s.want, got[i]}]++
		if got[i] == s.want {
			correct++
		} else {
			t.Logf("%-10s as %-10s %q → %q", s.want, got[i], s.p.Existing, s.p.New)
		}
	}
	for _, w := range verdicts {
		line := ""
		for _, g := range verdicts {
			line += " " + strings.ToLower(string(g)) + "=" + strconv.Itoa(confusion[[2]hippo.Verdict{w, g}])
		}
		t.Logf("verdicts: %-10s →%s", w, line)
	}
	acc := float64(correct) / float64(len(set))
	t.Logf("verdicts: accuracy %.2f (%d/%d)", acc, correct, len(set))
	if acc < 0.75 {
		t.Errorf("verdict accuracy %.2f, want ≥ 0.75", acc)
	}
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
