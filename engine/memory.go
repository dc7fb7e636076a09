package engine

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/trust"
)

// Store is the store side of one agent's memory: what Memory needs of a
// backend, bound to the agent (and its scopes) by the backend.
type Store interface {
	RecallStore
	// ContentRows reads the agent's chunks by ID: rows of (id, content).
	ContentRows(ctx context.Context, ids []string) (Rows, error)
	// Update runs fn in one write transaction, serialised with every other
	// writer of the agent (across processes), and commits it when fn
	// returns nil: fn's writes are durable when Update returns nil, and
	// none of them is when it returns an error. A store may run concurrent
	// calls' fns in one transaction, each in a savepoint of its own (group
	// commit), as long as each call keeps that all-or-nothing.
	Update(ctx context.Context, fn func(Tx) error) error
	// View runs fn in one read-only snapshot.
	View(ctx context.Context, fn func(Tx) error) error
	// AfterBulkWrite is called after a write that deleted or rewrote
	// chunks' text (sqlite: a WAL checkpoint, so that forgotten text does
	// not linger). It cannot fail.
	AfterBulkWrite(ctx context.Context)

	// ListBlocks lists the agent's blocks of one scope, by key.
	ListBlocks(ctx context.Context, scope string) ([]hippo.BlockInfo, error)
	// SearchConversation is the best limit messages of the consumer's
	// table (a validated name) matching query's words, best first:
	// EINVALID when the table or its text index is missing.
	SearchConversation(ctx context.Context, table, query string, limit int) ([]hippo.ConversationHit, error)
}

// Tx is one transaction of a Store over the agent's chunks.
type Tx interface {
	FactWriter
	// SameMemory is the memory (kind memory) in scope with this content
	// hash, nil when there is none.
	SameMemory(ctx context.Context, scope, hash string) (*hippo.Chunk, error)
	// SameMemories is SameMemory for at most BatchRows hashes: the
	// memories found (and maybe others sharing a hash's first 32
	// characters).
	SameMemories(ctx context.Context, scope string, hashes []string) ([]*hippo.Chunk, error)
	// InsertMany inserts at most BatchRows chunks, their IDs set, as
	// Insert does, in as few statements as the store can.
	InsertMany(ctx context.Context, cs []*hippo.Chunk) error
	// LockModel takes the model lock for model and dim, or checks it:
	// ECONFLICT when it holds another.
	LockModel(ctx context.Context, model string, dim int) error
	// Recalled reads chunks by ID without their vectors; missing ones are
	// absent.
	Recalled(ctx context.Context, ids []string) ([]*hippo.Chunk, error)
	// GetBlock is the agent's block key of scope, nil when missing.
	GetBlock(ctx context.Context, scope, key string) (*hippo.Block, error)
	// PutBlock writes a block's value, creating the block when missing.
	PutBlock(ctx context.Context, scope, key, value string, at time.Time) error
	// DescribeBlock writes a block's description, creating the block
	// empty when missing.
	DescribeBlock(ctx context.Context, scope, key, description string, at time.Time) error
	// DeleteBlock deletes a block; false when there was none.
	DeleteBlock(ctx context.Context, scope, key string) (bool, error)
	// Supersedes reports whether any chunk is superseded by id.
	Supersedes(ctx context.Context, id string) (bool, error)
	ChunkDeleter
	// SetContent replaces a chunk's content, hash and vector: ECONFLICT
	// when a memory with that content exists in its scope.
	SetContent(ctx context.Context, id, content, hash string, vec, parts []float32) error
	// SetSuspicious sets why the agent's chunk id reads as instructions
	// to the agent, "" clearing the flag: ENOTFOUND when there is no
	// such chunk.
	SetSuspicious(ctx context.Context, id, reason string) error
	// PutInput keeps the text facts were extracted from, once per agent
	// and hash (hippo.Provenance.InputHash). The store deletes it with the
	// last chunk whose InputHash names it, however that chunk goes.
	PutInput(ctx context.Context, hash, text string, at time.Time) error
	// Enqueue queues a text for async remember_facts and returns its ID.
	Enqueue(ctx context.Context, p PendingText) (int64, error)
	// PendingTexts reads up to limit of the agent's queued texts, oldest
	// first.
	PendingTexts(ctx context.Context, limit int) ([]PendingText, error)
	// DonePending deletes the queued text id; false when it was gone.
	DonePending(ctx context.Context, id int64) (bool, error)
	// DropPending deletes the agent's queued texts with this hash.
	DropPending(ctx context.Context, hash string) error
	// DropInput deletes the agent's input text with this hash and
	// clears the InputHash of the chunks that name it: the text was
	// forgotten.
	DropInput(ctx context.Context, hash string) error
	// Input is the agent's input text with this hash; false when none is
	// kept.
	Input(ctx context.Context, hash string) (string, bool, error)
	// SameFact is the live fact in scope with this content hash, nil when
	// there is none.
	SameFact(ctx context.Context, scope, hash string) (*hippo.Chunk, error)
	// SetMetadata replaces a chunk's metadata JSON ("" for none).
	SetMetadata(ctx context.Context, id, metadata string) error
}

