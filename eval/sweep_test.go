package eval_test

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/engine"
)

// The offline sweep: ranking functions scored on every set's candidates
// (TestCandidates writes them), boost off, relevance alone deciding.
//
//	go test ./eval/ -run Sweep -sweep -embedder minilm -v
var flagSweep = flag.Bool("sweep", false, "score ranking functions on the saved candidates of every set")

// ranker gives a candidate's relevance to its question; qs are the
// question's own figures (best BM25 and so on), computed once.
type ranker struct {
	name string
	rel  func(q *candQuery, st *qStats, c *cand) float64
	nw   *newerWins // tau and rho of the newer-wins re-ranking, nil for none
}

// qStats are a question's figures over its candidates.
type qStats struct {
	bmMax, bmMaxSized float64
}

func statsOf(cfg hippo.Config, q *candQuery) *qStats {
	st := &qStats{}
	for i := range q.Cands {
		c := &q.Cands[i]
		_, fb := cfg.LengthFactors(c.Size)
		st.bmMax = max(st.bmMax, c.BM25)
		st.bmMaxSized = max(st.bmMaxSized, c.BM25*fb)
	}
	return st
}

// newerWins, when set, is the re-ranking of sweepScore's top candidates:
// a newer candidate close to an older one ranked above it moves just above
// it (corrections win), when their cosine is at least tau and its relevance
// at least rho times the older one's.
type newerWins struct {
	tau, rho float64
	// window is how many of the first candidates take part (30 when 0):
	// at 10, what a recall of 10 returns stays the same, only its order
	// changes.
	window int
	vecs   [][]float32
	// cues, when set, says which chunks (by Seq) say something changed:
	// only those move above an older chunk (engine.StatesChange).
	cues []bool
	// topic, when set, reads tau as the relevance of the two chunks'
	// cosine (hippo.Config.CosineRelevance), not as a cosine.
	topic *hippo.Config
	// floor is the relevance a chunk needs to move at all.
	floor float64
	// maxSize, when set, is the longest chunk (bytes) that may move.
	maxSize int
	// words, when set, are each chunk's content words (by Seq): two chunks
	// that share one are on a topic when their cosine's relevance is at
	// least linkTau, under tau.
	words   []map[string]bool
	linkTau float64
}

// sameTopic reports whether chunks a and b (by Seq) are on one topic.
func (nw *newerWins) sameTopic(a, b int) bool {
	c := cosine(nw.vecs[a], nw.vecs[b])
	if nw.topic != nil {
		r := nw.topic.CosineRelevance(c)
		return r >= nw.tau || nw.words != nil && r >= nw.linkTau && shareWord(nw.words[a], nw.words[b])
	}
	return c >= nw.tau
}

func (nw *newerWins) apply(list []scoredCand) {
	window := cmp.Or(nw.window, 30)
	list = list[:min(window, len(list))]
	for p := 0; p < len(list); {
		i := list[p]
		best := -1
		for j := p + 1; j < len(list); j++ {
			c := list[j]
			if c.c.Seq > i.c.Seq && c.rel >= nw.rho*i.rel && c.rel >= nw.floor && (nw.maxSize == 0 || c.c.Size <= nw.maxSize) && (nw.cues == nil || nw.cues[c.c.Seq]) &&
				nw.sameTopic(c.c.Seq, i.c.Seq) &&
				(best < 0 || c.c.Seq > list[best].c.Seq) {
				best = j
			}
		}
		if best < 0 {
			p++
			continue
		}
		moved := list[best]
		copy(list[p+1:best+1], list[p:best])
		list[p] = moved
	}
}

type scoredCand struct {
	c   *cand
	rel float64
}

// sweepScore ranks q's candidates by r (ties by Seq, newer first), then by
// nw when set, and scores the top 10 into m.
func sweepScore(cfg hippo.Config, q *candQuery, r ranker, m *metrics, floor float64, nw *newerWins) {
	st := statsOf(cfg, q)
	type scored = scoredCand
	var list []scored
	for i := range q.Cands {
		c := &q.Cands[i]
		rel := r.rel(q, st, c)
		if rel > floor {
			list = append(list, scored{c, rel})
		}
	}
	slices.SortFunc(list, func(a, b scored) int {
		if a.rel != b.rel {
			if a.rel > b.rel {
				return -1
			}
			return 1
		}
		return b.c.Seq - a.c.Seq
	})
	if nw != nil {
		nw.apply(list)
	}
	var ranked [][]string
	for _, s := range list[:min(10, len(list))] {
		ranked = append(ranked, s.c.Items)
	}
	relevant := map[string]bool{}
	for _, id := range q.Relevant {
		relevant[id] = true
	}
	m.add(ranked, relevant)
}

