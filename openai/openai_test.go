package openai

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/vector"
)

const testKey = "sk-test-SECRET-0123456789abcdef"

// server is a fake OpenAI-compatible endpoint that records what it receives
// and answers with handle.
type server struct {
	*httptest.Server
	calls atomic.Int32
	mu    sync.Mutex
	reqs  []recorded
}

type recorded struct {
	path   string
	header http.Header
	body   map[string]any
}

func newServer(t *testing.T, handle func(w http.ResponseWriter, r *http.Request, n int, body map[string]any)) *server {
	t.Helper()
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := int(s.calls.Add(1))
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(raw, &body)
		s.mu.Lock()
		s.reqs = append(s.reqs, recorded{path: r.URL.Path, header: r.Header.Clone(), body: body})
		s.mu.Unlock()
		handle(w, r, n, body)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *server) request(t *testing.T, i int) recorded {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if i >= len(s.reqs) {
		t.Fatalf("request %d not received; got %d", i, len(s.reqs))
	}
	return s.reqs[i]
}

// embeddings answers with vector [i+1, 0.5, -1] for input i, in order.
func embeddings(w http.ResponseWriter, _ *http.Request, _ int, body map[string]any) {
	input, _ := body["input"].([]any)
	data := make([]map[string]any, len(input))
	for i := range input {
		data[i] = map[string]any{"object": "embedding", "index": i, "embedding": []float64{float64(i + 1), 0.5, -1}}
	}
	writeJSON(w, 200, map[string]any{"object": "list", "data": data, "model": body["model"],
		"usage": map[string]int{"prompt_tokens": 3, "total_tokens": 3}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": "test_error"}})
}

// waits records the waits a client asks for and returns at once.
type waits struct {
	mu sync.Mutex
	d  []time.Duration
}

func (w *waits) sleep(ctx context.Context, d time.Duration) error {
	w.mu.Lock()
	w.d = append(w.d, d)
	w.mu.Unlock()
	return ctx.Err()
}

func (w *waits) all() []time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]time.Duration(nil), w.d...)
}

// fast makes c retry without waiting and returns the record of its waits.
func fast(c *client) *waits {
	w := &waits{}
	c.sleep = w.sleep
	return w
}

func newEmbedder(t *testing.T, cfg Config) (*Embedder, *waits) {
	t.Helper()
	e, err := NewEmbedder(cfg)
	if err != nil {
		t.Fatalf("NewEmbedder: %v", err)
	}
	return e, fast(e.c)
}

func newLLM(t *testing.T, cfg Config) (*LLM, *waits) {
	t.Helper()
	l, err := NewLLM(cfg)
	if err != nil {
		t.Fatalf("NewLLM: %v", err)
	}
	return l, fast(l.c)
}

func wantErr(t *testing.T, err error, code string, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want one containing %q", parts)
	}
	if got := hippo.ErrorCode(err); got != code {
		t.Errorf("ErrorCode = %q, want %q (error: %v)", got, code, err)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not contain %q", err, p)
		}
	}
}

func TestEmbedBatch(t *testing.T) {
	tests := []struct {
		name     string
		suffix   string // appended to the server URL to form BaseURL
		dims     int
		wantDims bool
	}{
		{"native dimensions", "/v1", 0, false},
		{"configured dimensions", "/v1", 3, true},
		{"trailing slash", "/v1/", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, embeddings)
			e, _ := newEmbedder(t, Config{BaseURL: s.URL + tt.suffix, APIKey: testKey, Model: "embed-x", Dimensions: tt.dims})
			texts := []string{"alpha", "beta", "gamma"}
			got, err := e.Embed(context.Background(), texts)
			if err != nil {
				t.Fatalf("Embed: %v", err)
			}
			if n := s.calls.Load(); n != 1 {
				t.Fatalf("requests = %d, want 1", n)
			}
			if len(got) != 3 || got[2][0] != 3 || got[0][1] != 0.5 {
				t.Errorf("vectors = %v", got)
			}
			r := s.request(t, 0)
			if r.path != "/v1/embeddings" {
				t.Errorf("path = %q, want /v1/embeddings", r.path)
			}
			if r.body["model"] != "embed-x" {
				t.Errorf("model = %v, want embed-x", r.body["model"])
			}
			input, ok := r.body["input"].([]any)
			if !ok || len(input) != 3 || input[0] != "alpha" || input[2] != "gamma" {
				t.Errorf("input = %#v, want the three texts as an array", r.body["input"])
			}
			d, has := r.body["dimensions"]
			if has != tt.wantDims {
				t.Errorf("dimensions present = %v, want %v", has, tt.wantDims)
			}
			if tt.wantDims && d != float64(tt.dims) {
				t.Errorf("dimensions = %v, want %d", d, tt.dims)
			}
			if h := r.header.Get("Authorization"); h != "Bearer "+testKey {
				t.Errorf("Authorization = %q", h)
			}
			if h := r.header.Get("User-Agent"); h != "hippo" {
				t.Errorf("User-Agent = %q, want hippo", h)
			}
			if h := r.header.Get("Content-Type"); h != "application/json" {
				t.Errorf("Content-Type = %q", h)
			}
			if e.Dimension() != 3 {
				t.Errorf("Dimension = %d, want 3", e.Dimension())
			}
		})
	}
}

func TestEmbedNoTexts(t *testing.T) {
	s := newServer(t, embeddings)
	e, _ := newEmbedder(t, Config{BaseURL: s.URL})
	got, err := e.Embed(context.Background(), nil)
	if got != nil || err != nil {
		t.Fatalf("Embed(nil) = %v, %v; want nil, nil", got, err)
	}
	if n := s.calls.Load(); n != 0 {
		t.Errorf("requests = %d, want 0", n)
	}
}

