package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/vector"
)

// MemoryOptions binds a Memory to one agent and its scopes.
type MemoryOptions struct {
	// AgentID namespaces every chunk and block; required.
	AgentID string
	// Scope is where writes go (chunks and blocks); "" is the global scope.
	Scope string
	// RecallScopes filters Recall and Forget. nil searches every scope of
	// the agent; an empty non-nil slice searches none; otherwise exactly
	// the listed scopes ("" among them for the global scope).
	RecallScopes []string
	// MessagesTable enables SearchConversation over a consumer-owned table
	// and its <table>_fts FTS5 index.
	MessagesTable string

	Embedder   hippo.Embedder
	Extractor  hippo.Extractor
	Classifier hippo.Classifier
}

// Memory is one agent's view of the database; it implements
// hippo.MemoryService.
type Memory struct {
	db   *DB
	cfg  hippo.Config // the database's, with the embedder's thresholds
	opts MemoryOptions
}

var _ hippo.MemoryService = (*Memory)(nil)

var identRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,63}$`)

// ValidateTableName checks that name is a plain SQL identifier, so it can
// be quoted into a statement safely.
func ValidateTableName(name string) error {
	if !identRe.MatchString(name) {
		return hippo.Invalidf("messages_table", "%q is not a valid table name (letters, digits and _, starting with a letter or _, at most 64)", name)
	}
	return nil
}

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
		if err := ValidateTableName(opts.MessagesTable); err != nil {
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

// HasConversation reports whether a messages table is configured.
func (m *Memory) HasConversation() bool { return m.opts.MessagesTable != "" }

// embed embeds texts with one request and checks the result.
func (m *Memory) embed(ctx context.Context, texts []string) ([][]float32, error) {
	e := m.opts.Embedder
	if e == nil {
		return nil, hippo.Errorf(hippo.EINVALID, "no embedder configured")
	}
	vecs, err := e.Embed(ctx, texts)
	if err != nil {
		return nil, fmt.Errorf("embed: %w", err)
	}
	if len(vecs) != len(texts) {
		return nil, hippo.Errorf(hippo.EINTERNAL, "embedder %s returned %d vectors for %d texts", e.Model(), len(vecs), len(texts))
	}
	for i, v := range vecs {
		if err := vector.Check(v); err != nil {
			return nil, hippo.Errorf(hippo.EINTERNAL, "embedder %s returned a bad vector: %v", e.Model(), err)
		}
		if len(v) != len(vecs[0]) {
			return nil, hippo.Errorf(hippo.EINTERNAL, "embedder %s returned vectors of %d and %d dimensions", e.Model(), len(vecs[0]), len(vecs[i]))
		}
	}
	return vecs, nil
}

// scopeClause returns the SQL condition for the recall scope filter, and
// false when the filter matches nothing.
func (m *Memory) scopeClause() (string, []any, bool) {
	if m.opts.RecallScopes == nil {
		return "", nil, true
	}
	if len(m.opts.RecallScopes) == 0 {
		return "", nil, false
	}
	args := make([]any, len(m.opts.RecallScopes))
	for i, s := range m.opts.RecallScopes {
		args[i] = s
	}
	return ` AND scope IN (` + placeholders(len(args)) + `)`, args, true
}

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
	vecs, err := m.embed(ctx, []string{in.Content})
	if err != nil {
		return nil, err
	}
	now := m.db.now()
	c := &hippo.Chunk{
		ID: NewID(now), AgentID: m.opts.AgentID, Scope: m.opts.Scope, Kind: hippo.KindMemory,
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
		WHERE agent_id = ? AND scope = ? AND substr(content_hash, 1, 32) = substr(?, 1, 32) AND content_hash = ? AND kind = 'memory'`,
		m.opts.AgentID, m.opts.Scope, hash, hash))
	switch {
	case err == nil:
		now := m.db.now()
		existing.RunningIntensity = hippo.MovingAverage(existing.RunningIntensity, existing.EncounterCount, reading)
		existing.EncounterCount++
		existing.AccessCount++
		existing.LastAccessedAt = now
		if _, err := tx.ExecContext(ctx, `UPDATE chunks SET running_intensity = ?, encounter_count = ?,
			access_count = ?, last_accessed_at = ? WHERE id = ?`, existing.RunningIntensity,
			existing.EncounterCount, existing.AccessCount, formatTime(now), existing.ID); err != nil {
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
// distribution, for paging through results. In vector recall, total and
// distribution use the index's first-pass similarity, which is within
// about 0.01 of exact; in hybrid recall they are exact (see hybridRecall).
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
	q, ai, err := m.queryIndex(ctx, in.Query)
	if err != nil {
		return nil, err
	}
	sc := recallScan{in: in, k: in.Offset + limit, now: m.db.now().UnixMilli(), floor: cfg.StrengthFloor}
	if in.AsOf != nil {
		sc.floor = 0 // history does not fade away
	}
	sc.floor = max(sc.floor, in.MinStrength)
	if stats {
		sc.stats = &recallStats{}
	}
	page := &hippo.RecallPage{Results: []hippo.Recalled{}}
	var hits []recallHit
	ai.mu.RLock()
	sc.clock = ai.clock(m.db, sc.now)
	if ai.idx != nil {
		sc.filter = ai.recallFilter(in, m.opts.RecallScopes)
		if alpha == 0 {
			hits, err = m.vectorRecall(ctx, ai, q, &sc)
		} else {
			hits, page.Alpha, err = m.hybridRecall(ctx, ai, q, alpha, &sc)
		}
	}
	ai.mu.RUnlock()
	if err != nil {
		return nil, err
	}
	sc.stats.fill(page)
	if in.Offset >= len(hits) {
		return page, nil
	}
	page.Results, err = m.retrieve(ctx, hits[in.Offset:], sc.now, sc.clock)
	return page, err
}

// recallScan is what one recall scan works with.
type recallScan struct {
	in     hippo.RecallInput
	k      int // results wanted: offset + limit
	now    int64
	floor  float64
	clock  decayClock
	filter filter
	stats  *recallStats // nil unless counting matches
}

// recallHit is a chunk chosen by recall with the parts of its score.
type recallHit struct {
	id                             string
	meta                           chunkMeta
	cosine, bm25, relevance, score float64
}

// vectorRecall ranks by seed 000's score, the similarity being the cosine:
// recall with α = 0. Call with ai.mu held.
func (m *Memory) vectorRecall(ctx context.Context, ai *agentIndex, q []float32, sc *recallScan) ([]recallHit, error) {
	found, err := ai.idx.SearchBounded(ctx, q, sc.k, m.recallBound(sc), m.scorer(sc))
	if err != nil {
		return nil, err
	}
	hits := make([]recallHit, len(found))
	for i, h := range found {
		hits[i] = recallHit{id: h.ID, meta: h.Meta, cosine: h.Cosine, relevance: hippo.Clamp01(h.Cosine), score: h.Score}
	}
	return hits, nil
}

// recallBound is the ceiling of seed 000's score for the index's first
// pass: strength is at most the intensity (the index's prior) and recency
// at most 1. Counting matches (sc.stats) needs every row scored, so it
// bounds nothing then, nor with weights a ceiling cannot hold for.
func (m *Memory) recallBound(sc *recallScan) vector.Bound {
	cfg := m.cfg
	if sc.stats != nil || cfg.WeightSimilarity <= 0 || cfg.WeightStrength < 0 || cfg.WeightRecency < 0 {
		return vector.Bound{}
	}
	return vector.Bound{Sim: cfg.WeightSimilarity, Prior: cfg.WeightStrength, Const: cfg.WeightRecency}
}

// scorer is the recall ScoreFunc of seed 000, relevance being the cosine
// clamped to [0, 1] (what recallBound bounds): filters, strength floor and
// min_score applied, matches counted into sc.stats in the first pass.
func (m *Memory) scorer(sc *recallScan) vector.ScoreFunc[chunkMeta] {
	cfg, f := m.cfg, &sc.filter
	return func(c *chunkMeta, cos, bar float64, exact bool) (float64, bool) {
		if !f.allows(c) {
			return 0, false
		}
		r := hippo.Clamp01(cos)
		// Strength is at most the intensity and recency at most 1: skip
		// the exponentials for rows that cannot make the cut.
		if sc.stats == nil && cfg.Score(r, float64(c.intensity), 1) <= bar {
			return 0, false
		}
		score, ok := m.rowScore(sc, c, r)
		if ok && !exact {
			sc.stats.add(score, 1)
		}
		return score, ok
	}
}

// rowScore is the score of row c, which the filters let through, with
// relevance r, or false when the strength floor or min_score drop it.
func (m *Memory) rowScore(sc *recallScan, c *chunkMeta, r float64) (float64, bool) {
	st := c.strength(sc.clock)
	if st < sc.floor {
		return 0, false
	}
	score := m.cfg.Score(r, st, c.recency(m.cfg, sc.now))
	if score < sc.in.MinScore {
		return 0, false
	}
	return score, true
}

// hybridWindow is how many of the best eligible rows each side of hybrid
// recall min-max normalises over.
const hybridWindow = 50

// hybridRecall ranks by seed 000's score WeightSimilarity·relevance +
// WeightStrength·strength + WeightRecency·recency with
//
//	relevance = α·norm(BM25) + (1−α)·norm(cosine)
//
// both sides min-max normalised per query over their window: the
// hybridWindow best eligible chunks (those the filters and the strength
// floor let through) by that side's value, a chunk whose words do not
// match having BM25 0. norm(x) = clamp01((x−lo)/(hi−lo)), hi the window's
// best value and lo its last, or the least of all eligible chunks' when
// fewer than hybridWindow are eligible; when hi = lo, norm is 1 at hi and
// 0 below. So norm depends on the chunk's own value only, a chunk only one
// side finds still ranks, the other side scoring it 0, and a chunk outside
// both windows scores 0 on both: its score, WeightStrength·strength +
// WeightRecency·recency, does not depend on the query.
//
// That makes one pass over the vectors enough for the exact top k
// (vector.Index.Window): it finds the cosine window, exactly, and the k
// best chunks by that query-free score; with the BM25 window from the
// full-text index, they hold every chunk that can rank in the top k, and
// only they are scored whole. Nothing is dropped for speed: paging, totals
// and the strength floor work as in vector recall. Total counts every
// eligible chunk that reaches min_score, scored exactly (the chunks
// outside both windows by their query-free score), and the distribution
// is of those scores.
//
// When no eligible chunk matches a word, every BM25 is 0 and the window
// has no range: the recall is vectorRecall, seed 000's, as at α = 0, and
// the α returned, the one used, is 0. (α was once scaled by the share of
// the query's words, by IDF, that the budgeted full-text search kept; on
// eval/testdata that changed nothing, even with the budget cut to 40 rows,
// so the formula stays literal.) Call with ai.mu held.
func (m *Memory) hybridRecall(ctx context.Context, ai *agentIndex, q []float32, alpha float64, sc *recallScan) ([]recallHit, float64, error) {
	cfg, in, f := m.cfg, sc.in, &sc.filter
	eligible := func(c *chunkMeta) bool { return f.allows(c) && c.strength(sc.clock) >= sc.floor }
	bm, err := m.bm25Window(ctx, ai, in, eligible)
	if err != nil {
		return nil, 0, err
	}
	if len(bm) == 0 {
		hits, err := m.vectorRecall(ctx, ai, q, sc)
		return hits, 0, err
	}

	// The score without relevance, for every eligible chunk: counted into
	// the stats, then moved for the chunks in a window.
	base := func(c *chunkMeta, bar float64) (float64, bool) {
		if !f.allows(c) || sc.stats == nil && cfg.Score(0, float64(c.intensity), 1) < bar {
			return 0, false
		}
		score, ok := m.rowScore(sc, c, 0)
		if ok {
			sc.stats.add(score, 1)
		}
		return score, ok
	}
	near, best, err := ai.idx.Window(ctx, q, hybridWindow, eligible, sc.k, base)
	if err != nil {
		return nil, 0, err
	}
	if len(near) == 0 {
		return nil, alpha, nil // nothing eligible
	}
	cosW := window{hi: near[0].Cosine, lo: near[min(len(near), hybridWindow)-1].Cosine}
	bmW := window{hi: bm[0].bm25}
	switch {
	case len(bm) >= hybridWindow:
		bmW.lo = bm[hybridWindow-1].bm25
	case len(near) < hybridWindow && len(bm) == len(near):
		bmW.lo = bm[len(bm)-1].bm25 // every eligible chunk matches
	}

	type cand struct {
		recallHit
		windowed bool // in either window: scored other than by base
	}
	cands := make(map[string]*cand, len(near)+len(bm)+len(best))
	for _, h := range near {
		cands[h.ID] = &cand{recallHit{id: h.ID, meta: h.Meta, cosine: h.Cosine}, true}
	}
	for _, h := range best {
		if cands[h.ID] == nil {
			cands[h.ID] = &cand{recallHit: recallHit{id: h.ID, meta: h.Meta, cosine: h.Cosine}}
		}
	}
	// The BM25 window's chunks that neither cosine pass kept need their
	// exact cosine.
	var missing []string
	for _, b := range bm {
		if cands[b.id] == nil {
			missing = append(missing, b.id)
		}
	}
	cosines := make(map[string]float64, len(missing))
	if len(missing) > 0 {
		qv := vector.Normalize(append([]float32(nil), q...))
		if err := ai.idx.Vectors(ctx, missing, func(i int, v []float32) {
			cosines[missing[i]] = float64(vector.Dot(qv, v))
		}); err != nil {
			return nil, 0, err
		}
	}
	for _, b := range bm {
		c := cands[b.id]
		if c == nil {
			cos, ok := cosines[b.id]
			if !ok {
				continue // deleted since the index was brought up to date
			}
			c = &cand{recallHit: recallHit{id: b.id, meta: b.meta, cosine: cos}}
			cands[b.id] = c
		}
		c.bm25, c.windowed = b.bm25, true
	}
	hits := make([]recallHit, 0, len(cands))
	for _, c := range cands {
		st, rec := c.meta.strength(sc.clock), c.meta.recency(cfg, sc.now)
		c.relevance = alpha*bmW.norm(c.bm25) + (1-alpha)*cosW.norm(c.cosine)
		c.score = cfg.Score(c.relevance, st, rec)
		if c.windowed && sc.stats != nil {
			// Move the chunk from the band the scan counted it in.
			if b := cfg.Score(0, st, rec); b >= in.MinScore {
				sc.stats.add(b, -1)
			}
			if c.score >= in.MinScore {
				sc.stats.add(c.score, 1)
			}
		}
		if c.score >= in.MinScore {
			hits = append(hits, c.recallHit)
		}
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].score != hits[j].score {
			return hits[i].score > hits[j].score
		}
		return hits[i].id < hits[j].id
	})
	return hits[:min(len(hits), sc.k)], alpha, nil
}

