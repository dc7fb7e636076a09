package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/hippo-mem/hippo/local/minilm/internal/wordpiece"
)

// refModel is the full-precision model, run in float64 one window at a
// time with no tricks: the yardstick for the package's int8 model.
type refModel struct {
	t map[string][]float64
	// stats, when not nil, gathers each linear layer's inputs.
	stats map[string]*inputStats
}

// inputStats are the per-channel mean and mean square of a linear layer's
// inputs.
type inputStats struct {
	n       int
	sum, sq []float64
	h       []float64 // k×k sum of x·xᵀ, upper triangle
}

// add accumulates the rows of x, k values each.
func (st *inputStats) add(x []float64, k int) {
	for r := 0; r < len(x); r += k {
		row := x[r : r+k]
		for i, v := range row {
			st.sum[i] += v
			st.sq[i] += v * v
			if v == 0 {
				continue
			}
			h := st.h[i*k+i : (i+1)*k]
			for j, w := range row[i:] {
				h[j] += v * w
			}
		}
		st.n++
	}
}

func newRefModel(tensors map[string]tensor) (*refModel, error) {
	m := &refModel{t: map[string][]float64{}}
	for name, t := range tensors {
		v := make([]float64, len(t.data))
		for i, x := range t.data {
			v[i] = float64(x)
		}
		m.t[name] = v
	}
	if len(m.t["embeddings.word_embeddings.weight"]) != vocabSize*hidden {
		return nil, fmt.Errorf("no word embeddings of %d×%d", vocabSize, hidden)
	}
	return m, nil
}

func (m *refModel) w(name string) []float64 {
	v, ok := m.t[name]
	if !ok {
		panic("no tensor " + name)
	}
	return v
}

// linear returns x·Wᵀ + b for x of len(x)/k rows.
func (m *refModel) linear(x []float64, prefix string, k int) []float64 {
	w, b := m.w(prefix+".weight"), m.w(prefix+".bias")
	n := len(b)
	rows := len(x) / k
	if m.stats != nil {
		// Queries, keys and values share their input.
		key := strings.Replace(strings.Replace(prefix, ".key", ".query", 1), ".value", ".query", 1)
		if key == prefix {
			st := m.stats[key]
			if st == nil {
				st = &inputStats{sum: make([]float64, k), sq: make([]float64, k), h: make([]float64, k*k)}
				m.stats[key] = st
			}
			st.add(x, k)
		}
		if key != prefix {
			m.stats[prefix] = m.stats[key]
		}
	}
	out := make([]float64, rows*n)
	for r := range rows {
		for j := range n {
			s := b[j]
			for p := range k {
				s += x[r*k+p] * w[j*k+p]
			}
			out[r*n+j] = s
		}
	}
	return out
}

func (m *refModel) layerNorm(x []float64, prefix string) {
	g, b := m.w(prefix+".weight"), m.w(prefix+".bias")
	for r := 0; r < len(x); r += hidden {
		row := x[r : r+hidden]
		var mean, v float64
		for _, a := range row {
			mean += a
		}
		mean /= hidden
		for _, a := range row {
			v += (a - mean) * (a - mean)
		}
		inv := 1 / math.Sqrt(v/hidden+lnEps)
		for i := range row {
			row[i] = (row[i]-mean)*inv*g[i] + b[i]
		}
	}
}

