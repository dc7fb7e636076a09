package engine

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"sync/atomic"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/vector"
)

// MaxOffset bounds recall paging.
const MaxOffset = 10_000

// recallScan is what one recall scan works with.
type recallScan struct {
	In     hippo.RecallInput
	K      int // results wanted: offset + limit
	Now    int64
	Floor  float64 // strength floor
	MinRel float64 // relevance floor
	Alpha  float64 // weight of BM25
	// BM25 is the BM25 score of the rows matching the query's words, by
	// rowid, and bm25Max the highest; nil in pure vector recall.
	BM25    map[int64]float64
	BM25Max float64
	Clock   hippo.DecayClock
	Filter  rowFilter
	Stats   *matchCounts // nil unless counting matches
	// Weak is how many of the closest chunks by the query as written the
	// scan keeps besides its results (near), for searchWeak.
	Weak int
	near *vector.Near[Meta]
	// rows is how many rows the last scan returned, parts of one chunk
	// counting apart (search).
	rows int
}

// hit is a chunk chosen by recall with the parts of its score.
type hit struct {
	ID                             string
	Meta                           Meta
	Cosine, BM25, Relevance, Score float64
	// Part is the part of the chunk (PartID) whose row was found, Cosine
	// its cosine; 0 for the chunk's own row.
	Part int
	// Weak: under the relevance floor, returned because fewer results
	// passed it (searchWeak).
	Weak bool
	// Corrects is the kept text this hit was ranked above, one of whose
	// facts it superseded (correctionsFirst).
	Corrects string
	// Updates is the older memory on the same topic this hit was ranked
	// above because it says something changed (newerFirst).
	Updates string
}

// searchWeak finds the n chunks closest to q, the query as written, by
// cosine that passed the filters and the strength floor but not the
// relevance floor, skipping those in got: the best there is when nothing,
// or too little, is relevant. A paraphrase that shares no word with its
// question can score under the embedder's unrelated level and still be the
// closest thing stored; the agent gets it marked weak rather than nothing.
// Call with ai.mu held.
func searchWeak(ctx context.Context, cfg hippo.Config, ai *Index, q []float32, sc *recallScan, got []hit, n int) ([]hit, error) {
	have := make(map[string]bool, len(got))
	for _, h := range got {
		have[h.ID] = true
	}
	// The scan kept them, unless it stopped early or kept too few.
	found := sc.near.Hits()
	if !sc.near.Done() || sc.near.K < n+len(got) {
		var err error
		if found, err = ai.idx.Closest(ctx, q, n+len(got), weakEligible(sc)); err != nil {
			return nil, err
		}
	}
	found = slices.Clone(found)
	slices.SortStableFunc(found, func(a, b vector.Hit[Meta]) int { return cmp.Compare(b.Cosine, a.Cosine) })
	var out []hit
	for _, h := range found {
		id, part := SplitPartID(h.ID) // the closest row of a chunk stands for it
		if have[id] {
			continue
		}
		have[id] = true
		h.ID, h.Meta.Part = id, 0
		b := sc.BM25[h.Meta.RowID]
		rel := cfg.SizedRelevance(h.Cosine, b, int(h.Meta.Size), sc.Alpha)
		score := cfg.Score(rel, h.Meta.Strength(sc.Clock), h.Meta.Recency(cfg, sc.Now))
		if score < sc.In.MinScore {
			continue
		}
		out = append(out, hit{ID: h.ID, Meta: h.Meta, Cosine: h.Cosine, BM25: b, Relevance: rel, Weak: true, Score: score, Part: part})
	}
	return out[:min(n, len(out))], nil
}

// weakEligible is who may be a weak result: what the filters and the
// strength floor allow.
func weakEligible(sc *recallScan) func(c *Meta) bool {
	f := &sc.Filter
	return func(c *Meta) bool { return f.allows(c) && c.Strength(sc.Clock) >= sc.Floor }
}