// window is the range one side of hybrid recall is min-max normalised
// over.
type window struct{ lo, hi float64 }

// norm maps x into [0, 1]: hi and above to 1, lo and below to 0. A window
// of one value maps it to 1.
func (w window) norm(x float64) float64 {
	if w.hi <= w.lo {
		if x >= w.hi {
			return 1
		}
		return 0
	}
	return hippo.Clamp01((x - w.lo) / (w.hi - w.lo))
}

// recallStats counts matches by score band, safely from the parallel scan.
// A nil *recallStats counts nothing.
type recallStats struct {
	total   atomic.Int64
	buckets [5]atomic.Int64
}

// add counts n matches (n < 0 takes them back) scoring score.
func (s *recallStats) add(score float64, n int64) {
	if s == nil {
		return
	}
	s.total.Add(n)
	s.buckets[min(4, max(0, int(score*5)))].Add(n)
}

// fill sets page's total and distribution.
func (s *recallStats) fill(page *hippo.RecallPage) {
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

// queryIndex embeds text and returns its vector with the agent's index,
// brought up to date in the same snapshot that checks the vector against
// the model lock.
func (m *Memory) queryIndex(ctx context.Context, text string) ([]float32, *agentIndex, error) {
	vecs, err := m.embed(ctx, []string{text})
	if err != nil {
		return nil, nil, err
	}
	ai, err := m.db.queryIndex(ctx, m.opts.AgentID, &queryLock{model: m.opts.Embedder.Model(), dim: len(vecs[0])})
	if err != nil {
		return nil, nil, err
	}
	return vecs[0], ai, nil
}

// retrieve applies the retrieval boost to the chosen chunks and reads them
// back, in one write transaction. Chunks deleted since the search are
// dropped.
func (m *Memory) retrieve(ctx context.Context, hits []recallHit, now int64, clock decayClock) ([]hippo.Recalled, error) {
	if len(hits) == 0 {
		return []hippo.Recalled{}, nil
	}
	// "+agent_id" keeps the planner on the primary key rather than the
	// agent's index.
	upd := `UPDATE chunks SET access_count = access_count + 1,
		last_accessed_at = ?, running_intensity = MIN(1.0, running_intensity + ?)
		WHERE id IN (` + placeholders(len(hits)) + `) AND +agent_id = ? RETURNING ` + recalledColumns
	args := make([]driver.NamedValue, 0, len(hits)+3)
	for _, v := range []any{formatTime(time.UnixMilli(now)), m.cfg.RetrievalBoost} {
		args = append(args, driver.NamedValue{Ordinal: len(args) + 1, Value: v})
	}
	for _, h := range hits {
		args = append(args, driver.NamedValue{Ordinal: len(args) + 1, Value: h.id})
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
		c, ok := byID[h.id]
		if !ok {
			continue // deleted since the search
		}
		out = append(out, hippo.Recalled{Chunk: c, Similarity: h.cosine, BM25: h.bm25, Relevance: h.relevance,
			Strength: h.meta.strength(clock), Recency: h.meta.recency(m.cfg, now), Score: h.score})
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
	ai.mu.Lock()
	defer ai.mu.Unlock()
	if ai.seq != before || ai.idx == nil {
		return
	}
	for _, r := range out {
		c := r.Chunk
		meta, ok := ai.idx.Meta(c.ID)
		if !ok {
			return // not in the index: leave it to the next sync
		}
		meta.intensity = float32(c.RunningIntensity)
		meta.decayRate = float32(m.db.cfg.Lambda / m.db.cfg.DecayResistance(c.AccessCount))
		meta.lastAccess = c.LastAccessedAt.UnixMilli()
		ai.idx.SetMeta(c.ID, meta)
	}
	ai.seq = after
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
	q, ai, err := m.queryIndex(ctx, in.Description)
	if err != nil {
		return nil, err
	}
	type match struct {
		id         string
		similarity float64
	}
	var matches []match
	ai.mu.RLock()
	if ai.idx != nil {
		f := ai.newFilter("", m.opts.RecallScopes)
		err = ai.idx.Range(ctx, q, threshold, func(id string, c *chunkMeta, cos float64) {
			if cos >= threshold && f.allows(c) {
				matches = append(matches, match{id, cos})
			}
		})
	}
	ai.mu.RUnlock()
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
	vecs, err := m.embed(ctx, []string{content})
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
		if strings.Contains(err.Error(), "UNIQUE") {
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
