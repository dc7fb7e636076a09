package minilm

import (
	_ "embed"
	"fmt"
	"math"
	"sync"

	"github.com/hippo-mem/hippo/internal/gemm"
	"github.com/hippo-mem/hippo/local/minilm/internal/wordpiece"
)

// The model's shape (config.json of all-MiniLM-L6-v2).
const (
	hidden       = Dimension
	layers       = 6
	heads        = 12
	headDim      = hidden / heads
	intermediate = 1536
	maxPositions = 512
	lnEps        = 1e-12
	magic        = "HMINILM1"
)

// artifact is minilm.bin, written by internal/gen: the vocabulary and the
// int8 weights with their per-row scales.
//
//go:embed minilm.bin
var artifact string

// model is the loaded network. It is read-only and safe for concurrent
// use.
type model struct {
	tok *wordpiece.Tokenizer
	// word is the int8 word-embedding table, vocab×hidden, left in the
	// artifact; wordScale holds each row's scale.
	word      string
	wordScale []float32
	// posType is each position's embedding plus token type 0's.
	posType  []float32
	lnG, lnB []float32
	layers   [layers]layer
}

// layer is one transformer block. Queries are pre-scaled by 1/√headDim.
type layer struct {
	qkv        *gemm.Weights // 3·hidden outputs: queries, keys, values
	qkvB       []float32
	attnOut    *gemm.Weights
	attnOutB   []float32
	ln1G, ln1B []float32
	up         *gemm.Weights // hidden → intermediate
	upB        []float32
	down       *gemm.Weights // intermediate → hidden
	downB      []float32
	ln2G, ln2B []float32
}

var (
	loadOnce  sync.Once
	loaded    *model
	loadError error
)

// getModel loads the model on first use; every later call returns the
// same one.
func getModel() (*model, error) {
	loadOnce.Do(func() {
		loaded, loadError = load(artifact)
		if loadError != nil {
			loadError = fmt.Errorf("minilm: loading minilm.bin: %w", loadError)
		}
	})
	return loaded, loadError
}

// rawTensor is one tensor as stored in the artifact.
type rawTensor struct {
	quantized  bool
	rows, cols int
	scales     []float32 // quantized: one per row
	data       string    // quantized: rows×cols int8; else rows×cols float32
}

// values returns the tensor dequantized to float32 in dst (grown if
// short), optionally times f.
func (t rawTensor) values(dst []float32, f float32) []float32 {
	n := t.rows * t.cols
	if cap(dst) < n {
		dst = make([]float32, n)
	}
	dst = dst[:n]
	if !t.quantized {
		for i := range dst {
			d := t.data[4*i : 4*i+4]
			dst[i] = math.Float32frombits(uint32(d[0])|uint32(d[1])<<8|uint32(d[2])<<16|uint32(d[3])<<24) * f
		}
		return dst
	}
	for r := range t.rows {
		s := t.scales[r] * f
		row := dst[r*t.cols : (r+1)*t.cols]
		q := t.data[r*t.cols : (r+1)*t.cols]
		for i := range row {
			row[i] = float32(int8(q[i])) * s
		}
	}
	return dst
}

// parse splits the artifact into its vocabulary and tensors.
func parse(a string) ([]string, map[string]rawTensor, error) {
	r := reader{s: a}
	if r.str(len(magic)) != magic {
		return nil, nil, fmt.Errorf("not a MiniLM artifact of format %s", magic)
	}
	vocab := make([]string, r.u32())
	for i := range vocab {
		vocab[i] = r.str(int(r.u8()))
	}
	count := int(r.u32())
	tensors := make(map[string]rawTensor, count)
	for range count {
		name := r.str(int(r.u8()))
		t := rawTensor{quantized: r.u8() == 1, rows: int(r.u32()), cols: int(r.u32())}
		if t.quantized {
			t.scales = make([]float32, t.rows)
			for i := range t.scales {
				t.scales[i] = math.Float32frombits(r.u32())
			}
			t.data = r.str(t.rows * t.cols)
		} else {
			t.data = r.str(4 * t.rows * t.cols)
		}
		tensors[name] = t
	}
	if r.err != nil {
		return nil, nil, r.err
	}
	if r.s != "" {
		return nil, nil, fmt.Errorf("%d bytes after the last tensor", len(r.s))
	}
	return vocab, tensors, nil
}

