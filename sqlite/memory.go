package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"sync/atomic"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/vector"
)

// MemoryOptions is hippo.MemoryOptions.
type MemoryOptions = hippo.MemoryOptions

// Memory is one agent's view of the database; it implements
// hippo.MemoryService.
type Memory struct {
	db   *DB
	cfg  hippo.Config // the database's, with the embedder's thresholds
	opts MemoryOptions
}

var _ hippo.MemoryService = (*Memory)(nil)

// Config is the configuration this memory works with: the database's,
// with the embedder's own thresholds when it carries them.
func (m *Memory) Config() hippo.Config { return m.cfg }

// Memory returns the memory service of one agent.
func (db *DB) Memory(opts MemoryOptions) (*Memory, error) {
	if err := hippo.ValidateAgentID(opts.AgentID); err != nil {
		return nil, err
	}
	if err := hippo.ValidateScope(opts.Scope); err != nil {
		return nil, err
	}
	for _, s := range opts.RecallScopes {
		if err := hippo.ValidateScope(s); err != nil {
			return nil, err
		}
	}
	if opts.MessagesTable != "" {
		if err := hippo.ValidateTableName(opts.MessagesTable); err != nil {
			return nil, err
		}
	}
	if opts.RecallScopes != nil {
		opts.RecallScopes = append([]string{}, opts.RecallScopes...)
	}
	return &Memory{db: db, cfg: db.cfg.ForEmbedder(opts.Embedder), opts: opts}, nil
}

// AgentID is the agent this memory belongs to.
func (m *Memory) AgentID() string { return m.opts.AgentID }

// StoreMemory implements hippo.MemoryService.
func (m *Memory) StoreMemory(ctx context.Context, in hippo.StoreInput) (*hippo.StoreResult, error) {
	if err := m.touch(ctx); err != nil {
		return nil, err
	}
	cfg := m.cfg
	if err := hippo.ValidateText("content", in.Content, cfg.MaxContent); err != nil {
		return nil, err
	}
	meta, err := hippo.ValidateMetadata(in.Metadata)
	if err != nil {
		return nil, err
	}
	reading := cfg.DefaultIntensity
	if in.Intensity != nil {
		reading = cfg.ClampIntensity(*in.Intensity)
	}
	hash := ContentHash(in.Content)

	// A verbatim repeat needs no embedding: look before paying for one.
	if res, err := m.strengthenMemory(ctx, hash, reading, nil); err != nil || res != nil {
		return res, err
	}
	vecs, err := hippo.Embed(ctx, m.opts.Embedder, []string{in.Content}, 0)
	if err != nil {
		return nil, err
	}
	now := m.db.now()
	c := &hippo.Chunk{
		ID: newChunkID(now), AgentID: m.opts.AgentID, Scope: m.opts.Scope, Kind: hippo.KindMemory,
		Content: in.Content, ContentHash: hash, Embedding: vecs[0], Metadata: rawJSON(meta),
		RunningIntensity: reading, EncounterCount: 1, LastAccessedAt: now, CreatedAt: now,
	}
	return m.strengthenMemory(ctx, hash, reading, c)
}

// strengthenMemory, in one write transaction, strengthens the memory with
// this hash if it exists; otherwise it inserts c (when given). Doing both
// under the write lock makes concurrent identical stores insert once.
func (m *Memory) strengthenMemory(ctx context.Context, hash string, reading float64, c *hippo.Chunk) (*hippo.StoreResult, error) {
	tx, err := m.db.write.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	existing, err := scanChunk(tx.QueryRowContext(ctx, `SELECT `+chunkColumns+` FROM chunks
		WHERE `+sameMemory,
		m.opts.AgentID, m.opts.Scope, hash, hash))
	switch {
	case err == nil:
		existing.Strengthen(reading, m.db.now(), true)
		if err := saveStrength(ctx, tx, existing); err != nil {
			return nil, fmt.Errorf("strengthen memory: %w", err)
		}
		if err := tx.Commit(); err != nil {
			return nil, err
		}
		return &hippo.StoreResult{Chunk: existing, Duplicate: true}, nil
	case err != sql.ErrNoRows:
		return nil, fmt.Errorf("look up memory: %w", err)
	case c == nil:
		return nil, nil
	}
	if err := m.db.lockModelTx(ctx, tx, m.opts.Embedder.Model(), len(c.Embedding)); err != nil {
		return nil, err
	}
	if err := insertChunk(ctx, tx, c); err != nil {
		return nil, err
	}
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	return &hippo.StoreResult{Chunk: c}, nil
}

