package sqlite_test

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestREADMEQuotesExample: the README's library snippet is example_test.go
// verbatim, so the code a reader pastes is code that compiles and runs.
func TestREADMEQuotesExample(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	example, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	quoted, err := quotedAfter(string(readme), "(sqlite/example_test.go)")
	if err != nil {
		t.Fatal(err)
	}
	if quoted != string(example) {
		t.Errorf("README.md's Go block after the link to sqlite/example_test.go differs from that file (copy the file into it): %s",
			firstDifference(quoted, string(example)))
	}
}

// TestREADMEDescribesBehaviour: the README says what Hippo does, not which
// internal document a number came from.
func TestREADMEDescribesBehaviour(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(string(readme), "\n") {
		l := strings.ToLower(line)
		if strings.Contains(l, "seed") || strings.Contains(l, "design doc") || strings.Contains(l, "the design") {
			t.Errorf("README.md:%d speaks of a seed or design document: %s", i+1, line)
		}
	}
}

// quotedAfter is the body of the first ```go block after marker in md.
func quotedAfter(md, marker string) (string, error) {
	_, rest, ok := strings.Cut(md, marker)
	if !ok {
		return "", fmt.Errorf("README.md does not link %s", marker)
	}
	if _, rest, ok = strings.Cut(rest, "\n```go\n"); !ok {
		return "", errors.New("no ```go block after " + marker)
	}
	body, _, ok := strings.Cut(rest, "\n```\n")
	if !ok {
		return "", errors.New("the ```go block after " + marker + " is not closed")
	}
	return body + "\n", nil
}

// firstDifference shows the first line where quoted and file differ.
func firstDifference(quoted, file string) string {
	ql, fl := strings.Split(quoted, "\n"), strings.Split(file, "\n")
	for i := range max(len(ql), len(fl)) {
		var q, f string
		if i < len(ql) {
			q = ql[i]
		}
		if i < len(fl) {
			f = fl[i]
		}
		if q != f {
			return fmt.Sprintf("line %d is %q in README.md, %q in the file", i+1, q, f)
		}
	}
	return "they differ"
}
