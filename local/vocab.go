package local

import (
	_ "embed"
	"fmt"
	"math"
	"sync"
)

// gloveBin is the artifact written by internal/gen: the 100,000 most
// frequent GloVe 6B words, int8-quantized, with their SIF weights and the
// common component. See internal/gen for the layout.
//
//go:embed glove.bin
var gloveBin string

const gloveMagic = "HGLOVE01"

// maxDim bounds the vector length so scratch vectors fit on the stack.
const maxDim = 128

// vocab is the parsed artifact. It is immutable once loaded.
type vocab struct {
	dim       int
	index     map[string]int32
	coef      []float32 // SIF weight × dequantization scale, per word
	vecs      string    // count × dim int8
	common    []float32 // unit; removed from every sentence vector
	oovNorm   float32   // norm of an out-of-vocabulary word's vector
	oovWeight float32   // SIF weight of an out-of-vocabulary word
	numeral   []float32 // unit direction shared by all numbers
}

var (
	vocabOnce sync.Once
	vocabVal  *vocab
	vocabErr  error
)

// loadVocab parses the embedded artifact once.
func loadVocab() (*vocab, error) {
	vocabOnce.Do(func() { vocabVal, vocabErr = parseVocab(gloveBin) })
	return vocabVal, vocabErr
}

// parseVocab reads an artifact. Words and vectors point into data.
func parseVocab(data string) (*vocab, error) {
	bad := func(what string) (*vocab, error) {
		return nil, fmt.Errorf("local: corrupt glove.bin: %s", what)
	}
	if len(data) < len(gloveMagic)+16 || data[:len(gloveMagic)] != gloveMagic {
		return bad("bad header")
	}
	off := len(gloveMagic)
	u32 := func() uint32 {
		v := uint32(data[off]) | uint32(data[off+1])<<8 | uint32(data[off+2])<<16 | uint32(data[off+3])<<24
		off += 4
		return v
	}
	dim, count := int(u32()), int(u32())
	if dim == 0 || dim > maxDim || count == 0 {
		return bad("bad dimensions")
	}
	if len(data) < off+8+4*(dim+2*count)+count*(dim+1) {
		return bad("truncated")
	}
	f32s := func(n int) []float32 {
		out := make([]float32, n)
		for i := range out {
			out[i] = math.Float32frombits(u32())
		}
		return out
	}
	v := &vocab{dim: dim}
	v.oovNorm = math.Float32frombits(u32())
	v.oovWeight = math.Float32frombits(u32())
	v.common = f32s(dim)
	v.coef = f32s(count)
	scale := f32s(count)
	for i := range v.coef {
		v.coef[i] *= scale[i]
	}
	v.index = make(map[string]int32, count)
	for i := range count {
		if off >= len(data) {
			return bad("truncated words")
		}
		n := int(data[off])
		off++
		if off+n > len(data) {
			return bad("truncated words")
		}
		v.index[data[off:off+n]] = int32(i)
		off += n
	}
	if len(data)-off != count*dim {
		return bad("vector block size")
	}
	v.vecs = data[off:]
	v.numeral = make([]float32, dim)
	for _, w := range []string{"two", "three", "four", "five", "six", "seven", "eight", "nine"} {
		if i := v.lookup([]byte(w)); i >= 0 {
			v.addWord(v.numeral, i, 1/v.coef[i])
		}
	}
	if !normalize(v.numeral) {
		return bad("no numerals")
	}
	return v, nil
}

// lookup returns the index of word, or -1.
func (v *vocab) lookup(word []byte) int32 {
	if i, ok := v.index[string(word)]; ok {
		return i
	}
	return -1
}

// addWord adds k times word i's (dequantized) vector to acc.
func (v *vocab) addWord(acc []float32, i int32, k float32) {
	k *= v.coef[i]
	row := v.vecs[int(i)*v.dim : int(i+1)*v.dim]
	acc = acc[:len(row)]
	for d := 0; d < len(row); d++ { // by byte: ranging over a string decodes runes
		acc[d] += k * float32(int8(row[d]))
	}
}

// addOOV adds k times the hashed character n-gram vector of word to acc:
// the sum of a sparse pseudo-random vector per 3-, 4- and 5-gram of
// "<word>" and one for the whole word, scaled to the typical norm of a
// rare word. Words sharing n-grams ("kubernetes", "kubectl") point the
// same way.
func (v *vocab) addOOV(acc []float32, word []byte, k float32) {
	var padBuf [66]byte
	pad := padBuf[:0]
	if len(word)+2 > len(padBuf) {
		word = word[:len(padBuf)-2]
	}
	pad = append(pad, '<')
	pad = append(pad, word...)
	pad = append(pad, '>')

	var tmp [maxDim]float32
	vec := tmp[:v.dim]
	addHashed(vec, fnv1a(pad))
	for n := 3; n <= 5; n++ {
		for i := 0; i+n <= len(pad); i++ {
			addHashed(vec, fnv1a(pad[i:i+n])^uint64(n))
		}
	}
	var sq float32
	for _, x := range vec {
		sq += x * x
	}
	if sq == 0 {
		return // every draw cancelled out: vanishingly rare
	}
	k *= v.oovNorm / float32(math.Sqrt(float64(sq)))
	for d, x := range vec {
		acc[d] += k * x
	}
}

// Numbers share a direction, so "34 years old" and "35 years old" stay
// close, and keep a hashed part, so they still differ. Spelt-out numbers
// take the same path as digits: "eight" is "8".
const (
	numberWeight = 0.5 // SIF weight of a number, a moderately common word
	numeralShare = 0.8 // cosine of two different numbers' vectors ≈ 0.64
)

// addNumber adds k times the vector of the number written num to acc.
func (v *vocab) addNumber(acc []float32, num []byte, k float32) {
	var tmp [maxDim]float32
	vec := tmp[:v.dim]
	v.addOOV(vec, num, 1)
	normalize(vec)
	hashed := float32(math.Sqrt(1 - numeralShare*numeralShare))
	k *= numberWeight * v.oovNorm
	for d := range vec {
		acc[d] += k * (numeralShare*v.numeral[d] + hashed*vec[d])
	}
}

// numberWords spell out the numbers that facts use; "one" is left out, as
// it is more often a pronoun.
var numberWords = map[string]string{
	"two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7", "eight": "8",
	"nine": "9", "ten": "10", "eleven": "11", "twelve": "12", "thirteen": "13", "fourteen": "14",
	"fifteen": "15", "sixteen": "16", "seventeen": "17", "eighteen": "18", "nineteen": "19",
	"twenty": "20", "thirty": "30", "forty": "40", "fifty": "50", "sixty": "60", "seventy": "70",
	"eighty": "80", "ninety": "90", "hundred": "100",
}

// addHashed adds to vec the sparse random vector of the feature hashed to
// h: ±1 at hashedEntries positions drawn from a generator seeded with h (a
// count sketch). Sparse keeps an out-of-vocabulary word to a microsecond
// or two.
func addHashed(vec []float32, h uint64) {
	n := uint64(len(vec))
	for range hashedEntries / 4 {
		h = splitmix64(h)
		for shift := 0; shift < 64; shift += 16 { // four 16-bit draws
			r := h >> shift & 0xffff
			if i := (r & 0x7fff) * n >> 15; r&0x8000 != 0 { // multiply-shift, not a division
				vec[i]++
			} else {
				vec[i]--
			}
		}
	}
}

// hashedEntries is the number of non-zero components each hashed feature
// adds.
const hashedEntries = 8

func fnv1a(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return h
}

func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
