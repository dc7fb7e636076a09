package eval_test

import (
	"cmp"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/engine"
)

// TestSweepFusion compares families of fusion across every set, leaving
// one set out: for each set, each family's constants are chosen on the
// other sets (mean of R@10 + MRR/10, each set counting once) and its
// figures on the set left out are reported. A family that generalises
// keeps its figures when its set is left out; one that fits a set does
// not. Boost off, relevance alone deciding, as TestSweep.
//
//	go test ./eval/ -run SweepFusion -sweep -embedder minilm -v
func TestSweepFusion(t *testing.T) {
	if !*flagSweep {
		t.Skip("runs with -sweep")
	}
	_, emb := newEmbedder(t)
	base := hippo.DefaultConfig().ForEmbedder(emb)
	sets, saved := sweepSets(t, emb.Model())
	// Set F, when its candidates are there, is scored but never chooses:
	// its column is held out from every choice.
	if _, err := os.Stat(cacheFile(emb.Model(), "candidates-"+conversationSetF)); err == nil {
		sets, saved[conversationSetF] = append(sets, conversationSetF), loadCands(t, conversationSetF, emb.Model())
	}
	data := map[string][]*candQuery{}
	for _, s := range sets {
		data[s] = answerable(saved[s].Queries)
		setIDF(s, saved[s])
		setLens(s, saved[s])
	}
	type result struct {
		family, name string
		r10, mrr     []float64 // by set
	}
	var all []result
	for _, f := range fusionFamilies(base) {
		for _, c := range f.configs {
			res := result{family: f.name, name: c.name}
			for _, s := range sets {
				var m metrics
				for _, q := range data[s] {
					rankFused(q, c.score, &m)
				}
				res.r10, res.mrr = append(res.r10, m.R10()), append(res.mrr, m.MRR())
			}
			all = append(all, res)
		}
	}
	objective := func(r result, skip int) float64 {
		sum := 0.0
		for i, s := range sets {
			if i != skip && s != conversationSetF {
				sum += r.r10[i] + r.mrr[i]/10
			}
		}
		return sum
	}
	families := []string{}
	for _, r := range all {
		if !slices.Contains(families, r.family) {
			families = append(families, r.family)
		}
	}
	header := []string{"family (chosen without the set)"}
	for _, s := range sets {
		header = append(header, strings.TrimSuffix(s, ".tsv")+" R@10", "MRR")
	}
	tb := newTable(append(header, "mean R@10")...)
	chosen := newTable("family", "left out", "chosen on the others")
	for _, fam := range families {
		row := []string{fam}
		mean := 0.0
		for i, s := range sets {
			var best *result
			for j := range all {
				if all[j].family == fam && (best == nil || objective(all[j], i) > objective(*best, i)) {
					best = &all[j]
				}
			}
			row = append(row, f3(best.r10[i]), f3(best.mrr[i]))
			mean += best.r10[i] / float64(len(sets))
			chosen.row(fam, s, best.name)
		}
		tb.row(append(row, f3(mean))...)
	}
	t.Logf("\nleave one set out: each family's constants chosen on the other sets, figures on the set left out\n%s", tb)
	t.Logf("\nthe constants each choice took\n%s", chosen)
	// The best of each family over every set, for reference (tuned on
	// everything: not a held-out figure).
	top := newTable(append([]string{"family: best on all sets (not held out)"}, append(header[1:], "mean R@10")...)...)
	for _, fam := range families {
		var best *result
		for j := range all {
			if all[j].family == fam && (best == nil || objective(all[j], -1) > objective(*best, -1)) {
				best = &all[j]
			}
		}
		row := []string{fam + ": " + best.name}
		mean := 0.0
		for i := range sets {
			row = append(row, f3(best.r10[i]), f3(best.mrr[i]))
			mean += best.r10[i] / float64(len(sets))
		}
		top.row(append(row, f3(mean))...)
	}
	t.Logf("\n%s", top)
}

// sweepSets loads the saved candidates of every set that has them.
func sweepSets(t *testing.T, model string) ([]string, map[string]candSet) {
	var names []string
	sets := map[string]candSet{}
	for _, s := range append([]string{"own", "longmemeval", "realmem"}, conversationSets...) {
		if _, err := os.Stat(cacheFile(model, "candidates-"+s)); err != nil {
			t.Logf("%s: no candidates (%v)", s, err)
			continue
		}
		names = append(names, s)
		sets[s] = loadCands(t, s, model)
	}
	return names, sets
}

// answerable are the questions of qs that something stored answers.
func answerable(qs []*candQuery) []*candQuery {
	var out []*candQuery
	for _, q := range qs {
		if len(q.Relevant) > 0 {
			out = append(out, q)
		}
	}
	return out
}

// fusionFamily is a way of fusing the two sides with the constants tried.
type fusionFamily struct {
	name    string
	configs []fusionConfig
}

type fusionConfig struct {
	name string
	// score gives each candidate of q its fused score.
	score func(q *candQuery) []float64
}