func TestSweep(t *testing.T) {
	if !*flagSweep {
		t.Skip("runs with -sweep")
	}
	_, emb := newEmbedder(t)
	cfg := hippo.DefaultConfig().ForEmbedder(emb)
	var sets []string
	data := map[string]candSet{}
	for _, s := range []string{"own", "longmemeval", "realmem", conversationSetA, conversationSetB} {
		if _, err := os.Stat(cacheFile(emb.Model(), "candidates-"+s)); err != nil {
			t.Logf("%s: no candidates (%v)", s, err)
			continue
		}
		sets = append(sets, s)
		data[s] = loadCands(t, s, emb.Model())
	}
	// The reference cosine distribution: the median question's mean and
	// standard deviation over the tune sets.
	var mus, sds []float64
	for _, s := range sets {
		for _, q := range data[s].Queries {
			if s == conversationSetB || s == "realmem" || (s != conversationSetA && half(q.Half) != tune) {
				continue
			}
			mus, sds = append(mus, q.CosMean), append(sds, q.CosSD)
		}
	}
	slices.Sort(mus)
	slices.Sort(sds)
	refMu, refSD := mus[len(mus)/2], sds[len(sds)/2]
	t.Logf("reference cosine distribution (tune sets): mean %.3f sd %.3f (quartiles of the mean %.3f %.3f, of the sd %.3f %.3f)",
		refMu, refSD, mus[len(mus)/4], mus[3*len(mus)/4], sds[len(sds)/4], sds[3*len(sds)/4])
	tb := newTable(append([]string{"ranker"}, sweepColumns(sets)...)...)
	for _, r := range sweepRankers(cfg, refMu, refSD) {
		row := []string{r.name}
		for _, s := range sets {
			var by [2]metrics
			for _, q := range data[s].Queries {
				if len(q.Relevant) == 0 {
					continue
				}
				var nw *newerWins
				if r.nw != nil {
					nw = &newerWins{tau: r.nw.tau, rho: r.nw.rho, vecs: data[s].Vecs[q.Agent]}
				}
				sweepScore(cfg, q, r, &by[q.Half], 0, nw)
			}
			if s == "own" || s == "longmemeval" {
				row = append(row, f3(by[tune].R10()), f3(by[tune].MRR()), f3(by[heldOut].R10()), f3(by[heldOut].MRR()))
			} else {
				all := by[0]
				all.merge(by[1])
				row = append(row, f3(all.R10()), f3(all.MRR()))
			}
		}
		tb.row(row...)
	}
	t.Logf("\nR@10 and MRR@10, boost off, relevance alone\n%s", tb)
}