// hidden returns the last hidden state of one window of token IDs.
func (m *refModel) hiddenState(ids []int32) []float64 {
	L := len(ids)
	x := make([]float64, L*hidden)
	word, pos, typ := m.w("embeddings.word_embeddings.weight"), m.w("embeddings.position_embeddings.weight"), m.w("embeddings.token_type_embeddings.weight")
	for i, id := range ids {
		for j := range hidden {
			x[i*hidden+j] = word[int(id)*hidden+j] + pos[i*hidden+j] + typ[j]
		}
	}
	m.layerNorm(x, "embeddings.LayerNorm")
	const hd = hidden / heads
	for l := range layers {
		p := fmt.Sprintf("encoder.layer.%d.", l)
		q := m.linear(x, p+"attention.self.query", hidden)
		k := m.linear(x, p+"attention.self.key", hidden)
		v := m.linear(x, p+"attention.self.value", hidden)
		ctx := make([]float64, L*hidden)
		scores := make([]float64, L)
		for h := range heads {
			for i := range L {
				mx := math.Inf(-1)
				for j := range L {
					var s float64
					for d := range hd {
						s += q[i*hidden+h*hd+d] * k[j*hidden+h*hd+d]
					}
					scores[j] = s / math.Sqrt(hd)
					mx = max(mx, scores[j])
				}
				var sum float64
				for j := range L {
					scores[j] = math.Exp(scores[j] - mx)
					sum += scores[j]
				}
				for j := range L {
					for d := range hd {
						ctx[i*hidden+h*hd+d] += scores[j] / sum * v[j*hidden+h*hd+d]
					}
				}
			}
		}
		a := m.linear(ctx, p+"attention.output.dense", hidden)
		for i := range x {
			x[i] += a[i]
		}
		m.layerNorm(x, p+"attention.output.LayerNorm")
		f := m.linear(x, p+"intermediate.dense", hidden)
		for i, z := range f {
			f[i] = 0.5 * z * (1 + math.Erf(z/math.Sqrt2))
		}
		o := m.linear(f, p+"output.dense", intermediate)
		for i := range x {
			x[i] += o[i]
		}
		m.layerNorm(x, p+"output.LayerNorm")
	}
	return x
}

// cls returns the [CLS] row of the last hidden state, raw and scaled to
// unit length.
func (m *refModel) cls(ids []int32) (raw, unit []float64) {
	raw = m.hiddenState(ids)[:hidden]
	return raw, normalize(raw)
}

// embed returns the sentence embedding of text under the package's rule:
// the mean of the last hidden state over each window's tokens, the windows
// averaged weighted by their token counts, scaled to unit length.
func (m *refModel) embed(tok *wordpiece.Tokenizer, text string) ([]float64, int) {
	pieces := tok.AppendPieces(nil, text)
	sum := make([]float64, hidden)
	for _, w := range wordpiece.Windows(len(pieces)) {
		ids := append(append([]int32{tok.CLS()}, pieces[w[0]:w[1]]...), tok.SEP())
		x := m.hiddenState(ids)
		for i := range ids {
			for j := range hidden {
				sum[j] += x[i*hidden+j]
			}
		}
	}
	return normalize(sum), len(pieces) + 2
}

func normalize(v []float64) []float64 {
	var n float64
	for _, x := range v {
		n += x * x
	}
	n = math.Sqrt(n)
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = x / n
	}
	return out
}

// calibrate runs calibrationTexts through m and returns the statistics
// of each linear layer's inputs, keyed by the layer's tensor prefix.
func (m *refModel) calibrate(tok *wordpiece.Tokenizer) map[string]*inputStats {
	m.stats = map[string]*inputStats{}
	defer func() { m.stats = nil }()
	for _, t := range calibrationTexts {
		m.hiddenState(tok.Encode(t))
	}
	// And one full window of them run together.
	pieces := tok.AppendPieces(nil, strings.Join(calibrationTexts, " "))
	w := wordpiece.Windows(len(pieces))[0]
	m.hiddenState(append(append([]int32{tok.CLS()}, pieces[w[0]:w[1]]...), tok.SEP()))
	return m.stats
}