// sides are a question's candidates' relevance on each side, length
// discounted as recall discounts them: the cosine's calibrated relevance
// and the raw BM25 score.
func sides(cfg hippo.Config, q *candQuery) (rc, bm []float64) {
	rc, bm = make([]float64, len(q.Cands)), make([]float64, len(q.Cands))
	for i, c := range q.Cands {
		fc, fb := cfg.LengthFactors(c.Size)
		rc[i], bm[i] = cfg.CosineRelevance(c.Cos)*fc, c.BM25*fb
	}
	return rc, bm
}

// pointwise scores each candidate of a question by f of its two sides
// (sides).
func pointwise(cfg hippo.Config, f func(rc, bm float64) float64) func(q *candQuery) []float64 {
	return func(q *candQuery) []float64 {
		rc, bm := sides(cfg, q)
		out := make([]float64, len(rc))
		for i := range rc {
			out[i] = f(rc[i], bm[i])
		}
		return out
	}
}

// perCand scores each candidate of a question by f.
func perCand(f func(c *cand) float64) func(q *candQuery) []float64 {
	return func(q *candQuery) []float64 {
		out := make([]float64, len(q.Cands))
		for i := range q.Cands {
			out[i] = f(&q.Cands[i])
		}
		return out
	}
}

// ranks are 1-based ranks by v, highest first; 0 where v is not positive.
func ranks(v []float64) []float64 {
	idx := make([]int, len(v))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(v[b], v[a]) })
	out := make([]float64, len(v))
	for r, i := range idx {
		if v[i] > 0 {
			out[i] = float64(r + 1)
		}
	}
	return out
}

