package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
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
// distribution, for paging through results. Total and distribution use
// the index's first-pass similarity, which is within about 0.01 of exact
// (see search).
func (m *Memory) RecallPage(ctx context.Context, in hippo.RecallInput) (*hippo.RecallPage, error) {
	return m.recall(ctx, in, true)
}

// MaxOffset bounds recall paging.
const MaxOffset = 10_000

func (m *Memory) recall(ctx context.Context, in hippo.RecallInput, stats bool) (*hippo.RecallPage, error) {
	if in.DryRun {
		// Look without touching: no activity hour, no boost (retrieve).
	} else if err := m.touch(ctx); err != nil {
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
	qs, ai, err := m.queryIndex(ctx, texts...)
	if err != nil {
		return nil, err
	}
	sc := recallScan{in: in, k: in.Offset + limit, now: m.db.now().UnixMilli(), floor: cfg.StrengthFloor, minRel: minRel}
	if in.AsOf != nil {
		sc.floor = 0 // history does not fade away
	}
	sc.floor = max(sc.floor, in.MinStrength)
	if stats {
		sc.stats = &recallStats{}
	}
	page := &hippo.RecallPage{Results: []hippo.Recalled{}, MinRelevance: minRel}
	var hits []recallHit
	ai.mu.RLock()
	sc.clock = ai.clock(m.db, sc.now)
	if ai.idx != nil {
		sc.filter = ai.recallFilter(in, m.opts.RecallScopes)
		if sc.alpha = alpha; alpha > 0 {
			sc.bm25, sc.bm25Max, err = m.bm25Scores(ctx, ai, in)
		}
		if err == nil {
			hits, err = m.searchVoices(ctx, ai, qs, &sc)
		}
	}
	ai.mu.RUnlock()
	if err != nil {
		return nil, err
	}
	page.Alpha = alpha
	sc.stats.fill(page)
	if in.Offset >= len(hits) {
		return page, nil
	}
	if in.DryRun {
		page.Results, err = m.peek(ctx, hits[in.Offset:], sc.now, sc.clock)
	} else {
		page.Results, err = m.retrieve(ctx, hits[in.Offset:], sc.now, sc.clock)
	}
	return page, err
}

// recallScan is what one recall scan works with.
type recallScan struct {
	in     hippo.RecallInput
	k      int // results wanted: offset + limit
	now    int64
	floor  float64 // strength floor
	minRel float64 // relevance floor
	alpha  float64 // weight of BM25
	// bm25 is the BM25 score of the rows matching the query's words, by
	// rowid, and bm25Max the highest; nil in pure vector recall.
	bm25    map[int64]float64
	bm25Max float64
	clock   decayClock
	filter  filter
	stats   *recallStats // nil unless counting matches
}

// recallHit is a chunk chosen by recall with the parts of its score.
type recallHit struct {
	id                             string
	meta                           chunkMeta
	cosine, bm25, relevance, score float64
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
func (m *Memory) search(ctx context.Context, ai *agentIndex, q []float32, sc *recallScan) ([]recallHit, error) {
	found, err := ai.idx.SearchBounded(ctx, q, sc.k, m.recallBound(sc), m.scorer(sc))
	if err != nil {
		return nil, err
	}
	hits := make([]recallHit, len(found))
	for i, h := range found {
		b := sc.bm25[h.Meta.rowid]
		hits[i] = recallHit{id: h.ID, meta: h.Meta, cosine: h.Cosine, bm25: b,
			relevance: m.cfg.SizedRelevance(h.Cosine, b, int(h.Meta.size), sc.alpha), score: h.Score}
	}
	return hits, nil
}

// searchVoices is search with qs[0], the query as written, or, when qs
// holds its fact voice as well, facts searched with qs[1] and memories with
// qs[0]: the two kinds are disjoint, so the best of the two exact top k
// are the exact top k. Call with ai.mu held.
func (m *Memory) searchVoices(ctx context.Context, ai *agentIndex, qs [][]float32, sc *recallScan) ([]recallHit, error) {
	if len(qs) == 1 {
		return m.search(ctx, ai, qs[0], sc)
	}
	facts, memories := *sc, *sc
	facts.filter.kind, memories.filter.kind = hippo.KindFact, hippo.KindMemory
	hits, err := m.search(ctx, ai, qs[1], &facts)
	if err != nil || sc.filter.kind == hippo.KindFact {
		return hits, err
	}
	more, err := m.search(ctx, ai, qs[0], &memories)
	if err != nil {
		return nil, err
	}
	hits = append(hits, more...)
	slices.SortStableFunc(hits, func(a, b recallHit) int { return cmp.Compare(b.score, a.score) })
	return hits[:min(len(hits), sc.k)], nil
}

// recallBound is the ceiling of the score for the index's first pass:
// strength is at most the intensity (the index's prior), recency at most
// 1, the BM25 side at most its best match's, and the cosine's relevance at
// most max(0, cosine)/CosineStrong when 0 ≤ CosineUnrelated < CosineStrong
// < 1. Counting
// matches (sc.stats) needs every row scored, so it bounds nothing then,
// nor with weights or levels a ceiling cannot hold for.
func (m *Memory) recallBound(sc *recallScan) vector.Bound {
	cfg := m.cfg
	if sc.stats != nil || cfg.WeightSimilarity <= 0 || cfg.WeightStrength < 0 || cfg.WeightRecency < 0 ||
		!(cfg.CosineUnrelated >= 0 && cfg.CosineStrong > cfg.CosineUnrelated && cfg.CosineStrong < 1) || sc.alpha >= 1 {
		return vector.Bound{}
	}
	// hippo.Fuse(rc, rb) ≤ rc + (1 − (1−rb)^wb), and rc ≤ cosine/CosineStrong.
	bm := 0.0
	if sc.alpha > 0 {
		_, wb := hippo.FuseWeights(sc.alpha)
		bm = 1 - hippo.Pow1m(cfg.BM25Relevance(sc.bm25Max), wb)
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
func (m *Memory) scorer(sc *recallScan) vector.ScoreFunc[chunkMeta] {
	cfg, f, alpha := m.cfg, &sc.filter, sc.alpha
	// rel fuses a cosine relevance with a BM25 relevance (hippo.Fuse).
	rel := func(rc, rb float64) float64 { return hippo.Fuse(rc, rb, alpha) }
	bmMax := 0.0
	if alpha > 0 {
		bmMax = cfg.BM25Relevance(sc.bm25Max)
	}
	return func(c *chunkMeta, cos, bar float64, exact bool) (float64, bool) {
		// rc is the cosine's relevance, long content discounted; most,
		// its value at the far end of the first pass's error, for the
		// cuts. The discount only lowers a score, so the bounds hold.
		fc, fb := cfg.LengthFactors(int(c.size))
		rc := cfg.CosineRelevance(cos) * fc
		most := rc
		if !exact {
			most = cfg.CosineRelevance(cos+firstPassSlack) * fc
		}
		// Most rows of a large memory are unrelated to the query: drop
		// those the floor rules out, however well their words match,
		// before anything else.
		if rel(most, bmMax) < sc.minRel || !f.allows(c) {
			return 0, false
		}
		// Strength is at most the intensity, recency at most 1 and the
		// BM25 side at most the best match's: skip the look-up and the
		// exponentials for rows that cannot make the cut.
		if sc.stats == nil && cfg.Score(rel(rc, bmMax), float64(c.intensity), 1) <= bar {
			return 0, false
		}
		rb := 0.0
		if sc.bm25 != nil && alpha > 0 {
			rb = cfg.BM25Relevance(sc.bm25[c.rowid] * fb)
		}
		if rel(most, rb) < sc.minRel {
			return 0, false
		}
		st := c.strength(sc.clock)
		if st < sc.floor {
			return 0, false
		}
		rec := c.recency(cfg, sc.now)
		r := rel(rc, rb)
		score := cfg.Score(r, st, rec)
		if cfg.Score(rel(most, rb), st, rec) < sc.in.MinScore {
			return 0, false
		}
		if !exact && r >= sc.minRel && score >= sc.in.MinScore {
			sc.stats.add(score, 1)
		}
		return score, true
	}
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
func (m *Memory) queryIndex(ctx context.Context, texts ...string) ([][]float32, *agentIndex, error) {
	vecs, err := m.embed(ctx, texts)
	if err != nil {
		return nil, nil, err
	}
	ai, err := m.db.queryIndex(ctx, m.opts.AgentID, &queryLock{model: m.opts.Embedder.Model(), dim: len(vecs[0])})
	if err != nil {
		return nil, nil, err
	}
	return vecs, ai, nil
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
		out = append(out, m.recalled(c, h, now, clock))
	}
	// The transaction held the write lock, and the boost's trigger logged
	// one change per chunk, numbered on from the last: so the log stood at
	// after minus their number before it.
	m.foldBoost(out, after-int64(len(byID)), after)
	m.db.maybePrune(ctx)
	return out, nil
}

// recalled is a hit as a result, with the parts of its score.
func (m *Memory) recalled(c *hippo.Chunk, h recallHit, now int64, clock decayClock) hippo.Recalled {
	rc, rb := m.cfg.SizedParts(h.cosine, h.bm25, int(h.meta.size))
	return hippo.Recalled{Chunk: c, Similarity: h.cosine, BM25: h.bm25,
		LengthExcess:    m.cfg.LengthExcess(int(h.meta.size)),
		CosineRelevance: rc, BM25Relevance: rb,
		Relevance: h.relevance, Strength: h.meta.strength(clock), Recency: h.meta.recency(m.cfg, now), Score: h.score}
}

// peek is retrieve without the boost: the hits' chunks as stored.
func (m *Memory) peek(ctx context.Context, hits []recallHit, now int64, clock decayClock) ([]hippo.Recalled, error) {
	args := make([]any, 0, len(hits)+1)
	for _, h := range hits {
		args = append(args, h.id)
	}
	args = append(args, m.opts.AgentID)
	cs, err := m.db.queryChunks(ctx, m.db.read, `SELECT `+recalledColumns+` FROM chunks WHERE id IN (`+
		placeholders(len(hits))+`) AND +agent_id = ?`, args...)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]*hippo.Chunk, len(cs))
	for _, c := range cs {
		byID[c.ID] = c
	}
	out := make([]hippo.Recalled, 0, len(byID))
	for _, h := range hits {
		if c, ok := byID[h.id]; ok {
			out = append(out, m.recalled(c, h, now, clock))
		}
	}
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
	qs, ai, err := m.queryIndex(ctx, in.Description)
	if err != nil {
		return nil, err
	}
	q := qs[0]
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