// Recall implements hippo.MemoryService. Every live chunk of the agent in
// the recall scopes is considered; none is dropped for speed.
func (m *Memory) Recall(ctx context.Context, in hippo.RecallInput) ([]hippo.Recalled, error) {
	page, err := m.recall(ctx, in, false)
	if err != nil {
		return nil, err
	}
	return page.Results, nil
}

// RecallPage is Recall with the number of matches and their score
// distribution, for paging through results. Total and distribution use
// the index's first-pass similarity, which is within about 0.01 of exact
// (see search).
func (m *Memory) RecallPage(ctx context.Context, in hippo.RecallInput) (*hippo.RecallPage, error) {
	return m.recall(ctx, in, true)
}

// MaxOffset bounds recall paging.
const MaxOffset = 10_000

func (m *Memory) recall(ctx context.Context, in hippo.RecallInput, stats bool) (*hippo.RecallPage, error) {
	if err := m.touch(ctx); err != nil {
		return nil, err
	}
	cfg := m.cfg
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
	// Facts are compared with the query in their own voice ("User …"),
	// raw memories with the query as written (hippo.FactVoice).
	texts := []string{in.Query}
	if in.Kind != hippo.KindMemory {
		if fv := hippo.FactVoice(in.Query); fv != in.Query {
			texts = append(texts, fv)
		}
	}
	qs, ai, err := m.embedQuery(ctx, texts...)
	if err != nil {
		return nil, err
	}
	sc := Scan{In: in, K: in.Offset + limit, Now: m.db.now().UnixMilli(), Floor: cfg.StrengthFloor, MinRel: minRel}
	if in.AsOf != nil {
		sc.Floor = 0 // history does not fade away
	}
	sc.Floor = max(sc.Floor, in.MinStrength)
	if stats {
		sc.Stats = &Counts{}
	}
	page := &hippo.RecallPage{Results: []hippo.Recalled{}, MinRelevance: minRel}
	var hits []Hit
	ai.Mu.RLock()
	sc.Clock = ai.Clock(m.db, sc.Now)
	if ai.Idx != nil {
		sc.Filter = ai.RecallFilter(in, m.opts.RecallScopes)
		if sc.Alpha = alpha; alpha > 0 {
			sc.BM25, sc.BM25Max, err = m.bm25Scores(ctx, ai, in)
		}
		if err == nil {
			hits, err = m.searchVoices(ctx, ai, qs, &sc)
		}
	}
	ai.Mu.RUnlock()
	if err != nil {
		return nil, err
	}
	page.Alpha = alpha
	sc.Stats.Fill(page)
	if in.Offset >= len(hits) {
		return page, nil
	}
	page.Results, err = m.retrieve(ctx, hits[in.Offset:], sc.Now, sc.Clock)
	return page, err
}

// Scan is what one recall scan works with.
type Scan struct {
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
	Filter  Filter
	Stats   *Counts // nil unless counting matches
}