func fusionFamilies(base hippo.Config) []fusionFamily {
	var fams []fusionFamily
	one := func(name string, score func(q *candQuery) []float64) fusionFamily {
		return fusionFamily{name: name, configs: []fusionConfig{{name: "as is", score: score}}}
	}
	// Every candidate ranked by its cosine, discounted for length or not.
	rawCosine := func(discount bool) func(q *candQuery) []float64 {
		return perCand(func(c *cand) float64 {
			fc := 1.0
			if discount {
				fc, _ = base.LengthFactors(c.Size)
			}
			return 2 + c.Cos*fc
		})
	}
	fams = append(fams,
		one("vector", pointwise(base, func(rc, bm float64) float64 { return rc })),
		one("bm25", pointwise(base, func(rc, bm float64) float64 { return base.BM25Relevance(bm) })),
		one("vector, raw cosine", rawCosine(false)),
		one("vector, raw cosine discounted", rawCosine(true)),
		one("vector, calibrated, no discount", perCand(func(c *cand) float64 { return base.CosineRelevance(c.Cos) })),
		one("default (today)", pointwise(base, func(rc, bm float64) float64 {
			return hippo.Fuse(rc, base.BM25Relevance(bm), base.HybridAlpha)
		})))
	// Today's fusion: the stronger side whole, γ of the weaker.
	var fuse fusionFamily
	fuse.name = "max + γ·min (today's form)"
	for _, g := range []float64{0.3, 0.6, 1} {
		for _, al := range []float64{0.4, 0.5, 0.6, 0.7, 0.8} {
			for _, h := range []float64{2, 4, 8, 12, 20} {
				cfg := base
				cfg.BM25Half = h
				fuse.configs = append(fuse.configs, fusionConfig{name: fmt.Sprintf("γ%.1f α%.1f H%g", g, al, h), score: pointwise(cfg, func(rc, bm float64) float64 {
					return fuseG(rc, cfg.BM25Relevance(bm), al, g)
				})})
			}
		}
	}
	fams = append(fams, fuse)
	// Today's fusion with the cosine read against the question's own
	// cosines over the agent's chunks (cosineShift: shifted, or z-scored,
	// onto a reference distribution) before it is calibrated.
	for _, std := range []string{"shift", "shift down", "z"} {
		f := fusionFamily{name: "max + γ·min, cosine " + std}
		for _, al := range []float64{0.4, 0.5, 0.6, 0.7} {
			for _, h := range []float64{4, 8, 12, 20} {
				cfg := base
				cfg.BM25Half = h
				f.configs = append(f.configs, fusionConfig{name: fmt.Sprintf("α%.1f H%g", al, h), score: func(q *candQuery) []float64 {
					a, b := 0.071-q.CosMean, 1.0
					switch std {
					case "z":
						a, b = cosineShift(0.071, 0.09, q)
					case "shift down":
						a = min(0, a)
					}
					out := make([]float64, len(q.Cands))
					for i, c := range q.Cands {
						fc, fb := cfg.LengthFactors(c.Size)
						out[i] = fuseG(cfg.CosineRelevance(a+b*c.Cos)*fc, cfg.BM25Relevance(c.BM25*fb), al, 0.3)
					}
					return out
				}})
			}
		}
		fams = append(fams, f)
	}
	// Today's fusion with BM25Half grown with the query's words past k:
	// BM25 sums over the query's words, so a long question's scores run
	// higher for the same share of its words matched.
	var perWord fusionFamily
	perWord.name = "today's, BM25Half × max(1, words/k)"
	for _, k := range []float64{2, 3, 4, 6, 8} {
		for _, h := range []float64{8, 12, 20} {
			perWord.configs = append(perWord.configs, fusionConfig{name: fmt.Sprintf("k%g H%g", k, h), score: func(q *candQuery) []float64 {
				cfg := base
				cfg.BM25Half = h * math.Max(1, float64(len(engine.QueryWords(q.Text)))/k)
				rc, bm := sides(cfg, q)
				out := make([]float64, len(rc))
				for i := range rc {
					out[i] = hippo.Fuse(rc[i], cfg.BM25Relevance(bm[i]), cfg.HybridAlpha)
				}
				return out
			}})
		}
	}
	fams = append(fams, perWord)
	// A weighted sum of the two absolute relevances: relevance stays a
	// property of the chunk and the question.
	var sum fusionFamily
	sum.name = "weighted sum (absolute)"
	for _, w := range []float64{0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8} {
		for _, h := range []float64{1, 2, 4, 8, 12, 20} {
			cfg := base
			cfg.BM25Half = h
			sum.configs = append(sum.configs, fusionConfig{name: fmt.Sprintf("w%.1f H%g", w, h), score: pointwise(cfg, func(rc, bm float64) float64 {
				return (1-w)*rc + w*cfg.BM25Relevance(bm)
			})})
		}
	}
	fams = append(fams, sum)
	// The same sums with the cosine read linearly from the unrelated level
	// to 1, so that close matches above the strong level still differ as
	// much as weaker ones do, and today's fusion with that cosine.
	linear := func(c *cand) float64 {
		fc, _ := base.LengthFactors(c.Size)
		return max(0, (c.Cos-base.CosineUnrelated)/(1-base.CosineUnrelated)) * fc
	}
	var sumLin, fuseLin fusionFamily
	sumLin.name = "weighted sum, linear cosine"
	fuseLin.name = "max + γ·min, linear cosine"
	for _, w := range []float64{0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8} {
		for _, h := range []float64{2, 4, 8, 12, 20} {
			cfg := base
			cfg.BM25Half = h
			sumLin.configs = append(sumLin.configs, fusionConfig{name: fmt.Sprintf("w%.1f H%g", w, h), score: func(q *candQuery) []float64 {
				out := make([]float64, len(q.Cands))
				for i := range q.Cands {
					c := &q.Cands[i]
					_, fb := cfg.LengthFactors(c.Size)
					out[i] = (1-w)*linear(c) + w*cfg.BM25Relevance(c.BM25*fb)
				}
				return out
			}})
			fuseLin.configs = append(fuseLin.configs, fusionConfig{name: fmt.Sprintf("α%.1f H%g", w, h), score: func(q *candQuery) []float64 {
				out := make([]float64, len(q.Cands))
				for i := range q.Cands {
					c := &q.Cands[i]
					_, fb := cfg.LengthFactors(c.Size)
					out[i] = hippo.Fuse(linear(c), cfg.BM25Relevance(c.BM25*fb), w)
				}
				return out
			}})
		}
	}
	fams = append(fams, sumLin, fuseLin)
	// Reciprocal-rank fusion: w/(k + rank by BM25) + (1−w)/(k + rank by
	// cosine).
	var rrf fusionFamily
	rrf.name = "reciprocal rank"
	for _, w := range []float64{0.3, 0.4, 0.5, 0.6, 0.7} {
		for _, k := range []float64{1, 5, 10, 20, 60} {
			rrf.configs = append(rrf.configs, fusionConfig{name: fmt.Sprintf("w%.1f k%g", w, k), score: func(q *candQuery) []float64 {
				rc, bm := sides(base, q)
				rkc, rkb := ranks(rc), ranks(bm)
				out := make([]float64, len(rc))
				for i := range rc {
					if rkc[i] > 0 {
						out[i] += (1 - w) / (k + rkc[i])
					}
					if rkb[i] > 0 {
						out[i] += w / (k + rkb[i])
					}
				}
				return out
			}})
		}
	}
	fams = append(fams, rrf)
	// Per-question min-max: each side placed on [0, 1] between its worst
	// and best candidate, then summed (the common "score fusion").
	var mm fusionFamily
	mm.name = "min-max sum (per question)"
	for _, w := range []float64{0.3, 0.4, 0.5, 0.6, 0.7} {
		mm.configs = append(mm.configs, fusionConfig{name: fmt.Sprintf("w%.1f", w), score: func(q *candQuery) []float64 {
			rc, bm := sides(base, q)
			nc, nb := minMax(rc), minMax(bm)
			out := make([]float64, len(rc))
			for i := range rc {
				out[i] = (1-w)*nc[i] + w*nb[i]
			}
			return out
		}})
	}
	fams = append(fams, mm)
	// Per-question standardisation: the cosine as a z-score against the
	// question's cosines over all the agent's chunks, BM25 over its best.
	var z fusionFamily
	z.name = "z-score cosine + BM25/best (per question)"
	for _, w := range []float64{0.3, 0.4, 0.5, 0.6, 0.7} {
		for _, s := range []float64{3, 5, 8} {
			z.configs = append(z.configs, fusionConfig{name: fmt.Sprintf("w%.1f z/%g", w, s), score: func(q *candQuery) []float64 {
				_, bm := sides(base, q)
				best := slices.Max(bm)
				out := make([]float64, len(bm))
				for i, c := range q.Cands {
					zc := (c.Cos - q.CosMean) / math.Max(q.CosSD, 1e-6) / s
					rb := 0.0
					if best > 0 {
						rb = bm[i] / best
					}
					out[i] = 10 + (1-w)*zc + w*rb // kept positive: rankFused drops scores ≤ 0
				}
				return out
			}})
		}
	}
	fams = append(fams, z)
	// BM25 as a share of what the question's words could score: the sum
	// of their IDFs (a chunk holding each once, at average length, scores
	// it), so that a long question or a large corpus does not read as a
	// strong match. Relevance x/(x+h) of that share x.
	var share fusionFamily
	share.name = "today's, BM25 as a share of the question's IDF"
	for _, al := range []float64{0.4, 0.5, 0.6, 0.7, 0.8} {
		for _, h := range []float64{0.15, 0.25, 0.4, 0.6, 1} {
			share.configs = append(share.configs, fusionConfig{name: fmt.Sprintf("α%.1f h%g", al, h), score: func(q *candQuery) []float64 {
				mass := idfMass(q)
				rc, bm := sides(base, q)
				out := make([]float64, len(rc))
				for i := range rc {
					rb := 0.0
					if mass > 0 && bm[i] > 0 {
						x := bm[i] / mass
						rb = x / (x + h)
					}
					out[i] = hippo.Fuse(rc[i], rb, al)
				}
				return out
			}})
		}
	}
	fams = append(fams, share)
	// Both sides read against the question: the cosine shifted by the
	// question's mean cosine over the agent (as "cosine shift"), BM25 as a
	// share of its IDF.
	var both fusionFamily
	both.name = "cosine shift, BM25 share of IDF"
	for _, al := range []float64{0.4, 0.5, 0.6, 0.7} {
		for _, h := range []float64{0.15, 0.25, 0.4, 0.6} {
			both.configs = append(both.configs, fusionConfig{name: fmt.Sprintf("α%.1f h%g", al, h), score: func(q *candQuery) []float64 {
				mass := idfMass(q)
				a := 0.071 - q.CosMean
				out := make([]float64, len(q.Cands))
				for i, c := range q.Cands {
					fc, fb := base.LengthFactors(c.Size)
					rb := 0.0
					if mass > 0 && c.BM25 > 0 {
						x := c.BM25 * fb / mass
						rb = x / (x + h)
					}
					out[i] = hippo.Fuse(base.CosineRelevance(a+c.Cos)*fc, rb, al)
				}
				return out
			}})
		}
	}
	fams = append(fams, both)
	fams = append(fams, sizeFamilies(base)...)
	return fams
}

