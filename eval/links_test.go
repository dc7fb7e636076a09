package eval_test

import (
	"cmp"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/engine"
)

// TestSweepUpdateLinks measures a link recorded when a memory is stored:
// a memory that says something changed (engine.StatesChange, no longer
// than LengthPivot) names the older memory it most likely updates, the
// closest by cosine, when that one is on its topic. At recall, a result
// with a newer memory linked to it gets that memory just above it, read
// in from beyond the results if it was not among them. Newer first as
// today runs before it. Boost off, candidates; right memory first, MRR,
// R@10, and the questions whose outdated value ranks above its correction.
//
//	go test ./eval/ -run SweepUpdateLinks -sweep -embedder minilm -v
func TestSweepUpdateLinks(t *testing.T) {
	if !*flagSweep {
		t.Skip("runs with -sweep")
	}
	_, emb := newEmbedder(t)
	cfg := hippo.DefaultConfig().ForEmbedder(emb)
	sets, data, heldOutShown := shownSets(t, emb.Model())
	type linkSetting struct {
		tau  float64 // relevance of the two memories' cosine
		word float64 // with a rare word shared (at the time of storing), this relevance is enough; 0 for none
		top  int     // only results in the first top places draw their updates in
	}
	settings := []linkSetting{{tau: 2}}
	for _, tau := range []float64{0.3, 0.45, 0.6} {
		for _, word := range []float64{0, 0.2} {
			for _, top := range []int{1, 3, 10} {
				settings = append(settings, linkSetting{tau, word, top})
			}
		}
	}
	header := []string{"link"}
	for _, s := range sets {
		header = append(header, strings.TrimSuffix(s, ".tsv")+" first", "MRR", "R@10", "stale")
	}
	tb := newTable(header...)
	// What each set's agents are: cues, words shared at the time of
	// storing, and the items each chunk stands for.
	type agentData struct {
		cues  []bool
		words []map[string]bool // LinkWords held by at most linkRows chunks stored so far
		items [][]string
	}
	agents := map[string]map[string]*agentData{}
	for _, s := range sets {
		agents[s] = map[string]*agentData{}
		for agent, texts := range data[s].Texts {
			ad := &agentData{cues: make([]bool, len(texts)), words: make([]map[string]bool, len(texts)), items: make([][]string, len(texts))}
			rows := map[string]int{}
			for i, x := range texts {
				ad.cues[i] = engine.StatesChange(x) && (cfg.LengthPivot <= 0 || len(x) <= cfg.LengthPivot)
				for _, w := range engine.LinkWords(x) {
					rows[w]++
				}
				ad.words[i] = map[string]bool{}
				for _, w := range engine.LinkWords(x) {
					if rows[w] <= linkRows {
						ad.words[i][w] = true
					}
				}
			}
			agents[s][agent] = ad
		}
		for _, q := range data[s].Queries {
			for _, c := range q.Cands {
				agents[s][q.Agent].items[c.Seq] = c.Items
			}
		}
	}
	for _, st := range settings {
		name := "none (today)"
		if st.tau <= 1 {
			name = fmt.Sprintf("τ%.2f", st.tau)
			if st.word > 0 {
				name += fmt.Sprintf(" word %.2f", st.word)
			}
			name += fmt.Sprintf(" top %d", st.top)
		}
		row := []string{name}
		for _, s := range sets {
			// updatedBy[agent][o] is the newest memory linked to o.
			updatedBy := map[string]map[int]int{}
			if st.tau <= 1 {
				for agent, ad := range agents[s] {
					vecs := data[s].Vecs[agent]
					ub := map[int]int{}
					for n := range ad.cues {
						if !ad.cues[n] {
							continue
						}
						best, bestCos := -1, -2.0
						for o := range n {
							if c := cosine(vecs[n], vecs[o]); c > bestCos {
								best, bestCos = o, c
							}
						}
						if best < 0 {
							continue
						}
						r := cfg.CosineRelevance(bestCos)
						if r >= st.tau || st.word > 0 && r >= st.word && shareWord(ad.words[n], ad.words[best]) {
							ub[best] = n // n grows: the newest wins
						}
					}
					updatedBy[agent] = ub
				}
			}
			var m metrics
			stale, first := 0, 0
			for _, q := range answerable(data[s].Queries) {
				if (s == "own" || s == "longmemeval") && (half(q.Half) == tune) == heldOutShown {
					continue
				}
				if s == "realmem" && (splitOf(q.Agent) == tune) == heldOutShown {
					continue
				}
				ad := agents[s][q.Agent]
				nw := &newerWins{tau: cfg.NewerTopic, rho: cfg.NewerRelevance, window: 10, vecs: data[s].Vecs[q.Agent], topic: &cfg,
					floor: cfg.MinRelevance, maxSize: cfg.LengthPivot, cues: ad.cues, words: ad.words, linkTau: cfg.NewerLink}
				list := rankNewerList(cfg, q, nw)
				seqs := make([]int, len(list))
				for i, sc := range list {
					seqs[i] = sc.c.Seq
				}
				if ub := updatedBy[q.Agent]; ub != nil {
					seqs = readInUpdates(seqs, ub, st.top)
				}
				var ranked [][]string
				for _, seq := range seqs[:min(10, len(seqs))] {
					ranked = append(ranked, ad.items[seq])
				}
				relevant := map[string]bool{}
				for _, id := range q.Relevant {
					relevant[id] = true
				}
				m.add(ranked, relevant)
				if len(ranked) > 0 && slices.ContainsFunc(ranked[0], func(it string) bool { return relevant[it] }) {
					first++
				}
				if os.Getenv("HIPPO_LINKS_SHOW") == name && len(ranked) > 0 && len(list) > 0 && list[0].c.Seq != seqs[0] {
					t.Logf("%s %q: first %q → %q", s, q.Text, data[s].Texts[q.Agent][list[0].c.Seq], data[s].Texts[q.Agent][seqs[0]])
				}
				if len(q.Outdated) > 0 && outdatedFirst(ranked, q) {
					stale++
				}
			}
			row = append(row, fmt.Sprint(first), f3(m.MRR()), f3(m.R10()), fmt.Sprint(stale))
		}
		tb.row(row...)
	}
	t.Logf("\nboost off, today's recall, then updates linked at store time read in above what they update\n%s", tb)
}

