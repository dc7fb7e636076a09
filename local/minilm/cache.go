package minilm

import (
	"container/list"
	"crypto/sha256"
	"sync"
)

// cacheSize bounds the embedding cache: 4096 vectors of 384 float32, about
// 6.5 MB.
const cacheSize = 4096

// cache is a least-recently-used cache of embeddings keyed by the SHA-256
// of the text. It is safe for concurrent use; it stores and returns
// copies, so callers may change what they pass in and get out.
type cache struct {
	mu    sync.Mutex
	limit int
	order *list.List // of *cacheEntry, most recent first
	items map[[sha256.Size]byte]*list.Element
}

type cacheEntry struct {
	key [sha256.Size]byte
	vec []float32
}

func newCache(limit int) *cache {
	return &cache{limit: limit, order: list.New(), items: map[[sha256.Size]byte]*list.Element{}}
}

func cacheKey(text string) [sha256.Size]byte { return sha256.Sum256([]byte(text)) }

// get returns a copy of the vector of key, if cached.
func (c *cache) get(key [sha256.Size]byte) ([]float32, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[key]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(e)
	return append([]float32(nil), e.Value.(*cacheEntry).vec...), true
}

// put stores a copy of vec under key, evicting the least recently used
// vector when full.
func (c *cache) put(key [sha256.Size]byte, vec []float32) {
	v := append([]float32(nil), vec...)
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[key]; ok {
		e.Value.(*cacheEntry).vec = v
		c.order.MoveToFront(e)
		return
	}
	c.items[key] = c.order.PushFront(&cacheEntry{key: key, vec: v})
	for c.order.Len() > c.limit {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.items, last.Value.(*cacheEntry).key)
	}
}

// len returns the number of cached vectors.
func (c *cache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}