// sizeFamilies are today's fusion with BM25's weight set by the size of
// the agent's memory when the question is asked: its row count N or its
// rows' mean length L in bytes (agentLen).
func sizeFamilies(base hippo.Config) []fusionFamily {
	idfMax := func(n float64) float64 { return math.Log((n - 0.5) / 1.5) }
	fused := func(alpha func(q *candQuery) float64, scale func(q *candQuery) float64) func(q *candQuery) []float64 {
		return func(q *candQuery) []float64 {
			al, k := alpha(q), scale(q)
			out := make([]float64, len(q.Cands))
			for i, c := range q.Cands {
				fc, fb := base.LengthFactors(c.Size)
				out[i] = hippo.Fuse(base.CosineRelevance(c.Cos)*fc, base.BM25Relevance(c.BM25*fb*k), al)
			}
			return out
		}
	}
	fixed := func(q *candQuery) float64 { return base.HybridAlpha }
	unscaled := func(q *candQuery) float64 { return 1 }
	scaled := fusionFamily{name: "BM25 × (IDFmax(N)/IDFmax(N0))^P"}
	for _, n0 := range []float64{30, 100, 300, 1000} {
		for _, p := range []float64{-0.5, 0.5, 1, 1.5} {
			scaled.configs = append(scaled.configs, fusionConfig{name: fmt.Sprintf("N0 %g P %g", n0, p), score: fused(fixed, func(q *candQuery) float64 {
				return math.Pow(idfMax(max(float64(q.Chunks), 3))/idfMax(n0), p)
			})})
		}
	}
	clamp := func(a float64) float64 { return min(0.9, max(0.1, a)) }
	byN := fusionFamily{name: "α = α0 + k·ln(N/300)"}
	byL := fusionFamily{name: "α = α0 + k·ln(L/100)"}
	for _, a0 := range []float64{0.3, 0.4, 0.5, 0.6, 0.7} {
		for _, k := range []float64{-0.1, -0.05, 0.025, 0.05, 0.075, 0.1, 0.15} {
			byN.configs = append(byN.configs, fusionConfig{name: fmt.Sprintf("α0 %.1f k %g", a0, k), score: fused(func(q *candQuery) float64 {
				return clamp(a0 + k*math.Log(max(float64(q.Chunks), 1)/300))
			}, unscaled)})
			byL.configs = append(byL.configs, fusionConfig{name: fmt.Sprintf("α0 %.1f k %g", a0, k), score: fused(func(q *candQuery) float64 {
				return clamp(a0 + k*math.Log(agentLen(q)/100))
			}, unscaled)})
		}
	}
	return []fusionFamily{scaled, byN, byL}
}

// agentLens are each set's agents' chunk lengths in bytes, summed in the
// order stored (setLens).
var agentLens = map[string]map[string][]float64{}

