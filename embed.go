package hippo

import (
	"context"
	"fmt"
	"math"
)

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
	var sq float32
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