// search ranks by the recall score WeightSimilarity·relevance +
// WeightStrength·strength + WeightRecency·recency with
//
//	relevance = hippo.Fuse(CosineRelevance(cosine), BM25Relevance(bm25), α)
//
// (hippo.Config.Relevance), which is absolute: it depends on the chunk and
// the query alone, not on what else is stored. A chunk whose words do not
// match has BM25 0, even when no chunk matches (recall once fell back to
// pure vector recall then, which made a chunk's relevance depend on the
// others). Chunks below the relevance floor are left out, as are those the
// filters, the strength floor and min_score drop.
//
// Each chunk's BM25 is known before the scan (the store's text search reads every
// match), so its score does not decrease as its cosine grows, and one
// vector.Index search finds the exact top k, every chunk considered:
// nothing is dropped for speed. Call with ai.mu held.
func search(ctx context.Context, cfg hippo.Config, ai *Index, q []float32, sc *recallScan, near *vector.Near[Meta]) ([]hit, error) {
	found, err := ai.idx.SearchNear(ctx, q, sc.K, recallBound(cfg, sc), scorer(cfg, sc), near)
	if err != nil {
		return nil, err
	}
	hits := make([]hit, 0, len(found))
	at := map[string]int{} // chunks found through a part: where they stand in hits
	for _, h := range found {
		b := sc.BM25[h.Meta.RowID]
		id, part := SplitPartID(h.ID)
		h.Meta.Part = 0
		x := hit{ID: id, Meta: h.Meta, Cosine: h.Cosine, BM25: b, Part: part,
			Relevance: cfg.SizedRelevance(h.Cosine, b, int(h.Meta.Size), sc.Alpha), Score: h.Score}
		if ai.partRows > 0 {
			// A chunk's best row stands for it.
			if i, ok := at[id]; ok {
				if x.Score > hits[i].Score {
					hits[i] = x
				}
				continue
			}
			at[id] = len(hits)
		}
		hits = append(hits, x)
	}
	sc.rows = len(found)
	return hits, nil
}

// searchQuery is search with the near set the weak results come from:
// the scan keeps the closest chunks the filters allow, should too few
// results pass. Call with ai.mu held.
func searchQuery(ctx context.Context, cfg hippo.Config, ai *Index, q []float32, sc *recallScan) ([]hit, error) {
	sc.near = nil
	if sc.Weak > 0 {
		sc.near = &vector.Near[Meta]{K: sc.Weak, Eligible: weakEligible(sc)}
	}
	return search(ctx, cfg, ai, q, sc, sc.near)
}

// recallBound is the ceiling of the score for the index's first pass:
// strength is at most the intensity (the index's prior), recency at most
// 1, the BM25 side at most its best match's, and the cosine's relevance at
// most max(0, cosine)/CosineStrong when 0 ≤ CosineUnrelated < CosineStrong
// < 1. Counting
// matches (sc.stats) needs every row scored, so it bounds nothing then,
// nor with weights or levels a ceiling cannot hold for.
func recallBound(cfg hippo.Config, sc *recallScan) vector.Bound {
	if sc.Stats != nil || cfg.WeightSimilarity <= 0 || cfg.WeightStrength < 0 || cfg.WeightRecency < 0 ||
		!(cfg.CosineUnrelated >= 0 && cfg.CosineStrong > cfg.CosineUnrelated && cfg.CosineStrong < 1) || sc.Alpha >= 1 {
		return vector.Bound{}
	}
	// hippo.Fuse(rc, rb) ≤ rc + (1 − (1−rb)^wb), and rc ≤ cosine/CosineStrong.
	bm := 0.0
	if sc.Alpha > 0 {
		_, wb := hippo.FuseWeights(sc.Alpha)
		bm = 1 - hippo.Pow1m(cfg.BM25Relevance(sc.BM25Max), wb)
	}
	return vector.Bound{Sim: cfg.WeightSimilarity / cfg.CosineStrong, Prior: cfg.WeightStrength,
		Const: cfg.WeightRecency + cfg.WeightSimilarity*bm}
}

// firstPassSlack is how much cosine the first pass adds before it drops a
// row for the relevance floor or min_score, more than its int8 error
// allowance for vectors of 64 dimensions or more: a row dropped there is
// never seen again, while the exact pass applies both as they are.
const firstPassSlack = 0.03