// readInUpdates puts above each of the first top results the newest
// memory linked to it (updatedBy), moved up from below or read in from
// beyond the results, unless it already ranks above; at most 10 results.
func readInUpdates(seqs []int, updatedBy map[int]int, top int) []int {
	out := slices.Clone(seqs)
	for p := 0; p < len(out) && p < top; p++ {
		n, ok := updatedBy[out[p]]
		if !ok {
			continue
		}
		if i := slices.Index(out, n); i >= 0 && i < p {
			continue
		} else if i > p {
			out = slices.Delete(out, i, i+1)
		}
		out = slices.Insert(out, p, n)
		p++ // past the result it updates
		top++
	}
	return out[:min(10, len(out))]
}

// rankNewerList is rankNewer's list: today's fusion, weak results, then
// newer first among the 10.
func rankNewerList(cfg hippo.Config, q *candQuery, nw *newerWins) []scoredCand {
	var list, rest []scoredCand
	for i := range q.Cands {
		c := &q.Cands[i]
		rel := cfg.SizedRelevance(c.Cos, c.BM25, c.Size, cfg.HybridAlpha)
		if rel >= cfg.MinRelevance {
			list = append(list, scoredCand{c, rel})
		} else {
			rest = append(rest, scoredCand{c, rel})
		}
	}
	slices.SortFunc(list, func(a, b scoredCand) int { return cmp.Or(cmp.Compare(b.rel, a.rel), b.c.Seq-a.c.Seq) })
	slices.SortFunc(rest, func(a, b scoredCand) int { return cmp.Or(cmp.Compare(b.c.Cos, a.c.Cos), b.c.Seq-a.c.Seq) })
	list = append(list[:min(10, len(list))], rest[:min(hippo.DefaultWeakResults, 10-min(10, len(list)), len(rest))]...)
	if nw.tau <= 1 {
		nw.apply(list)
	}
	return list
}