// Memory is one agent's memory over a Store: it implements
// hippo.AgentMemory.
type Memory struct {
	s     Store
	clock *Clock
	x     *Indexes
	cfg   hippo.Config
	opts  hippo.MemoryOptions
	// pending, when not 0, is the queued text this memory learns
	// (LearnPending): its row goes in the transaction that applies the
	// facts, and the text was kept when it was queued.
	pending int64
}

var _ hippo.AgentMemory = (*Memory)(nil)

// NewMemory returns the memory of opts.AgentID over s, decaying by
// clock, whose indexes x caches. cfg is the store's configuration with
// the embedder's thresholds; opts must be valid (ValidateOptions).
func NewMemory(s Store, clock *Clock, x *Indexes, cfg hippo.Config, opts hippo.MemoryOptions) *Memory {
	return &Memory{s: s, clock: clock, x: x, cfg: cfg, opts: opts}
}

// ValidateOptions checks opts and returns them with RecallScopes copied.
func ValidateOptions(opts hippo.MemoryOptions) (hippo.MemoryOptions, error) {
	if err := hippo.ValidateAgentID(opts.AgentID); err != nil {
		return opts, err
	}
	if err := hippo.ValidateScope(opts.Scope); err != nil {
		return opts, err
	}
	for _, s := range opts.RecallScopes {
		if err := hippo.ValidateScope(s); err != nil {
			return opts, err
		}
	}
	if opts.MessagesTable != "" {
		if err := hippo.ValidateTableName(opts.MessagesTable); err != nil {
			return opts, err
		}
	}
	if opts.RecallScopes != nil {
		opts.RecallScopes = append([]string{}, opts.RecallScopes...)
	}
	return opts, nil
}

// Config is the configuration this memory works with: the store's, with
// the embedder's own thresholds when it carries them.
func (m *Memory) Config() hippo.Config { return m.cfg }

// AgentID is the agent this memory belongs to.
func (m *Memory) AgentID() string { return m.opts.AgentID }

// Options are the options the memory was bound with.
func (m *Memory) Options() hippo.MemoryOptions { return m.opts }

// touch records that the agent is using its memory now (active decay
// clock only); a memory bound for looking (MemoryOptions.Look) records
// nothing.
func (m *Memory) touch(ctx context.Context) error {
	if m.opts.Look {
		return nil
	}
	return m.clock.Record(ctx, m.opts.AgentID)
}

// StoreMemory implements hippo.MemoryService.
func (m *Memory) StoreMemory(ctx context.Context, in hippo.StoreInput) (*hippo.StoreResult, error) {
	if err := m.touch(ctx); err != nil {
		return nil, err
	}
	it, err := m.storeItem(in)
	if err != nil {
		return nil, err
	}

	// A verbatim repeat needs no embedding: look before paying for one,
	// in a read (a new memory, the common case, then takes one write
	// transaction, not two), and strengthen it under the write lock if it
	// is there.
	seen, err := m.hasMemory(ctx, it.hash)
	if err != nil {
		return nil, fmt.Errorf("look up memory: %w", err)
	}
	if seen {
		if res, err := m.strengthenMemory(ctx, it.hash, it.reading, nil, nil); err != nil || res != nil {
			return res, err
		}
	}
	after, err := m.after(ctx, in.Content)
	if err != nil {
		return nil, err
	}
	vecs, parts, err := m.embedParts(ctx, []string{in.Content}, []string{after.before()})
	if err != nil {
		return nil, err
	}
	c := m.newMemory(it, vecs[0], m.clock.Now())
	c.Parts = parts[0]
	return m.strengthenMemory(ctx, it.hash, it.reading, c, after)
}

