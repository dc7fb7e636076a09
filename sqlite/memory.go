package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/engine"
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

// MaxOffset bounds recall paging.
const MaxOffset = engine.MaxOffset

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

func (m *Memory) recall(ctx context.Context, in hippo.RecallInput, stats bool) (*hippo.RecallPage, error) {
	if in.DryRun {
		// Look without touching: no activity hour, no boost (retrieve).
	} else if err := m.touch(ctx); err != nil {
		return nil, err
	}
	rq, err := engine.PrepareRecall(m.cfg, in, m.opts.RecallScopes)
	if err != nil {
		return nil, err
	}
	qs, ai, err := m.embedQuery(ctx, rq.Texts...)
	if err != nil {
		return nil, err
	}
	return engine.RecallPage(ctx, m.cfg, ai, m.db.activeClock, rq, qs, m.db.now().UnixMilli(), stats, recallStore{m})
}

// recallStore is the store side of a recall (engine.RecallStore).
type recallStore struct{ m *Memory }

// TextScores implements engine.RecallStore with FTS5 (bm25Scores).
func (s recallStore) TextScores(ctx context.Context, ai *engine.Index, in hippo.RecallInput) (map[int64]float64, float64, error) {
	return s.m.bm25Scores(ctx, ai, in)
}

// Boost implements engine.RecallStore: one UPDATE … RETURNING on the
// write connection, without waiting for the disk.
func (s recallStore) Boost(ctx context.Context, ids []string, now int64) (map[string]*hippo.Chunk, int64, int64, error) {
	return s.m.boost(ctx, ids, now)
}

// Peek implements engine.RecallStore: the chunks as stored, read without
// the write lock (a dry run).
func (s recallStore) Peek(ctx context.Context, ids []string) (map[string]*hippo.Chunk, error) {
	args := make([]any, 0, len(ids)+1)
	for _, id := range ids {
		args = append(args, id)
	}
	args = append(args, s.m.opts.AgentID)
	cs, err := s.m.db.queryChunks(ctx, s.m.db.read, `SELECT `+recalledColumns+` FROM chunks WHERE id IN (`+
		placeholders(len(ids))+`) AND +agent_id = ?`, args...)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]*hippo.Chunk, len(cs))
	for _, c := range cs {
		byID[c.ID] = c
	}
	return byID, nil
}

// embedQuery embeds texts and returns its vector with the agent's index,
// brought up to date in the same snapshot that checks the vector against
// the model lock.
func (m *Memory) embedQuery(ctx context.Context, texts ...string) ([][]float32, *engine.Index, error) {
	vecs, err := hippo.Embed(ctx, m.opts.Embedder, texts, 0)
	if err != nil {
		return nil, nil, err
	}
	ai, err := m.db.syncIndexFor(ctx, m.opts.AgentID, &ModelLock{Model: m.opts.Embedder.Model(), Dimension: len(vecs[0])})
	if err != nil {
		return nil, nil, err
	}
	return vecs, ai, nil
}

// boost applies the retrieval boost to the chosen chunks and reads them
// back, in one write transaction, with the change-log positions before and
// after it. Chunks deleted since the search are missing.
func (m *Memory) boost(ctx context.Context, ids []string, now int64) (map[string]*hippo.Chunk, int64, int64, error) {
	if len(ids) == 0 {
		return nil, 0, 0, nil
	}
	// "+agent_id" keeps the planner on the primary key rather than the
	// agent's index.
	upd := `UPDATE chunks SET access_count = access_count + 1,
		last_accessed_at = ?, running_intensity = ` + boostFunc + `(running_intensity, ?)
		WHERE id IN (` + placeholders(len(ids)) + `) AND +agent_id = ? RETURNING ` + recalledColumns
	args := make([]driver.NamedValue, 0, len(ids)+3)
	for _, v := range []any{formatTime(time.UnixMilli(now)), m.cfg.RetrievalBoost} {
		args = append(args, driver.NamedValue{Ordinal: len(args) + 1, Value: v})
	}
	for _, id := range ids {
		args = append(args, driver.NamedValue{Ordinal: len(args) + 1, Value: id})
	}
	args = append(args, driver.NamedValue{Ordinal: len(args) + 1, Value: m.opts.AgentID})
	byID := make(map[string]*hippo.Chunk, len(ids))
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
		return nil, 0, 0, fmt.Errorf("boost chunks: %w", err)
	}
	m.db.maybePrune(ctx)
	// The transaction held the write lock, and the boost's trigger logged
	// one change per chunk, numbered on from the last: so the log stood at
	// after minus their number before it.
	return byID, after - int64(len(byID)), after, nil
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
	ai.Mu.RLock()
	matches, err := engine.FindForget(ctx, ai, qs[0], threshold, m.opts.RecallScopes)
	ai.Mu.RUnlock()
	if err != nil {
		return nil, err
	}
	res := &hippo.ForgetResult{Deleted: []hippo.Forgotten{}}
	if len(matches) == 0 {
		return res, nil
	}
	// A dry run reads; a forget reads and deletes in one write
	// transaction. Matches are read back in batches, without their
	// vectors.
	var rq querier = m.db.read
	var tx *sql.Tx
	if !in.DryRun {
		if tx, err = m.db.write.BeginTx(ctx, nil); err != nil {
			return nil, err
		}
		defer tx.Rollback()
		rq = tx
	}
	byID := make(map[string]*hippo.Chunk, len(matches))
	const batch = 500
	for start := 0; start < len(matches); start += batch {
		part := matches[start:min(start+batch, len(matches))]
		args := make([]any, 0, len(part)+1)
		for _, c := range part {
			args = append(args, c.ID)
		}
		args = append(args, m.opts.AgentID)
		cs, err := m.db.queryChunks(ctx, rq, `SELECT `+recalledColumns+` FROM chunks WHERE id IN (`+placeholders(len(part))+`) AND +agent_id = ?`, args...)
		if err != nil {
			return nil, err
		}
		for _, c := range cs {
			byID[c.ID] = c
		}
	}
	ids := make([]string, 0, len(matches))
	for _, c := range matches {
		ch, ok := byID[c.ID]
		if !ok || ch.SupersededBy != "" {
			continue // deleted or superseded since the search
		}
		res.Deleted = append(res.Deleted, hippo.Forgotten{ID: ch.ID, Kind: ch.Kind, Content: ch.Content, Similarity: c.Similarity})
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
	if hippo.Looking(ctx) { // a look records no activity
		return nil
	}
	return m.db.recordActivity(ctx, m.opts.AgentID)
}

// rawJSON is s as JSON, nil when empty.
func rawJSON(s string) json.RawMessage {
	if s == "" {
		return nil
	}
	return json.RawMessage(s)
}