// scorer is the recall ScoreFunc: filters, relevance floor, strength floor
// and min_score applied, matches counted into sc.stats in the first pass
// (with the first pass's cosine, within about 0.01 of exact).
func scorer(cfg hippo.Config, sc *recallScan) vector.ScoreFunc[Meta] {
	f, alpha := &sc.Filter, sc.Alpha
	// rk is cfg's ranking for the query's α: every row is scored with it.
	rk := cfg.Ranking(alpha)
	// rel fuses a cosine relevance with a BM25 relevance (hippo.Fuse).
	rel := rk.Fuse
	bmMax := 0.0
	if alpha > 0 {
		bmMax = rk.BM25Relevance(sc.BM25Max)
	}
	return func(c *Meta, cos, bar float64, exact bool) (float64, bool) {
		// rc is the cosine's relevance, long content discounted; most,
		// its value at the far end of the first pass's error, for the
		// cuts. The discount only lowers a score, so the bounds hold.
		fc, fb := rk.LengthFactors(int(c.Size))
		rc := rk.CosineRelevance(cos) * fc
		most := rc
		if !exact {
			most = rk.CosineRelevance(cos+firstPassSlack) * fc
		}
		// Most rows of a large memory are unrelated to the query: drop
		// those the floor rules out, however well their words match,
		// before anything else.
		if rel(most, bmMax) < sc.MinRel || !f.allows(c) {
			return 0, false
		}
		// Strength is at most the intensity, recency at most 1 and the
		// BM25 side at most the best match's: skip the look-up and the
		// exponentials for rows that cannot make the cut.
		if sc.Stats == nil && rk.Score(rel(rc, bmMax), float64(c.Intensity), 1) <= bar {
			return 0, false
		}
		rb := 0.0
		if sc.BM25 != nil && alpha > 0 {
			rb = rk.BM25Relevance(sc.BM25[c.RowID] * fb)
		}
		if rel(most, rb) < sc.MinRel {
			return 0, false
		}
		st := c.Strength(sc.Clock)
		if st < sc.Floor {
			return 0, false
		}
		rec := rk.Recency(c.age(sc.Now))
		r := rel(rc, rb)
		score := rk.Score(r, st, rec)
		if rk.Score(rel(most, rb), st, rec) < sc.In.MinScore {
			return 0, false
		}
		if !exact && r >= sc.MinRel && score >= sc.In.MinScore && c.Part == 0 {
			sc.Stats.add(score, 1) // a chunk once: its parts are not counted
		}
		return score, true
	}
}

// matchCounts counts matches by score band, safely from the parallel scan.
// A nil *matchCounts counts nothing.
type matchCounts struct {
	total   atomic.Int64
	buckets [5]atomic.Int64
}

// add counts n matches (n < 0 takes them back) scoring score.
func (s *matchCounts) add(score float64, n int64) {
	if s == nil {
		return
	}
	s.total.Add(n)
	s.buckets[min(4, max(0, int(score*5)))].Add(n)
}

// fill sets page's total and distribution.
func (s *matchCounts) fill(page *hippo.RecallPage) {
	if s == nil {
		return
	}
	page.Total = int(max(0, s.total.Load()))
	for i, d := range []*int{&page.Distribution.Below02, &page.Distribution.From02To04, &page.Distribution.From04To06,
		&page.Distribution.From06To08, &page.Distribution.From08To10} {
		*d = int(max(0, s.buckets[i].Load()))
	}
}

// checkRecallInput checks the recall input beyond the query and the limit.
func checkRecallInput(in hippo.RecallInput) error {
	switch {
	case in.Kind != "" && !in.Kind.Valid():
		return hippo.Invalidf("kind", "must be %q or %q, got %q", hippo.KindFact, hippo.KindMemory, in.Kind)
	case in.Offset < 0 || in.Offset > MaxOffset:
		return hippo.Invalidf("offset", "must be between 0 and %d, got %d", MaxOffset, in.Offset)
	case !(in.MinStrength >= 0 && in.MinStrength <= 1):
		return hippo.Invalidf("min_strength", "must be between 0 and 1, got %v", in.MinStrength)
	case !(in.MinScore >= 0 && in.MinScore <= 1):
		return hippo.Invalidf("min_score", "must be between 0 and 1, got %v", in.MinScore)
	case in.Since != nil && in.Until != nil && in.Until.Before(*in.Since):
		return hippo.Invalidf("until", "is before since")
	}
	for _, t := range in.Tags {
		if err := hippo.ValidateText("tags", t, hippo.MaxIDLength); err != nil {
			return err
		}
	}
	return nil
}

// recallQuery is a checked recall input with what follows from it.
type recallQuery struct {
	In     hippo.RecallInput
	Limit  int
	Alpha  float64 // weight of BM25
	MinRel float64 // relevance floor
	// Scopes are the recall scopes: nil for all, empty for none.
	Scopes []string
	// Weak is how many of the closest chunks under the relevance floor
	// follow what passed it, within the limit (hippo.Config.WeakResults):
	// 0 when a floor was asked for.
	Weak int
	// Stages, if set, is told how long each stage took.
	Stages hippo.StageFunc
}