// TestSweepSentences measures a chunk's cosine read as the better of its
// whole text's and its closest sentence's (or a mix), for chunks of at
// most maxBytes with two sentences or more: a message that states several
// things has a mean-pooled vector that sits between them, and a question
// about one of them meets it at the unrelated level. Boost off,
// candidates, today's fusion and newer first.
//
//	go test ./eval/ -run SweepSentences -sweep -embedder minilm -v
func TestSweepSentences(t *testing.T) {
	if !*flagSweep {
		t.Skip("runs with -sweep")
	}
	_, emb := newEmbedder(t)
	cfg := hippo.DefaultConfig().ForEmbedder(emb)
	sets, data, heldOutShown := shownSets(t, emb.Model())
	// sentVecs[set][agent][seq] are the chunk's sentences' vectors (nil for one sentence).
	sentVecs := map[string]map[string][][][]float32{}
	for _, s := range sets {
		sentVecs[s] = map[string][][][]float32{}
		for agent, texts := range data[s].Texts {
			vs := make([][][]float32, len(texts))
			for i, x := range texts {
				if len(x) > sentenceBytes {
					continue
				}
				ss := partSentences(x)
				if len(ss) < 2 {
					continue
				}
				v, err := emb.Embed(t.Context(), ss)
				if err != nil {
					t.Fatal(err)
				}
				vs[i] = v
			}
			sentVecs[s][agent] = vs
		}
		// What parts would cost: index rows added per chunk, and texts
		// embedded per chunk stored, at each size limit.
		for _, mb := range []int{200, 400, 800, 1600} {
			chunks, parts, with := 0, 0, 0
			for _, texts := range data[s].Texts {
				for _, x := range texts {
					chunks++
					if n := len(partSentences(x)); len(x) <= mb && n >= 2 {
						parts += n
						with++
					}
				}
			}
			t.Logf("%s, ≤%d B: %d of %d chunks have parts, %d parts: index rows ×%.2f", s, mb, with, chunks, parts, float64(chunks+parts)/float64(max(1, chunks)))
		}
	}
	type setting struct {
		lambda   float64 // cosine = max(whole, λ·best sentence + (1−λ)·whole)
		maxBytes int
		// mixed: each sentence's row holds λ·sentence + (1−λ)·whole as
		// one vector, which the index normalises: its cosine is the
		// mixture divided by that vector's length.
		mixed bool
	}
	settings := []setting{{0, 0, false}}
	for _, mb := range []int{200, 400} {
		for _, l := range []float64{0.5, 0.6, 0.75, 0.9, 1} {
			settings = append(settings, setting{l, mb, false})
		}
	}
	for _, mb := range []int{400, 800, 1600} {
		if mb > sentenceBytes {
			break
		}
		for _, l := range []float64{0.5, 0.6, 0.75, 0.9} {
			settings = append(settings, setting{l, mb, true})
		}
		if mb > 400 {
			settings = append(settings, setting{0.75, mb, false})
		}
	}
	header := []string{"sentences"}
	for _, s := range sets {
		header = append(header, strings.TrimSuffix(s, ".tsv")+" first", "MRR", "R@10")
	}
	tb := newTable(header...)
	for _, st := range settings {
		name := "none (today)"
		if st.lambda > 0 {
			name = fmt.Sprintf("λ%.2f ≤%dB", st.lambda, st.maxBytes)
			if st.mixed {
				name += " mixed rows"
			}
		}
		row := []string{name}
		for _, s := range sets {
			var m metrics
			first := 0
			for _, q := range answerable(data[s].Queries) {
				if (s == "own" || s == "longmemeval") && (half(q.Half) == tune) == heldOutShown {
					continue
				}
				if s == "realmem" && (splitOf(q.Agent) == tune) == heldOutShown {
					continue
				}
				qq := *q
				qq.Cands = slices.Clone(q.Cands)
				if st.lambda > 0 {
					for i := range qq.Cands {
						c := &qq.Cands[i]
						sv := sentVecs[s][q.Agent][c.Seq]
						if sv == nil || c.Size > st.maxBytes {
							continue
						}
						if st.mixed {
							whole := data[s].Vecs[q.Agent][c.Seq]
							mix := make([]float32, len(whole))
							for _, v := range sv {
								for k := range mix {
									mix[k] = float32(st.lambda)*v[k] + float32(1-st.lambda)*whole[k]
								}
								c.Cos = max(c.Cos, cosine(q.Vec, mix))
							}
							continue
						}
						best := -2.0
						for _, v := range sv {
							best = max(best, cosine(q.Vec, v))
						}
						c.Cos = max(c.Cos, st.lambda*best+(1-st.lambda)*c.Cos)
					}
				}
				nw := &newerWins{tau: 2}
				list := rankNewerList(cfg, &qq, nw)
				var ranked [][]string
				for _, sc := range list {
					ranked = append(ranked, sc.c.Items)
				}
				relevant := map[string]bool{}
				for _, id := range q.Relevant {
					relevant[id] = true
				}
				m.add(ranked, relevant)
				if len(ranked) > 0 && slices.ContainsFunc(ranked[0], func(it string) bool { return relevant[it] }) {
					first++
				}
			}
			row = append(row, fmt.Sprint(first), f3(m.MRR()), f3(m.R10()))
		}
		tb.row(row...)
	}
	t.Logf("\nboost off, today's fusion (newer first off), a chunk's cosine from its closest sentence\n%s", tb)
}