// sweepRankers are the ranking functions the sweep compares.
func sweepRankers(cfg hippo.Config, refMu, refSD float64) []ranker {
	a := cfg.HybridAlpha
	def := func(q *candQuery, st *qStats, c *cand) float64 { return cfg.SizedRelevance(c.Cos, c.BM25, c.Size, a) }
	rs := []ranker{
		{name: "vector", rel: func(q *candQuery, st *qStats, c *cand) float64 {
			fc, _ := cfg.LengthFactors(c.Size)
			return cfg.CosineRelevance(c.Cos) * fc
		}},
		{name: "bm25", rel: func(q *candQuery, st *qStats, c *cand) float64 {
			_, fb := cfg.LengthFactors(c.Size)
			return cfg.BM25Relevance(c.BM25 * fb)
		}},
		{name: "default", rel: def},
	}
	// Standardised cosine: the question's cosines moved (shift) or moved
	// and scaled (z) onto the reference distribution, then calibrated.
	shift := func(q *candQuery, c *cand) float64 { return c.Cos - q.CosMean + refMu }
	zed := func(q *candQuery, c *cand) float64 {
		a, b := cosineShift(refMu, refSD, q)
		return a + b*c.Cos
	}
	for _, std := range []struct {
		name string
		f    func(q *candQuery, c *cand) float64
	}{{"shift", shift}, {"z", zed}} {
		rs = append(rs, ranker{name: "vector " + std.name, rel: func(q *candQuery, st *qStats, c *cand) float64 {
			fc, _ := cfg.LengthFactors(c.Size)
			return cfg.CosineRelevance(std.f(q, c)) * fc
		}})
		for _, al := range []float64{0.4, 0.5, 0.6} {
			for _, g := range []float64{0.3, 1} {
				rs = append(rs, ranker{name: fmt.Sprintf("fuse %s γ%.1f α%.1f", std.name, g, al), rel: func(q *candQuery, st *qStats, c *cand) float64 {
					fc, fb := cfg.LengthFactors(c.Size)
					rc := cfg.CosineRelevance(std.f(q, c)) * fc
					return fuseG(rc, cfg.BM25Relevance(c.BM25*fb), al, g)
				}})
				for _, h := range []float64{4, 12} {
					rs = append(rs, ranker{name: fmt.Sprintf("fuse %s γ%.1f α%.1f maxnorm H%g", std.name, g, al, h), rel: func(q *candQuery, st *qStats, c *cand) float64 {
						fc, fb := cfg.LengthFactors(c.Size)
						rc := cfg.CosineRelevance(std.f(q, c)) * fc
						rb := c.BM25 * fb / math.Max(st.bmMaxSized, h)
						return fuseG(rc, rb, al, g)
					}})
				}
			}
			for _, h := range []float64{4, 12} {
				rs = append(rs, ranker{name: fmt.Sprintf("sum %s w%.1f maxnorm H%g", std.name, al, h), rel: func(q *candQuery, st *qStats, c *cand) float64 {
					fc, fb := cfg.LengthFactors(c.Size)
					rc := cfg.CosineRelevance(std.f(q, c)) * fc
					rb := c.BM25 * fb / math.Max(st.bmMaxSized, h)
					return (1-al)*rc + al*rb
				}})
			}
		}
	}
	for _, w := range []float64{0.3, 0.4, 0.5} {
		for _, h := range []float64{4, 12} {
			rs = append(rs, ranker{name: fmt.Sprintf("sum w%.1f maxnorm H%g", w, h), rel: func(q *candQuery, st *qStats, c *cand) float64 {
				fc, fb := cfg.LengthFactors(c.Size)
				rc := cfg.CosineRelevance(c.Cos) * fc
				rb := c.BM25 * fb / math.Max(st.bmMaxSized, h)
				return (1-w)*rc + w*rb
			}})
		}
	}
	for _, g := range []float64{0.3, 0.6, 1} {
		for _, h := range []float64{4, 12} {
			for _, al := range []float64{0.5, 0.6} {
				rs = append(rs, ranker{name: fmt.Sprintf("fuse γ%.1f α%.1f H%g", g, al, h), rel: func(q *candQuery, st *qStats, c *cand) float64 {
					fc, fb := cfg.LengthFactors(c.Size)
					rc := cfg.CosineRelevance(c.Cos) * fc
					rb := c.BM25 * fb / (c.BM25*fb + h)
					return fuseG(rc, rb, al, g)
				}})
			}
		}
	}
	return rs
}

// fuseG is hippo.Fuse with FuseSecond g.
func fuseG(rc, rb, alpha, g float64) float64 {
	wc, wb := hippo.FuseWeights(alpha)
	c, b := 1-hippo.Pow1m(rc, wc), 1-hippo.Pow1m(rb, wb)
	if c < b {
		c, b = b, c
	}
	return 1 - (1-c)*(1-g*b)
}

func sweepColumns(sets []string) []string {
	var out []string
	for _, s := range sets {
		if s == "own" || s == "longmemeval" {
			out = append(out, s+" tune", "MRR", s+" held", "MRR")
		} else {
			out = append(out, strings.TrimSuffix(s, ".tsv"), "MRR")
		}
	}
	return out
}

// TestSweepCorrections shows, on the tune conversation set, how close each
// correction is to the value it corrects and to the question.
func TestSweepCorrections(t *testing.T) {
	if !*flagSweep {
		t.Skip("runs with -sweep")
	}
	_, emb := newEmbedder(t)
	cs := loadCands(t, conversationSetA, emb.Model())
	for _, q := range cs.Queries {
		if len(q.Outdated) == 0 {
			continue
		}
		vecs := cs.Vecs[q.Agent]
		find := func(item string) *cand {
			for i := range q.Cands {
				if slices.Contains(q.Cands[i].Items, item) {
					return &q.Cands[i]
				}
			}
			return nil
		}
		for _, r := range q.Relevant {
			for _, o := range q.Outdated {
				cr, co := find(r), find(o)
				if cr == nil || co == nil {
					continue
				}
				t.Logf("%q: correction %s cos %.3f bm25 %.1f; outdated %s cos %.3f bm25 %.1f; their cosine %.3f",
					q.Text, r, cr.Cos, cr.BM25, o, co.Cos, co.BM25, cosine(vecs[cr.Seq], vecs[co.Seq]))
			}
		}
	}
}

