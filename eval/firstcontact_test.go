package eval_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hippo-mem/hippo"
)

// firstContactEmbedder is the embedder of the library first-contact check:
// the default one, defaultEmbedder; changing which is one line. The CLI and
// MCP checks use whatever the binary defaults to.
func firstContactEmbedder() hippo.Embedder { return embedders[defaultEmbedder]() }

// firstContactTargetIsDefault says that the target embedder is the default,
// so the first-contact target is asserted in every go test, not only
// logged. The coordinator flips it; until then -firstcontact-target or
// HIPPO_EVAL_TARGET=1 asserts it by hand.
const firstContactTargetIsDefault = false

func assertFirstContactTarget() bool {
	return firstContactTargetIsDefault || *flagTarget || os.Getenv("HIPPO_EVAL_TARGET") == "1"
}

// The first-contact target: right fact first for 13 of the 15 questions,
// in the top 3 for all, and no fact lost.
const (
	targetFirst = 13
	targetTop3  = 15
)

type fcFact struct{ id, text string }

type fcQuestion struct {
	text     string
	relevant map[string]bool // fact IDs
}

// The first-contact sets: the first (the target's), a second one written
// after the first one's results were seen, for changes made for them, and
// a third written before any change was tried on it.
const (
	firstContactSet  = "firstcontact.tsv"
	firstContactSet2 = "firstcontact2.tsv"
	firstContactSet3 = "firstcontact3.tsv"
)

func loadFirstContact(t testing.TB, name string) ([]fcFact, []fcQuestion) {
	t.Helper()
	var facts []fcFact
	var questions []fcQuestion
	for _, f := range readTSV(t, name, 3) {
		switch f[0] {
		case "fact":
			facts = append(facts, fcFact{f[1], f[2]})
		case "question":
			q := fcQuestion{text: f[2], relevant: map[string]bool{}}
			for _, id := range strings.Split(f[1], ",") {
				q.relevant[id] = true
			}
			questions = append(questions, q)
		default:
			t.Fatalf("firstcontact.tsv: unknown row kind %q", f[0])
		}
	}
	if name == firstContactSet && (len(facts) != 30 || len(questions) != 15) {
		t.Fatalf("firstcontact.tsv has %d facts and %d questions, want 30 and 15", len(facts), len(questions))
	}
	return facts, questions
}

// fcOutcome is what a first contact came to.
type fcOutcome struct {
	first, top3 int
	lost        []string // facts with no live stored fact
	misses      []string // questions whose right fact is not first
	readmeDB    string   // the README example: top result for the database question
	readmeHome  string   // and for where the user lives
}

func (o fcOutcome) String() string {
	return fmt.Sprintf("right fact first %d/15, in top 3 %d/15, facts lost %d/30 %v", o.first, o.top3, len(o.lost), o.lost)
}