// TestEmbedSplit: a batch past a provider's limits (2,048 inputs, about
// 600,000 characters a request) goes as several requests, each within
// them, and the vectors come back in the texts' order.
func TestEmbedSplit(t *testing.T) {
	long := strings.Repeat("x", 250_000)
	tests := []struct {
		name  string
		texts []string
		sizes []int // inputs per request
	}{
		{"5,000 short texts", repeat("note", 5000), []int{2048, 2048, 904}},
		{"exactly 2,048", repeat("note", 2048), []int{2048}},
		{"long texts", []string{long, long, long, "a", long}, []int{2, 3}},
		{"one text past the size limit alone", []string{strings.Repeat("y", 700_000), "a"}, []int{1, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, func(w http.ResponseWriter, r *http.Request, n int, body map[string]any) {
				input, _ := body["input"].([]any)
				data := make([]map[string]any, len(input))
				for i, in := range input {
					data[i] = map[string]any{"index": i, "embedding": []float64{float64(len(in.(string))), float64(n)}}
				}
				writeJSON(w, 200, map[string]any{"object": "list", "data": data, "model": "m"})
			})
			e, _ := newEmbedder(t, Config{BaseURL: s.URL})
			got, err := e.Embed(context.Background(), tt.texts)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.texts) {
				t.Fatalf("%d vectors for %d texts", len(got), len(tt.texts))
			}
			var sizes []int
			for i := range int(s.calls.Load()) {
				in, _ := s.request(t, i).body["input"].([]any)
				sizes = append(sizes, len(in))
			}
			if fmt.Sprint(sizes) != fmt.Sprint(tt.sizes) {
				t.Errorf("requests of %v inputs, want %v", sizes, tt.sizes)
			}
			for i, v := range got {
				if int(v[0]) != len(tt.texts[i]) {
					t.Errorf("vector %d is text %v's, out of order", i, v)
				}
			}
		})
	}
}

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

