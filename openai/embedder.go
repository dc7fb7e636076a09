package openai

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	segjson "github.com/segmentio/encoding/json"
	"math"
	"net/http"
	"strings"
	"sync/atomic"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/vector"
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
	// floats is set once the server refused "encoding_format": "base64":
	// later requests ask for JSON numbers.
	floats atomic.Bool
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
	c.explain = e.rejected
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

// Requests are split where providers limit them: OpenAI takes at most
// 2,048 inputs and about 300,000 tokens a request; maxRequestChars keeps a
// request's text well under that (a token is 3 to 4 characters of English).
const (
	maxRequestInputs = 2048
	maxRequestChars  = 600_000
)

// Embed returns one vector per text, in order: one request, or as few as
// the provider's limits on inputs and size allow. It returns nil without a
// request when texts is empty.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); {
		end, size := start, 0
		for end < len(texts) && end-start < maxRequestInputs && (end == start || size+len(texts[end]) <= maxRequestChars) {
			size += len(texts[end])
			end++
		}
		vecs, err := e.embed(ctx, texts[start:end])
		if err != nil {
			return nil, err
		}
		out = append(out, vecs...)
		start = end
	}
	return out, nil
}

// embed returns one vector per text, in order, from a single request.
//
// It asks for the vectors in base64 ("encoding_format": "base64", as
// OpenAI's own SDKs do): decoding 1,536 numbers written as text cost more
// than anything else a stored memory takes. It reads either form back, for
// servers that ignore the field, and asks for numbers from then on when a
// server refuses it.
func (e *Embedder) embed(ctx context.Context, texts []string) ([][]float32, error) {
	req := embeddingRequest{Model: e.model, Input: texts, Dimensions: e.dims, EncodingFormat: "base64"}
	if e.floats.Load() {
		req.EncodingFormat = ""
	}
	body, err := e.c.post(ctx, req)
	if errors.Is(err, errBase64Refused) {
		e.floats.Store(true)
		req.EncodingFormat = ""
		if body, err = e.c.post(ctx, req); errors.Is(err, errBase64Refused) {
			err = e.c.errorf(hippo.EINTERNAL, "the server answered 400 about base64 to a request without encoding_format")
		}
	}
	if err != nil {
		return nil, err
	}
	resp, err := decodeEmbeddingResponse(body)
	if err != nil {
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
		v, err := decodeEmbedding(d.Embedding)
		if err != nil {
			return nil, e.c.errorf(hippo.EINTERNAL, "the embedding of text %d %v", i, err)
		}
		if len(v) == 0 {
			return nil, e.c.errorf(hippo.EINTERNAL, "the embedding of text %d is empty", i)
		}
		if want == 0 {
			want = len(v)
		}
		if len(v) != want {
			return nil, e.c.errorf(hippo.EINTERNAL, "the embedding of text %d has %d dimensions, want %d%s",
				i, len(v), want, e.dimsSource())
		}
		for j, f := range v {
			if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
				return nil, e.c.errorf(hippo.EINTERNAL, "the embedding of text %d holds %v at position %d", i, f, j)
			}
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

// decodeEmbeddingResponse decodes an embeddings response with
// segmentio/encoding's JSON decoder, which reads it as encoding/json does:
// nearly all of a response is its base64 vectors, and encoding/json checks
// and scans a string a byte at a time, twice, which cost a lone stored
// memory more than decoding the base64 itself (28 µs against 4 for one
// 1,536-dimension vector, BenchmarkDecodeEmbeddingResponse). A body it
// refuses is decoded again by encoding/json, whose errors the caller
// reads: segmentio's quote the body, which may echo the API key.
func decodeEmbeddingResponse(body []byte) (embeddingResponse, error) {
	var resp embeddingResponse
	if segjson.Unmarshal(body, &resp) == nil {
		return resp, nil
	}
	resp = embeddingResponse{}
	err := json.Unmarshal(body, &resp)
	return resp, err
}

// errBase64Refused is a server's 400 or 422 about "encoding_format".
var errBase64Refused = errors.New("the server refused encoding_format base64")

// decodeEmbedding reads an embedding written as a JSON array of numbers
// or, for "encoding_format": "base64", as a base64 string of
// little-endian float32 values.
func decodeEmbedding(raw json.RawMessage) ([]float32, error) {
	if len(raw) > 0 && raw[0] == '"' {
		// A string of ASCII without escapes, as base64 is, is its bytes
		// between the quotes: no need to decode it as JSON again.
		s := []byte(raw)
		if len(raw) < 2 || raw[len(raw)-1] != '"' || !plainASCII(raw[1:len(raw)-1]) {
			var str string
			if err := json.Unmarshal(raw, &str); err != nil {
				return nil, fmt.Errorf("is not a string: %v", err)
			}
			s = []byte(str)
		} else {
			s = s[1 : len(s)-1]
		}
		b := make([]byte, base64.StdEncoding.DecodedLen(len(s)))
		n, err := base64.StdEncoding.Decode(b, s)
		if err != nil {
			return nil, fmt.Errorf("is not base64: %v", err)
		}
		b = b[:n]
		if len(b)%4 != 0 {
			return nil, fmt.Errorf("is %d bytes of base64, not a whole number of float32 values", len(b))
		}
		return vector.Decode(nil, b)
	}
	var xs []float64
	if err := json.Unmarshal(raw, &xs); err != nil {
		return nil, fmt.Errorf("is neither an array of numbers nor a base64 string: %v", err)
	}
	v := make([]float32, len(xs))
	for i, x := range xs {
		v[i] = float32(x)
	}
	return v, nil
}

// plainASCII reports whether b holds only ASCII and no backslash.
func plainASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 || c == '\\' {
			return false
		}
	}
	return true
}

// rejected explains a 400 or 422 caused by a field the server does not
// support: "encoding_format" (errBase64Refused: Embed asks again for
// numbers) or "dimensions", which not every model or server supports.
func (e *Embedder) rejected(status int, body []byte) error {
	if status != http.StatusBadRequest && status != http.StatusUnprocessableEntity {
		return nil
	}
	lower := strings.ToLower(string(body))
	if strings.Contains(lower, "encoding_format") || strings.Contains(lower, "base64") {
		return errBase64Refused
	}
	if e.dims == 0 || !strings.Contains(lower, "dimension") {
		return nil
	}
	err := e.c.errorf(hippo.EINVALID,
		"%s (the server rejected \"dimensions\": %d; model %q may not support shortened vectors or this length: unset Dimensions to use its native length)",
		e.c.statusText(status, body), e.dims, e.model)
	err.Field = "dimensions"
	return err
}

type embeddingRequest struct {
	Model          string   `json:"model"`
	Input          []string `json:"input"`
	Dimensions     int      `json:"dimensions,omitempty"`
	EncodingFormat string   `json:"encoding_format,omitempty"`
}

// embeddingResponse's usage is nil when the server omits it.
type embeddingResponse struct {
	Usage *usageField `json:"usage"`
	Data  []struct {
		Index     *int            `json:"index"`
		Embedding json.RawMessage `json:"embedding"`
	} `json:"data"`
	Error json.RawMessage `json:"error"`
}