// setLens sums set's chunk lengths once (agentLens).
func setLens(set string, cs candSet) {
	if _, ok := agentLens[set]; ok {
		return
	}
	m := map[string][]float64{}
	for agent, texts := range cs.Texts {
		sum := make([]float64, len(texts)+1)
		for i, x := range texts {
			sum[i+1] = sum[i] + float64(len(x))
		}
		m[agent] = sum
	}
	agentLens[set] = m
}

// agentLen is the mean length in bytes of the chunks q's agent held when
// q was asked.
func agentLen(q *candQuery) float64 {
	sum := agentLens[q.Set][q.Agent]
	n := min(q.Chunks, len(sum)-1)
	if n <= 0 {
		return 100
	}
	return sum[n] / float64(n)
}

// setDF are each set's document frequencies of words (engine.QueryWords'
// reading, without FTS5's stemming) over all its agents' chunks, as the
// full-text index counts them, and its number of chunks.
var setDF = map[string]struct {
	df map[string]int
	n  int
}{}

// setIDF counts set's document frequencies once (setDF).
func setIDF(set string, cs candSet) {
	if _, ok := setDF[set]; ok {
		return
	}
	df, n := map[string]int{}, 0
	for _, texts := range cs.Texts {
		for _, x := range texts {
			n++
			seen := map[string]bool{}
			for _, w := range strings.FieldsFunc(strings.ToLower(x), func(r rune) bool {
				return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_'
			}) {
				if !seen[w] {
					seen[w] = true
					df[w]++
				}
			}
		}
	}
	setDF[set] = struct {
		df map[string]int
		n  int
	}{df, n}
}

// idfMass is the sum of FTS5's IDF over q's query words found in its set.
func idfMass(q *candQuery) float64 {
	st := setDF[q.Set]
	if q.Set == "" {
		return 0
	}
	sum := 0.0
	for _, w := range engine.QueryWords(q.Text) {
		n := float64(st.df[w])
		if n == 0 {
			continue
		}
		sum += max(1e-6, math.Log((float64(st.n)-n+0.5)/(n+0.5)))
	}
	return sum
}

// minMax places v on [0, 1] between its least and greatest value.
func minMax(v []float64) []float64 {
	out := make([]float64, len(v))
	if len(v) == 0 {
		return out
	}
	lo, hi := slices.Min(v), slices.Max(v)
	if hi <= lo {
		return out
	}
	for i, x := range v {
		out[i] = (x - lo) / (hi - lo)
	}
	return out
}

// rankFused ranks q's candidates by score (ties by Seq, newer first) and
// scores the top 10 into m. Candidates scoring 0 or less are left out,
// and up to hippo.DefaultWeakResults of the closest of the rest by cosine
// follow, as recall's weak results do.
func rankFused(q *candQuery, score func(q *candQuery) []float64, m *metrics) {
	s := score(q)
	idx := make([]int, 0, len(s))
	var rest []int
	for i := range s {
		if s[i] > 0 {
			idx = append(idx, i)
		} else {
			rest = append(rest, i)
		}
	}
	slices.SortFunc(idx, func(a, b int) int {
		if c := cmp.Compare(s[b], s[a]); c != 0 {
			return c
		}
		return q.Cands[b].Seq - q.Cands[a].Seq
	})
	if n := min(hippo.DefaultWeakResults, 10-len(idx)); n > 0 {
		slices.SortFunc(rest, func(a, b int) int { return cmp.Compare(q.Cands[b].Cos, q.Cands[a].Cos) })
		idx = append(idx, rest[:min(n, len(rest))]...)
	}
	var ranked [][]string
	for _, i := range idx[:min(10, len(idx))] {
		ranked = append(ranked, q.Cands[i].Items)
	}
	relevant := map[string]bool{}
	for _, id := range q.Relevant {
		relevant[id] = true
	}
	m.add(ranked, relevant)
}

// TestSweepFusionConfigs prints every configuration of every family on
// every set (not held out): how flat each family is around its choice.
//
//	go test ./eval/ -run SweepFusionConfigs -sweep -embedder minilm -v
func TestSweepFusionConfigs(t *testing.T) {
	if !*flagSweep {
		t.Skip("runs with -sweep")
	}
	_, emb := newEmbedder(t)
	base := hippo.DefaultConfig().ForEmbedder(emb)
	sets, saved := sweepSets(t, emb.Model())
	data := map[string][]*candQuery{}
	for _, s := range sets {
		setIDF(s, saved[s])
		setLens(s, saved[s])
		for _, q := range answerable(saved[s].Queries) {
			data[s] = append(data[s], q)
			if short := shortEvidence(q); short != "" {
				data[s+short] = append(data[s+short], q)
			}
		}
	}
	for _, s := range slices.Clone(sets) {
		for _, short := range []string{" short", " long"} {
			if len(data[s+short]) > 0 {
				sets = append(sets, s+short)
			}
		}
	}
	header := []string{"family", "constants"}
	for _, s := range sets {
		header = append(header, strings.TrimSuffix(s, ".tsv")+" R@10", "MRR")
	}
	tb := newTable(header...)
	for _, f := range fusionFamilies(base) {
		for _, c := range f.configs {
			row := []string{f.name, c.name}
			for _, s := range sets {
				var m metrics
				for _, q := range data[s] {
					rankFused(q, c.score, &m)
				}
				row = append(row, f3(m.R10()), f3(m.MRR()))
			}
			tb.row(row...)
		}
	}
	t.Logf("\n%s", tb)
}

