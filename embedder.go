package hippo

import (
	"context"
	"fmt"
	"math"
)

// Embedder turns texts into vectors, one request per call.
type Embedder interface {
	// Embed returns one vector per text, in order.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	// Model names the embedding model; it is recorded in the database.
	Model() string
	// Dimension is the vector length, or 0 when unknown until the first call.
	Dimension() int
}

// Embed embeds texts with one call to e and checks what comes back: one
// vector per text, each valid (CheckVector), all of dim components, or all
// of one length when dim is 0. A cancelled ctx is returned as it is.
func Embed(ctx context.Context, e Embedder, texts []string, dim int) ([][]float32, error) {
	if e == nil {
		return nil, Errorf(EINVALID, "no embedder configured")
	}
	vecs, err := e.Embed(ctx, texts)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("embed: %w", err)
	}
	if len(vecs) != len(texts) {
		return nil, Errorf(EINTERNAL, "embedder %s returned %d vectors for %d texts", e.Model(), len(vecs), len(texts))
	}
	want := dim
	for _, v := range vecs {
		if err := CheckVector(v); err != nil {
			return nil, Errorf(EINTERNAL, "embedder %s returned a bad vector: %v", e.Model(), err)
		}
		switch {
		case want == 0:
			want = len(v)
		case len(v) != want && dim == 0:
			return nil, Errorf(EINTERNAL, "embedder %s returned vectors of %d and %d dimensions", e.Model(), want, len(v))
		case len(v) != want:
			return nil, Errorf(EINTERNAL, "embedder %s returned a %d-dimension vector, want %d", e.Model(), len(v), dim)
		}
	}
	return vecs, nil
}

// CheckVector reports an error when v is empty, holds NaN or infinite
// values, or has no direction to compare by: a zero vector (or one too
// small or too large for its float32 norm), whose cosine with anything is
// 0.
func CheckVector(v []float32) error {
	if len(v) == 0 {
		return fmt.Errorf("empty vector")
	}
	// The common case in one pass without branches: a NaN or infinite
	// component makes the sum of squares NaN or infinite, so a finite,
	// non-zero sum clears the vector; anything else is looked at again
	// below for its message.
	var sq float32
	for _, f := range v {
		sq += f * f
	}
	if sq > 0 && sq <= math.MaxFloat32 {
		return nil
	}
	sq = 0
	for i, f := range v {
		if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
			return fmt.Errorf("vector component %d is %v", i, f)
		}
		sq += f * f
	}
	if n := math.Sqrt(float64(sq)); n == 0 || math.IsInf(n, 0) {
		return fmt.Errorf("zero vector or norm out of range (%v)", n)
	}
	return nil
}

// Wrapped is the base of an Embedder that wraps another, such as one that
// caches, counts or batches its calls: it passes the wrapped embedder's
// model, dimension, thresholds, hybrid weight and relevance levels
// through (the defaults where the wrapped one has none), so that a
// database configures recall the same with the wrapper as without it. A
// wrapper embeds Wrapped and defines Embed.
type Wrapped struct{ Embedder }

// Thresholds are the wrapped embedder's, or the defaults.
func (w Wrapped) Thresholds() (duplicate, new, forget float64) {
	cfg := DefaultConfig().ForEmbedder(w.Embedder)
	return cfg.DuplicateThreshold, cfg.NewThreshold, cfg.ForgetThreshold
}

// HybridAlpha is the wrapped embedder's, or the default.
func (w Wrapped) HybridAlpha() float64 { return DefaultConfig().ForEmbedder(w.Embedder).HybridAlpha }

// RelevanceLevels are the wrapped embedder's, or the defaults.
func (w Wrapped) RelevanceLevels() (unrelated, strong float64) {
	cfg := DefaultConfig().ForEmbedder(w.Embedder)
	return cfg.CosineUnrelated, cfg.CosineStrong
}

var (
	_ Calibrated          = Wrapped{}
	_ Hybrid              = Wrapped{}
	_ RelevanceCalibrated = Wrapped{}
)