// load builds the model from the artifact: the vocabulary, the word table
// left in place, and every linear layer dequantized and packed.
func load(a string) (*model, error) {
	vocab, tensors, err := parse(a)
	if err != nil {
		return nil, err
	}
	ts := tensorSet(tensors)
	m := new(model)
	if m.tok, err = wordpiece.New(vocab); err != nil {
		return nil, err
	}
	if err := m.loadEmbeddings(ts, len(vocab)); err != nil {
		return nil, err
	}
	var scratch []float32 // dequantized weights on their way to packing
	for l := range m.layers {
		if err := m.layers[l].load(ts, fmt.Sprintf("encoder.layer.%d.", l), &scratch); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// loadEmbeddings loads the word table, the positions' embeddings with
// token type 0's added, and their layer norm.
func (m *model) loadEmbeddings(ts tensorSet, vocab int) error {
	word, err := ts.get("embeddings.word_embeddings.weight", vocab, hidden)
	if err != nil {
		return err
	}
	if !word.quantized {
		return fmt.Errorf("word embeddings are not int8")
	}
	m.word, m.wordScale = word.data, word.scales
	pos, err := ts.get("embeddings.position_embeddings.weight", maxPositions, hidden)
	if err != nil {
		return err
	}
	typ, err := ts.get("embeddings.token_type_embeddings.weight", 2, hidden)
	if err != nil {
		return err
	}
	m.posType = pos.values(nil, 1)
	type0 := typ.values(nil, 1)[:hidden]
	for i := range m.posType {
		m.posType[i] += type0[i%hidden]
	}
	if m.lnG, err = ts.vec("embeddings.LayerNorm.weight", hidden); err != nil {
		return err
	}
	m.lnB, err = ts.vec("embeddings.LayerNorm.bias", hidden)
	return err
}

// load loads the transformer block whose tensors' names start with p,
// dequantizing its weights in *scratch.
func (ly *layer) load(ts tensorSet, p string, scratch *[]float32) error {
	// Queries, keys and values as one 3·hidden×hidden matrix.
	*scratch = (*scratch)[:0]
	ly.qkvB = make([]float32, 0, 3*hidden)
	qScale := float32(1 / math.Sqrt(headDim))
	for i, part := range []string{"query", "key", "value"} {
		f := float32(1)
		if i == 0 {
			f = qScale
		}
		w, err := ts.get(p+"attention.self."+part+".weight", hidden, hidden)
		if err != nil {
			return err
		}
		b, err := ts.get(p+"attention.self."+part+".bias", 1, hidden)
		if err != nil {
			return err
		}
		*scratch = append(*scratch, w.values(nil, f)...)
		ly.qkvB = append(ly.qkvB, b.values(nil, f)...)
	}
	ly.qkv = gemm.Pack(*scratch, 3*hidden, hidden)

	var err error
	if ly.attnOut, ly.attnOutB, err = ts.linear(p+"attention.output.dense", hidden, hidden, scratch); err != nil {
		return err
	}
	if ly.up, ly.upB, err = ts.linear(p+"intermediate.dense", intermediate, hidden, scratch); err != nil {
		return err
	}
	if ly.down, ly.downB, err = ts.linear(p+"output.dense", hidden, intermediate, scratch); err != nil {
		return err
	}
	for _, v := range []struct {
		name string
		dst  *[]float32
	}{
		{p + "attention.output.LayerNorm.weight", &ly.ln1G},
		{p + "attention.output.LayerNorm.bias", &ly.ln1B},
		{p + "output.LayerNorm.weight", &ly.ln2G},
		{p + "output.LayerNorm.bias", &ly.ln2B},
	} {
		if *v.dst, err = ts.vec(v.name, hidden); err != nil {
			return err
		}
	}
	return nil
}

// tensorSet is the artifact's tensors by name.
type tensorSet map[string]rawTensor

// get returns the tensor name, which must be rows×cols.
func (ts tensorSet) get(name string, rows, cols int) (rawTensor, error) {
	t, ok := ts[name]
	if !ok {
		return t, fmt.Errorf("no tensor %s", name)
	}
	if t.rows != rows || t.cols != cols {
		return t, fmt.Errorf("tensor %s is %d×%d, want %d×%d", name, t.rows, t.cols, rows, cols)
	}
	return t, nil
}

// vec returns the vector name, of n values, as float32.
func (ts tensorSet) vec(name string, n int) ([]float32, error) {
	t, err := ts.get(name, 1, n)
	if err != nil {
		return nil, err
	}
	return t.values(nil, 1), nil
}

// linear returns the packed n×k weights and the bias of the linear layer
// name, dequantizing the weights in *scratch.
func (ts tensorSet) linear(name string, n, k int, scratch *[]float32) (*gemm.Weights, []float32, error) {
	w, err := ts.get(name+".weight", n, k)
	if err != nil {
		return nil, nil, err
	}
	b, err := ts.get(name+".bias", 1, n)
	if err != nil {
		return nil, nil, err
	}
	*scratch = w.values(*scratch, 1)
	return gemm.Pack(*scratch, n, k), b.values(nil, 1), nil
}

// reader reads the artifact's little-endian fields, remembering the first
// overrun.
type reader struct {
	s   string
	err error
}

func (r *reader) str(n int) string {
	if r.err != nil || n < 0 || n > len(r.s) {
		if r.err == nil {
			r.err = fmt.Errorf("truncated: %d bytes wanted, %d left", n, len(r.s))
		}
		return ""
	}
	s := r.s[:n]
	r.s = r.s[n:]
	return s
}

func (r *reader) u8() uint8 {
	s := r.str(1)
	if s == "" {
		return 0
	}
	return s[0]
}

func (r *reader) u32() uint32 {
	s := r.str(4)
	if s == "" {
		return 0
	}
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}
