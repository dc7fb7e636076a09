package sqlite_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// frontPages are the README and the pages that carry what it used to say.
var frontPages = []string{
	"../README.md",
	"../docs/SERVER.md",
	"../docs/CLI.md",
	"../docs/LIBRARY.md",
	"../docs/MODEL.md",
	"../docs/BENCHMARKS.md",
}

// TestLibraryGuideQuotesExample: the library guide's quick start is
// example_test.go verbatim, so the code a reader pastes is code that
// compiles and runs.
func TestLibraryGuideQuotesExample(t *testing.T) {
	guide, err := os.ReadFile("../docs/LIBRARY.md")
	if err != nil {
		t.Fatal(err)
	}
	example, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	quoted, err := quotedAfter(string(guide), "(../sqlite/example_test.go)")
	if err != nil {
		t.Fatal(err)
	}
	if quoted != string(example) {
		t.Errorf("docs/LIBRARY.md's Go block after the link to sqlite/example_test.go differs from that file (copy the file into it): %s",
			firstDifference(quoted, string(example)))
	}
}

// TestREADMEDescribesBehaviour: the README and its pages say what Hippo
// does, not which internal document a number came from.
func TestREADMEDescribesBehaviour(t *testing.T) {
	for _, page := range frontPages {
		text, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(text), "\n") {
			l := strings.ToLower(line)
			if strings.Contains(l, "seed") || strings.Contains(l, "design doc") || strings.Contains(l, "the design") {
				t.Errorf("%s:%d speaks of a seed or design document: %s", page, i+1, line)
			}
		}
	}
}

// TestDocLinksResolve: every relative link of the README and the pages
// under docs/ names a file that exists and, with a #fragment, a heading
// of that file.
func TestDocLinksResolve(t *testing.T) {
	pages, err := filepath.Glob("../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	pages = append(pages, "../README.md", "../eval/README.md", "../adapters/README.md")
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	for _, page := range pages {
		text, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(string(text), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, fragment, _ := strings.Cut(target, "#")
			path := page
			if file != "" {
				path = filepath.Join(filepath.Dir(page), file)
			}
			body, err := os.ReadFile(path)
			if err != nil {
				if _, statErr := os.Stat(path); statErr == nil && fragment == "" {
					continue // a directory
				}
				t.Errorf("%s links %s: %v", page, target, err)
				continue
			}
			if fragment != "" && !hasHeading(string(body), fragment) {
				t.Errorf("%s links %s: no heading #%s in %s", page, target, fragment, path)
			}
		}
	}
}

// hasHeading reports whether md has a heading whose GitHub anchor is
// fragment.
func hasHeading(md, fragment string) bool {
	for _, line := range strings.Split(md, "\n") {
		title, ok := strings.CutPrefix(strings.TrimLeft(line, "#"), " ")
		if !strings.HasPrefix(line, "#") || !ok {
			continue
		}
		var b strings.Builder
		for _, r := range strings.ToLower(strings.TrimSpace(title)) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
				b.WriteRune(r)
			}
		}
		if b.String() == fragment {
			return true
		}
	}
	return false
}

// quotedAfter is the body of the first ```go block after marker in md.
func quotedAfter(md, marker string) (string, error) {
	_, rest, ok := strings.Cut(md, marker)
	if !ok {
		return "", fmt.Errorf("the page does not link %s", marker)
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
			return fmt.Sprintf("line %d is %q in the page, %q in the file", i+1, q, f)
		}
	}
	return "they differ"
}
