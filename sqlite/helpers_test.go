package sqlite_test

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/mock"
	"github.com/hippo-mem/hippo/openai"
	"github.com/hippo-mem/hippo/sqlite"
)

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

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

// env is a database, a fake OpenAI server and the clients talking to it.
type env struct {
	t     testing.TB
	db    *sqlite.DB
	srv   *mock.Server
	emb   *openai.Embedder
	clock *clock
}

const testDim = 64

func newEnv(t testing.TB) *env {
	t.Helper()
	srv := mock.NewServer(t, testDim)
	emb, err := openai.NewEmbedder(openai.Config{BaseURL: srv.BaseURL(), APIKey: "sk-test", Model: "mock-embed"})
	if err != nil {
		t.Fatal(err)
	}
	clk := &clock{t: time.Date(2026, 1, 10, 12, 0, 0, 0, time.UTC)}
	db := openDB(t, filepath.Join(t.TempDir(), "hippo.db"), clk)
	return &env{t: t, db: db, srv: srv, emb: emb, clock: clk}
}

// openDB opens a database with the default configuration but no
// relevance floor: the mock embedder's hash vectors are unrelated to each
// other by design, and the tests that use them are about everything but
// the floor (relevance_test.go tests it). tweaks change the rest.
func openDB(t testing.TB, path string, clk *clock, tweaks ...func(*hippo.Config)) *sqlite.DB {
	t.Helper()
	cfg := hippo.DefaultConfig()
	cfg.MinRelevance = 0
	for _, f := range tweaks {
		f(&cfg)
	}
	db, err := sqlite.Open(context.Background(), path, sqlite.Options{Now: clk.Now, Config: &cfg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// memory returns agent's memory service; opts may set scopes.
func (e *env) memory(agent string, opts ...func(*sqlite.MemoryOptions)) *sqlite.Memory {
	e.t.Helper()
	o := sqlite.MemoryOptions{AgentID: agent, Embedder: e.emb}
	for _, f := range opts {
		f(&o)
	}
	m, err := e.db.Memory(o)
	if err != nil {
		e.t.Fatal(err)
	}
	return m
}

func store(t testing.TB, m *sqlite.Memory, content string) *hippo.Chunk {
	t.Helper()
	res, err := m.StoreMemory(context.Background(), hippo.StoreInput{Content: content})
	if err != nil {
		t.Fatalf("store %q: %v", content, err)
	}
	return res.Chunk
}

func recallIDs(t testing.TB, m *sqlite.Memory, query string) []string {
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

func wantCode(t testing.TB, err error, code string) {
	t.Helper()
	if got := hippo.ErrorCode(err); got != code {
		t.Fatalf("error code = %q (%v), want %q", got, err, code)
	}
}

// freshDB opens a new, empty database on e's clock.
func (e *env) freshDB() *sqlite.DB {
	return openDB(e.t, filepath.Join(e.t.TempDir(), "fresh.db"), e.clock)
}
