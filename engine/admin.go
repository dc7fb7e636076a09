package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/internal/timestamp"
)

// AdminStore is what a database offers across agents, as its store
// supplies it: transactions for deleting and purging (DeleteStore), rows
// for browsing (BrowseStore), and the listings' rows, which the engine
// reads.
type AdminStore interface {
	ClockStore
	DeleteStore
	BrowseStore
	// ListRows reads the chunks f selects (f checked: checkFilter), rows
	// of ChunkColumns with an empty embedding, newest first (by creation,
	// then ID, descending), cut to f's page.
	ListRows(ctx context.Context, f hippo.ChunkFilter) (Rows, error)
	// CountRows counts the chunks f selects, ignoring its page.
	CountRows(ctx context.Context, f hippo.ChunkFilter) (int, error)
	// BlockRows reads agentID's blocks, of scope unless nil, by scope and
	// key (byte order): rows of (agent_id, scope, key, characters of the
	// value, description, updated_at).
	BlockRows(ctx context.Context, agentID string, scope *string) (Rows, error)
	// AgentRows reads every agent owning a chunk or a block, by ID (byte
	// order): rows of (agent_id, chunks, facts, memories, superseded,
	// blocks).
	AgentRows(ctx context.Context) (Rows, error)
	// ModelLock is the committed model lock, nil when there is none.
	ModelLock(ctx context.Context) (*hippo.ModelLock, error)
	// LockModel checks model and dim against the model lock in a write
	// transaction of its own, recording them when there is none.
	LockModel(ctx context.Context, model string, dim int) error
}

// Admin is a database's behaviour across agents, written once over its
// store's AdminStore: hippo.Admin's listing, deleting and purging, the
// web UI's browsing, the decay clock, and the figures of group commit and
// of the index cache. A store's DB embeds it.
type Admin struct {
	st      AdminStore
	cfg     hippo.Config
	clock   *Clock
	indexes *Indexes
	commits committer
}

// committer is a GroupCommit of any transaction type.
type committer interface {
	Stats() hippo.CommitStats
	Observe(fn func(calls int, wait time.Duration))
}

// OpenAdmin returns the Admin of a database over its store, with its
// configuration, index cache and group commit. It records the decay
// clock (WallClock or ActiveClock) and model when given (the model may
// come from cfg) and reads the recorded ones: the wall clock and
// hippo.DecayHippo by default. now is the time (nil: time.Now).
func OpenAdmin[T GroupTx](ctx context.Context, st AdminStore, cfg hippo.Config, clock string, decay hippo.DecayModel,
	now func() time.Time, indexes *Indexes, group *GroupCommit[T]) (*Admin, error) {
	c, err := openClock(ctx, st, clock, now)
	if err != nil {
		return nil, err
	}
	if decay == "" {
		decay = cfg.Decay
	}
	if cfg.Decay, err = openDecayModel(ctx, st, decay); err != nil {
		return nil, err
	}
	return &Admin{st: st, cfg: cfg, clock: c, indexes: indexes, commits: group}, nil
}

// Config is the configuration the database scores and limits with, its
// decay model the recorded one.
func (a *Admin) Config() hippo.Config { return a.cfg }

// Clock is the database's decay clock.
func (a *Admin) Clock() *Clock { return a.clock }

// DecayModel is the model strength decays by (Config.Decay).
func (a *Admin) DecayModel() hippo.DecayModel { return a.cfg.Decay }

// DecayClock is the clock strength decays by: WallClock or ActiveClock.
func (a *Admin) DecayClock() string { return a.clock.Name() }

// DecayClockAt implements hippo.Store: the clock by which agentID's
// chunks decay at now, wall time or the agent's recorded hours.
func (a *Admin) DecayClockAt(ctx context.Context, agentID string, now time.Time) (hippo.DecayClock, error) {
	return a.clock.At(ctx, agentID, now)
}

// CommitStats implements hippo.CommitReporter: the groups committed so
// far by this process.
func (a *Admin) CommitStats() hippo.CommitStats { return a.commits.Stats() }

// ObserveCommits implements hippo.CommitReporter: fn is called as each
// group starts with its number of calls and their summed wait.
func (a *Admin) ObserveCommits(fn func(calls int, wait time.Duration)) { a.commits.Observe(fn) }

// IndexUsage implements hippo.IndexReporter: the agents whose indexes
// this process holds, their rows and bytes.
func (a *Admin) IndexUsage() hippo.IndexUsage { return a.indexes.Usage() }

// EmbeddingModel implements hippo.Store: the model lock, nil before
// anything is embedded.
func (a *Admin) EmbeddingModel(ctx context.Context) (*hippo.ModelLock, error) {
	return a.st.ModelLock(ctx)
}

// VerifyEmbeddingModel implements hippo.Store: it checks model and dim
// (0: not yet known) against the lock, recording them when there is none
// and dim is known.
func (a *Admin) VerifyEmbeddingModel(ctx context.Context, model string, dim int) error {
	if dim > 0 {
		return a.st.LockModel(ctx, model, dim)
	}
	lock, err := a.st.ModelLock(ctx)
	if err != nil || lock == nil {
		return err
	}
	return lock.Check(model, dim)
}

// ListChunks implements hippo.Admin: the chunks f selects, newest first,
// without their embeddings.
func (a *Admin) ListChunks(ctx context.Context, f hippo.ChunkFilter) ([]*hippo.Chunk, error) {
	if err := checkFilter(f); err != nil {
		return nil, err
	}
	return ReadChunks(a.st.ListRows(ctx, f))
}

// CountChunks implements hippo.Admin: the chunks f selects, ignoring its
// Limit and Offset.
func (a *Admin) CountChunks(ctx context.Context, f hippo.ChunkFilter) (int, error) {
	if err := checkFilter(f); err != nil {
		return 0, err
	}
	n, err := a.st.CountRows(ctx, f)
	if err != nil {
		return 0, fmt.Errorf("count chunks: %w", err)
	}
	return n, nil
}

// ListBlocks implements hippo.Admin: an agent's blocks without their
// values, in one scope unless scope is nil, by scope and key.
func (a *Admin) ListBlocks(ctx context.Context, agentID string, scope *string) ([]hippo.BlockInfo, error) {
	out := []hippo.BlockInfo{}
	rows, err := a.st.BlockRows(ctx, agentID, scope)
	err = ReadRows(rows, err, func() error {
		var b hippo.BlockInfo
		var updated string
		if err := rows.Scan(&b.AgentID, &b.Scope, &b.Key, &b.Chars, &b.Description, &updated); err != nil {
			return err
		}
		var err error
		if b.UpdatedAt, err = timestamp.Parse(updated); err != nil {
			return fmt.Errorf("block %q: %w", b.Key, err)
		}
		out = append(out, b)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list blocks: %w", err)
	}
	return out, nil
}

// Agents implements hippo.Admin: every agent owning a chunk or a block,
// by ID.
func (a *Admin) Agents(ctx context.Context) ([]hippo.AgentSummary, error) {
	out := []hippo.AgentSummary{}
	rows, err := a.st.AgentRows(ctx)
	err = ReadRows(rows, err, func() error {
		var s hippo.AgentSummary
		var n [5]int64 // sums: some drivers give wider numbers than int
		if err := rows.Scan(&s.AgentID, &n[0], &n[1], &n[2], &n[3], &n[4]); err != nil {
			return err
		}
		s.Chunks, s.Facts, s.Memories, s.Superseded, s.Blocks = int(n[0]), int(n[1]), int(n[2]), int(n[3]), int(n[4])
		out = append(out, s)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list agents: %w", err)
	}
	return out, nil
}