// shortEvidence is " short" when every relevant candidate of q is at most
// the length pivot (no length discount), " long" when every one is over
// it, else "".
func shortEvidence(q *candQuery) string {
	short, long := 0, 0
	for _, c := range q.Cands {
		for _, it := range c.Items {
			if slices.Contains(q.Relevant, it) {
				if c.Size <= hippo.DefaultLengthPivot {
					short++
				} else {
					long++
				}
			}
		}
	}
	switch {
	case short > 0 && long == 0:
		return " short"
	case long > 0 && short == 0:
		return " long"
	}
	return ""
}

// TestSweepNewer measures a newer-wins re-ranking on top of today's
// fusion on every set: among the first results, a newer candidate close
// to an older one above it (cosine of the two at least τ, relevance at
// least ρ of the older's) moves just above it, so that a correction
// outranks the value it corrects. Reported per set: R@10, MRR, and how
// many questions about a corrected value still rank the outdated one
// above its correction.
//
//	go test ./eval/ -run SweepNewer -sweep -embedder minilm -v
func TestSweepNewer(t *testing.T) {
	if !*flagSweep {
		t.Skip("runs with -sweep")
	}
	_, emb := newEmbedder(t)
	cfg := hippo.DefaultConfig().ForEmbedder(emb)
	sets, data := sweepSets(t, emb.Model())
	header := []string{"newer wins"}
	for _, s := range sets {
		header = append(header, strings.TrimSuffix(s, ".tsv")+" R@10", "MRR", "stale")
	}
	tb := newTable(header...)
	type setting struct {
		tau, rho float64
		window   int
	}
	settings := []setting{{2, 0, 0}}
	for _, w := range []int{10, 30} {
		for _, tau := range []float64{0.3, 0.4, 0.5, 0.6, 0.7, 0.8} {
			for _, rho := range []float64{0.5, 0.6, 0.7, 0.8, 0.9} {
				settings = append(settings, setting{tau, rho, w})
			}
		}
	}
	for _, st := range settings {
		name := "none"
		if st.tau <= 1 {
			name = fmt.Sprintf("w%d τ%.1f ρ%.1f", st.window, st.tau, st.rho)
		}
		row := []string{name}
		for _, s := range sets {
			var m metrics
			stale := 0
			for _, q := range answerable(data[s].Queries) {
				nw := &newerWins{tau: st.tau, rho: st.rho, window: st.window, vecs: data[s].Vecs[q.Agent]}
				ranked := rankNewer(cfg, q, nw, func(rel float64) bool { return rel > 0 }, false)
				relevant := map[string]bool{}
				for _, id := range q.Relevant {
					relevant[id] = true
				}
				m.add(ranked, relevant)
				if len(q.Outdated) > 0 && outdatedFirst(ranked, q) {
					stale++
				}
			}
			row = append(row, f3(m.R10()), f3(m.MRR()), fmt.Sprint(stale))
		}
		tb.row(row...)
	}
	t.Logf("\nboost off, today's fusion, weak results as recall gives them\n%s", tb)
}

