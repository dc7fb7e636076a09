package minilm

import (
	"context"
	"math"
	"sync"

	"github.com/hippo-mem/hippo/internal/gemm"
	"github.com/hippo-mem/hippo/local/minilm/internal/wordpiece"
)

// workspace holds the activations of one batch. Workspaces are reused
// through wsPool, so steady-state embedding allocates little.
type workspace struct {
	x, ctx, tmp []float32 // tokens×hidden
	qkv         []float32 // tokens×3·hidden
	ff          []float32 // tokens×intermediate
	scores      []float32 // one head's MaxTokens×MaxTokens
}

var wsPool = sync.Pool{New: func() any { return new(workspace) }}

// grow returns s resized to n values, reallocated if its capacity is short.
func grow(s []float32, n int) []float32 {
	if cap(s) < n {
		return make([]float32, n)
	}
	return s[:n]
}

// reserve sizes w for t tokens.
func (w *workspace) reserve(t int) {
	w.x = grow(w.x, t*hidden)
	w.ctx = grow(w.ctx, t*hidden)
	w.tmp = grow(w.tmp, t*hidden)
	w.qkv = grow(w.qkv, t*3*hidden)
	w.ff = grow(w.ff, t*intermediate)
	const L = wordpiece.MaxTokens
	w.scores = grow(w.scores, L*L)
}

// forward runs the sequences (token IDs, [CLS] to [SEP], each at most
// wordpiece.MaxTokens long) through the network as one batch: their
// tokens are stacked into one matrix for the linear layers, and attention
// runs per sequence. It adds each sequence's sum of last hidden states
// over its tokens to sums[i] (hidden values each).
func (m *model) forward(ctx context.Context, w *workspace, seqs [][]int32, sums [][]float32) error {
	if err := m.hiddenStates(ctx, w, seqs); err != nil {
		return err
	}
	x := w.x
	row := 0
	for i, s := range seqs {
		sum := sums[i]
		for range s {
			for j, v := range x[row*hidden : (row+1)*hidden] {
				sum[j] += v
			}
			row++
		}
	}
	return nil
}

// hiddenStates leaves the last hidden state of the sequences' tokens,
// stacked, in w.x.
func (m *model) hiddenStates(ctx context.Context, w *workspace, seqs [][]int32) error {
	t := 0
	for _, s := range seqs {
		t += len(s)
	}
	w.reserve(t)
	x := w.x

	// Embeddings: word row (dequantized) + position + token type 0.
	row := 0
	for _, s := range seqs {
		for p, id := range s {
			dst := x[row*hidden : (row+1)*hidden]
			q := m.word[int(id)*hidden : (int(id)+1)*hidden]
			sc := m.wordScale[id]
			pt := m.posType[p*hidden : (p+1)*hidden]
			for i := range dst {
				dst[i] = float32(int8(q[i]))*sc + pt[i]
			}
			row++
		}
	}
	layerNorm(x, nil, m.lnG, m.lnB)

	for l := range m.layers {
		if err := ctx.Err(); err != nil {
			return err
		}
		ly := &m.layers[l]
		ly.qkv.Mul(w.qkv, x, t, ly.qkvB)
		w.attention(seqs)
		ly.attnOut.Mul(w.tmp, w.ctx, t, ly.attnOutB)
		layerNorm(x, w.tmp, ly.ln1G, ly.ln1B)
		ly.up.Mul(w.ff, x, t, ly.upB)
		gelu(w.ff[:t*intermediate])
		ly.down.Mul(w.tmp, w.ff, t, ly.downB)
		layerNorm(x, w.tmp, ly.ln2G, ly.ln2B)
	}
	return nil
}

// attention sets w.ctx from w.qkv: for each sequence and head,
// softmax(Q·Kᵀ)·V, the queries being pre-scaled. Each head's Q, K and V
// are read in place from the fused QKV rows.
func (w *workspace) attention(seqs [][]int32) {
	const stride = 3 * hidden
	start := 0
	for _, s := range seqs {
		L := len(s)
		qkv := w.qkv[start*stride:]
		scores := w.scores[:L*L]
		for h := range heads {
			c := h * headDim
			gemm.MulTStrided(scores, L, qkv[c:], stride, qkv[hidden+c:], stride, L, L, headDim)
			for i := range L {
				softmax(scores[i*L : (i+1)*L])
			}
			gemm.MulNStrided(w.ctx[start*hidden+c:], hidden, scores, L, qkv[2*hidden+c:], stride, L, headDim, L)
		}
		start += L
	}
}

// softmax replaces s by its softmax.
func softmax(s []float32) {
	mx := s[0]
	for _, v := range s[1:] {
		mx = max(mx, v)
	}
	var sum float32
	for i, v := range s {
		e := exp32(v - mx)
		s[i] = e
		sum += e
	}
	inv := 1 / sum
	for i := range s {
		s[i] *= inv
	}
}

// layerNorm sets each hidden-sized row of x to LayerNorm(x + add) with
// gain g and bias b; add may be nil.
func layerNorm(x, add, g, b []float32) {
	for r := 0; r < len(x); r += hidden {
		row := x[r : r+hidden : r+hidden]
		if add != nil {
			a := add[r : r+hidden : r+hidden]
			for i := range row {
				row[i] += a[i]
			}
		}
		var mean float32
		for _, v := range row {
			mean += v
		}
		mean /= hidden
		var variance float32
		for _, v := range row {
			d := v - mean
			variance += d * d
		}
		inv := float32(1 / math.Sqrt(float64(variance/hidden)+lnEps))
		g, b := g[:hidden], b[:hidden]
		for i, v := range row {
			row[i] = (v-mean)*inv*g[i] + b[i]
		}
	}
}
