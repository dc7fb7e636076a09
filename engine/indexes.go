package engine

import (
	"context"
	"sync"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/vector"
)

// Indexes is a store's cache of its agents' indexes: each is loaded on the
// agent's first search and brought up to date from the change feed on
// every use.
type Indexes struct {
	loader func(agent string) vector.Loader

	mu      sync.Mutex
	byAgent map[string]*Index
}

// NewIndexes returns an empty cache whose indexes read exact vectors with
// loader(agent).
func NewIndexes(loader func(agent string) vector.Loader) *Indexes {
	return &Indexes{loader: loader, byAgent: map[string]*Index{}}
}

// Cached is the agent's index as it stands, nil before its first use.
func (x *Indexes) Cached(agent string) *Index {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.byAgent[agent]
}

// Sync returns the agent's index (made with cfg on first use), brought up
// to date with every write committed to f so far, by this process or any
// other, with lock (nil: nothing) checked against the model lock in the
// same snapshot. active is the store's decay clock.
func (x *Indexes) Sync(ctx context.Context, agent string, cfg hippo.Config, f Feed, active bool, lock *hippo.ModelLock) (*Index, error) {
	x.mu.Lock()
	ai := x.byAgent[agent]
	if ai == nil {
		ai = NewIndex(agent, cfg, x.loader(agent))
		x.byAgent[agent] = ai
	}
	x.mu.Unlock()
	ai.Mu.Lock()
	defer ai.Mu.Unlock()
	if err := ai.Sync(ctx, f, active, lock); err != nil {
		return nil, err
	}
	return ai, nil
}
