package main

import (
	"fmt"
	"math"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/local"
)

// TestRecallExplainLines: --explain prints each result on a line, then its
// score as the weighted sum it is and its relevance's parts on two more,
// and the count of matches on a line of its own, last, on stdout.
func TestRecallExplainLines(t *testing.T) {
	c := newCLI(t)
	c.ok("--agent", "me", "store", "Coffee at the café on Sukhumvit")
	c.ok("--agent", "me", "store", "The coffee shop near the office")
	r := c.ok("--agent", "me", "recall", "--explain", "--min-relevance", "0", "coffee")
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	num := `(\d\.\d{3})`
	shapes := []*regexp.Regexp{
		regexp.MustCompile(`^\d+\. \[memory\] .+ \(score ` + num + `, \w+\)$`),
		regexp.MustCompile(`^   score ` + num + ` = 0\.90 × relevance ` + num + ` \+ 0\.07 × strength ` + num + ` \+ 0\.03 × recency ` + num + `$`),
		regexp.MustCompile(`^   relevance ` + num + ` fuses cosine ` + num + ` \(raw -?\d\.\d{3}\) and bm25 ` + num + ` \(raw \d+\.\d{3}, the database's word statistics\) with α ` + regexp.QuoteMeta(fmt.Sprintf("%.2f", local.HybridAlpha)) + `$`),
		regexp.MustCompile(`^   from store_memory via cli, \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ()$`),
	}
	if len(lines) != 9 || lines[8] != "2 of 2 matching" {
		t.Fatalf("recall --explain printed %d lines, want 2 results with 3 lines of explanation each and the count:\n%s", len(lines), r.stdout)
	}
	for i, l := range lines[:8] {
		m := shapes[i%4].FindStringSubmatch(l)
		if m == nil {
			t.Errorf("line %d %q does not match %s", i+1, l, shapes[i%4])
			continue
		}
		// The score line adds up, to the printed precision.
		if i%4 == 1 {
			var score, rel, str, rec float64
			fmt.Sscan(m[1]+" "+m[2]+" "+m[3]+" "+m[4], &score, &rel, &str, &rec)
			if sum := 0.9*rel + 0.07*str + 0.03*rec; math.Abs(sum-score) > 0.002 {
				t.Errorf("line %d: %.4f ≠ %.4f", i+1, sum, score)
			}
		}
	}
	if r.stderr != "" {
		t.Errorf("stderr: %q", r.stderr)
	}
}

// TestSearchIgnoresCaseAndAccents: `hippo search cafe` finds "Café", as
// recall does.
func TestSearchIgnoresCaseAndAccents(t *testing.T) {
	c := newCLI(t)
	c.ok("--agent", "me", "store", "I tried that new Café on Sukhumvit")
	c.ok("--agent", "me", "store", "Tea at home")
	for _, q := range []string{"cafe", "CAFÉ", "café on"} {
		var out struct {
			Total  int         `json:"total"`
			Chunks []chunkView `json:"chunks"`
		}
		c.jsonLoose(&out, "search", q)
		if out.Total != 1 || len(out.Chunks) != 1 || !strings.Contains(out.Chunks[0].Content, "Café") {
			t.Errorf("search %q = %+v", q, out)
		}
	}
	if r := c.ok("search", "cafes"); r.stdout != "" || !strings.Contains(r.stderr, `No chunks contain "cafes"`) {
		t.Errorf("search cafes: %s", r)
	}
}

// TestVersion: `hippo version`, `--version` and `version --json` report the
// same build.
func TestVersion(t *testing.T) {
	c := newCLI(t)
	var v versionInfo
	c.json(&v, "version")
	if v.Version == "" || !strings.HasPrefix(v.Go, "go") {
		t.Errorf("version --json = %+v", v)
	}
	if r := c.ok("version"); r.stdout != "hippo "+v.String()+" "+v.Go+"\n" {
		t.Errorf("version = %q, want the JSON's %+v", r.stdout, v)
	}
	if r := c.ok("--version"); r.stdout != "hippo "+v.String()+"\n" {
		t.Errorf("--version = %q, want %q", r.stdout, "hippo "+v.String())
	}
}

func TestVersionFrom(t *testing.T) {
	bi := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/hippo-mem/hippo", Version: "v1.2.3"},
		Settings: []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "b1c5f54c664a"},
			{Key: "vcs.time", Value: "2026-11-24T10:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}
	v := versionFrom(bi)
	want := versionInfo{Version: "v1.2.3", Revision: "b1c5f54c664a", Time: "2026-11-24T10:00:00Z", Modified: true, Go: "go1.26.8"}
	if v != want {
		t.Errorf("versionFrom = %+v, want %+v", v, want)
	}
	if s := v.String(); s != "v1.2.3 (revision b1c5f54c664a, modified, 2026-11-24T10:00:00Z)" {
		t.Errorf("String = %q", s)
	}
	if v := versionFrom(nil); v.Version != "(unknown)" || v.String() != "(unknown)" {
		t.Errorf("no build info: %+v", v)
	}
}

// TestRecallExplainLongContent: a result longer than the length pivot
// says how much its length discounted each side of its relevance.
func TestRecallExplainLongContent(t *testing.T) {
	c := newCLI(t)
	long := "The deploy key lives in the team vault." + strings.Repeat(" Background on how the team stores secrets and rotates them.", 20)
	c.ok("--agent", "me", "store", long)
	r := c.ok("--agent", "me", "recall", "--explain", "--min-relevance", "0", "deploy key vault")
	cfg := hippo.DefaultConfig()
	fc, fb := cfg.LengthFactors(len(long))
	want := fmt.Sprintf("   long content (%d bytes): cosine relevance ×%.2f, bm25 ×%.2f", len(long), fc, fb)
	if !strings.Contains(r.stdout, want+"\n") {
		t.Errorf("recall --explain of a %d-byte memory:\n%s\nwant a line %q", len(long), r.stdout, want)
	}
}

// TestRecallExplainFollowUp: a follow-up found through its part read
// after the memory before it says so, naming that memory, and `chunks`
// gives the link.
func TestRecallExplainFollowUp(t *testing.T) {
	c := newCLI(t)
	var son, follow struct{ Chunk chunkView }
	c.jsonLoose(&son, "--agent", "me", "store", "My son is 8.")
	c.jsonLoose(&follow, "--agent", "me", "store", "He has hay fever and needs his spray every morning.")
	r := c.ok("--agent", "me", "recall", "--explain", "--min-relevance", "0", "what allergy does my son have")
	want := "   found read after the memory before it, " + son.Chunk.ID + ":"
	if !strings.Contains(r.stdout, want) {
		t.Errorf("recall --explain:\n%s\nwant a line starting %q", r.stdout, want)
	}
	var list struct{ Chunks []chunkView }
	c.jsonLoose(&list, "chunks", "me")
	for _, ch := range list.Chunks {
		if want := map[string]string{follow.Chunk.ID: son.Chunk.ID}[ch.ID]; ch.ContextOf != want {
			t.Errorf("chunks: %q has context_of %q, want %q", ch.Content, ch.ContextOf, want)
		}
	}
	if len(list.Chunks) != 2 {
		t.Errorf("chunks listed %d, want 2", len(list.Chunks))
	}
}