// TestSweepChange measures newer-first ranking gated on a cue of change
// (engine.StatesChange): among the first 10 results, a chunk that says
// something changed moves just above an older one on the same topic
// (their cosine's relevance at least τ) when its relevance is at least ρ of the
// older's; ρ 0 lets a weak result move too. R@10 cannot move, only the
// order: MRR, the right memory first, and the questions whose outdated
// value ranks above its correction.
//
//	go test ./eval/ -run SweepChange -sweep -embedder minilm -v
func TestSweepChange(t *testing.T) {
	if !*flagSweep {
		t.Skip("runs with -sweep")
	}
	_, emb := newEmbedder(t)
	cfg := hippo.DefaultConfig().ForEmbedder(emb)
	sets, data := sweepSets(t, emb.Model())
	// Chosen on the tune sets (the own set's and LongMemEval's tune
	// halves, the tune half of RealMem's personas, set A); the held-out
	// ones (and halves) are shown once chosen, with HIPPO_SWEEP_HELDOUT=1.
	heldOutShown := os.Getenv("HIPPO_SWEEP_HELDOUT") != ""
	sets = slices.DeleteFunc(sets, func(s string) bool {
		return !heldOutShown && (s == conversationSetB || s == conversationSetC)
	})
	for _, s := range []string{conversationSetD, conversationSetE} {
		if _, err := os.Stat(cacheFile(emb.Model(), "candidates-"+s)); err == nil && heldOutShown {
			sets, data[s] = append(sets, s), loadCands(t, s, emb.Model())
		}
	}
	cues := map[string]map[string][]bool{}
	words := map[string]map[string][]map[string]bool{}
	header := []string{"newer first"}
	for _, s := range sets {
		header = append(header, strings.TrimSuffix(s, ".tsv")+" MRR", "first", "stale")
		cues[s] = map[string][]bool{}
		words[s] = map[string][]map[string]bool{}
		cued, all := 0, 0
		for agent, texts := range data[s].Texts {
			c := make([]bool, len(texts))
			for i, x := range texts {
				if c[i] = engine.StatesChange(x); c[i] {
					cued++
				}
			}
			cues[s][agent], all = c, all+len(texts)
			words[s][agent] = rareWordSets(texts, linkRows)
		}
		t.Logf("%s: %d of %d chunks say something changed", s, cued, all)
	}
	tb := newTable(header...)
	type setting struct {
		tau, rho float64
		cue      bool
		size     int
		link     float64 // NewerLink; 0 for none
	}
	settings := []setting{{tau: 2}}
	for _, size := range []int{cfg.LengthPivot, 0} {
		for _, cue := range []bool{true, false} {
			for _, tau := range []float64{0.1, 0.2, 0.3, 0.45, 0.6} {
				for _, rho := range []float64{0, 0.2, 0.3, 0.5, 0.7} {
					settings = append(settings, setting{tau, rho, cue, size, 0})
				}
			}
		}
	}
	// A rare word shared under the topic bar (Config.NewerLink).
	for _, link := range []float64{0.1, 0.2, 0.3, 0.45} {
		for _, rho := range []float64{0.1, 0.2, 0.3} {
			settings = append(settings, setting{0.6, rho, true, cfg.LengthPivot, link})
		}
	}
	for _, st := range settings {
		name := "none"
		if st.tau <= 1 {
			name = fmt.Sprintf("τ%.1f ρ%.1f", st.tau, st.rho)
			if st.cue {
				name += " cue"
			}
			if st.size > 0 {
				name += fmt.Sprintf(" ≤%dB", st.size)
			}
			if st.link > 0 {
				name += fmt.Sprintf(" link %.2f", st.link)
			}
		}
		row := []string{name}
		for _, s := range sets {
			var m metrics
			stale, first := 0, 0
			for _, q := range answerable(data[s].Queries) {
				if (s == "own" || s == "longmemeval") && (half(q.Half) == tune) == heldOutShown {
					continue // the half this run is not about
				}
				if s == "realmem" && (splitOf(q.Agent) == tune) == heldOutShown {
					continue // RealMem's personas split as the halves are
				}
				nw := &newerWins{tau: st.tau, rho: st.rho, window: 10, vecs: data[s].Vecs[q.Agent], topic: &cfg, floor: cfg.MinRelevance, maxSize: st.size}
				if st.cue {
					nw.cues = cues[s][q.Agent]
				}
				if st.link > 0 {
					nw.words, nw.linkTau = words[s][q.Agent], st.link
				}
				ranked := rankNewer(cfg, q, nw, func(rel float64) bool { return rel >= cfg.MinRelevance }, true)
				relevant := map[string]bool{}
				for _, id := range q.Relevant {
					relevant[id] = true
				}
				m.add(ranked, relevant)
				if len(ranked) > 0 && slices.ContainsFunc(ranked[0], func(it string) bool { return relevant[it] }) {
					first++
				}
				if len(q.Outdated) > 0 && outdatedFirst(ranked, q) {
					stale++
				}
			}
			row = append(row, f3(m.MRR()), fmt.Sprint(first), fmt.Sprint(stale))
		}
		tb.row(row...)
	}
	t.Logf("\nboost off, today's fusion, weak results as recall gives them, newer first among all 10\n%s", tb)
}

// linkRows is engine's: how many chunks may hold a word that links two
// memories.
const linkRows = 2

// rareWordSets are each text's words (engine.LinkWords) that at most
// maxRows of texts hold.
func rareWordSets(texts []string, maxRows int) []map[string]bool {
	sets := make([]map[string]bool, len(texts))
	rows := map[string]int{}
	for i, x := range texts {
		sets[i] = map[string]bool{}
		for _, w := range engine.LinkWords(x) {
			sets[i][w] = true
			rows[w]++
		}
	}
	for _, set := range sets {
		for w := range set {
			if rows[w] > maxRows {
				delete(set, w)
			}
		}
	}
	return sets
}

// rankNewer ranks q's candidates by today's fusion, those that pass
// first, then up to hippo.DefaultWeakResults of the rest by cosine (the
// weak results), 10 in all, and re-ranks with nw: those that passed, or
// with weakToo all 10.
func rankNewer(cfg hippo.Config, q *candQuery, nw *newerWins, passes func(rel float64) bool, weakToo bool) [][]string {
	var list, rest []scoredCand
	for i := range q.Cands {
		c := &q.Cands[i]
		rel := cfg.SizedRelevance(c.Cos, c.BM25, c.Size, cfg.HybridAlpha)
		if passes(rel) {
			list = append(list, scoredCand{c, rel})
		} else {
			rest = append(rest, scoredCand{c, rel})
		}
	}
	slices.SortFunc(list, func(a, b scoredCand) int { return cmp.Or(cmp.Compare(b.rel, a.rel), b.c.Seq-a.c.Seq) })
	slices.SortFunc(rest, func(a, b scoredCand) int { return cmp.Or(cmp.Compare(b.c.Cos, a.c.Cos), b.c.Seq-a.c.Seq) })
	if nw.tau <= 1 && !weakToo {
		nw.apply(list)
	}
	list = append(list[:min(10, len(list))], rest[:min(hippo.DefaultWeakResults, 10-min(10, len(list)), len(rest))]...)
	if nw.tau <= 1 && weakToo {
		nw.apply(list)
	}
	var ranked [][]string
	for _, s := range list {
		ranked = append(ranked, s.c.Items)
	}
	return ranked
}