// embedContent embeds content as the new content of chunk c: with parts
// for a memory (stored as given or kept by remember_facts), without for a
// fact. A follow-up's part read after the memory before it is not made
// again (the edit drops its link).
func (m *Memory) embedContent(ctx context.Context, c *hippo.Chunk, content string) (vec, parts []float32, err error) {
	if c.Kind == hippo.KindMemory {
		vecs, ps, err := m.embedParts(ctx, []string{content}, nil)
		if err != nil {
			return nil, nil, err
		}
		return vecs[0], ps[0], nil
	}
	vecs, err := hippo.Embed(ctx, m.opts.Embedder, []string{content}, 0)
	if err != nil {
		return nil, nil, err
	}
	return vecs[0], nil, nil
}

// embedParts embeds memories' contents in one request with their parts
// (embedParts), a follow-up's read after the text after names.
func (m *Memory) embedParts(ctx context.Context, texts, after []string) (vecs, parts [][]float32, err error) {
	return embedParts(ctx, m.opts.Embedder, m.cfg, texts, 0, nil, after)
}

// MemoryChecker is a Store that tells whether a memory exists in one
// statement, outside a transaction: a read snapshot costs a store more
// than the look-up it would hold.
type MemoryChecker interface {
	// HasMemory reports whether the agent has a memory (kind memory) in
	// scope with this content hash.
	HasMemory(ctx context.Context, scope, hash string) (bool, error)
}

// hasMemory reports whether a memory of the scope has this content hash,
// read in one statement (MemoryChecker) or a read snapshot.
func (m *Memory) hasMemory(ctx context.Context, hash string) (bool, error) {
	if mc, ok := m.s.(MemoryChecker); ok {
		return mc.HasMemory(ctx, m.opts.Scope, hash)
	}
	var seen bool
	err := m.s.View(ctx, func(tx Tx) error {
		c, err := tx.SameMemory(ctx, m.opts.Scope, hash)
		seen = c != nil
		return err
	})
	return seen, err
}

// storing is one valid store_memory input, hashed and with its reading.
type storing struct {
	in      hippo.StoreInput
	meta    json.RawMessage
	hash    string
	reading float64
}

// storeItem validates a store_memory input.
func (m *Memory) storeItem(in hippo.StoreInput) (storing, error) {
	if err := hippo.ValidateText("content", in.Content, m.cfg.MaxContent); err != nil {
		return storing{}, err
	}
	meta, err := hippo.ValidateMetadata(in.Metadata)
	if err != nil {
		return storing{}, err
	}
	if err := hippo.ValidateSource(in.Source); err != nil {
		return storing{}, err
	}
	it := storing{in: in, hash: hippo.ContentHash(in.Content), reading: m.cfg.DefaultIntensity}
	if meta != "" {
		it.meta = json.RawMessage(meta)
	}
	if in.Intensity != nil {
		it.reading = m.cfg.ClampIntensity(*in.Intensity)
	}
	return it, nil
}

// newMemory is the chunk a new memory of it is, flagged when it reads as
// instructions to the agent.
func (m *Memory) newMemory(it storing, vec []float32, now time.Time) *hippo.Chunk {
	c := &hippo.Chunk{
		AgentID: m.opts.AgentID, Scope: m.opts.Scope, Kind: hippo.KindMemory,
		Content: it.in.Content, ContentHash: it.hash, Embedding: vec, Metadata: it.meta,
		RunningIntensity: it.reading, EncounterCount: 1, LastAccessedAt: now, CreatedAt: now,
		Provenance: m.provenance(hippo.OriginStoreMemory, it.in.Source, ""),
	}
	flagChunk(c)
	return c
}

// provenance is the provenance of a chunk this memory writes now.
func (m *Memory) provenance(origin, source, inputHash string) *hippo.Provenance {
	return &hippo.Provenance{Origin: origin, Caller: m.caller(), Source: source, InputHash: inputHash}
}

// caller is who writes through this memory (MemoryOptions.Caller).
func (m *Memory) caller() string {
	if m.opts.Caller == "" {
		return hippo.CallerLibrary
	}
	return m.opts.Caller
}

// flagChunk sets c's trust flag from its content (trust.Check): suspicious,
// with the reasons, when it reads as instructions to the agent.
func flagChunk(c *hippo.Chunk) {
	v := trust.Check(c.Content)
	c.Suspicious, c.SuspiciousReason = v.Suspicious, v.Reason()
}

