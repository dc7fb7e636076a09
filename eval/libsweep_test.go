package eval_test

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
)

// The library sweep runs configurations of recall through the library on
// every set, boost on (questions in order) and off, the default method
// (hybrid at the embedder's α, the default floor):
//
//	go test ./eval/ -run LibrarySweep -libsweep -embedder minilm -v -timeout 3h
//
// -libsweep-sets picks the sets (own, longmemeval, realmem, conversation).
var (
	flagLibSweep     = flag.Bool("libsweep", false, "run recall configurations through the library on every set")
	flagLibSweepSets = flag.String("libsweep-sets", "own,longmemeval,realmem,conversation", "the sets -libsweep runs")
	flagLibSweepOnly = flag.String("libsweep-only", "", "run only the variants whose name contains this")
)

// variant is a configuration of recall to compare.
type variant struct {
	name  string
	tweak func(*hippo.Config)
	// onOnly: run with the boost on only (with it off, the variant is
	// another's).
	onOnly bool
}

// beforeConfig is recall as it was before issue 28: every result
// boosted, no weak results, the seed's weights.
func beforeConfig(c *hippo.Config) {
	c.BoostResults, c.WeakResults = 0, 0
	c.WeightSimilarity, c.WeightStrength, c.WeightRecency = 0.6, 0.3, 0.1
}

// libSweepVariants are the configurations the library sweep compares.
func libSweepVariants() []variant {
	vs := []variant{{name: "before (boost all, no weak results)", tweak: beforeConfig}}
	for _, w := range [][3]float64{{0.6, 0.3, 0.1}, {0.8, 0.15, 0.05}, {0.9, 0.07, 0.03}} {
		for _, n := range []int{1, 3} {
			vs = append(vs, variant{name: fmt.Sprintf("boost first %d, weights %g/%g/%g", n, w[0], w[1], w[2]), tweak: func(c *hippo.Config) {
				c.BoostResults = n
				c.WeightSimilarity, c.WeightStrength, c.WeightRecency = w[0], w[1], w[2]
			}, onOnly: n != 3})
		}
	}
	return vs
}

func TestLibrarySweep(t *testing.T) {
	if !*flagLibSweep {
		t.Skip("runs with -libsweep")
	}
	defer func() { configTweak = nil }()
	ctx := context.Background()
	wanted := func(s string) bool { return strings.Contains(","+*flagLibSweepSets+",", ","+s+",") }
	name, emb := newEmbedder(t)
	ce := newCachedEmbedder(emb)
	dm := methods(emb)[2] // hybrid at the embedder's α, default floor
	dir := t.TempDir()

	var own *ownSet
	var ownSt *ownStore
	if wanted("own") {
		own = loadOwnSet(t)
		ownSt = storeOwnSet(t, ctx, own, ce, dir, false)
	}
	var lme *lmeData
	var lmeSt *lmeStore
	lmeBase := filepath.Join(dir, "lme.db")
	if wanted("longmemeval") {
		lme = loadLME(t, needData(t), false)
		if _, err := ce.load(cacheFile(emb.Model(), "longmemeval")); err != nil {
			t.Fatal(err)
		}
		lmeSt = ingestLME(t, ctx, lmeBase, ce, lme)
	}
	var rm *rmData
	if wanted("realmem") {
		rm = loadRealMem(t, realMemDir(t))
		prepareRealMem(t, ctx, ce, emb.Model(), rm)
	}

	tb := newTable("variant", "boost", "own tune R@10", "MRR", "own held R@10", "MRR", "LME tune R@10", "MRR", "LME held R@10", "MRR", "RealMem R@10", "MRR", "conv A first", "top3", "stale")
	for _, v := range libSweepVariants() {
		if *flagLibSweepOnly != "" && !strings.Contains(v.name, *flagLibSweepOnly) {
			continue
		}
		configTweak = v.tweak
		for _, boost := range []bool{true, false} {
			if !boost && v.onOnly {
				continue
			}
			start := time.Now()
			row := []string{v.name, onOff(boost)}
			if own != nil {
				r := ownSt.run(t, ctx, own, dm, boost, nil)
				row = append(row, f3(r.by[tune].R10()), f3(r.by[tune].MRR()), f3(r.by[heldOut].R10()), f3(r.by[heldOut].MRR()))
			} else {
				row = append(row, "", "", "", "")
			}
			if lme != nil {
				mem, done := runMemory(t, ctx, lmeBase, dm, boost, lmeAgent, ce)
				r := result{}
				for _, q := range lme.queries {
					res, err := dm.recall(ctx, mem, q.Question)
					if err != nil {
						t.Fatal(err)
					}
					r.add(splitOf(q.QID), "", lmeSt.ranked(lme, q, dm, asRecalled(res)), q.relevant())
				}
				done()
				row = append(row, f3(r.by[tune].R10()), f3(r.by[tune].MRR()), f3(r.by[heldOut].R10()), f3(r.by[heldOut].MRR()))
			} else {
				row = append(row, "", "", "", "")
			}
			if rm != nil {
				r := runRealMem(t, ctx, dir, evalConfig(boost), ce, rm, dm)
				all := r.by[tune]
				all.merge(r.by[heldOut])
				row = append(row, f3(all.R10()), f3(all.MRR()))
			} else {
				row = append(row, "", "")
			}
			if wanted("conversation") {
				o := libraryConversation(t, conversationSetA, newCachedEmbedder(firstContactEmbedder()), evalConfig(boost))
				row = append(row, fmt.Sprint(o.first), fmt.Sprint(o.top3), fmt.Sprintf("%d/%d", o.stale, o.corrections))
			}
			tb.row(row...)
			t.Logf("%s boost %v: %v", v.name, boost, time.Since(start).Round(time.Second))
		}
	}
	t.Logf("\nlibrary sweep, embedder %s, method %s\n%s", name, dm.name, tb)
}