// TestSweepFloor shows, on the tune conversation set and the own set, the
// best candidate's cosine and z-score (against the question's cosines
// over all the agent's chunks) for off-topic questions, and the answer's
// for questions whose answer is under the relevance floor.
func TestSweepFloor(t *testing.T) {
	if !*flagSweep {
		t.Skip("runs with -sweep")
	}
	_, emb := newEmbedder(t)
	cfg := hippo.DefaultConfig().ForEmbedder(emb)
	for _, set := range []string{conversationSetA, "own"} {
		cs := loadCands(t, set, emb.Model())
		for _, q := range cs.Queries {
			best, bestZ := -1.0, 0.0
			ans, ansZ, ansRank := -1.0, 0.0, 0
			for _, c := range q.Cands {
				z := (c.Cos - q.CosMean) / q.CosSD
				if c.Cos > best {
					best, bestZ = c.Cos, z
				}
				for _, it := range c.Items {
					if slices.Contains(q.Relevant, it) && c.Cos > ans {
						ans, ansZ = c.Cos, z
					}
				}
			}
			for _, c := range q.Cands {
				if c.Cos > ans {
					ansRank++
				}
			}
			rel := cfg.CosineRelevance(ans)
			switch {
			case len(q.Relevant) == 0:
				t.Logf("OFF-TOPIC %q: best cos %.3f z %.2f (mean %.3f sd %.3f)", q.Text, best, bestZ, q.CosMean, q.CosSD)
			case rel < cfg.MinRelevance:
				t.Logf("UNDER FLOOR %q: answer cos %.3f z %.2f rank %d; best cos %.3f z %.2f", q.Text, ans, ansZ, ansRank+1, best, bestZ)
			}
		}
	}
}

// TestSweepGrid searches the fusion's constants on the tune sets (the own
// set's and LongMemEval's tune halves, conversation set A): the best mean
// R@10 (MRR breaking ties), printed with the held-out figures beside.
func TestSweepGrid(t *testing.T) {
	if !*flagSweep {
		t.Skip("runs with -sweep")
	}
	_, emb := newEmbedder(t)
	base := hippo.DefaultConfig().ForEmbedder(emb)
	sets := []string{"own", "longmemeval", "realmem", conversationSetA, conversationSetB}
	data := map[string]candSet{}
	for _, s := range sets {
		data[s] = loadCands(t, s, emb.Model())
	}
	type score struct {
		name       string
		tune       float64
		cols       []string
		tuneR, hoR []float64
	}
	var all []score
	for _, std := range []string{"none", "shift", "z"} {
		for _, g := range []float64{0.3, 0.6, 1} {
			for _, al := range []float64{0.4, 0.5, 0.6, 0.7} {
				for _, h := range []float64{4, 8, 12, 20} {
					for _, ce := range []float64{0.3, 0.5} {
						cfg := base
						cfg.BM25Half, cfg.CosineLengthExponent = h, ce
						r := ranker{rel: func(q *candQuery, st *qStats, c *cand) float64 {
							a, b := 0.0, 1.0
							if std == "z" {
								a, b = cosineShift(0.071, 0.09, q)
							} else if std == "shift" {
								a, b = 0.071-q.CosMean, 1
							}
							fc, fb := cfg.LengthFactors(c.Size)
							return fuseG(cfg.CosineRelevance(a+b*c.Cos)*fc, cfg.BM25Relevance(c.BM25*fb), al, g)
						}}
						sc := score{name: fmt.Sprintf("%s γ%.1f α%.1f H%g cexp%.1f", std, g, al, h, ce)}
						for _, s := range sets {
							var by [2]metrics
							for _, q := range data[s].Queries {
								if len(q.Relevant) > 0 {
									sweepScore(cfg, q, r, &by[q.Half], 0, nil)
								}
							}
							switch s {
							case "own", "longmemeval":
								sc.tuneR = append(sc.tuneR, by[tune].R10())
								sc.hoR = append(sc.hoR, by[heldOut].R10())
								sc.tune += by[tune].R10() + by[tune].MRR()/10
								sc.cols = append(sc.cols, f3(by[tune].R10()), f3(by[heldOut].R10()), f3(by[heldOut].MRR()))
							case conversationSetA:
								m := by[0]
								m.merge(by[1])
								sc.tune += m.R10() + m.MRR()/10
								sc.cols = append(sc.cols, f3(m.R10()), f3(m.MRR()))
							default:
								m := by[0]
								m.merge(by[1])
								sc.cols = append(sc.cols, f3(m.R10()), f3(m.MRR()))
							}
						}
						all = append(all, sc)
					}
				}
			}
		}
	}
	slices.SortFunc(all, func(a, b score) int {
		if a.tune > b.tune {
			return -1
		}
		if a.tune < b.tune {
			return 1
		}
		return 0
	})
	tb := newTable("fusion", "tune objective", "own tune", "own held", "MRR", "LME tune", "LME held", "MRR", "RealMem", "MRR", "conv A", "MRR", "conv B", "MRR")
	for _, sc := range all[:min(25, len(all))] {
		tb.row(append([]string{sc.name, f3(sc.tune)}, sc.cols...)...)
	}
	t.Logf("\nbest on the tune sets (own tune, LME tune, conv A: R@10 + MRR/10 summed); held-out beside\n%s", tb)
}