// sentenceBytes is the longest chunk whose sentences TestSweepSentences
// embeds (HIPPO_SENTENCE_BYTES, else 400).
var sentenceBytes = func() int {
	if n, err := strconv.Atoi(os.Getenv("HIPPO_SENTENCE_BYTES")); err == nil {
		return n
	}
	return 400
}()

// partMin and partMax shape a chunk's parts (HIPPO_PART_MIN,
// HIPPO_PART_MAX): a sentence shorter than partMin bytes joins the one
// after it (the one before, when last), and while there are more than
// partMax, the shortest adjacent pair joins. 0: no limit.
var partMin, partMax = envInt("HIPPO_PART_MIN"), envInt("HIPPO_PART_MAX")

func envInt(name string) int {
	n, _ := strconv.Atoi(os.Getenv(name))
	return n
}

// partSentences are text's sentences (engine.Sentences) shaped by partMin
// and partMax.
func partSentences(text string) []string {
	ss := engine.Sentences(text)
	for i := 0; partMin > 0 && len(ss) > 1 && i < len(ss); {
		if len(ss[i]) >= partMin {
			i++
			continue
		}
		if i+1 < len(ss) {
			ss[i+1] = ss[i] + " " + ss[i+1]
		} else {
			ss[i-1] += " " + ss[i]
		}
		ss = slices.Delete(ss, i, i+1)
	}
	for partMax > 0 && len(ss) > partMax {
		best := 0
		for i := 1; i+1 < len(ss); i++ {
			if len(ss[i])+len(ss[i+1]) < len(ss[best])+len(ss[best+1]) {
				best = i
			}
		}
		ss[best] += " " + ss[best+1]
		ss = slices.Delete(ss, best+1, best+2)
	}
	return ss
}

// shownSets are the sets a sweep of this file scores, with their saved
// candidates: the tune sets, and with HIPPO_SWEEP_HELDOUT set (shown) the
// held-out ones too, D, E and F among them when they have candidates.
func shownSets(t *testing.T, model string) (sets []string, data map[string]candSet, shown bool) {
	sets, data = sweepSets(t, model)
	shown = os.Getenv("HIPPO_SWEEP_HELDOUT") != ""
	sets = slices.DeleteFunc(sets, func(s string) bool {
		return !shown && (s == conversationSetB || s == conversationSetC)
	})
	for _, s := range []string{conversationSetD, conversationSetE, conversationSetF} {
		if _, err := os.Stat(cacheFile(model, "candidates-"+s)); err == nil && shown {
			sets, data[s] = append(sets, s), loadCands(t, s, model)
		}
	}
	return sets, data, shown
}