// calibrationTexts are sentences, apart from the reference ones, whose
// activations weigh the quantization error of each weight.
var calibrationTexts = []string{
	"User prefers tea over coffee in the morning.",
	"The user's daughter starts school in September.",
	"Works as a backend engineer at a fintech startup in Lisbon.",
	"Allergic to penicillin; carries an EpiPen.",
	"Runs 5 km every Tuesday and Thursday before work.",
	"Favourite editor is Neovim with the Gruvbox theme.",
	"Deploys with Kubernetes on GKE, region europe-west1.",
	"Birthday: 14 July 1990.",
	"Hates meetings before 10am!",
	"Is learning Japanese — currently at JLPT N4.",
	"Uses PostgreSQL 16 and Redis for caching.",
	"Their cat is called Miso.",
	"Moved to Toronto in 2021 after living in Montréal.",
	"Prefers short answers without bullet points.",
	"Budget for the trip is $2,500 (flights excluded).",
	"Why does the build fail on ARM64?",
	"ok",
	"Yes.",
	"Remember that the API key rotates monthly.",
	"The quarterly report is due on the last Friday of March, June, September and December.",
	"She said: \"I'll be there at 7:30, don't wait for me.\"",
	"Reads science fiction, mostly Ursula K. Le Guin and Ted Chiang.",
	"Vegetarian since 2015, but eats fish occasionally.",
	"Password manager: 1Password; 2FA via YubiKey.",
	"Plays the piano and the guitar; wants to learn the cello.",
	"Wohnt in München und arbeitet bei Siemens.",
	"Le client préfère être contacté par courriel.",
	"北京的天气很好。",
	"Version 3.2.1 fixed the memory leak in the parser.",
	"Call mom every Sunday evening.",
}

// referenceTexts are varied sentences: short, long, punctuation, accents,
// numbers, CJK, and one well over the 256-token window.
func referenceTexts() []string {
	texts := []string{
		"hello world",
		"The user prefers dark mode in every editor.",
		"My wife's birthday is on March 3rd, 1987.",
		"I moved from Berlin to Bangkok last year!",
		"Café crème, naïve façade, résumé — Zoë's jalapeño piñata.",
		"Server 10.0.0.12 returned HTTP 503 at 03:14:15 UTC; retried 3×.",
		"What's the capital of France? Paris, obviously...",
		"东京是日本的首都。",
		"The quick brown fox jumps over the lazy dog.",
		"Don't use tabs; always use 4 spaces (PEP 8).",
		"a",
		"",
		"User is allergic to peanuts and shellfish.",
		"Uses Go 1.26 with modernc.org/sqlite — no cgo.",
		"email: jane.doe+test@example.com, phone +44 20 7946 0958",
		"Supercalifragilisticexpialidocious antidisestablishmentarianism",
		"ПРИВЕТ мир, Ελληνικά και Español.",
		"The meeting was moved from Tuesday at 3pm to Thursday at 10am because the client's flight from São Paulo was delayed, and everyone agreed that the quarterly review should wait until the new numbers for Q3 revenue, churn and net promoter score were in.",
	}
	var b strings.Builder
	for i := range 14 {
		fmt.Fprintf(&b, "Entry %d: the team reviewed incident #%d, rolled back release v2.%d, and wrote a post-mortem. ", i+1, 100+i, i)
	}
	texts = append(texts, strings.TrimSpace(b.String()))
	return texts
}

// reference embeds referenceTexts and renders them as JSON, one text per
// line, with six decimals, after cls, the unit-length [CLS] row of the
// last hidden state of "hello world".
func reference(tok *wordpiece.Tokenizer, m *refModel, cls []float64) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("{\"model\": \"" + pkgSpec + " fp16, float64 forward pass\",\n\"hello_world_cls\": [")
	for j, x := range cls {
		if j > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatFloat(x, 'f', 6, 64))
	}
	b.WriteString("],\n\"texts\": [\n")
	texts := referenceTexts()
	for i, t := range texts {
		v, n := m.embed(tok, t)
		js, err := json.Marshal(t)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&b, "{\"text\": %s, \"tokens\": %d, \"vector\": [", js, n)
		for j, x := range v {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.FormatFloat(x, 'f', 6, 64))
		}
		b.WriteString("]}")
		if i < len(texts)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("]}\n")
	return b.Bytes(), nil
}