// prepareRecall checks a recall's input against cfg; scopes are the
// memory's recall scopes.
func prepareRecall(cfg hippo.Config, in hippo.RecallInput, scopes []string) (*recallQuery, error) {
	if err := hippo.ValidateText("query", in.Query, cfg.MaxContent); err != nil {
		return nil, err
	}
	limit, err := cfg.CheckLimit(in.Limit)
	if err != nil {
		return nil, err
	}
	if err := checkRecallInput(in); err != nil {
		return nil, err
	}
	alpha := cfg.HybridAlpha
	if in.Alpha != nil {
		alpha = *in.Alpha
	}
	if !(alpha >= 0 && alpha <= 1) { // NaN too
		return nil, hippo.Invalidf("alpha", "must be between 0 and 1, got %v", alpha)
	}
	minRel, err := cfg.RelevanceFloor(in)
	if err != nil {
		return nil, err
	}
	weak := 0
	if in.MinRelevance == nil && in.Offset == 0 {
		weak = min(limit, max(0, cfg.WeakResults))
	}
	return &recallQuery{In: in, Limit: limit, Alpha: alpha, MinRel: minRel, Scopes: scopes, Weak: weak}, nil
}

// RecallStore is what a recall needs of a store besides the index.
type RecallStore interface {
	// TextScores is the BM25 score of every chunk of the agent (among
	// others, which recall ignores) matching any of words (QueryWords), by
	// row key, and the highest; nil when none matches. rows is how many
	// chunks the agent has.
	TextScores(ctx context.Context, words []string, rows int) (map[int64]float64, float64, error)
	// Boost applies the retrieval boost (hippo.Boosted, one access, last
	// access at now, unix ms) to the chunks ids and returns them by ID,
	// those deleted meanwhile missing, with the change-feed positions
	// just before and after it.
	Boost(ctx context.Context, ids []string, now int64) (chunks map[string]*hippo.Chunk, before, after int64, err error)
	// Peek returns the chunks ids as stored, by ID, those deleted
	// meanwhile missing, changing nothing: a dry run's results.
	Peek(ctx context.Context, ids []string) (map[string]*hippo.Chunk, error)
}

// textScores is the store's BM25 scores of query's words among the
// chunks in scopes (nil: all). Call with ai.mu held, ai.idx not nil.
func textScores(ctx context.Context, st RecallStore, ai *Index, query string, scopes []string) (map[int64]float64, float64, error) {
	words := QueryWords(query)
	if len(words) == 0 || ai.chunks() == 0 || (scopes != nil && len(scopes) == 0) {
		return nil, 0, nil
	}
	return st.TextScores(ctx, words, ai.chunks())
}

// recallPage runs a recall prepared by prepareRecall over the agent's
// index, synced and checked by the store, with q the embedding of
// the query: the scan (searchQuery), then the boost of the page's chunks, folded
// into the index in place when nobody wrote in between. stats counts the
// matches for paging. active says the store decays by the active clock.
func recallPage(ctx context.Context, cfg hippo.Config, ai *Index, active bool, rq *recallQuery, q []float32, now int64, stats bool, st RecallStore) (*hippo.RecallPage, error) {
	in := rq.In
	sc := recallScan{In: in, K: in.Offset + rq.Limit, Now: now, Floor: cfg.StrengthFloor, MinRel: rq.MinRel}
	if in.AsOf != nil {
		sc.Floor = 0 // history does not fade away
	}
	sc.Floor = max(sc.Floor, in.MinStrength)
	if stats {
		sc.Stats = &matchCounts{}
	}
	page := &hippo.RecallPage{Results: []hippo.Recalled{}, MinRelevance: rq.MinRel}
	hits, err := scanHits(ctx, cfg, ai, active, rq, q, &sc, st)
	if err != nil {
		return nil, err
	}
	page.Alpha = rq.Alpha
	sc.Stats.fill(page)
	if in.Offset >= len(hits) {
		return page, nil
	}
	hits = hits[in.Offset:]
	chunks, boosted, before, after, err := readHits(ctx, cfg, st, rq, hits, now)
	if err != nil {
		return nil, err
	}
	page.Results = make([]hippo.Recalled, 0, len(chunks))
	for _, h := range hits {
		c, ok := chunks[h.ID]
		if !ok {
			continue // deleted since the search
		}
		rc, rb := cfg.SizedParts(h.Cosine, h.BM25, int(h.Meta.Size))
		page.Results = append(page.Results, hippo.Recalled{Chunk: c, Similarity: h.Cosine, BM25: h.BM25,
			LengthExcess:    cfg.LengthExcess(int(h.Meta.Size)),
			CosineRelevance: rc, BM25Relevance: rb,
			Relevance: h.Relevance, Strength: h.Meta.Strength(sc.Clock), Recency: h.Meta.Recency(cfg, now), Score: h.Score,
			Weak: h.Weak, Corrects: h.Corrects, Updates: h.Updates, Part: h.Part})
	}
	if boosted > 0 {
		// The results not boosted are folded in as read: unchanged.
		ai.foldBoost(page.Results, before, after)
	}
	if stats {
		// Matches count chunks by their own rows; one found through a
		// part alone is counted where it is shown.
		strong := 0
		for _, r := range page.Results {
			if !r.Weak {
				strong++
			}
		}
		page.Total = max(page.Total, in.Offset+strong)
	}
	return page, nil
}

