// Package mock fakes Hippo's external services for tests: an HTTP server
// speaking the OpenAI wire format (embeddings and chat completions), so the
// real client code runs, and a deterministic embedder behind it.
package mock

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"
)

// Server is an OpenAI-compatible endpoint: POST /v1/embeddings and
// POST /v1/chat/completions. Embeddings come from Vector (or Set
// overrides); chat replies from the Chat function or the Replies queue.
type Server struct {
	*httptest.Server
	Dim int

	mu            sync.Mutex
	vectors       map[string][]float32
	replies       []string
	embedRequests int
	chatRequests  int
	chatBodies    []ChatRequest
	// Chat, if set, answers chat requests instead of the Replies queue.
	Chat func(req ChatRequest) (string, int)
	// ChatStall, if set, reports whether to hold the nth (1-based) chat
	// request until the client gives up on it, as a slow model does.
	ChatStall func(n int) bool
	// FinishReason, if set, is every chat reply's finish_reason ("length"
	// for one cut off at max_tokens); "stop" by default.
	FinishReason string
	// EmbedStatus, if set, returns an HTTP status to fail the nth (1-based)
	// embedding request with, or 0 to answer it.
	EmbedStatus func(n int) int
	// EmbedRefuse, if set, reports texts the server refuses: a request
	// holding one fails whole with 400, as a provider refuses an input
	// over its token limit.
	EmbedRefuse func(text string) bool
	// EmbedDelay, if set, is how long each embedding request takes.
	EmbedDelay time.Duration
	// Floats makes the server answer every embedding as a JSON array of
	// numbers, ignoring a request's encoding_format, as some
	// OpenAI-compatible servers do; RejectBase64 makes it refuse
	// "encoding_format": "base64" with 400, as others do. By default it
	// answers base64 when asked, as OpenAI does.
	Floats, RejectBase64 bool

	embedBatches []int
}

// ChatRequest is the body of a chat completion request.
type ChatRequest struct {
	Model       string           `json:"model"`
	Messages    []map[string]any `json:"messages"`
	Temperature *float64         `json:"temperature"`
	MaxTokens   int              `json:"max_tokens"`
}

// NewServer starts a server with vectors of dim dimensions; it is closed
// when the test ends.
func NewServer(t testing.TB, dim int) *Server {
	s := &Server{Dim: dim, vectors: map[string][]float32{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/embeddings", s.embeddings)
	mux.HandleFunc("POST /v1/chat/completions", s.chat)
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

// BaseURL is the API base to configure clients with.
func (s *Server) BaseURL() string { return s.URL + "/v1" }

// Set makes text embed to v.
func (s *Server) Set(text string, v []float32) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.vectors[text] = v
}

// EmbedBatches returns the number of texts of each embedding request, in
// the order they arrived.
func (s *Server) EmbedBatches() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]int(nil), s.embedBatches...)
}

// Reply queues chat replies, answered in order.
func (s *Server) Reply(replies ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.replies = append(s.replies, replies...)
}

// Counts returns how many embedding and chat requests were served.
func (s *Server) Counts() (embed, chat int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.embedRequests, s.chatRequests
}

// ChatBodies returns the chat requests received.
func (s *Server) ChatBodies() []ChatRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]ChatRequest(nil), s.chatBodies...)
}