// firstContact teaches c the 30 facts one at a time, asks the 15
// questions, then runs the README example on readme, a fresh memory.
func firstContact(t testing.TB, ctx context.Context, c, readme client, set string) fcOutcome {
	t.Helper()
	facts, questions := loadFirstContact(t, set)
	var o fcOutcome
	factsOf := map[string][]string{} // fact IDs by chunk ID
	live := map[string]bool{}        // chunk IDs stored and not superseded
	chunksOf := map[string][]string{}
	extracted := map[string]int{}
	for _, f := range facts {
		res, err := c.remember(ctx, f.text)
		if err != nil {
			t.Fatalf("remember %q: %v", f.text, err)
		}
		extracted[f.id] = len(res.Facts)
		if m := res.Message; m != nil { // the text stands for its facts in recall
			factsOf[m.ID] = append(factsOf[m.ID], f.id)
		}
		for _, fo := range res.Facts {
			if fo.Action == hippo.ActionDuplicate {
				continue
			}
			factsOf[fo.ChunkID] = append(factsOf[fo.ChunkID], f.id)
			chunksOf[f.id] = append(chunksOf[f.id], fo.ChunkID)
			live[fo.ChunkID] = true
			if fo.SupersededID != "" {
				delete(live, fo.SupersededID)
			}
		}
	}
	for _, f := range facts {
		kept := false
		for _, id := range chunksOf[f.id] {
			kept = kept || live[id]
		}
		switch {
		case kept:
		case extracted[f.id] == 0:
			o.lost = append(o.lost, f.id+" (nothing extracted)")
		case len(chunksOf[f.id]) == 0:
			o.lost = append(o.lost, f.id+" (taken for a duplicate)")
		default:
			o.lost = append(o.lost, f.id+" (superseded)")
		}
	}
	for _, q := range questions {
		res, err := c.recall(ctx, q.text, 10, nil, nil)
		if err != nil {
			t.Fatalf("recall %q: %v", q.text, err)
		}
		rank := 0
		for i, r := range res {
			for _, f := range factsOf[r.ID] {
				if q.relevant[f] && rank == 0 {
					rank = i + 1
				}
			}
		}
		if rank == 1 {
			o.first++
		} else {
			top := "nothing"
			if len(res) > 0 {
				top = fmt.Sprintf("%q", res[0].Content)
			}
			o.misses = append(o.misses, fmt.Sprintf("%q: right fact at rank %d, first %s", q.text, rank, top))
		}
		if rank >= 1 && rank <= 3 {
			o.top3++
		}
	}
	if _, err := readme.remember(ctx, "I live in Berlin and I love Go."); err != nil {
		t.Fatal(err)
	}
	if _, _, err := readme.store(ctx, "We chose SQLite over PostgreSQL"); err != nil {
		t.Fatal(err)
	}
	top := func(q string) string {
		res, err := readme.recall(ctx, q, 5, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(res) == 0 {
			return ""
		}
		return res[0].Content
	}
	o.readmeDB, o.readmeHome = top("which database did we pick"), top("where do I live")
	return o
}

// check logs the outcome and, when the target embedder is the default,
// asserts the target: the README example's right answers first, and the
// first-contact figures.
func (o fcOutcome) check(t testing.TB, via string) {
	t.Helper()
	t.Logf("first contact via %s: %v", via, o)
	for _, m := range o.misses {
		t.Logf("  miss: %s", m)
	}
	readmeOK := strings.Contains(o.readmeDB, "SQLite") && strings.Contains(o.readmeHome, "Berlin")
	t.Logf("README example via %s: `which database did we pick` → %q, `where do I live` → %q: %s", via, o.readmeDB, o.readmeHome,
		map[bool]string{true: "right", false: "WRONG"}[readmeOK])
	if !assertFirstContactTarget() {
		t.Logf("target (first ≥ %d, top 3 = %d, none lost, README right) not asserted: firstContactTargetIsDefault is false", targetFirst, targetTop3)
		return
	}
	if !readmeOK {
		t.Errorf("README example via %s: want the SQLite decision and the Berlin fact first", via)
	}
	if o.first < targetFirst || o.top3 < targetTop3 || len(o.lost) > 0 {
		t.Errorf("first contact via %s misses the target (first ≥ %d, top 3 = %d, none lost): %v", via, targetFirst, targetTop3, o)
	}
}

// TestFirstContact is the library first-contact check of every go test.
func TestFirstContact(t *testing.T) {
	o, model := libraryFirstContact(t, firstContactSet)
	o.check(t, "library ("+model+")")
}

// TestFirstContactSecondSet runs the second set through the library. Its
// figures are logged, never asserted: it checks changes made for the first
// set's misses on facts they were not made for.
func TestFirstContactSecondSet(t *testing.T) {
	o, model := libraryFirstContact(t, firstContactSet2)
	t.Logf("second first-contact set via library (%s): %v", model, o)
	for _, m := range o.misses {
		t.Logf("  miss: %s", m)
	}
}

// TestFirstContactThirdSet runs the third set through the library, logged
// like the second: written before any change was tried on it.
func TestFirstContactThirdSet(t *testing.T) {
	o, model := libraryFirstContact(t, firstContactSet3)
	t.Logf("third first-contact set via library (%s): %v", model, o)
	for _, m := range o.misses {
		t.Logf("  miss: %s", m)
	}
}

// libraryFirstContact runs a first-contact set through the library with
// the default embedder, on databases of its own.
func libraryFirstContact(t *testing.T, set string) (fcOutcome, string) {
	ctx := context.Background()
	dir := t.TempDir()
	e := firstContactEmbedder()
	c, err := newLibClient(ctx, filepath.Join(dir, "fc.db"), "first-contact", e)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	readme, err := newLibClient(ctx, filepath.Join(dir, "readme.db"), "readme", e)
	if err != nil {
		t.Fatal(err)
	}
	defer readme.close()
	return firstContact(t, ctx, c, readme, set), e.Model()
}

// TestFirstContactCLI is the same through the hippo binary's CLI:
//
//	go test ./eval/ -run FirstContact -bin -v
func TestFirstContactCLI(t *testing.T) {
	if !*flagBin {
		t.Skip("runs with -bin")
	}
	ctx := context.Background()
	dir := t.TempDir()
	c := newCLIClient(t, filepath.Join(dir, "fc.db"), "first-contact")
	readme := newCLIClient(t, filepath.Join(dir, "readme.db"), "readme")
	firstContact(t, ctx, c, readme, firstContactSet).check(t, "CLI")
}

// TestFirstContactMCP is the same through `hippo serve` over MCP
// Streamable HTTP:
//
//	go test ./eval/ -run FirstContact -bin -v
func TestFirstContactMCP(t *testing.T) {
	if !*flagBin {
		t.Skip("runs with -bin")
	}
	ctx := context.Background()
	srv := startServer(t, filepath.Join(t.TempDir(), "fc.db"))
	defer func() {
		if err := srv.stop(); err != nil {
			t.Errorf("hippo serve: %v", err)
		}
	}()
	c, err := newMCPClient(ctx, srv.base, "first-contact")
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	readme, err := newMCPClient(ctx, srv.base, "readme")
	if err != nil {
		t.Fatal(err)
	}
	defer readme.close()
	firstContact(t, ctx, c, readme, firstContactSet).check(t, "MCP")
}