// Hit is a chunk chosen by recall with the parts of its score.
type Hit struct {
	ID                             string
	Meta                           Meta
	Cosine, BM25, Relevance, Score float64
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
// Each chunk's BM25 is known before the scan (bm25Scores reads every
// match), so its score does not decrease as its cosine grows, and one
// vector.Index search finds the exact top k, every chunk considered:
// nothing is dropped for speed. Call with ai.mu held.
func (m *Memory) search(ctx context.Context, ai *Index, q []float32, sc *Scan) ([]Hit, error) {
	found, err := ai.Idx.SearchBounded(ctx, q, sc.K, m.recallBound(sc), m.scorer(sc))
	if err != nil {
		return nil, err
	}
	hits := make([]Hit, len(found))
	for i, h := range found {
		b := sc.BM25[h.Meta.RowID]
		hits[i] = Hit{ID: h.ID, Meta: h.Meta, Cosine: h.Cosine, BM25: b,
			Relevance: m.cfg.SizedRelevance(h.Cosine, b, int(h.Meta.Size), sc.Alpha), Score: h.Score}
	}
	return hits, nil
}

// searchVoices is search with qs[0], the query as written, or, when qs
// holds its fact voice as well, facts searched with qs[1] and memories with
// qs[0]: the two kinds are disjoint, so the best of the two exact top k
// are the exact top k. Call with ai.mu held.
func (m *Memory) searchVoices(ctx context.Context, ai *Index, qs [][]float32, sc *Scan) ([]Hit, error) {
	if len(qs) == 1 {
		return m.search(ctx, ai, qs[0], sc)
	}
	facts, memories := *sc, *sc
	facts.Filter.Kind, memories.Filter.Kind = hippo.KindFact, hippo.KindMemory
	hits, err := m.search(ctx, ai, qs[1], &facts)
	if err != nil || sc.Filter.Kind == hippo.KindFact {
		return hits, err
	}
	more, err := m.search(ctx, ai, qs[0], &memories)
	if err != nil {
		return nil, err
	}
	hits = append(hits, more...)
	slices.SortStableFunc(hits, func(a, b Hit) int { return cmp.Compare(b.Score, a.Score) })
	return hits[:min(len(hits), sc.K)], nil
}

// recallBound is the ceiling of the score for the index's first pass:
// strength is at most the intensity (the index's prior), recency at most
// 1, the BM25 side at most its best match's, and the cosine's relevance at
// most max(0, cosine)/CosineStrong when 0 ≤ CosineUnrelated < CosineStrong
// < 1. Counting
// matches (sc.stats) needs every row scored, so it bounds nothing then,
// nor with weights or levels a ceiling cannot hold for.
func (m *Memory) recallBound(sc *Scan) vector.Bound {
	cfg := m.cfg
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
func (m *Memory) scorer(sc *Scan) vector.ScoreFunc[Meta] {
	cfg, f, alpha := m.cfg, &sc.Filter, sc.Alpha
	// rel fuses a cosine relevance with a BM25 relevance (hippo.Fuse).
	rel := func(rc, rb float64) float64 { return hippo.Fuse(rc, rb, alpha) }
	bmMax := 0.0
	if alpha > 0 {
		bmMax = cfg.BM25Relevance(sc.BM25Max)
	}
	return func(c *Meta, cos, bar float64, exact bool) (float64, bool) {
		// rc is the cosine's relevance, long content discounted; most,
		// its value at the far end of the first pass's error, for the
		// cuts. The discount only lowers a score, so the bounds hold.
		fc, fb := cfg.LengthFactors(int(c.Size))
		rc := cfg.CosineRelevance(cos) * fc
		most := rc
		if !exact {
			most = cfg.CosineRelevance(cos+firstPassSlack) * fc
		}
		// Most rows of a large memory are unrelated to the query: drop
		// those the floor rules out, however well their words match,
		// before anything else.
		if rel(most, bmMax) < sc.MinRel || !f.Allows(c) {
			return 0, false
		}
		// Strength is at most the intensity, recency at most 1 and the
		// BM25 side at most the best match's: skip the look-up and the
		// exponentials for rows that cannot make the cut.
		if sc.Stats == nil && cfg.Score(rel(rc, bmMax), float64(c.Intensity), 1) <= bar {
			return 0, false
		}
		rb := 0.0
		if sc.BM25 != nil && alpha > 0 {
			rb = cfg.BM25Relevance(sc.BM25[c.RowID] * fb)
		}
		if rel(most, rb) < sc.MinRel {
			return 0, false
		}
		st := c.Strength(sc.Clock)
		if st < sc.Floor {
			return 0, false
		}
		rec := c.Recency(cfg, sc.Now)
		r := rel(rc, rb)
		score := cfg.Score(r, st, rec)
		if cfg.Score(rel(most, rb), st, rec) < sc.In.MinScore {
			return 0, false
		}
		if !exact && r >= sc.MinRel && score >= sc.In.MinScore {
			sc.Stats.add(score, 1)
		}
		return score, true
	}
}

// Counts counts matches by score band, safely from the parallel scan.
// A nil *Counts counts nothing.
type Counts struct {
	total   atomic.Int64
	buckets [5]atomic.Int64
}

// add counts n matches (n < 0 takes them back) scoring score.
func (s *Counts) add(score float64, n int64) {
	if s == nil {
		return
	}
	s.total.Add(n)
	s.buckets[min(4, max(0, int(score*5)))].Add(n)
}

// Fill sets page's total and distribution.
func (s *Counts) Fill(page *hippo.RecallPage) {
	if s == nil {
		return
	}
	page.Total = int(max(0, s.total.Load()))
	for i, d := range []*int{&page.Distribution.Below02, &page.Distribution.From02To04, &page.Distribution.From04To06,
		&page.Distribution.From06To08, &page.Distribution.From08To10} {
		*d = int(max(0, s.buckets[i].Load()))
	}
}

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

// embedQuery embeds texts and returns its vector with the agent's index,
// brought up to date in the same snapshot that checks the vector against
// the model lock.
func (m *Memory) embedQuery(ctx context.Context, texts ...string) ([][]float32, *Index, error) {
	vecs, err := hippo.Embed(ctx, m.opts.Embedder, texts, 0)
	if err != nil {
		return nil, nil, err
	}
	ai, err := m.db.syncIndexFor(ctx, m.opts.AgentID, &queryLock{model: m.opts.Embedder.Model(), dim: len(vecs[0])})
	if err != nil {
		return nil, nil, err
	}
	return vecs, ai, nil
}

// retrieve applies the retrieval boost to the chosen chunks and reads them
// back, in one write transaction. Chunks deleted since the search are
// dropped.
func (m *Memory) retrieve(ctx context.Context, hits []Hit, now int64, clock hippo.DecayClock) ([]hippo.Recalled, error) {
	if len(hits) == 0 {
		return []hippo.Recalled{}, nil
	}
	// "+agent_id" keeps the planner on the primary key rather than the
	// agent's index.
	upd := `UPDATE chunks SET access_count = access_count + 1,
		last_accessed_at = ?, running_intensity = ` + boostFunc + `(running_intensity, ?)
		WHERE id IN (` + placeholders(len(hits)) + `) AND +agent_id = ? RETURNING ` + recalledColumns
	args := make([]driver.NamedValue, 0, len(hits)+3)
	for _, v := range []any{formatTime(time.UnixMilli(now)), m.cfg.RetrievalBoost} {
		args = append(args, driver.NamedValue{Ordinal: len(args) + 1, Value: v})
	}
	for _, h := range hits {
		args = append(args, driver.NamedValue{Ordinal: len(args) + 1, Value: h.ID})
	}
	args = append(args, driver.NamedValue{Ordinal: len(args) + 1, Value: m.opts.AgentID})
	byID := make(map[string]*hippo.Chunk, len(hits))
	var after int64
	err := m.db.lightTx(ctx, func(lc *lightConn) error {
		err := lc.query(upd, args, func(r driverRow) error {
			c, err := scanChunk(r)
			if err != nil {
				return err
			}
			byID[c.ID] = c
			return nil
		})
		if err != nil {
			return err
		}
		return lc.query(lastChangeQuery, nil, func(r driverRow) error {
			after, _ = r[0].(int64)
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("boost chunks: %w", err)
	}
	out := make([]hippo.Recalled, 0, len(byID))
	for _, h := range hits {
		c, ok := byID[h.ID]
		if !ok {
			continue // deleted since the search
		}
		rc, rb := m.cfg.SizedParts(h.Cosine, h.BM25, int(h.Meta.Size))
		out = append(out, hippo.Recalled{Chunk: c, Similarity: h.Cosine, BM25: h.BM25,
			LengthExcess:    m.cfg.LengthExcess(int(h.Meta.Size)),
			CosineRelevance: rc, BM25Relevance: rb,
			Relevance: h.Relevance, Strength: h.Meta.Strength(clock), Recency: h.Meta.Recency(m.cfg, now), Score: h.Score})
	}
	// The transaction held the write lock, and the boost's trigger logged
	// one change per chunk, numbered on from the last: so the log stood at
	// after minus their number before it.
	m.foldBoost(out, after-int64(len(byID)), after)
	m.db.maybePrune(ctx)
	return out, nil
}

// foldBoost applies a committed boost to the agent's index in place, when
// the index had folded in every change before it (seq before): the change
// log up to after is then this boost's, and the next recall need not read
// the boosted rows back. Otherwise the next sync reads them as usual.
func (m *Memory) foldBoost(out []hippo.Recalled, before, after int64) {
	m.db.indexMu.Lock()
	ai := m.db.indexes[m.opts.AgentID]
	m.db.indexMu.Unlock()
	if ai == nil {
		return
	}
	ai.Mu.Lock()
	defer ai.Mu.Unlock()
	if ai.Seq != before || ai.Idx == nil {
		return
	}
	for _, r := range out {
		c := r.Chunk
		meta, ok := ai.Idx.Meta(c.ID)
		if !ok {
			return // not in the index: leave it to the next sync
		}
		meta.Intensity = float32(c.RunningIntensity)
		meta.DecayRate = float32(m.db.cfg.DecayRate(c.AccessCount))
		meta.LastAccess = c.LastAccessedAt.UnixMilli()
		ai.Idx.SetMeta(c.ID, meta)
	}
	ai.Seq = after
}

// Forget implements hippo.MemoryService: every live chunk in the recall
// scopes whose similarity to the description reaches the threshold is
// deleted outright, faded ones included. Superseded chunks are not matched:
// they come back when what superseded them is forgotten.
func (m *Memory) Forget(ctx context.Context, in hippo.ForgetInput) (*hippo.ForgetResult, error) {
	if err := m.touch(ctx); err != nil {
		return nil, err
	}
	cfg := m.cfg
	if err := hippo.ValidateText("description", in.Description, cfg.MaxContent); err != nil {
		return nil, err
	}
	threshold := in.Threshold
	if threshold == 0 {
		threshold = cfg.ForgetThreshold
	}
	if !(threshold > 0 && threshold <= 1) {
		return nil, hippo.Invalidf("threshold", "must be in (0, 1], got %v", in.Threshold)
	}
	qs, ai, err := m.embedQuery(ctx, in.Description)
	if err != nil {
		return nil, err
	}
	q := qs[0]
	type match struct {
		id         string
		similarity float64
	}
	var matches []match
	ai.Mu.RLock()
	if ai.Idx != nil {
		f := ai.NewFilter("", m.opts.RecallScopes)
		err = ai.Idx.Range(ctx, q, threshold, func(id string, c *Meta, cos float64) {
			if cos >= threshold && f.Allows(c) {
				matches = append(matches, match{id, cos})
			}
		})
	}
	ai.Mu.RUnlock()
	if err != nil {
		return nil, err
	}
	res := &hippo.ForgetResult{Deleted: []hippo.Forgotten{}}
	if len(matches) == 0 {
		return res, nil
	}
	sort.Slice(matches, func(i, j int) bool { return matches[i].similarity > matches[j].similarity })
	tx, err := m.db.write.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	ids := make([]string, 0, len(matches))
	for _, c := range matches {
		ch, err := getChunk(ctx, tx, m.opts.AgentID, c.id)
		if hippo.ErrorCode(err) == hippo.ENOTFOUND {
			continue
		} else if err != nil {
			return nil, err
		}
		if ch.SupersededBy != "" {
			continue // superseded since the search
		}
		res.Deleted = append(res.Deleted, hippo.Forgotten{ID: ch.ID, Kind: ch.Kind, Content: ch.Content, Similarity: c.similarity})
		ids = append(ids, ch.ID)
	}
	if in.DryRun {
		return res, nil
	}
	_, res.Resurrected, err = deleteChunksTx(ctx, tx, m.opts.AgentID, ids)
	if err != nil {
		return nil, err
	}
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	m.db.checkpoint(ctx)
	return res, nil
}

// DeleteChunk hard-deletes one of the agent's chunks and resurrects what it
// had superseded. ENOTFOUND for unknown IDs and other agents' chunks.
func (m *Memory) DeleteChunk(ctx context.Context, id string) (resurrected []string, err error) {
	deleted, resurrected, err := m.db.DeleteChunks(ctx, m.opts.AgentID, []string{id})
	if err != nil {
		return nil, err
	}
	if len(deleted) == 0 {
		return nil, hippo.Errorf(hippo.ENOTFOUND, "chunk %s not found", id)
	}
	return resurrected, nil
}

// UpdateChunk replaces a chunk's content, re-embedding it and recomputing
// its hash, in one transaction. ECONFLICT when a memory with the same
// content already exists in the chunk's scope.
func (m *Memory) UpdateChunk(ctx context.Context, id, content string) (*hippo.Chunk, error) {
	if err := hippo.ValidateText("content", content, m.cfg.MaxContent); err != nil {
		return nil, err
	}
	if _, err := getChunk(ctx, m.db.read, m.opts.AgentID, id); err != nil {
		return nil, err
	}
	vecs, err := hippo.Embed(ctx, m.opts.Embedder, []string{content}, 0)
	if err != nil {
		return nil, err
	}
	tx, err := m.db.write.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	if err := m.db.lockModelTx(ctx, tx, m.opts.Embedder.Model(), len(vecs[0])); err != nil {
		return nil, err
	}
	hash := ContentHash(content)
	_, err = tx.ExecContext(ctx, `UPDATE chunks SET content = ?, content_hash = ?, embedding = ?
		WHERE id = ? AND agent_id = ?`, content, hash, vector.Encode(vecs[0]), id, m.opts.AgentID)
	if err != nil {
		if isUniqueViolation(err) {
			return nil, hippo.Errorf(hippo.ECONFLICT, "a memory with this content already exists in scope %q", m.opts.Scope)
		}
		return nil, fmt.Errorf("update chunk: %w", err)
	}
	c, err := getChunk(ctx, tx, m.opts.AgentID, id)
	if err != nil {
		return nil, err
	}
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	m.db.checkpoint(ctx)
	return c, nil
}

// touch records that the agent is using its memory now (active decay
// clock only).
func (m *Memory) touch(ctx context.Context) error {
	return m.db.recordActivity(ctx, m.opts.AgentID)
}

// rawJSON is s as JSON, nil when empty.
func rawJSON(s string) json.RawMessage {
	if s == "" {
		return nil
	}
	return json.RawMessage(s)
}