func (s *Server) embeddings(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model          string          `json:"model"`
		Input          json.RawMessage `json:"input"`
		EncodingFormat string          `json:"encoding_format"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, "bad json: "+err.Error())
		return
	}
	var inputs []string
	if err := json.Unmarshal(req.Input, &inputs); err != nil {
		var one string
		if err := json.Unmarshal(req.Input, &one); err != nil {
			writeError(w, http.StatusBadRequest, "input must be a string or an array of strings")
			return
		}
		inputs = []string{one}
	}
	s.mu.Lock()
	s.embedRequests++
	s.embedBatches = append(s.embedBatches, len(inputs))
	n := s.embedRequests
	fail, refuse, delay := s.EmbedStatus, s.EmbedRefuse, s.EmbedDelay
	floats, rejectBase64 := s.Floats, s.RejectBase64
	s.mu.Unlock()
	switch req.EncodingFormat {
	case "", "float":
	case "base64":
		if rejectBase64 {
			writeError(w, http.StatusBadRequest, "unsupported encoding_format: base64")
			return
		}
	default:
		writeError(w, http.StatusBadRequest, "encoding_format must be float or base64")
		return
	}
	if delay > 0 {
		time.Sleep(delay)
	}
	if fail != nil {
		if code := fail(n); code != 0 {
			writeError(w, code, "scripted failure")
			return
		}
	}
	for i, text := range inputs {
		if refuse != nil && refuse(text) {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("input %d is refused", i))
			return
		}
	}
	type item struct {
		Object    string `json:"object"`
		Index     int    `json:"index"`
		Embedding any    `json:"embedding"`
	}
	data := make([]item, len(inputs))
	for i, text := range inputs {
		var e any = s.Vector(text)
		if req.EncodingFormat == "base64" && !floats {
			e = Base64(s.Vector(text))
		}
		data[i] = item{Object: "embedding", Index: i, Embedding: e}
	}
	tokens := 0
	for _, text := range inputs {
		tokens += Tokens(text)
	}
	writeJSON(w, map[string]any{"object": "list", "data": data, "model": req.Model,
		"usage": map[string]int{"prompt_tokens": tokens, "total_tokens": tokens}})
}

// Base64 is v as an embeddings API writes it for "encoding_format":
// "base64": its float32 values, little-endian, in standard base64.
func Base64(v []float32) string {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return base64.StdEncoding.EncodeToString(b)
}

// Tokens is how many tokens the server says a text costs: its words.
func Tokens(text string) int { return len(strings.Fields(text)) }

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	var req ChatRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, "bad json: "+err.Error())
		return
	}
	s.mu.Lock()
	s.chatRequests++
	s.chatBodies = append(s.chatBodies, req)
	chat, finish := s.Chat, s.FinishReason
	stall := s.ChatStall != nil && s.ChatStall(s.chatRequests)
	var reply string
	status := http.StatusOK
	if chat == nil {
		if len(s.replies) == 0 {
			status = http.StatusInternalServerError
		} else {
			reply, s.replies = s.replies[0], s.replies[1:]
		}
	}
	s.mu.Unlock()
	if stall {
		<-r.Context().Done()
		return
	}
	if chat != nil {
		reply, status = chat(req)
	}
	if finish == "" {
		finish = "stop"
	}
	if status != http.StatusOK {
		writeError(w, status, "scripted failure")
		return
	}
	prompt := 0
	for _, m := range req.Messages {
		if c, ok := m["content"].(string); ok {
			prompt += Tokens(c)
		}
	}
	writeJSON(w, map[string]any{
		"id": "chatcmpl-mock", "object": "chat.completion", "model": req.Model,
		"choices": []map[string]any{{
			"index": 0, "finish_reason": finish,
			"message": map[string]any{"role": "assistant", "content": reply},
		}},
		"usage": map[string]int{"prompt_tokens": prompt, "completion_tokens": Tokens(reply), "total_tokens": prompt + Tokens(reply)},
	})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	if code == http.StatusTooManyRequests {
		w.Header().Set("Retry-After", "0")
	}
	w.WriteHeader(code)
	fmt.Fprintf(w, `{"error":{"message":%q,"type":"mock_error"}}`, msg)
}

// Vector embeds text: an override from Set, or a deterministic bag of
// hashed words, so texts sharing words are similar.
func (s *Server) Vector(text string) []float32 {
	s.mu.Lock()
	v, ok := s.vectors[text]
	s.mu.Unlock()
	if ok {
		return v
	}
	return HashVector(text, s.Dim)
}

// HashVector is a deterministic unit vector: the normalised sum of one
// pseudo-random vector per lower-cased word.
func HashVector(text string, dim int) []float32 {
	v := make([]float32, dim)
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	if len(words) == 0 {
		words = []string{text}
	}
	for _, w := range words {
		for i, x := range wordVector(w, dim) {
			v[i] += x
		}
	}
	return unit(v)
}

// wordVectors caches the pseudo-random vector of recent words: drawing
// 1536 normal values per word was most of a fake provider's CPU in the
// throughput benchmarks, which share the machine with the server.
var wordVectors struct {
	sync.Mutex
	m map[wordKey][]float32
}

type wordKey struct {
	word string
	dim  int
}

// maxWordVectors bounds the cache (about 25 MB at 1536 dimensions); it
// starts over when full.
const maxWordVectors = 4096

// wordVector is word's pseudo-random vector of dim normal values, seeded
// by its FNV-1a hash. The returned slice is shared: do not modify it.
func wordVector(word string, dim int) []float32 {
	k := wordKey{word, dim}
	wordVectors.Lock()
	v, ok := wordVectors.m[k]
	wordVectors.Unlock()
	if ok {
		return v
	}
	h := fnv.New64a()
	h.Write([]byte(word))
	r := rand.New(rand.NewPCG(h.Sum64(), 7))
	v = make([]float32, dim)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	wordVectors.Lock()
	if wordVectors.m == nil || len(wordVectors.m) >= maxWordVectors {
		wordVectors.m = make(map[wordKey][]float32)
	}
	wordVectors.m[k] = v
	wordVectors.Unlock()
	return v
}

// Axis is the unit vector along dimension i.
func Axis(dim, i int) []float32 {
	v := make([]float32, dim)
	v[i] = 1
	return v
}

// AtCosine returns a unit vector whose cosine with Axis(dim, a) is c, lying
// in the plane of axes a and b.
func AtCosine(dim, a, b int, c float64) []float32 {
	v := make([]float32, dim)
	v[a] = float32(c)
	v[b] = float32(math.Sqrt(1 - c*c))
	return v
}

func unit(v []float32) []float32 {
	var n float64
	for _, f := range v {
		n += float64(f) * float64(f)
	}
	if n == 0 {
		return v
	}
	inv := float32(1 / math.Sqrt(n))
	for i := range v {
		v[i] *= inv
	}
	return v
}
