package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"strings"
	"sync/atomic"

	"github.com/hippo-mem/hippo"
)

// maxEmbeddingBody bounds an embeddings response: a large batch of
// 3072-dimensional vectors as JSON text fits well within it.
const maxEmbeddingBody = 64 << 20

// Embedder is a hippo.Embedder over POST {BaseURL}/embeddings. It is safe
// for concurrent use.
type Embedder struct {
	c     *client
	model string
	dims  int // configured; 0 when the model's native length is used
	// learned is the length seen in the first response when dims is 0,
	// so later responses can be held to it.
	learned atomic.Int64
}

// NewEmbedder returns an Embedder for cfg. Empty fields default to OpenAI's
// API and text-embedding-3-small.
//
// When Dimensions is set and the server answers 400 or 422 with a body
// mentioning dimensions, as servers and models that cannot shorten vectors
// do, Embed returns an EINVALID error with Field "dimensions" telling the
// user to unset it. It does not retry without the field: vectors of another
// length would not match those already stored.
func NewEmbedder(cfg Config) (*Embedder, error) {
	if cfg.Dimensions < 0 {
		return nil, hippo.Invalidf("dimensions", "must not be negative, got %d", cfg.Dimensions)
	}
	model, err := modelOr(cfg.Model, DefaultEmbeddingModel)
	if err != nil {
		return nil, err
	}
	c, err := newClient(cfg, DefaultEmbeddingBaseURL, "embeddings", maxEmbeddingBody)
	if err != nil {
		return nil, err
	}
	e := &Embedder{c: c, model: model, dims: cfg.Dimensions}
	if e.dims > 0 {
		c.explain = e.rejectedDimensions
	}
	return e, nil
}

// Model returns the embedding model's name.
func (e *Embedder) Model() string { return e.model }

// Dimension returns the configured vector length or, when none is
// configured, the length of the first response's vectors; 0 before then.
func (e *Embedder) Dimension() int {
	if e.dims > 0 {
		return e.dims
	}
	return int(e.learned.Load())
}

// Embed returns one vector per text, in order, from a single request. It
// returns nil without a request when texts is empty.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	body, err := e.c.post(ctx, embeddingRequest{Model: e.model, Input: texts, Dimensions: e.dims})
	if err != nil {
		return nil, err
	}
	var resp embeddingResponse
	if err := json.Unmarshal(body, &resp); err != nil {
		// JSON has no NaN or Infinity, but some Python servers write them.
		if _, ok := errors.AsType[*json.SyntaxError](err); ok &&
			(bytes.Contains(body, []byte("NaN")) || bytes.Contains(body, []byte("Infinity"))) {
			return nil, e.c.errorf(hippo.EINTERNAL, "response holds NaN or Infinity, which no embedding may contain")
		}
		return nil, e.c.errorf(hippo.EINTERNAL, "response is not an embeddings object (%v): %s", err, e.c.excerpt(body))
	}
	if len(resp.Data) == 0 {
		if msg := errorField(resp.Error); msg != "" {
			return nil, e.c.errorf(hippo.EINTERNAL, "no embeddings returned: %s", e.c.excerpt([]byte(msg)))
		}
	}
	vecs, err := e.vectors(resp, len(texts))
	if err == nil {
		resp.Usage.report(e.c.onUsage, e.model)
	}
	return vecs, err
}

// vectors orders the response's vectors by index and checks them.
func (e *Embedder) vectors(resp embeddingResponse, n int) ([][]float32, error) {
	if len(resp.Data) != n {
		return nil, e.c.errorf(hippo.EINTERNAL, "%d embeddings returned for %d texts", len(resp.Data), n)
	}
	// Only a configured length binds every response: a learned one is the
	// last response's, so one bad answer does not pin the embedder. The
	// database's model lock refuses vectors of another length anyway.
	want := e.dims
	out := make([][]float32, n)
	seen := make([]bool, n)
	for pos, d := range resp.Data {
		i := pos // some servers omit index and answer in order
		if d.Index != nil {
			i = *d.Index
		}
		if i < 0 || i >= n {
			return nil, e.c.errorf(hippo.EINTERNAL, "embedding index %d is out of range for %d texts", i, n)
		}
		if seen[i] {
			return nil, e.c.errorf(hippo.EINTERNAL, "embedding index %d appears twice", i)
		}
		seen[i] = true
		if len(d.Embedding) == 0 {
			return nil, e.c.errorf(hippo.EINTERNAL, "the embedding of text %d is empty", i)
		}
		if want == 0 {
			want = len(d.Embedding)
		}
		if len(d.Embedding) != want {
			return nil, e.c.errorf(hippo.EINTERNAL, "the embedding of text %d has %d dimensions, want %d%s",
				i, len(d.Embedding), want, e.dimsSource())
		}
		v := make([]float32, len(d.Embedding))
		for j, x := range d.Embedding {
			f := float32(x)
			if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
				return nil, e.c.errorf(hippo.EINTERNAL, "the embedding of text %d holds %v at position %d", i, f, j)
			}
			v[j] = f
		}
		out[i] = v
	}
	if e.dims == 0 {
		e.learned.Store(int64(want))
	}
	return out, nil
}

// dimsSource says where an expected length came from, for error messages.
func (e *Embedder) dimsSource() string {
	switch {
	case e.dims > 0:
		return " (the configured Dimensions)"
	}
	return " (as the first embedding of the response)"
}

// rejectedDimensions explains a 400 or 422 caused by the "dimensions"
// field, which not every model or server supports.
func (e *Embedder) rejectedDimensions(status int, body []byte) error {
	if status != http.StatusBadRequest && status != http.StatusUnprocessableEntity {
		return nil
	}
	if !strings.Contains(strings.ToLower(string(body)), "dimension") {
		return nil
	}
	err := e.c.errorf(hippo.EINVALID,
		"%s (the server rejected \"dimensions\": %d; model %q may not support shortened vectors or this length: unset Dimensions to use its native length)",
		e.c.statusText(status, body), e.dims, e.model)
	err.Field = "dimensions"
	return err
}

type embeddingRequest struct {
	Model      string   `json:"model"`
	Input      []string `json:"input"`
	Dimensions int      `json:"dimensions,omitempty"`
}

// embeddingResponse's usage is nil when the server omits it.
type embeddingResponse struct {
	Usage *usageField `json:"usage"`
	Data  []struct {
		Index     *int      `json:"index"`
		Embedding []float64 `json:"embedding"`
	} `json:"data"`
	Error json.RawMessage `json:"error"`
}