// outdatedFirst reports whether an outdated item of q ranks above every
// relevant one (or comes back while none does).
func outdatedFirst(ranked [][]string, q *candQuery) bool {
	for _, items := range ranked {
		for _, it := range items {
			if slices.Contains(q.Relevant, it) {
				return false
			}
			if slices.Contains(q.Outdated, it) {
				return true
			}
		}
	}
	return false
}

// TestSweepContext measures giving a chunk part of the relevance of its
// neighbours in the order stored (the message before it, after it, or
// both; as the larger of its own and λ of theirs, or added): a follow-up
// ("He has hay fever") would be found through the message that named its
// subject. Today's fusion, boost off; R@10, MRR and how many questions
// have the right memory first.
//
//	go test ./eval/ -run SweepContext -sweep -embedder minilm -v
func TestSweepContext(t *testing.T) {
	if !*flagSweep {
		t.Skip("runs with -sweep")
	}
	_, emb := newEmbedder(t)
	cfg := hippo.DefaultConfig().ForEmbedder(emb)
	sets, data := sweepSets(t, emb.Model())
	if _, err := os.Stat(cacheFile(emb.Model(), "candidates-"+conversationSetF)); err == nil {
		sets, data[conversationSetF] = append(sets, conversationSetF), loadCands(t, conversationSetF, emb.Model())
	}
	type variant struct {
		name     string
		fwd, bwd float64
		add      bool
		short    int // when set, only between chunks of at most short bytes
	}
	vs := []variant{{name: "none"}}
	for _, l := range []float64{0.3, 0.5, 0.7, 0.85} {
		vs = append(vs, variant{fmt.Sprintf("before, max %.2f", l), l, 0, false, 0},
			variant{fmt.Sprintf("after, max %.2f", l), 0, l, false, 0},
			variant{fmt.Sprintf("both, max %.2f", l), l, l, false, 0})
	}
	for _, l := range []float64{0.1, 0.2, 0.3, 0.5} {
		vs = append(vs, variant{fmt.Sprintf("before, add %.2f", l), l, 0, true, 0},
			variant{fmt.Sprintf("after, add %.2f", l), 0, l, true, 0},
			variant{fmt.Sprintf("both, add %.2f", l), l, l, true, 0})
	}
	for _, short := range []int{200, 400} {
		for _, l := range []float64{0.1, 0.2, 0.3} {
			vs = append(vs, variant{fmt.Sprintf("before, add %.2f, ≤%dB", l, short), l, 0, true, short},
				variant{fmt.Sprintf("after, add %.2f, ≤%dB", l, short), 0, l, true, short},
				variant{fmt.Sprintf("both, add %.2f, ≤%dB", l, short), l, l, true, short})
		}
		for _, l := range []float64{0.5, 0.7} {
			vs = append(vs, variant{fmt.Sprintf("before, max %.2f, ≤%dB", l, short), l, 0, false, short},
				variant{fmt.Sprintf("both, max %.2f, ≤%dB", l, short), l, l, false, short})
		}
	}
	header := []string{"context"}
	for _, s := range sets {
		header = append(header, strings.TrimSuffix(s, ".tsv")+" R@10", "MRR", "first")
	}
	tb := newTable(header...)
	for _, v := range vs {
		score := func(q *candQuery) []float64 {
			own := make([]float64, len(q.Cands))
			bySeq := map[int]float64{} // a neighbour outside the candidates counts 0
			texts := data[q.Set].Texts[q.Agent]
			for i, c := range q.Cands {
				if r := cfg.SizedRelevance(c.Cos, c.BM25, c.Size, cfg.HybridAlpha); r > cfg.MinRelevance {
					own[i] = r
				}
				if v.short == 0 || c.Size <= v.short {
					bySeq[c.Seq] = own[i]
				}
			}
			out := make([]float64, len(own))
			for i, c := range q.Cands {
				before, after := bySeq[c.Seq-1], bySeq[c.Seq+1]
				if v.short > 0 && (c.Size > v.short || c.Seq > 0 && len(texts[c.Seq-1]) > v.short) {
					before = 0
				}
				if v.short > 0 && (c.Size > v.short || c.Seq+1 < len(texts) && len(texts[c.Seq+1]) > v.short) {
					after = 0
				}
				if v.add {
					out[i] = min(1, own[i]+v.fwd*before+v.bwd*after)
				} else {
					out[i] = max(own[i], v.fwd*before, v.bwd*after)
				}
			}
			return out
		}
		row := []string{v.name}
		for _, s := range sets {
			var m metrics
			first := 0
			for _, q := range answerable(data[s].Queries) {
				var one metrics
				rankFused(q, score, &m)
				if rankFused(q, score, &one); one.MRR() == 1 {
					first++
				}
			}
			row = append(row, f3(m.R10()), f3(m.MRR()), fmt.Sprint(first))
		}
		tb.row(row...)
	}
	t.Logf("\n%s", tb)
}