// scanHits runs the scan under the index's read lock: the text scores,
// the exact top k by score, and weak results after them while the limit
// has room.
func scanHits(ctx context.Context, cfg hippo.Config, ai *Index, active bool, rq *recallQuery, q []float32, sc *recallScan, st RecallStore) ([]hit, error) {
	in := rq.In
	var (
		hits   []hit
		err    error
		groups *groupFilter
	)
	ai.mu.RLock()
	sc.Clock = ai.decayClock(active, sc.Now)
	if ai.idx != nil {
		sc.Filter = ai.recallFilter(in, rq.Scopes)
		start := time.Now()
		if sc.Alpha = rq.Alpha; rq.Alpha > 0 {
			sc.BM25, sc.BM25Max, err = textScores(ctx, st, ai, in.Query, rq.Scopes)
			start = rq.Stages.Done(hippo.StageText, start)
		}
		if err == nil {
			// The scan keeps enough of the closest chunks for the weak
			// results whatever passes.
			sc.Weak = 0
			if rq.Weak > 0 {
				sc.Weak = rq.Weak + rq.Limit
			}
			hits, groups, err = searchGroups(ctx, cfg, ai, q, sc, rq.Limit)
			rq.Stages.Done(hippo.StageScan, start)
		}
		if n := min(rq.Weak, rq.Limit-len(hits)); err == nil && n > 0 {
			var weak []hit
			weak, err = searchWeak(ctx, cfg, ai, q, sc, hits, n+rq.Weak)
			weak = groups.keep(weak, nil)
			hits = append(hits, weak[:min(len(weak), n)]...)
		}
		// Corrections move within the page asked for, so that every
		// result of the scan is on one page or another.
		if err == nil && in.Offset < len(hits) {
			page := hits[in.Offset:]
			if len(ai.outdated) > 0 {
				page, err = correctionsFirst(ctx, ai, st, page)
			}
			if err == nil {
				page, err = newerFirst(ctx, cfg, ai, st, page)
			}
			hits = append(hits[:in.Offset:in.Offset], page...)
		}
	}
	ai.mu.RUnlock()
	return hits, err
}

// readHits reads the chunks of hits: the first cfg.BoostedResults of the
// strong ones boosted (the retrieval event, unless a dry run), the rest
// as they are. before and after bracket the boost's changes for foldBoost.
func readHits(ctx context.Context, cfg hippo.Config, st RecallStore, rq *recallQuery, hits []hit, now int64) (chunks map[string]*hippo.Chunk, boosted int, before, after int64, err error) {
	in := rq.In
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	// boosted: the first results, which the retrieval event applies to.
	if !in.DryRun {
		strong := len(ids)
		for strong > 0 && hits[strong-1].Weak {
			strong--
		}
		boosted = cfg.BoostedResults(in.Offset, strong)
	}
	if boosted > 0 {
		start := time.Now()
		chunks, before, after, err = st.Boost(ctx, ids[:boosted], now)
		rq.Stages.Done(hippo.StageBoost, start)
	}
	if err == nil && boosted < len(ids) { // a look: not boosted
		var rest map[string]*hippo.Chunk
		if rest, err = st.Peek(ctx, ids[boosted:]); chunks == nil {
			chunks = rest
		} else {
			maps.Copy(chunks, rest)
		}
	}
	return chunks, boosted, before, after, err
}

