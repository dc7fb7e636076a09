package vector

import (
	"container/heap"
	"sort"
)

// Scored is an item with a score, kept by TopK.
type Scored[T any] struct {
	Item  T
	Score float64
}

// TopK keeps the k highest-scoring items seen, in O(log k) per item.
type TopK[T any] struct {
	k int
	h scoredHeap[T]
}

// NewTopK returns a TopK keeping at most k items.
func NewTopK[T any](k int) *TopK[T] {
	return &TopK[T]{k: k, h: make(scoredHeap[T], 0, k)}
}

// Push offers an item; it is kept if it beats the weakest kept item.
func (t *TopK[T]) Push(item T, score float64) {
	if t.k <= 0 {
		return
	}
	if len(t.h) < t.k {
		heap.Push(&t.h, Scored[T]{item, score})
		return
	}
	if score > t.h[0].Score {
		t.h[0] = Scored[T]{item, score}
		heap.Fix(&t.h, 0)
	}
}

// Len is the number of items kept.
func (t *TopK[T]) Len() int { return len(t.h) }

// Sorted returns the kept items, best first.
func (t *TopK[T]) Sorted() []Scored[T] {
	out := append([]Scored[T](nil), t.h...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	return out
}

// scoredHeap is a min-heap on Score: the root is the weakest kept item.
type scoredHeap[T any] []Scored[T]

func (h scoredHeap[T]) Len() int           { return len(h) }
func (h scoredHeap[T]) Less(i, j int) bool { return h[i].Score < h[j].Score }
func (h scoredHeap[T]) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *scoredHeap[T]) Push(x any)        { *h = append(*h, x.(Scored[T])) }
func (h *scoredHeap[T]) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
