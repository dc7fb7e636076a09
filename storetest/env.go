package storetest

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/llm"
	"github.com/hippo-mem/hippo/mock"
	"github.com/hippo-mem/hippo/openai"
	"github.com/hippo-mem/hippo/vector"
)

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 1, 10, 12, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// testDim is the dimension of the fake OpenAI server's vectors.
const testDim = 64

// env is a store on a test clock, a fake OpenAI server (mock.Server) and
// the real OpenAI client talking to it: the embeddings and LLM replies a
// test scripts.
type env struct {
	t     *testing.T
	b     Backend
	name  string
	s     Store
	srv   *mock.Server
	emb   *openai.Embedder
	clock *clock
}

// newEnv opens a new store with the default configuration but no
// relevance floor: the fake server's hash vectors are unrelated to each
// other by design, and the tests that use them are about everything but
// the floor (relevance.go tests it).
func newEnv(t *testing.T, b Backend) *env {
	t.Helper()
	srv := mock.NewServer(t, testDim)
	emb, err := openai.NewEmbedder(openai.Config{BaseURL: srv.BaseURL(), APIKey: "sk-test", Model: "mock-embed"})
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, b: b, srv: srv, emb: emb, clock: newClock()}
	e.name = b.New(t)
	e.s = e.open(e.name, Options{})
	return e
}

// open opens the store called name on the env's clock, without a
// relevance floor unless o sets a Config.
func (e *env) open(name string, o Options) Store {
	e.t.Helper()
	if o.Config == nil {
		cfg := hippo.DefaultConfig()
		cfg.MinRelevance = 0
		o.Config = &cfg
	}
	if o.Now == nil {
		o.Now = e.clock.Now
	}
	return openWith(e.t, e.b, name, o)
}

// fresh opens a new, empty store as the env's.
func (e *env) fresh() Store {
	e.t.Helper()
	return e.open(e.b.New(e.t), Options{})
}

// memory returns agent's memory on the fake embedder; opts may set
// scopes, an extractor, another embedder.
func (e *env) memory(agent string, opts ...func(*hippo.MemoryOptions)) hippo.AgentMemory {
	e.t.Helper()
	return e.memoryOf(e.s, agent, opts...)
}

func (e *env) memoryOf(s Store, agent string, opts ...func(*hippo.MemoryOptions)) hippo.AgentMemory {
	e.t.Helper()
	o := hippo.MemoryOptions{AgentID: agent, Embedder: e.emb}
	for _, f := range opts {
		f(&o)
	}
	m, err := s.Service(o)
	if err != nil {
		e.t.Fatal(err)
	}
	return m
}

// factMemory returns agent's memory with the LLM extractor and classifier
// talking to the fake server, and opts applied after.
func (e *env) factMemory(agent string, opts ...func(*hippo.MemoryOptions)) hippo.AgentMemory {
	e.t.Helper()
	client, err := openai.NewLLM(openai.Config{BaseURL: e.srv.BaseURL(), APIKey: "sk-test", Model: "mock-llm", MaxRetries: -1})
	if err != nil {
		e.t.Fatal(err)
	}
	return e.memory(agent, append([]func(*hippo.MemoryOptions){func(o *hippo.MemoryOptions) {
		o.Extractor = llm.NewExtractor(client)
		o.Classifier = llm.NewClassifier(client)
	}}, opts...)...)
}

// scope sets the scope written to.
func scope(s string) func(*hippo.MemoryOptions) {
	return func(o *hippo.MemoryOptions) { o.Scope = s }
}

// recallScopes sets the scopes recalled from.
func recallScopes(s []string) func(*hippo.MemoryOptions) {
	return func(o *hippo.MemoryOptions) { o.RecallScopes = s }
}

// chunk reads one of agent's chunks with its embedding.
func (e *env) chunk(agent, id string) (*hippo.Chunk, error) {
	return e.s.Chunk(context.Background(), agent, id)
}

// mustChunk is chunk, failing the test on an error.
func (e *env) mustChunk(agent, id string) *hippo.Chunk {
	e.t.Helper()
	c, err := e.chunk(agent, id)
	if err != nil {
		e.t.Fatalf("chunk %s of %s: %v", id, agent, err)
	}
	return c
}

// plant is the env's plant.
func (e *env) plant(agent, scope string, chunks ...*hippo.Chunk) {
	e.t.Helper()
	plant(e.t, e.s, agent, scope, e.emb.Model(), e.clock.Now(), chunks...)
}

