package engine

import (
	"context"
	"sort"
	"sync"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/vector"
)

// Indexes is the cache of a store's agents' indexes: each is loaded from
// the store's Feed on the agent's first use and brought up to date from
// the change feed on every use.
type Indexes struct {
	feed Feed

	mu      sync.Mutex
	byAgent map[string]*Index
	// limit bounds the bytes of the resident indexes (0: no bound): past
	// it, the least recently used agents' indexes are dropped, to be
	// loaded again on their next use. The agent being used is never
	// dropped, so one index larger than the limit stays while it is in
	// use.
	limit int64
	tick  uint64            // uses so far
	used  map[string]uint64 // the tick of each agent's last use
	// loads, hits and evictions count Syncs that had to load an index,
	// Syncs that found one, and indexes dropped for the limit.
	loads, hits, evictions int64
	// runs are the background runs of async remember_facts, shared as
	// the indexes are by every memory of the store.
	runs runs
}

// NewIndexes returns an empty cache over feed, holding up to limit bytes
// of indexes (0: no bound).
func NewIndexes(feed Feed, limit int64) *Indexes {
	return &Indexes{feed: feed, byAgent: map[string]*Index{}, limit: max(0, limit)}
}

// Cached is the agent's index as it stands, nil before its first use.
func (x *Indexes) Cached(agent string) *Index {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.byAgent[agent]
}

// Sync returns the agent's index (made with cfg on first use), brought up
// to date with every write committed to the feed so far, by this process
// or any other, with lock (nil: nothing) checked against the model lock in
// the same snapshot. active says chunks decay by the active clock.
func (x *Indexes) Sync(ctx context.Context, agent string, cfg hippo.Config, active bool, lock *hippo.ModelLock) (*Index, error) {
	x.mu.Lock()
	ai := x.byAgent[agent]
	if ai == nil {
		ai = newIndex(agent, cfg, x.loader(agent))
		x.byAgent[agent] = ai
	}
	if x.used == nil {
		x.used = map[string]uint64{}
	}
	x.tick++
	x.used[agent] = x.tick
	limit := x.limit
	x.mu.Unlock()
	ai.mu.Lock()
	loaded := ai.loaded
	err := ai.sync(ctx, x.feed, active, lock)
	ai.mu.Unlock()
	x.mu.Lock()
	if loaded {
		x.hits++
	} else if err == nil {
		x.loads++
	}
	x.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if limit > 0 {
		x.evict(agent, limit)
	}
	return ai, nil
}

// loader reads the agent's float32 vectors by row ID from the feed, for
// the index's exact re-ranking (vector.Loader): a chunk's own, or one of
// its parts (PartID). A vector that does not decode is not in the index.
func (x *Indexes) loader(agent string) vector.Loader {
	return func(ctx context.Context, ids []string, fn func(int, []float32)) error {
		type want struct{ pos, part int }
		wants := make(map[string][]want, len(ids))
		chunks := make([]string, 0, len(ids))
		for i, id := range ids {
			chunk, part := SplitPartID(id)
			if _, ok := wants[chunk]; !ok {
				chunks = append(chunks, chunk)
			}
			wants[chunk] = append(wants[chunk], want{i, part})
		}
		var v, p []float32
		return x.feed.Vectors(ctx, agent, chunks, func(id string, b, parts []byte) {
			var err error
			if v, err = vector.Decode(v, b); err != nil {
				return
			}
			decoded := false
			for _, w := range wants[id] {
				if w.part == 0 {
					fn(w.pos, v)
					continue
				}
				if !decoded {
					if p, err = vector.Decode(p, parts); err != nil {
						return
					}
					decoded = true
				}
				if dim := len(v); dim > 0 && w.part*dim <= len(p) {
					fn(w.pos, p[(w.part-1)*dim:w.part*dim])
				}
			}
		})
	}
}

// evict drops the least recently used indexes other than keep's while the
// resident bytes exceed limit. Sizes are read without x.mu held, so that
// no index lock is taken under it; an index dropped while a search holds
// it serves that search and is then collected.
func (x *Indexes) evict(keep string, limit int64) {
	type resident struct {
		agent string
		ai    *Index
		used  uint64
		bytes int64
	}
	x.mu.Lock()
	list := make([]resident, 0, len(x.byAgent))
	for agent, ai := range x.byAgent {
		list = append(list, resident{agent: agent, ai: ai, used: x.used[agent]})
	}
	x.mu.Unlock()
	var total int64
	for i := range list {
		list[i].bytes = indexBytes(list[i].ai)
		total += list[i].bytes
	}
	if total <= limit {
		return
	}
	sort.Slice(list, func(i, j int) bool { return list[i].used < list[j].used })
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, r := range list {
		if total <= limit {
			return
		}
		if r.agent == keep || x.byAgent[r.agent] != r.ai {
			continue
		}
		delete(x.byAgent, r.agent)
		delete(x.used, r.agent)
		x.evictions++
		total -= r.bytes
	}
}

// indexBytes is what ai holds in memory: codes, scales and metadata.
func indexBytes(ai *Index) int64 {
	st := ai.Stats()
	return int64(st.VectorBytes + st.MetaBytes)
}