// cosineShift is the affine map a + b·cosine that reads q's cosines against
// their own distribution over the agent's chunks, placed on a reference
// distribution (mean mu, standard deviation sd): the per-query
// standardisation the sweeps measured (and rejected: no gain on the tune
// sets, a loss on LongMemEval). The question's figures are drawn towards
// the reference by 20 chunks' worth, for memories of a few chunks.
func cosineShift(mu, sd float64, q *candQuery) (a, b float64) {
	n, k := float64(min(q.Chunks, 512)), 20.0
	mean := (n*q.CosMean + k*mu) / (n + k)
	qsd := (n*q.CosSD + k*sd) / (n + k)
	b = sd / qsd
	return mu - b*mean, b
}

// TestSweepFactVoice measures the fact-voice rewrite of questions
// (engine.FactVoice: "where do I live" as "where does User live") on the
// first-contact sets: every fact learned with RememberFacts, then each
// question ranked against the facts by cosine with the question as
// written and in fact voice.
func TestSweepFactVoice(t *testing.T) {
	if !*flagSweep {
		t.Skip("runs with -sweep")
	}
	ctx := context.Background()
	e := newCachedEmbedder(firstContactEmbedder())
	for _, set := range []string{firstContactSet, firstContactSet2, firstContactSet3} {
		facts, questions := loadFirstContact(t, set)
		c, err := newLibClient(ctx, filepath.Join(t.TempDir(), "fv.db"), "fv", e)
		if err != nil {
			t.Fatal(err)
		}
		type stored struct {
			from, text string
			v          []float32
		}
		var all []stored
		for _, f := range facts {
			res, err := c.remember(ctx, f.text)
			if err != nil {
				t.Fatal(err)
			}
			for _, fo := range res.Facts {
				if fo.Action == hippo.ActionDuplicate {
					continue
				}
				v, err := e.Embed(ctx, []string{fo.Content})
				if err != nil {
					t.Fatal(err)
				}
				all = append(all, stored{f.id, fo.Content, v[0]})
			}
		}
		c.close()
		for _, voice := range []bool{false, true} {
			first, top3 := 0, 0
			for _, q := range questions {
				text := q.text
				if voice {
					text = engine.FactVoice(q.text)
				}
				qv, err := e.Embed(ctx, []string{text})
				if err != nil {
					t.Fatal(err)
				}
				best, rank := -2.0, 1
				for _, s := range all {
					if c := cosine(qv[0], s.v); q.relevant[s.from] && c > best {
						best = c
					}
				}
				for _, s := range all {
					if !q.relevant[s.from] && cosine(qv[0], s.v) > best {
						rank++
					}
				}
				if rank == 1 {
					first++
				}
				if rank <= 3 {
					top3++
				}
			}
			t.Logf("%s, fact voice %v: first %d/%d, top 3 %d", set, voice, first, len(questions), top3)
		}
	}
}

// shareWord reports whether a and b hold a word in common.
func shareWord(a, b map[string]bool) bool {
	for w := range a {
		if b[w] {
			return true
		}
	}
	return false
}