// plant writes chunks as they are given (ages, strengths, supersession,
// vectors) into s for agent and scope by importing a file of them, the
// one way in that keeps every field. It fills in what is unset as a bulk
// load does: an ID, kind memory, one encounter at the default intensity,
// creation and access at now.
func plant(t *testing.T, s Store, agent, scope, model string, now time.Time, chunks ...*hippo.Chunk) {
	t.Helper()
	if len(chunks) == 0 {
		return
	}
	type record struct {
		ID               string  `json:"id"`
		AgentID          string  `json:"agent_id"`
		Scope            string  `json:"scope"`
		Kind             string  `json:"kind"`
		Content          string  `json:"content"`
		Embedding        string  `json:"embedding_base64"`
		Metadata         *string `json:"metadata"`
		RunningIntensity float64 `json:"running_intensity"`
		EncounterCount   int     `json:"encounter_count"`
		AccessCount      int     `json:"access_count"`
		LastAccessedAt   string  `json:"last_accessed_at"`
		SupersededBy     *string `json:"superseded_by"`
		SupersededAt     *string `json:"superseded_at"`
		CreatedAt        string  `json:"created_at"`
	}
	stamp := func(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000000Z") }
	cfg := s.Config()
	var records []record
	for _, c := range chunks {
		if c.AgentID == "" {
			c.AgentID = agent
		}
		if c.Scope == "" {
			c.Scope = scope
		}
		if c.ID == "" {
			c.ID = ulid.MustNew(ulid.Timestamp(now), ulid.DefaultEntropy()).String()
		}
		if c.Kind == "" {
			c.Kind = hippo.KindMemory
		}
		if c.EncounterCount == 0 {
			c.EncounterCount = 1
			if c.RunningIntensity == 0 {
				c.RunningIntensity = cfg.DefaultIntensity
			}
		}
		if c.CreatedAt.IsZero() {
			c.CreatedAt = now
		}
		if c.LastAccessedAt.IsZero() {
			c.LastAccessedAt = c.CreatedAt
		}
		r := record{ID: c.ID, AgentID: c.AgentID, Scope: c.Scope, Kind: string(c.Kind), Content: c.Content,
			Embedding:        base64.StdEncoding.EncodeToString(vector.Encode(c.Embedding)),
			RunningIntensity: c.RunningIntensity, EncounterCount: c.EncounterCount, AccessCount: c.AccessCount,
			LastAccessedAt: stamp(c.LastAccessedAt), CreatedAt: stamp(c.CreatedAt)}
		if len(c.Metadata) > 0 {
			md := string(c.Metadata)
			r.Metadata = &md
		}
		if c.SupersededBy != "" {
			by, at := c.SupersededBy, stamp(*c.SupersededAt)
			r.SupersededBy, r.SupersededAt = &by, &at
		}
		records = append(records, r)
	}
	body, err := json.Marshal(records)
	if err != nil {
		t.Fatal(err)
	}
	doc := fmt.Sprintf(`{"format":"hippo-export","version":1,"embedding_model":{"model":%q,"dimension":%d},"chunks":%s}`,
		model, len(chunks[0].Embedding), body)
	res, err := s.Import(context.Background(), bytes.NewReader([]byte(doc)), hippo.ImportOptions{})
	if err != nil {
		t.Fatalf("plant %d chunks: %v", len(chunks), err)
	}
	if res.Chunks != len(chunks) {
		t.Fatalf("planted %d of %d chunks: %+v", res.Chunks, len(chunks), res)
	}
}

// store stores content as a memory and returns the chunk.
func store(t *testing.T, m hippo.MemoryService, content string) *hippo.Chunk {
	t.Helper()
	res, err := m.StoreMemory(context.Background(), hippo.StoreInput{Content: content})
	if err != nil {
		t.Fatalf("store %q: %v", content, err)
	}
	return res.Chunk
}

// recallIDs recalls query (up to 50 results) and returns their IDs.
func recallIDs(t *testing.T, m hippo.MemoryService, query string) []string {
	t.Helper()
	res, err := m.Recall(context.Background(), hippo.RecallInput{Query: query, Limit: 50})
	if err != nil {
		t.Fatalf("recall %q: %v", query, err)
	}
	ids := make([]string, len(res))
	for i, r := range res {
		ids[i] = r.Chunk.ID
	}
	return ids
}

// facts renders an extraction reply.
func facts(pairs ...any) string {
	var items []map[string]any
	for i := 0; i < len(pairs); i += 2 {
		items = append(items, map[string]any{"fact": pairs[i], "intensity": pairs[i+1]})
	}
	b, _ := json.Marshal(map[string]any{"facts": items})
	return string(b)
}

// verdicts renders a classification reply.
func verdicts(vs ...string) string {
	var items []map[string]any
	for i, v := range vs {
		items = append(items, map[string]any{"pair": i + 1, "verdict": v})
	}
	b, _ := json.Marshal(map[string]any{"verdicts": items})
	return string(b)
}

// liveFacts recalls agent's live facts, by content.
func (e *env) liveFacts(agent string) map[string]*hippo.Chunk {
	e.t.Helper()
	out := map[string]*hippo.Chunk{}
	res, err := e.memory(agent).Recall(context.Background(), hippo.RecallInput{Query: "anything at all", Limit: 50, Kind: hippo.KindFact})
	if err != nil {
		e.t.Fatal(err)
	}
	for _, r := range res {
		out[r.Chunk.Content] = r.Chunk
	}
	return out
}