// strengthenMemory, in one write transaction, strengthens the memory with
// this hash if it exists; otherwise it inserts c (when given), a follow-up
// of after (nil: none). Doing both under the write lock makes concurrent
// identical stores insert once.
func (m *Memory) strengthenMemory(ctx context.Context, hash string, reading float64, c *hippo.Chunk, after *followUp) (*hippo.StoreResult, error) {
	var res *hippo.StoreResult
	err := m.s.Update(ctx, func(tx Tx) error {
		var err error
		res, err = m.putMemory(ctx, tx, hash, reading, c, after, m.clock.Now(), true)
		return err
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// putMemory, through tx, strengthens the memory of the scope with this
// hash at now if it exists; otherwise it inserts c (when given), a
// follow-up of after (nil: none), taking the model lock first unless the
// caller holds it (lock false). nil when there is neither.
//
// A new memory is inserted without looking first: the insert writes
// nothing and fails with ECONFLICT when the scope holds its content (the
// stores' dedup index), and only then is the memory read and strengthened.
// store_memory has just looked outside the transaction, so a repeat found
// here is rare, and the read it saves was a tenth of a new memory's write.
func (m *Memory) putMemory(ctx context.Context, tx Tx, hash string, reading float64, c *hippo.Chunk, after *followUp, now time.Time, lock bool) (*hippo.StoreResult, error) {
	var taken error
	if c != nil {
		err := m.insertMemory(ctx, tx, c, after, lock)
		if err == nil {
			return &hippo.StoreResult{Chunk: c}, nil
		}
		if hippo.ErrorCode(err) != hippo.ECONFLICT {
			return nil, err
		}
		// Taken by a memory with this content (strengthened below), by a
		// chunk with c's ID, or the lock is another model's.
		taken = err
	}
	existing, err := tx.SameMemory(ctx, m.opts.Scope, hash)
	switch {
	case err != nil:
		return nil, fmt.Errorf("look up memory: %w", err)
	case existing == nil:
		return nil, taken
	}
	existing.Strengthen(reading, now, true)
	if err := tx.SaveStrength(ctx, existing); err != nil {
		return nil, fmt.Errorf("strengthen memory: %w", err)
	}
	return &hippo.StoreResult{Chunk: existing, Duplicate: true}, nil
}

// insertMemory inserts c, a follow-up of after, taking the model lock
// first when lock: ECONFLICT, nothing written, when its content or ID is
// taken or the lock is another model's.
func (m *Memory) insertMemory(ctx context.Context, tx Tx, c *hippo.Chunk, after *followUp, lock bool) error {
	if lock {
		if err := tx.LockModel(ctx, m.opts.Embedder.Model(), len(c.Embedding)); err != nil {
			return err
		}
	}
	if err := after.link(ctx, tx, c, nil); err != nil {
		return fmt.Errorf("look up the memory before a follow-up: %w", err)
	}
	return insert(ctx, tx, c)
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
// (see searchQuery).
func (m *Memory) RecallPage(ctx context.Context, in hippo.RecallInput) (*hippo.RecallPage, error) {
	return m.recall(ctx, in, true)
}

func (m *Memory) recall(ctx context.Context, in hippo.RecallInput, stats bool) (*hippo.RecallPage, error) {
	if in.DryRun {
		// Look without touching: no activity hour, no boost (Peek).
	} else if err := m.touch(ctx); err != nil {
		return nil, err
	}
	rq, err := prepareRecall(m.cfg, in, m.opts.RecallScopes)
	if err != nil {
		return nil, err
	}
	qs, ai, err := m.embedQuery(ctx, in.Query)
	if err != nil {
		return nil, err
	}
	rq.Stages = m.opts.Stages
	return recallPage(ctx, m.cfg, ai, m.clock.Active(), rq, qs[0], m.clock.Now().UnixMilli(), stats, m.s)
}

// embedQuery embeds texts and returns their vectors with the agent's
// index, brought up to date in the same snapshot that checks the vectors
// against the model lock.
func (m *Memory) embedQuery(ctx context.Context, texts ...string) ([][]float32, *Index, error) {
	start := time.Now()
	vecs, err := hippo.Embed(ctx, m.opts.Embedder, texts, 0)
	if err != nil {
		return nil, nil, err
	}
	start = m.opts.Stages.Done(hippo.StageEmbed, start)
	ai, err := m.index(ctx, &hippo.ModelLock{Model: m.opts.Embedder.Model(), Dimension: len(vecs[0])})
	if err != nil {
		return nil, nil, err
	}
	m.opts.Stages.Done(hippo.StageSync, start)
	return vecs, ai, nil
}

// index is the agent's index brought up to date from the store's change
// feed, with lock (nil: nothing) checked against the model lock in the
// same snapshot.
func (m *Memory) index(ctx context.Context, lock *hippo.ModelLock) (*Index, error) {
	return m.x.Sync(ctx, m.opts.AgentID, m.cfg, m.clock.Active(), lock)
}

// DeleteChunk hard-deletes one of the agent's chunks and resurrects what it
// had superseded. ENOTFOUND for unknown IDs and other agents' chunks.
func (m *Memory) DeleteChunk(ctx context.Context, id string) (resurrected []string, err error) {
	var deleted []string
	err = m.s.Update(ctx, func(tx Tx) error {
		deleted, resurrected, err = deleteChunks(ctx, tx, m.opts.AgentID, []string{id})
		return err
	})
	if err != nil {
		return nil, err
	}
	m.s.AfterBulkWrite(ctx)
	if len(deleted) == 0 {
		return nil, hippo.Errorf(hippo.ENOTFOUND, "chunk %s not found", id)
	}
	return resurrected, nil
}

// UpdateChunk replaces a chunk's content, re-embedding it and recomputing
// its hash and trust flag, in one transaction. ECONFLICT when a memory
// with the same content already exists in the chunk's scope.
func (m *Memory) UpdateChunk(ctx context.Context, id, content string) (*hippo.Chunk, error) {
	if err := hippo.ValidateText("content", content, m.cfg.MaxContent); err != nil {
		return nil, err
	}
	var cur *hippo.Chunk
	err := m.s.View(ctx, func(tx Tx) error {
		var err error
		cur, err = tx.Chunk(ctx, id)
		return err
	})
	if err != nil {
		return nil, err
	}
	vec, parts, err := m.embedContent(ctx, cur, content)
	if err != nil {
		return nil, err
	}
	var c *hippo.Chunk
	err = m.s.Update(ctx, func(tx Tx) error {
		if err := tx.LockModel(ctx, m.opts.Embedder.Model(), len(vec)); err != nil {
			return err
		}
		if err := tx.SetContent(ctx, id, content, hippo.ContentHash(content), vec, parts); err != nil {
			return err
		}
		if err := tx.SetSuspicious(ctx, id, trust.Check(content).Reason()); err != nil {
			return err
		}
		c, err = tx.Chunk(ctx, id)
		return err
	})
	if err != nil {
		return nil, err
	}
	m.s.AfterBulkWrite(ctx)
	return c, nil
}

// RememberFacts implements hippo.MemoryService: one extraction call, one
// embedding request for all facts, at most one classification call, and
// every change applied in one transaction. The result's LLMCalls are the
// LLM calls' tokens, as the extractor and the classifier report them.
func (m *Memory) RememberFacts(ctx context.Context, text string) (*hippo.RememberResult, error) {
	return m.Remember(ctx, hippo.RememberInput{Text: text})
}

// Remember implements hippo.MemoryService: RememberFacts with the text's
// source. Each fact it stores records its provenance: remember_facts, the
// caller, the source and the hash of the text, which is kept once
// (Tx.PutInput) when at least one fact refers to it. A restated fact
// keeps the provenance of its first statement. Facts given in in.Facts
// are not extracted: each is resolved, stored and flagged as an extracted
// one would be.
func (m *Memory) Remember(ctx context.Context, in hippo.RememberInput) (*hippo.RememberResult, error) {
	if in.Async {
		return m.rememberLater(ctx, in)
	}
	calls, notes := []hippo.LLMCall{}, []string{}
	res, err := m.rememberFacts(ctx, in, &calls, &notes)
	if res != nil {
		res.LLMCalls = calls
		noteFallbacks(res, notes)
	}
	return res, err
}

// checkRemember refuses a remember_facts input, or a memory without the
// extractor and embedder it needs. Given facts need no extractor.
func (m *Memory) checkRemember(in hippo.RememberInput) error {
	if in.Text == "" && len(in.Facts) == 0 {
		return hippo.Invalidf("text", "is required when no facts are given")
	}
	if in.Async && len(in.Facts) > 0 {
		return hippo.Invalidf("async", "is for texts to extract facts from, not with facts given")
	}
	if in.Text != "" {
		if err := hippo.ValidateText("text", in.Text, m.cfg.MaxFactText); err != nil {
			return err
		}
	}
	if err := hippo.ValidateGivenFacts(in.Facts, m.cfg.MaxContent); err != nil {
		return err
	}
	if err := hippo.ValidateSource(in.Source); err != nil {
		return err
	}
	if m.opts.Extractor == nil && len(in.Facts) == 0 {
		return hippo.Errorf(hippo.EINVALID, "no fact extractor configured")
	}
	if m.opts.Embedder == nil {
		return hippo.Errorf(hippo.EINVALID, "no embedder configured")
	}
	return nil
}

// trustFlags is the trust check (trust.Check) of every fact the plans may
// store, by content: why it reads as instructions, "" when it does not.
func trustFlags(plans []*factPlan) map[string]string {
	flags := make(map[string]string, len(plans))
	for _, p := range plans {
		flags[p.Fact.Content] = trust.Check(p.Fact.Content).Reason()
		if p.Former != nil {
			flags[p.Former.Content] = trust.Check(p.Former.Content).Reason()
		}
	}
	return flags
}

// rememberFacts is Remember, appending the LLM calls it makes to calls and
// a sentence to notes for each LLM answer it did without.
func (m *Memory) rememberFacts(ctx context.Context, in hippo.RememberInput, calls *[]hippo.LLMCall, notes *[]string) (*hippo.RememberResult, error) {
	if err := m.touch(ctx); err != nil {
		return nil, err
	}
	cfg, text := m.cfg, in.Text
	if err := m.checkRemember(in); err != nil {
		return nil, err
	}
	if len(in.Facts) > 0 { // the caller's own facts: nothing to extract
		res, err := m.learnFacts(ctx, in, givenFacts(cfg, in.Facts), hippo.ExtractorCaller, calls, notes)
		return res, m.keptAnyway(ctx, in, err)
	}
	previous, err := m.previousText(ctx, text)
	if err != nil {
		return nil, m.keptAnyway(ctx, in, err)
	}
	extracted, by, note, err := m.extract(ctx, previous, text, calls)
	if err != nil {
		return nil, m.keptAnyway(ctx, in, err)
	}
	if note != "" {
		*notes = append(*notes, note)
	}
	facts := cleanFacts(cfg, extracted)
	if len(facts) == 0 {
		reason := m.noFactsReason(text, len(extracted))
		res := &hippo.RememberResult{Summary: hippo.NoFactsSummary(reason), Facts: []hippo.FactOutcome{}, Reason: reason}
		if err := m.donePending(ctx); err != nil {
			return nil, err
		}
		if res.Message, err = m.keepText(ctx, in, nil); err != nil {
			return nil, err
		}
		if res.Message != nil {
			res.Summary = hippo.KeptSummary(reason, res.Message.ID)
		}
		return res, nil
	}
	res, err := m.learnFacts(ctx, in, facts, by, calls, notes)
	return res, m.keptAnyway(ctx, in, err)
}

// keptAnyway keeps the text of a remember_facts call that failed with err
// (extraction, classification or the write of its facts): it is the
// caller's, and recall can find it. The error returned says so; nil when
// err is nil.
func (m *Memory) keptAnyway(ctx context.Context, in hippo.RememberInput, err error) error {
	if err == nil {
		return nil
	}
	if kept, kerr := m.keepText(ctx, in, nil); kerr == nil && kept != nil {
		return &hippo.KeptError{Err: err, ID: kept.ID}
	}
	return err
}

// learnFacts checks facts, extracted from in.Text by extractor or given
// with it (hippo.ExtractorCaller), against the facts already known and
// applies each outcome, appending to calls and notes as rememberFacts
// does. The text, when there is one, is kept as their input.
func (m *Memory) learnFacts(ctx context.Context, in hippo.RememberInput, facts []hippo.Fact, extractor string, calls *[]hippo.LLMCall, notes *[]string) (*hippo.RememberResult, error) {
	cfg, text := m.cfg, in.Text
	contents, formerAt := factTexts(facts)
	texts := contents
	var after *followUp
	if m.keeps(in) { // the message's vector and its parts' come with the facts'
		var err error
		if after, err = m.after(ctx, text); err != nil {
			return nil, err
		}
		texts = append(contents[:len(contents):len(contents)], text)
		texts = append(texts, partTexts(m.cfg, text, after.before())...)
	}
	qs, ai, err := m.embedQuery(ctx, texts...)
	if err != nil {
		return nil, err
	}
	var msgVec, msgParts []float32
	if len(qs) > len(contents) {
		msgVec, msgParts = qs[len(contents)], PartVectors(cfg.PartWeight, qs[len(contents)], qs[len(contents)+1:])
		qs = qs[:len(contents)]
	}
	plans, snapshot, err := planFacts(ctx, cfg, ai, m.opts.Scope, facts, qs, formerAt)
	if err != nil {
		return nil, err
	}
	if err := m.fillContents(ctx, plans); err != nil {
		return nil, err
	}
	if pairs := factPairs(cfg, plans); len(pairs) > 0 && m.opts.Classifier != nil {
		// One classification call for every ambiguous pair.
		verdicts, note, err := m.classify(ctx, pairs, calls)
		if err != nil {
			return nil, err
		}
		if note != "" {
			*notes = append(*notes, note)
		}
		applyVerdicts(plans, verdicts)
	}
	flags := trustFlags(plans) // before the write lock is taken
	// Every plan written in one write transaction, under the write lock
	// and the model lock.
	var res *hippo.RememberResult
	err = m.s.Update(ctx, func(tx Tx) error {
		if err := tx.LockModel(ctx, m.opts.Embedder.Model(), len(plans[0].Vec)); err != nil {
			return err
		}
		inputHash, now, used := "", m.clock.Now(), false
		if text != "" {
			inputHash = hippo.ContentHash(text)
		}
		stamp := func(c *hippo.Chunk) {
			c.Provenance, used = m.provenance(hippo.OriginRememberFacts, in.Source, inputHash), true
			c.Provenance.Extractor = extractor
			c.SuspiciousReason = flags[c.Content]
			c.Suspicious = c.SuspiciousReason != ""
		}
		if m.pending != 0 {
			if done, err := tx.DonePending(ctx, m.pending); err != nil || !done {
				return cmp.Or(err, errLearned)
			}
		}
		var kept *hippo.KeptMessage
		if msgVec != nil {
			var err error
			if kept, err = m.keepMessage(ctx, tx, in, msgVec, msgParts, after, now); err != nil {
				return err
			}
		}
		var err error
		if res, err = applyFacts(ctx, m.cfg, tx, m.opts.AgentID, m.opts.Scope, plans, snapshot, now, stamp); err != nil {
			return err
		}
		res.Message = kept
		if used && text != "" && !m.opts.DiscardText {
			return tx.PutInput(ctx, inputHash, text, now)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// noFactsReason says why a call stored no fact: the extractor's own reason
// when it gives one, else what is known.
func (m *Memory) noFactsReason(text string, extracted int) string {
	if extracted > 0 {
		return fmt.Sprintf("every extracted fact was empty or longer than %d characters", m.cfg.MaxContent)
	}
	if x, ok := m.opts.Extractor.(hippo.NoFactsExplainer); ok {
		if r := x.NoFactsReason(text); r != "" {
			return r
		}
	}
	return "the extractor found no statement of a fact in the text"
}

// fillContents reads the content of the stored candidates of each plan.
func (m *Memory) fillContents(ctx context.Context, plans []*factPlan) error {
	byID := map[string][]*factEntry{}
	var ids []string
	for _, p := range plans {
		top := p.Top
		if p.Former != nil {
			top = append(append([]factMatch{}, top...), p.Former.Top...)
		}
		for _, c := range top {
			if id := c.Entry.Ref.ChunkID; id != "" {
				if byID[id] == nil {
					ids = append(ids, id)
				}
				byID[id] = append(byID[id], c.Entry)
			}
		}
	}
	if len(ids) == 0 {
		return nil
	}
	rows, err := m.s.ContentRows(ctx, ids)
	err = ReadRows(rows, err, func() error {
		var id, content string
		if err := rows.Scan(&id, &content); err != nil {
			return err
		}
		for _, e := range byID[id] {
			e.Content = content
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("load candidate facts: %w", err)
	}
	return nil
}

// FactHistory implements hippo.MemoryService: the supersession chain of a
// fact, oldest first: the fact with ID id, or else the fact (current or
// superseded) most similar to query, none when no fact is relevant to it
// (see bestFact). Each entry says from when until when it was current.
func (m *Memory) FactHistory(ctx context.Context, query, id string) ([]hippo.HistoryEntry, error) {
	if err := m.touch(ctx); err != nil {
		return nil, err
	}
	if id == "" {
		if err := hippo.ValidateText("query", query, m.cfg.MaxFactText); err != nil {
			return nil, hippo.Invalidf("query", "or id is required")
		}
		var err error
		if id, err = m.bestFact(ctx, query); err != nil || id == "" {
			return []hippo.HistoryEntry{}, err
		}
	}
	var h []hippo.HistoryEntry
	err := m.s.View(ctx, func(tx Tx) error {
		var err error
		h, err = history(ctx, tx, id)
		return err
	})
	return h, err
}

// bestFact is the ID of the fact, current or superseded, most relevant to
// query in the recall scopes, by recall's relevance (cosine and BM25 at
// Config.HybridAlpha, see hippo.Config.Relevance), or "" when there is none
// or its relevance is 0 or below Config.MinRelevance: a fact no closer to
// the query than unrelated text is no answer.
func (m *Memory) bestFact(ctx context.Context, query string) (string, error) {
	qs, ai, err := m.embedQuery(ctx, FactVoice(query)) // facts are in their voice
	if err != nil {
		return "", err
	}
	ai.mu.RLock()
	defer ai.mu.RUnlock()
	if ai.idx == nil {
		return "", nil
	}
	var bm map[int64]float64
	if m.cfg.HybridAlpha > 0 {
		if bm, _, err = textScores(ctx, m.s, ai, query, m.opts.RecallScopes); err != nil {
			return "", err
		}
	}
	return bestFact(ctx, m.cfg, ai, qs[0], bm, m.opts.RecallScopes)
}

// Reinforce implements hippo.MemoryService: the votes applied in one write
// transaction.
func (m *Memory) Reinforce(ctx context.Context, up, down []string) (*hippo.ReinforceResult, error) {
	if err := m.touch(ctx); err != nil {
		return nil, err
	}
	if err := checkVotes(up, down); err != nil {
		return nil, err
	}
	var res *hippo.ReinforceResult
	err := m.s.Update(ctx, func(tx Tx) error {
		var err error
		res, err = reinforce(ctx, tx, m.clock.Now(), up, down)
		return err
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// maxContextChars bounds get_context's budget.
const maxContextChars = 400_000

// Context implements hippo.MemoryService: the agent's blocks (global scope
// and the write scope) and, for a query, its best memories, as text for a
// system prompt within a budget (assembleContext).
func (m *Memory) Context(ctx context.Context, in hippo.ContextInput) (*hippo.Context, error) {
	if err := m.touch(ctx); err != nil {
		return nil, err
	}
	budget := in.MaxChars
	switch {
	case in.MaxChars < 0 || in.MaxTokens < 0:
		return nil, hippo.Invalidf("max_chars", "and max_tokens must not be negative")
	case in.MaxChars > 0 && in.MaxTokens > 0:
		return nil, hippo.Invalidf("max_tokens", "give max_chars or max_tokens, not both")
	case in.MaxTokens > 0:
		budget = in.MaxTokens * 4
	case budget == 0:
		budget = hippo.DefaultContextChars
	}
	if budget > maxContextChars {
		return nil, hippo.Invalidf("max_chars", "must be at most %d characters (%d tokens)", maxContextChars, maxContextChars/4)
	}
	scopes := []string{""}
	if m.opts.Scope != "" {
		scopes = append(scopes, m.opts.Scope)
	}
	var blocks []*hippo.Block
	for _, scope := range scopes {
		bs, err := m.scopeBlocks(ctx, scope)
		if err != nil {
			return nil, err
		}
		blocks = append(blocks, bs...)
	}
	var recalled []hippo.Recalled
	if strings.TrimSpace(in.Query) != "" {
		var err error
		// The floor given: context holds what is relevant, never the
		// weak matches a bare recall adds when too little is.
		floor := m.cfg.MinRelevance
		if recalled, err = m.Recall(ctx, hippo.RecallInput{Query: in.Query, Limit: in.Limit, MinRelevance: &floor}); err != nil {
			return nil, err
		}
	}
	return assembleContext(budget, blocks, recalled), nil
}

// SearchConversation implements hippo.MemoryService: the store's text
// search (Store.SearchConversation) over the configured messages table.
func (m *Memory) SearchConversation(ctx context.Context, query string, limit int) ([]hippo.ConversationHit, error) {
	if err := m.touch(ctx); err != nil {
		return nil, err
	}
	table := m.opts.MessagesTable
	if table == "" {
		return nil, hippo.Errorf(hippo.EINVALID, "recall_conversation is not available: no messages table is configured")
	}
	if err := hippo.ValidateText("query", query, m.cfg.MaxFactText); err != nil {
		return nil, err
	}
	limit, err := m.cfg.CheckLimit(limit)
	if err != nil {
		return nil, err
	}
	return m.s.SearchConversation(ctx, table, query, limit)
}