// foldBoost applies a committed boost to the index in place, when the
// index had folded in every change before it (position before): the
// change feed up to after is then this boost's, and the next recall need
// not read the boosted rows back. Otherwise the next sync reads them as
// usual.
func (ai *Index) foldBoost(boosted []hippo.Recalled, before, after int64) {
	ai.mu.Lock()
	defer ai.mu.Unlock()
	if ai.seq != before || ai.idx == nil {
		return
	}
	for _, r := range boosted {
		c := r.Chunk
		meta, ok := ai.idx.Meta(c.ID)
		if !ok {
			return // not in the index: leave it to the next sync
		}
		meta.Intensity = float32(c.RunningIntensity)
		meta.DecayRate = float32(ai.cfg.DecayRate(c.RunningIntensity, c.AccessCount))
		meta.LastAccess = c.LastAccessedAt.UnixMilli()
		ai.setMeta(c.ID, meta)
	}
	ai.seq = after
}

// searchGroups is searchQuery with one side of each group kept
// (groupFilter): when a group drops hits from a full page, the scan runs
// again with room for more, so a recall of texts kept by remember_facts
// still fills its page; a memory with no groups scans once. Equal scores
// rank in ID order, so that every store ranks ties alike whatever order
// its index was loaded in.
func searchGroups(ctx context.Context, cfg hippo.Config, ai *Index, q []float32, sc *recallScan, limit int) ([]hit, *groupFilter, error) {
	want, stats := sc.K, sc.Stats != nil
	defer func() { sc.K = want }()
	for extra := 0; ; extra += limit {
		sc.K = want + extra
		if stats {
			sc.Stats = &matchCounts{}
		}
		hits, err := searchQuery(ctx, cfg, ai, q, sc)
		if err != nil {
			return nil, nil, err
		}
		slices.SortStableFunc(hits, func(a, b hit) int {
			return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.ID, b.ID))
		})
		full := sc.rows == sc.K // the scan may have left more
		groups := newGroupFilter(ai, &sc.Filter)
		hits = groups.keep(hits, sc.Stats)
		if len(hits) >= want || !full || extra >= 4*limit {
			return hits[:min(len(hits), want)], groups, nil
		}
	}
}

// groupFilter keeps one chunk of each group of hits (Meta.Group) that
// has a kept text, the best ranked: a text kept by remember_facts and the
// facts learned from it say the same things, and the results must not fill
// with copies of one message. A text ranked above its facts stands for
// them (a fact whose own words miss the query is found through it); a fact
// ranked first stands for the text and its sibling facts, which the text
// holds. Without a text to hold them (none kept, or facts alone asked
// for), sibling facts are distinct claims and all stay. A flagged chunk
// (shown only when asked for) stands for nothing, so a benign fact is
// never hidden behind a suspicious text.
//
// A fact the offline extractor cut from a text (Meta.Offline) does not
// stand for it: the group ranks as its text does, the user's own words,
// and the fact comes back only when the text does not (after the rest).
// Cut from a sentence by rules, such a fact is shorter than its text and
// often garbled, so it matches a query by one aspect: ranked on its own it
// put the wrong message first for conversation questions (eval/README.md).
type groupFilter struct {
	seen map[uint32]bool
	// holds reports whether group g has a kept text that may stand for
	// its facts; plain, whether one is unflagged.
	holds, plain func(g uint32) bool
}

// newGroupFilter is the group filter of a recall over ai with filter f.
// Call with ai.mu held.
func newGroupFilter(ai *Index, f *rowFilter) *groupFilter {
	texts := f.Kind != hippo.KindFact
	return &groupFilter{seen: map[uint32]bool{},
		holds: func(g uint32) bool { return texts && ai.hasText(g) },
		plain: func(g uint32) bool { return texts && ai.hasPlainText(g) }}
}

// keep filters hits, in rank order, in place, taking those it drops out
// of the matches counted (nil: none); later calls continue the ranking.
func (g *groupFilter) keep(hits []hit, counted *matchCounts) []hit {
	out := hits[:0]
	var later []hit // offline facts whose text may stand for them
	for _, h := range hits {
		key := h.Meta.Group
		if key == 0 || h.Meta.Suspicious || !g.holds(key) {
			out = append(out, h)
			continue
		}
		if g.seen[key] {
			counted.add(h.Score, -1)
			continue
		}
		if h.Meta.Offline && g.plain(key) {
			later = append(later, h)
			continue
		}
		g.seen[key] = true
		out = append(out, h)
	}
	for _, h := range later {
		if g.seen[h.Meta.Group] {
			counted.add(h.Score, -1)
			continue
		}
		g.seen[h.Meta.Group] = true
		out = append(out, h)
	}
	return out
}