func TestEmbedOrder(t *testing.T) {
	tests := []struct {
		name string
		data string
	}{
		{"out of order indexes", `[{"index":2,"embedding":[3,0]},{"index":0,"embedding":[1,0]},{"index":1,"embedding":[2,0]}]`},
		{"no indexes", `[{"embedding":[1,0]},{"embedding":[2,0]},{"embedding":[3,0]}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, func(w http.ResponseWriter, _ *http.Request, _ int, _ map[string]any) {
				fmt.Fprintf(w, `{"object":"list","data":%s,"model":"m"}`, tt.data) // no usage
			})
			e, _ := newEmbedder(t, Config{BaseURL: s.URL})
			got, err := e.Embed(context.Background(), []string{"a", "b", "c"})
			if err != nil {
				t.Fatalf("Embed: %v", err)
			}
			for i, v := range got {
				if v[0] != float32(i+1) {
					t.Errorf("vector %d = %v, want first value %d", i, v, i+1)
				}
			}
		})
	}
}

func TestEmbedBadResponse(t *testing.T) {
	tests := []struct {
		name string
		dims int
		body string
		want string
	}{
		{"too few", 0, `{"data":[{"index":0,"embedding":[1,2]}]}`, "1 embeddings returned for 2 texts"},
		{"too many", 0, `{"data":[{"embedding":[1,2]},{"embedding":[1,2]},{"embedding":[1,2]}]}`, "3 embeddings returned for 2 texts"},
		{"mismatched dims", 0, `{"data":[{"index":0,"embedding":[1,2]},{"index":1,"embedding":[1,2,3]}]}`, "text 1 has 3 dimensions, want 2"},
		{"configured dims", 3, `{"data":[{"index":0,"embedding":[1,2]},{"index":1,"embedding":[1,2]}]}`, "has 2 dimensions, want 3 (the configured Dimensions)"},
		{"NaN literal", 0, `{"data":[{"index":0,"embedding":[NaN,2]},{"index":1,"embedding":[1,2]}]}`, "NaN or Infinity"},
		{"overflows float32", 0, `{"data":[{"index":0,"embedding":[1e300,2]},{"index":1,"embedding":[1,2]}]}`, "text 0 holds +Inf at position 0"},
		{"empty vector", 0, `{"data":[{"index":0,"embedding":[]},{"index":1,"embedding":[1,2]}]}`, "text 0 is empty"},
		{"duplicate index", 0, `{"data":[{"index":1,"embedding":[1,2]},{"index":1,"embedding":[1,2]}]}`, "index 1 appears twice"},
		{"index out of range", 0, `{"data":[{"index":0,"embedding":[1,2]},{"index":5,"embedding":[1,2]}]}`, "index 5 is out of range"},
		{"not JSON", 0, `<html>gateway says hi</html>`, "not an embeddings object"},
		{"error in a 200", 0, `{"error":{"message":"model overloaded"}}`, "no embeddings returned: model overloaded"},
		{"not base64", 0, `{"data":[{"index":0,"embedding":"AAAA!!"},{"index":1,"embedding":[1,2]}]}`, "text 0 is not base64"},
		{"base64 of 6 bytes", 0, `{"data":[{"index":0,"embedding":"AACAPwAA"},{"index":1,"embedding":[1,2]}]}`, "6 bytes of base64, not a whole number of float32 values"},
		{"base64 NaN", 0, `{"data":[{"index":0,"embedding":"AADAfwAAAEA="},{"index":1,"embedding":[1,2]}]}`, "text 0 holds NaN at position 0"},
		{"an object", 0, `{"data":[{"index":0,"embedding":{"x":1}},{"index":1,"embedding":[1,2]}]}`, "neither an array of numbers nor a base64 string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, func(w http.ResponseWriter, _ *http.Request, _ int, _ map[string]any) {
				io.WriteString(w, tt.body)
			})
			e, _ := newEmbedder(t, Config{BaseURL: s.URL, Dimensions: tt.dims})
			_, err := e.Embed(context.Background(), []string{"a", "b"})
			wantErr(t, err, hippo.EINTERNAL, s.URL+"/embeddings", tt.want)
		})
	}
}

// TestEmbedBase64 checks that Embed asks for base64 vectors, reads them
// and plain numbers alike, and asks for numbers from then on once a
// server refuses base64.
func TestEmbedBase64(t *testing.T) {
	vec := []float32{1, -2.5, 0.125}
	const b64 = "AACAPwAAIMAAAAA+" // vec, little-endian float32
	tests := []struct {
		name     string
		answer   func(w http.ResponseWriter, format any)
		requests []int // requests the server has seen after each of two Embeds
		formats  []any // encoding_format of each request
	}{
		{"answers base64", func(w http.ResponseWriter, format any) {
			io.WriteString(w, `{"data":[{"index":0,"embedding":"`+b64+`"}]}`)
		}, []int{1, 2}, []any{"base64", "base64"}},
		{"ignores the field", func(w http.ResponseWriter, format any) {
			io.WriteString(w, `{"data":[{"index":0,"embedding":[1,-2.5,0.125]}]}`)
		}, []int{1, 2}, []any{"base64", "base64"}},
		{"refuses base64", func(w http.ResponseWriter, format any) {
			if format != nil {
				writeError(w, 400, "Unsupported value for encoding_format")
				return
			}
			io.WriteString(w, `{"data":[{"index":0,"embedding":[1,-2.5,0.125]}]}`)
		}, []int{2, 3}, []any{"base64", nil, nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, func(w http.ResponseWriter, _ *http.Request, _ int, body map[string]any) {
				tt.answer(w, body["encoding_format"])
			})
			e, _ := newEmbedder(t, Config{BaseURL: s.URL})
			for i := range 2 {
				got, err := e.Embed(context.Background(), []string{"x"})
				if err != nil || len(got) != 1 || fmt.Sprint(got[0]) != fmt.Sprint(vec) {
					t.Fatalf("Embed %d = %v, %v; want [%v]", i, got, err, vec)
				}
				if n := int(s.calls.Load()); n != tt.requests[i] {
					t.Errorf("requests after Embed %d = %d, want %d", i, n, tt.requests[i])
				}
			}
			s.mu.Lock()
			defer s.mu.Unlock()
			var formats []any
			for _, r := range s.reqs {
				formats = append(formats, r.body["encoding_format"])
			}
			if fmt.Sprint(formats) != fmt.Sprint(tt.formats) {
				t.Errorf("encoding_format of each request = %v, want %v", formats, tt.formats)
			}
		})
	}
}

func TestEmbedDimensionLearned(t *testing.T) {
	wide := atomic.Bool{}
	s := newServer(t, func(w http.ResponseWriter, _ *http.Request, _ int, _ map[string]any) {
		if wide.Load() {
			io.WriteString(w, `{"data":[{"index":0,"embedding":[1,2,3,4]}]}`)
			return
		}
		io.WriteString(w, `{"data":[{"index":0,"embedding":[1,2,3]}]}`)
	})
	e, _ := newEmbedder(t, Config{BaseURL: s.URL})
	if d := e.Dimension(); d != 0 {
		t.Fatalf("Dimension before any call = %d, want 0", d)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if _, err := e.Embed(context.Background(), []string{"x"}); err != nil {
				t.Errorf("Embed: %v", err)
			}
			_ = e.Dimension()
		})
	}
	wg.Wait()
	if d := e.Dimension(); d != 3 {
		t.Fatalf("Dimension = %d, want 3", d)
	}
	// A server that changes length is followed, not pinned to its first
	// answer: the database's model lock is what refuses a new length.
	wide.Store(true)
	if v, err := e.Embed(context.Background(), []string{"x"}); err != nil || len(v[0]) != 4 || e.Dimension() != 4 {
		t.Fatalf("after the server widened: %v, %v, Dimension %d", v, err, e.Dimension())
	}
}

func TestEmbedDimensionsRejected(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, _ *http.Request, _ int, _ map[string]any) {
		writeError(w, 400, "This model does not support specifying dimensions.")
	})
	e, _ := newEmbedder(t, Config{BaseURL: s.URL, Model: "text-embedding-ada-002", Dimensions: 256})
	_, err := e.Embed(context.Background(), []string{"a"})
	wantErr(t, err, hippo.EINVALID, s.URL+"/embeddings", "400", "does not support specifying dimensions",
		`rejected "dimensions": 256`, "unset Dimensions")
	if he, ok := errors.AsType[*hippo.Error](err); !ok || he.Field != "dimensions" {
		t.Errorf("error field = %v, want dimensions", err)
	}
	if n := s.calls.Load(); n != 1 {
		t.Errorf("requests = %d, want 1", n)
	}

	// Without Dimensions configured the same body is an ordinary 400.
	e, _ = newEmbedder(t, Config{BaseURL: s.URL})
	_, err = e.Embed(context.Background(), []string{"a"})
	wantErr(t, err, hippo.EINTERNAL, "400 Bad Request")
}

func TestRetryAfterThenSuccess(t *testing.T) {
	tests := []struct {
		name       string
		retryAfter string
		want       time.Duration
	}{
		{"zero seconds", "0", 0},
		{"seconds", "7", 7 * time.Second},
		{"capped", "3600", maxWait},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, func(w http.ResponseWriter, r *http.Request, n int, body map[string]any) {
				if n == 1 {
					w.Header().Set("Retry-After", tt.retryAfter)
					writeError(w, 429, "Rate limit reached")
					return
				}
				embeddings(w, r, n, body)
			})
			e, w := newEmbedder(t, Config{BaseURL: s.URL})
			e.c.backoff = func(int) time.Duration { t.Error("backoff used despite Retry-After"); return 0 }
			if _, err := e.Embed(context.Background(), []string{"a"}); err != nil {
				t.Fatalf("Embed: %v", err)
			}
			if n := s.calls.Load(); n != 2 {
				t.Errorf("requests = %d, want 2", n)
			}
			if got := w.all(); len(got) != 1 || got[0] != tt.want {
				t.Errorf("waits = %v, want [%v]", got, tt.want)
			}
		})
	}
}

func TestRetryAfterParse(t *testing.T) {
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		in     string
		want   time.Duration
		wantOK bool
	}{
		{"", 0, false},
		{"0", 0, true},
		{" 12 ", 12 * time.Second, true},
		{"99999999999999999", maxWait, true},
		{"-1", 0, false},
		{"soon", 0, false},
		{now.Add(9 * time.Second).Format(http.TimeFormat), 9 * time.Second, true},
		{now.Add(-time.Hour).Format(http.TimeFormat), 0, true},
	}
	for _, tt := range tests {
		got, ok := retryAfter(tt.in, now)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("retryAfter(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.wantOK)
		}
	}
}

func TestBackoff(t *testing.T) {
	for attempt := 1; attempt <= 40; attempt++ {
		nominal := min(baseBackoff<<min(attempt-1, 15), maxWait)
		for range 50 {
			if d := backoff(attempt); d < nominal/2 || d > nominal {
				t.Fatalf("backoff(%d) = %v, want within [%v, %v]", attempt, d, nominal/2, nominal)
			}
		}
	}
}

func TestGiveUp(t *testing.T) {
	tests := []struct {
		name         string
		maxRetries   int
		wantRequests int
		wantPrefix   string
	}{
		{"default retries", 0, 4, "gave up after 4 attempts: "},
		{"two retries", 2, 3, "gave up after 3 attempts: "},
		{"no retries", -1, 1, "/embeddings: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, func(w http.ResponseWriter, _ *http.Request, _ int, _ map[string]any) {
				writeError(w, 500, "The server had an error while processing your request.")
			})
			e, w := newEmbedder(t, Config{BaseURL: s.URL, MaxRetries: tt.maxRetries})
			_, err := e.Embed(context.Background(), []string{"a"})
			wantErr(t, err, hippo.EINTERNAL, s.URL+"/embeddings", tt.wantPrefix+"500 Internal Server Error",
				"The server had an error while processing your request.")
			if n := int(s.calls.Load()); n != tt.wantRequests {
				t.Errorf("requests = %d, want %d", n, tt.wantRequests)
			}
			if got := len(w.all()); got != tt.wantRequests-1 {
				t.Errorf("waits = %d, want %d", got, tt.wantRequests-1)
			}
		})
	}
}

func TestNoRetry(t *testing.T) {
	for _, status := range []int{400, 401, 403, 404, 422} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			s := newServer(t, func(w http.ResponseWriter, _ *http.Request, _ int, _ map[string]any) {
				writeError(w, status, "nope")
			})
			e, _ := newEmbedder(t, Config{BaseURL: s.URL})
			_, err := e.Embed(context.Background(), []string{"a"})
			wantErr(t, err, hippo.EINTERNAL, s.URL+"/embeddings", fmt.Sprintf("%d %s: nope", status, http.StatusText(status)))
			if n := s.calls.Load(); n != 1 {
				t.Errorf("requests = %d, want 1", n)
			}
		})
	}
}

func TestRetryNetworkError(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request, n int, body map[string]any) {
		if n == 1 {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err != nil {
				t.Errorf("hijack: %v", err)
				return
			}
			conn.Close() // drop the connection without a response
			return
		}
		embeddings(w, r, n, body)
	})
	e, w := newEmbedder(t, Config{BaseURL: s.URL})
	if _, err := e.Embed(context.Background(), []string{"a"}); err != nil {
		t.Fatalf("Embed: %v", err)
	}
	if n := s.calls.Load(); n != 2 {
		t.Errorf("requests = %d, want 2", n)
	}
	if got := w.all(); len(got) != 1 {
		t.Errorf("waits = %v, want one backoff", got)
	}
}

func TestAttemptTimeout(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request, n int, body map[string]any) {
		if n == 1 {
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
			return
		}
		embeddings(w, r, n, body)
	})
	e, _ := newEmbedder(t, Config{BaseURL: s.URL, Timeout: 100 * time.Millisecond})
	if _, err := e.Embed(context.Background(), []string{"a"}); err != nil {
		t.Fatalf("Embed: %v", err)
	}
	if n := s.calls.Load(); n != 2 {
		t.Errorf("requests = %d, want 2", n)
	}

	// Every attempt timing out names the timeout.
	s = newServer(t, func(_ http.ResponseWriter, r *http.Request, _ int, _ map[string]any) {
		<-r.Context().Done()
	})
	e, _ = newEmbedder(t, Config{BaseURL: s.URL, Timeout: 50 * time.Millisecond, MaxRetries: 1})
	_, err := e.Embed(context.Background(), []string{"a"})
	wantErr(t, err, hippo.EINTERNAL, s.URL+"/embeddings", "gave up after 2 attempts: no response within 50ms")
}

func TestCancelDuringBackoff(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, _ *http.Request, _ int, _ map[string]any) {
		w.Header().Set("Retry-After", "30")
		writeError(w, 503, "overloaded")
	})
	e, err := NewEmbedder(Config{BaseURL: s.URL}) // real sleep
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	_, err = e.Embed(ctx, []string{"a"})
	if elapsed := time.Since(start); elapsed > 10*time.Second {
		t.Errorf("Embed took %v after cancel; want prompt return", elapsed)
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	wantErr(t, err, hippo.EINTERNAL, s.URL+"/embeddings", "context canceled", "503 Service Unavailable: overloaded")
	if n := s.calls.Load(); n != 1 {
		t.Errorf("requests = %d, want 1", n)
	}
}

func TestCanceledBeforeCall(t *testing.T) {
	s := newServer(t, embeddings)
	e, _ := newEmbedder(t, Config{BaseURL: s.URL})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := e.Embed(ctx, []string{"a"})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if n := s.calls.Load(); n != 0 {
		t.Errorf("requests = %d, want 0", n)
	}
}

func TestKeyNeverInError(t *testing.T) {
	// Each server echoes the Authorization header somewhere in its reply.
	tests := []struct {
		name   string
		handle func(w http.ResponseWriter, r *http.Request)
	}{
		{"401 error message", func(w http.ResponseWriter, r *http.Request) {
			writeError(w, 401, "Invalid credentials: "+r.Header.Get("Authorization"))
		}},
		{"500 plain text", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(500)
			fmt.Fprintf(w, "crash; headers: %v", r.Header)
		}},
		{"key at the excerpt's cut", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(400)
			io.WriteString(w, strings.Repeat("x", excerptLen-25)+r.Header.Get("Authorization"))
		}},
		{"200 not JSON", func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, "<html>"+r.Header.Get("Authorization")+"</html>")
		}},
		{"200 error object", func(w http.ResponseWriter, r *http.Request) {
			writeError(w, 200, "bad key "+r.Header.Get("Authorization"))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, func(w http.ResponseWriter, r *http.Request, _ int, _ map[string]any) { tt.handle(w, r) })
			e, _ := newEmbedder(t, Config{BaseURL: s.URL, APIKey: testKey, MaxRetries: 1})
			_, eerr := e.Embed(context.Background(), []string{"a"})
			l, _ := newLLM(t, Config{BaseURL: s.URL, APIKey: testKey, MaxRetries: 1})
			_, _, lerr := l.Complete(context.Background(), "sys", []hippo.Message{{Role: "user", Content: "hi"}})
			for _, err := range []error{eerr, lerr} {
				if err == nil {
					t.Fatal("got no error")
				}
				for _, text := range []string{err.Error(), hippo.ErrorMessage(err)} {
					if strings.Contains(text, "SECRET") {
						t.Errorf("error leaks the key: %s", text)
					}
				}
			}
		})
	}
}

func TestNoAuthorizationWithoutKey(t *testing.T) {
	s := newServer(t, embeddings)
	e, _ := newEmbedder(t, Config{BaseURL: s.URL})
	if _, err := e.Embed(context.Background(), []string{"a"}); err != nil {
		t.Fatal(err)
	}
	if h, ok := s.request(t, 0).header["Authorization"]; ok {
		t.Errorf("Authorization = %q, want no header", h)
	}
}

func TestResponseTooLarge(t *testing.T) {
	s := newServer(t, embeddings)
	e, _ := newEmbedder(t, Config{BaseURL: s.URL})
	e.c.maxBody = 16
	_, err := e.Embed(context.Background(), []string{"a"})
	wantErr(t, err, hippo.EINTERNAL, "exceeds the 16-byte limit")
	if n := s.calls.Load(); n != 1 {
		t.Errorf("requests = %d, want 1", n)
	}
}

func chat(content string) func(w http.ResponseWriter, _ *http.Request, _ int, _ map[string]any) {
	return func(w http.ResponseWriter, _ *http.Request, _ int, _ map[string]any) {
		writeJSON(w, 200, map[string]any{
			"id":      "gen-1",
			"object":  "chat.completion",
			"choices": []map[string]any{{"index": 0, "message": map[string]any{"role": "assistant", "content": content}, "finish_reason": "stop"}},
		}) // no usage
	}
}

func TestComplete(t *testing.T) {
	s := newServer(t, chat(`{"facts":[]}`))
	l, _ := newLLM(t, Config{BaseURL: s.URL + "/api/v1/", APIKey: testKey})
	got, _, err := l.Complete(context.Background(), "You extract facts.", []hippo.Message{
		{Role: "user", Content: "I live in Lyon."},
		{Role: "assistant", Content: "Noted."},
	})
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
	if got != `{"facts":[]}` {
		t.Errorf("Complete = %q", got)
	}
	r := s.request(t, 0)
	if r.path != "/api/v1/chat/completions" {
		t.Errorf("path = %q", r.path)
	}
	if r.body["model"] != DefaultChatModel {
		t.Errorf("model = %v, want %s", r.body["model"], DefaultChatModel)
	}
	if temp, ok := r.body["temperature"]; !ok || temp != 0.0 {
		t.Errorf("temperature = %v (present %v), want 0", temp, ok)
	}
	if mt := r.body["max_tokens"]; mt != 1024.0 {
		t.Errorf("max_tokens = %v, want 1024", mt)
	}
	msgs, _ := r.body["messages"].([]any)
	want := []map[string]any{
		{"role": "system", "content": "You extract facts."},
		{"role": "user", "content": "I live in Lyon."},
		{"role": "assistant", "content": "Noted."},
	}
	if len(msgs) != len(want) {
		t.Fatalf("messages = %v, want %v", msgs, want)
	}
	for i, m := range msgs {
		m := m.(map[string]any)
		if m["role"] != want[i]["role"] || m["content"] != want[i]["content"] {
			t.Errorf("message %d = %v, want %v", i, m, want[i])
		}
	}
	if h := r.header.Get("Authorization"); h != "Bearer "+testKey {
		t.Errorf("Authorization = %q", h)
	}
}

func TestCompleteBadResponse(t *testing.T) {
	tests := []struct {
		name string
		body string
		want string
	}{
		{"no choices", `{"choices":[]}`, "no choices returned"},
		{"error in a 200", `{"error":{"message":"Provider returned error","code":502}}`, "no choices returned: Provider returned error"},
		{"empty content", `{"choices":[{"message":{"role":"assistant","content":""},"finish_reason":"length"}]}`, `empty completion (finish_reason "length")`},
		{"null content", `{"choices":[{"message":{"role":"assistant","content":null},"finish_reason":"content_filter"}]}`, "empty completion"},
		{"not JSON", `upstream timeout`, "not a chat completion"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, func(w http.ResponseWriter, _ *http.Request, _ int, _ map[string]any) {
				io.WriteString(w, tt.body)
			})
			l, _ := newLLM(t, Config{BaseURL: s.URL})
			_, _, err := l.Complete(context.Background(), "sys", []hippo.Message{{Role: "user", Content: "hi"}})
			wantErr(t, err, hippo.EINTERNAL, s.URL+"/chat/completions", tt.want)
			if empty := strings.Contains(tt.want, "empty completion"); errors.Is(err, hippo.ErrUnreadableReply) != empty {
				t.Errorf("errors.Is(err, hippo.ErrUnreadableReply) = %v, want %v", !empty, empty)
			}
		})
	}
}

func TestCompleteRetries(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request, n int, body map[string]any) {
		if n < 3 {
			writeError(w, 502, "bad gateway")
			return
		}
		chat("ok")(w, r, n, body)
	})
	l, w := newLLM(t, Config{BaseURL: s.URL, Model: "m", MaxTokens: 100, Temperature: 0.2})
	got, _, err := l.Complete(context.Background(), "", []hippo.Message{{Role: "user", Content: "hi"}})
	if err != nil || got != "ok" {
		t.Fatalf("Complete = %q, %v", got, err)
	}
	if n := s.calls.Load(); n != 3 {
		t.Errorf("requests = %d, want 3", n)
	}
	if len(w.all()) != 2 {
		t.Errorf("waits = %v, want 2", w.all())
	}
	r := s.request(t, 2)
	if r.body["max_tokens"] != 100.0 || r.body["temperature"] != 0.2 || r.body["model"] != "m" {
		t.Errorf("body = %v", r.body)
	}
	if msgs := r.body["messages"].([]any); len(msgs) != 1 {
		t.Errorf("messages = %v, want no system message for an empty prompt", msgs)
	}
}

// TestCompleteWhenRetried: a chat completion is sent again only where
// that can help (429, 5xx, a dropped connection), never after a 400 nor
// after its own timeout.
func TestCompleteWhenRetried(t *testing.T) {
	tests := []struct {
		name     string
		first    func(w http.ResponseWriter, r *http.Request) // the first request's answer
		requests int32
		wantErr  string
	}{
		{"429 then success", func(w http.ResponseWriter, _ *http.Request) { writeError(w, 429, "slow down") }, 2, ""},
		{"500 then success", func(w http.ResponseWriter, _ *http.Request) { writeError(w, 500, "oops") }, 2, ""},
		{"dropped connection then success", func(w http.ResponseWriter, _ *http.Request) {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
		}, 2, ""},
		{"400 is not retried", func(w http.ResponseWriter, _ *http.Request) { writeError(w, 400, "bad request") }, 1, "400 Bad Request: bad request"},
		{"a timeout is not retried", func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() }, 1, "no response within 200ms"},
		{"a timeout in the body is not retried", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(200)
			io.WriteString(w, `{"choices":[`)
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		}, 1, "no response within 200ms"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, func(w http.ResponseWriter, r *http.Request, n int, body map[string]any) {
				if n == 1 {
					tt.first(w, r)
					return
				}
				chat("ok")(w, r, n, body)
			})
			l, _ := newLLM(t, Config{BaseURL: s.URL, Timeout: 200 * time.Millisecond})
			got, _, err := l.Complete(context.Background(), "", []hippo.Message{{Role: "user", Content: "hi"}})
			if tt.wantErr == "" && (err != nil || got != "ok") {
				t.Errorf("Complete = %q, %v; want ok", got, err)
			}
			if tt.wantErr != "" {
				wantErr(t, err, hippo.EINTERNAL, tt.wantErr)
			}
			if n := s.calls.Load(); n != tt.requests {
				t.Errorf("requests = %d, want %d", n, tt.requests)
			}
		})
	}
}

// TestCompleteTimeoutIsDeadline: a timed-out attempt's error wraps
// context.DeadlineExceeded, which the engine's fallback looks for, while
// the caller's context is still alive.
func TestCompleteTimeoutIsDeadline(t *testing.T) {
	s := newServer(t, func(_ http.ResponseWriter, r *http.Request, _ int, _ map[string]any) { <-r.Context().Done() })
	l, _ := newLLM(t, Config{BaseURL: s.URL, Timeout: 200 * time.Millisecond})
	_, _, err := l.Complete(context.Background(), "", []hippo.Message{{Role: "user", Content: "hi"}})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want one wrapping context.DeadlineExceeded", err)
	}
}

func TestDefaults(t *testing.T) {
	e, err := NewEmbedder(Config{})
	if err != nil {
		t.Fatal(err)
	}
	if e.Model() != "text-embedding-3-small" || e.c.url != "https://api.openai.com/v1/embeddings" || e.Dimension() != 0 {
		t.Errorf("embedder defaults: model %q, url %q, dims %d", e.Model(), e.c.url, e.Dimension())
	}
	if e.c.timeout != 60*time.Second || e.c.retries != 3 || e.c.maxBody != 64<<20 {
		t.Errorf("client defaults: timeout %v, retries %d, max body %d", e.c.timeout, e.c.retries, e.c.maxBody)
	}
	l, err := NewLLM(Config{})
	if err != nil {
		t.Fatal(err)
	}
	if l.Model() != "openai/gpt-4o-mini" || l.c.url != "https://openrouter.ai/api/v1/chat/completions" ||
		l.maxTokens != 1024 || l.temperature != 0 || l.c.timeout != 30*time.Second || !l.c.noRetryOnTimeout {
		t.Errorf("LLM defaults: model %q, url %q, max tokens %d, temperature %v, timeout %v, no retry on timeout %v",
			l.Model(), l.c.url, l.maxTokens, l.temperature, l.c.timeout, l.c.noRetryOnTimeout)
	}
}

// TestTypeScriptChatModel: the TypeScript Hippo's default model name, which
// OpenRouter does not list, reaches OpenRouter as the model it means;
// elsewhere (a local server may use any name) it is sent as given, and
// other names are never changed.
func TestTypeScriptChatModel(t *testing.T) {
	tests := []struct {
		base, model, want string
	}{
		{"", "google/gemini-flash-2.0", "google/gemini-2.0-flash-001"},
		{"https://openrouter.ai/api/v1/", "google/gemini-flash-2.0", "google/gemini-2.0-flash-001"},
		{"http://localhost:11434/v1", "google/gemini-flash-2.0", "google/gemini-flash-2.0"},
		{"", "google/gemini-2.0-flash-001", "google/gemini-2.0-flash-001"},
		{"", "", "openai/gpt-4o-mini"},
	}
	for _, tt := range tests {
		l, err := NewLLM(Config{BaseURL: tt.base, Model: tt.model})
		if err != nil {
			t.Fatal(err)
		}
		if l.Model() != tt.want {
			t.Errorf("base %q, model %q: sends %q, want %q", tt.base, tt.model, l.Model(), tt.want)
		}
	}
}

func TestConfigInvalid(t *testing.T) {
	tests := []struct {
		name  string
		cfg   Config
		field string
	}{
		{"no scheme", Config{BaseURL: "localhost:11434/v1"}, "base_url"},
		{"ftp", Config{BaseURL: "ftp://example.com/v1"}, "base_url"},
		{"no host", Config{BaseURL: "http:///v1"}, "base_url"},
		{"unparsable", Config{BaseURL: "http://[::1"}, "base_url"},
		{"blank model", Config{Model: "  "}, "model"},
		{"negative timeout", Config{Timeout: -time.Second}, "timeout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, eerr := NewEmbedder(tt.cfg)
			_, lerr := NewLLM(tt.cfg)
			for _, err := range []error{eerr, lerr} {
				he, ok := errors.AsType[*hippo.Error](err)
				if !ok || he.Code != hippo.EINVALID || he.Field != tt.field {
					t.Errorf("err = %#v, want EINVALID on %s", err, tt.field)
				}
			}
		})
	}
	for name, f := range map[string]func() error{
		"negative dimensions": func() error { _, err := NewEmbedder(Config{Dimensions: -1}); return err },
		"negative max tokens": func() error { _, err := NewLLM(Config{MaxTokens: -1}); return err },
		"negative temperature": func() error {
			_, err := NewLLM(Config{Temperature: -0.5})
			return err
		},
	} {
		if err := f(); hippo.ErrorCode(err) != hippo.EINVALID {
			t.Errorf("%s: err = %v, want EINVALID", name, err)
		}
	}
}

// TestCredentialsRedacted: a base URL's userinfo password and its
// secret-looking query parameters appear in no error, whatever failed.
func TestCredentialsRedacted(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, _ *http.Request, _ int, _ map[string]any) {
		writeError(w, 400, "nope")
	})
	host := strings.TrimPrefix(s.URL, "http://")
	tests := []struct {
		name, base string
	}{
		{"userinfo password", "http://user:hunter2@" + host},
		{"query key", "http://" + host + "/v1?key=hunter2"},
		{"query api-key and password", "http://user:hunter2@" + host + "/v1?api-key=hunter2&model=m"},
		{"query token", "http://" + host + "/v1?access_token=hunter2"},
		{"no server", "http://user:hunter2@127.0.0.1:1/v1?key=hunter2"},
		{"not http", "ftp://user:hunter2@" + host + "/v1?key=hunter2"},
		{"not a URL", "http://user:hunter2@" + host + "/v1?key=hunter2 %zz\x7f:"},
		{"bad host", "http://user:hunter2@[::1/v1?key=hunter2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var errs []error
			cfg := Config{BaseURL: tt.base, MaxRetries: -1, Timeout: time.Second}
			if e, err := NewEmbedder(cfg); err != nil {
				errs = append(errs, err)
			} else {
				fast(e.c)
				_, err := e.Embed(context.Background(), []string{"a"})
				errs = append(errs, err)
			}
			if l, err := NewLLM(cfg); err != nil {
				errs = append(errs, err)
			} else {
				fast(l.c)
				_, _, err := l.Complete(context.Background(), "hi", []hippo.Message{{Role: "user", Content: "hi"}})
				errs = append(errs, err)
			}
			for _, err := range errs {
				if err == nil || strings.Contains(err.Error(), "hunter2") {
					t.Errorf("err = %v, want an error without the URL's secrets", err)
				}
			}
		})
	}
}

// TestDecodeEmbeddingEscaped: a base64 string written with JSON escapes
// reads as the same vector as without them.
func TestDecodeEmbeddingEscaped(t *testing.T) {
	plain, err := decodeEmbedding(json.RawMessage(`"AACAPwAAAEA="`))
	if err != nil || len(plain) != 2 || plain[0] != 1 || plain[1] != 2 {
		t.Fatalf("plain: %v, %v; want [1 2]", plain, err)
	}
	escaped, err := decodeEmbedding(json.RawMessage(`"AACAPwAAAEA\u003d"`))
	if err != nil || !slices.Equal(plain, escaped) {
		t.Errorf("escaped: %v, %v; want %v", escaped, err, plain)
	}
	if _, err := decodeEmbedding(json.RawMessage(`"AAC\u00e9PwAAAEA="`)); err == nil || !strings.Contains(err.Error(), "is not base64") {
		t.Errorf("a non-ASCII string: %v, want not base64", err)
	}
}

// TestDecodeEmbeddingResponse: the fast decoder reads every response as
// encoding/json does, odd ones included, and fails where it fails.
func TestDecodeEmbeddingResponse(t *testing.T) {
	for _, body := range []string{
		`{"data":[{"index":0,"embedding":"AACAPwAAAEA="}],"usage":{"prompt_tokens":2,"total_tokens":2}}`,
		`{"object":"list","data":[{"object":"embedding","index":1,"embedding" : "AABAQA=="},{"index":0,"embedding":"AACAPwAAAEA="}]}`,
		`{"data":[{"embedding":[1,2]}]}`,                                         // numbers
		`{"data":[{"embedding":"AACAPwAAAEA\u003d"}]}`,                           // an escape
		`{"model":"say \"embedding\": \"x\"","data":[{"embedding":"AACAPw=="}]}`, // a key only where JSON has one
		`{"data":[{"embedding":"AACAPw==","meta":{"embedding":"AABAQA=="}}]}`,    // a nested key
		`{"data":[{"embedding":"AACAPw==","embedding":"AABAQA=="}]}`,             // a repeated key
		`{"data":[{"index":0}],"embedding":"AACAPw=="}`,                          // not a datum's
		`{"data":[{"embedding":"AAC` + "\n" + `APw=="}]}`,                        // a control character: refused
		`{"data":[{"embedding":""}]}`,
		`{"data":[{"embedding":"AACAPw==`, // unterminated
		`{"data":[{"embedding":"AACAPw=="}]`,
		`{"error":{"message":"no \\"embedding\\" today"}}`,
	} {
		got, gotErr := decodeEmbeddingResponse([]byte(body))
		var want embeddingResponse
		wantErr := json.Unmarshal([]byte(body), &want)
		if (gotErr == nil) != (wantErr == nil) {
			t.Errorf("%s: error %v, want %v", body, gotErr, wantErr)
			continue
		}
		if gotErr != nil {
			continue
		}
		if g, w := responseString(t, got), responseString(t, want); g != w {
			t.Errorf("%s:\n got %s\nwant %s", body, g, w)
		}
	}
}

// FuzzDecodeEmbeddingResponse: decodeEmbeddingResponse agrees with
// encoding/json on any body.
func FuzzDecodeEmbeddingResponse(f *testing.F) {
	f.Add(`{"data":[{"index":0,"embedding":"AACAPwAAAEA="}],"usage":{"prompt_tokens":2,"total_tokens":2}}`)
	f.Add(`{"model":"say \"embedding\": \"x\"","data":[{"embedding":"AACAPw=="}]}`)
	f.Add(`{"data":[{"embedding":"AACAPw==","meta":{"embedding":"AABAQA=="}}]}`)
	f.Fuzz(func(t *testing.T, body string) {
		got, gotErr := decodeEmbeddingResponse([]byte(body))
		var want embeddingResponse
		wantErr := json.Unmarshal([]byte(body), &want)
		if (gotErr == nil) != (wantErr == nil) {
			t.Fatalf("%q: error %v, want %v", body, gotErr, wantErr)
		}
		if gotErr == nil && responseString(t, got) != responseString(t, want) {
			t.Fatalf("%q:\n got %s\nwant %s", body, responseString(t, got), responseString(t, want))
		}
	})
}

// responseString is resp as comparable text: each datum's index and
// decoded vector (or decoding error), the usage and the error field.
func responseString(t *testing.T, resp embeddingResponse) string {
	var b strings.Builder
	for _, d := range resp.Data {
		index := "-"
		if d.Index != nil {
			index = fmt.Sprint(*d.Index)
		}
		v, err := decodeEmbedding(d.Embedding)
		fmt.Fprintf(&b, "[%s %v %v]", index, v, err)
	}
	fmt.Fprintf(&b, " usage=%v error=%s", resp.Usage != nil, resp.Error)
	return b.String()
}

// BenchmarkDecodeEmbeddingResponse decodes one 1,536-dimension vector in
// base64, as a lone stored memory's embedding arrives.
func BenchmarkDecodeEmbeddingResponse(b *testing.B) {
	v := make([]float32, 1536)
	for i := range v {
		v[i] = float32(i) / 1536
	}
	body := []byte(`{"object":"list","data":[{"object":"embedding","index":0,"embedding":"` +
		base64.StdEncoding.EncodeToString(vector.Encode(v)) +
		`"}],"model":"text-embedding-3-small","usage":{"prompt_tokens":9,"total_tokens":9}}`)
	for b.Loop() {
		resp, err := decodeEmbeddingResponse(body)
		if err != nil || len(resp.Data) != 1 {
			b.Fatal(err)
		}
	}
}
