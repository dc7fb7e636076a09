// Package shortterm is a bounded short-term memory for long-running agents:
// recent experiences held in memory, the important ones consolidated into
// long-term memory (a hippo.MemoryService).
package shortterm

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"sync"
	"time"

	"github.com/hippo-mem/hippo"
)

// types are the kinds of short-term experience; they become the
// "category" of a consolidated memory.
var types = []string{"chat", "observation", "task", "decision", "tool-use", "error", "insight"}

// Experience is one item of short-term memory.
type Experience struct {
	Type       string    `json:"type"`
	Content    string    `json:"content"`
	Importance float64   `json:"importance"` // 0..1
	At         time.Time `json:"at"`
}

// Options configures a Buffer.
type Options struct {
	// Size is how many experiences the buffer holds; 0 means 100.
	Size int
	// Threshold is the importance from which an experience is kept in
	// long-term memory when the buffer is consolidated; 0 means 0.5.
	Threshold float64
	// Embedder scores buffered experiences against recall queries; it
	// should be the store's embedder.
	Embedder hippo.Embedder
	// Config supplies the scoring weights and relevance calibration; zero
	// means hippo.DefaultConfig() with Embedder's calibration (ForEmbedder).
	Config hippo.Config
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Buffer is a bounded short-term memory for long-running agents: recent
// experiences are held in memory, and those important enough are
// consolidated into long-term memory (store_memory) when the buffer fills,
// on demand, or on Close. It is safe for concurrent use.
type Buffer struct {
	svc  hippo.MemoryService
	opts Options

	mu    sync.Mutex
	items []Experience
}

// New returns an empty buffer consolidating into svc.
func New(svc hippo.MemoryService, opts Options) *Buffer {
	if opts.Size <= 0 {
		opts.Size = 100
	}
	if opts.Threshold == 0 {
		opts.Threshold = 0.5
	}
	if opts.Config == (hippo.Config{}) {
		opts.Config = hippo.DefaultConfig().ForEmbedder(opts.Embedder)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Buffer{svc: svc, opts: opts}
}

// Len is the number of buffered experiences.
func (b *Buffer) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.items)
}

// Add buffers an experience; when the buffer is full it is consolidated
// first.
func (b *Buffer) Add(ctx context.Context, e Experience) error {
	if err := hippo.ValidateText("content", e.Content, b.opts.Config.MaxContent); err != nil {
		return err
	}
	if e.Type != "" && !validType(e.Type) {
		return hippo.Invalidf("type", "must be one of %v, got %q", types, e.Type)
	}
	if math.IsNaN(e.Importance) || e.Importance < 0 || e.Importance > 1 {
		return hippo.Invalidf("importance", "must be between 0 and 1, got %v", e.Importance)
	}
	if e.At.IsZero() {
		e.At = b.opts.Now()
	}
	b.mu.Lock()
	full := len(b.items) >= b.opts.Size
	b.mu.Unlock()
	if full {
		if _, err := b.Consolidate(ctx); err != nil {
			return err
		}
	}
	b.mu.Lock()
	b.items = append(b.items, e)
	b.mu.Unlock()
	return nil
}

func validType(t string) bool {
	for _, x := range types {
		if x == t {
			return true
		}
	}
	return false
}

// Consolidate stores the buffered experiences whose importance reaches the
// threshold as memories (intensity = importance, category = type) and
// empties the buffer. On error the experiences not yet stored stay
// buffered.
func (b *Buffer) Consolidate(ctx context.Context) (stored int, err error) {
	b.mu.Lock()
	items := b.items
	b.items = nil
	b.mu.Unlock()
	for i, e := range items {
		if e.Importance < b.opts.Threshold {
			continue
		}
		meta, _ := json.Marshal(map[string]any{"source": "short-term", "category": e.Type, "at": e.At.UTC()})
		importance := e.Importance
		if _, err := b.svc.StoreMemory(ctx, hippo.StoreInput{Content: e.Content, Metadata: meta, Intensity: &importance}); err != nil {
			b.mu.Lock()
			b.items = append(items[i:], b.items...)
			b.mu.Unlock()
			return stored, fmt.Errorf("consolidate short-term memory: %w", err)
		}
		stored++
	}
	return stored, nil
}

// Close consolidates what is left.
func (b *Buffer) Close(ctx context.Context) error {
	_, err := b.Consolidate(ctx)
	return err
}

// Recall searches long-term memory and the buffer together. A buffered
// experience scores like a chunk whose strength is its importance and
// whose recency is 1; it comes back with an empty chunk ID.
func (b *Buffer) Recall(ctx context.Context, in hippo.RecallInput) ([]hippo.Recalled, error) {
	stored, err := b.svc.Recall(ctx, in)
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	items := append([]Experience(nil), b.items...)
	b.mu.Unlock()
	if len(items) == 0 || b.opts.Embedder == nil || (in.Kind != "" && in.Kind != hippo.KindMemory) {
		return stored, nil
	}
	texts := make([]string, 0, len(items)+1)
	texts = append(texts, in.Query)
	for _, e := range items {
		texts = append(texts, e.Content)
	}
	vecs, err := b.opts.Embedder.Embed(ctx, texts)
	if err != nil {
		return nil, fmt.Errorf("embed short-term memory: %w", err)
	}
	if len(vecs) != len(texts) {
		return nil, hippo.Errorf(hippo.EINTERNAL, "embedder returned %d vectors for %d texts", len(vecs), len(texts))
	}
	cfg := b.opts.Config
	floor, err := cfg.RelevanceFloor(in)
	if err != nil {
		return nil, err
	}
	out := stored
	for i, e := range items {
		sim := cosine(vecs[0], vecs[i+1])
		// Short-term items have no full-text index: the cosine's
		// relevance alone, against the same floor as stored memories.
		rel := cfg.CosineRelevance(sim)
		score := cfg.Score(rel, e.Importance, 1)
		if rel < floor || score < in.MinScore {
			continue
		}
		meta, _ := json.Marshal(map[string]any{"source": "short-term", "category": e.Type})
		c := &hippo.Chunk{Kind: hippo.KindMemory, Content: e.Content, Metadata: meta, RunningIntensity: e.Importance,
			LastAccessedAt: e.At, CreatedAt: e.At}
		out = append(out, hippo.Recalled{Chunk: c, Similarity: sim, CosineRelevance: rel, Relevance: rel,
			Strength: e.Importance, Recency: 1, Score: score})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	limit := in.Limit
	if limit == 0 {
		limit = cfg.DefaultLimit
	}
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

func cosine(a, b []float32) float64 {
	if len(a) != len(b) {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}
