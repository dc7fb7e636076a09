package ui_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/local"
	"github.com/hippo-mem/hippo/sqlite"
	"github.com/hippo-mem/hippo/ui"
)

// env is a UI over a fresh database, with the offline GloVe embedder and
// fact models (fast, also under -race).
type env struct {
	clk *clock
	db  *sqlite.DB
	ui  *ui.Handler
	srv *httptest.Server
	emb hippo.Embedder
}

func newEnv(t testing.TB, token string, opts ...func(*sqlite.Options)) *env {
	t.Helper()
	ctx := context.Background()
	clk := newClock(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	o := sqlite.Options{Now: clk.Now}
	for _, f := range opts {
		f(&o)
	}
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "hippo.db"), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	e := &env{clk: clk, db: db, emb: local.NewEmbedder()}
	e.ui, err = ui.New(ui.Config{Store: db, Token: token, Now: clk.Now, Memory: func(agent, scope string, look bool) (hippo.MemoryService, error) {
		return e.memory(agent, scope, look)
	}})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle(ui.Prefix, e.ui)
	e.srv = httptest.NewServer(mux)
	t.Cleanup(e.srv.Close)
	return e
}

func (e *env) memory(agent, scope string, look bool) (*sqlite.Memory, error) {
	return e.db.Memory(sqlite.MemoryOptions{AgentID: agent, Scope: scope, Look: look, Embedder: e.emb,
		Extractor: local.NewExtractor(), Classifier: local.NewClassifier()})
}

func (e *env) mem(t testing.TB, agent string) *sqlite.Memory {
	t.Helper()
	m, err := e.memory(agent, "", false)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// clock is a settable time source shared by the database and the UI,
// which read it from the server's goroutines.
type clock struct{ unixNano atomic.Int64 }

func newClock(t time.Time) *clock {
	c := &clock{}
	c.unixNano.Store(t.UnixNano())
	return c
}

func (c *clock) Now() time.Time { return time.Unix(0, c.unixNano.Load()).UTC() }

func (c *clock) Advance(d time.Duration) { c.unixNano.Add(int64(d)) }

// seed stores a small, varied memory for agent "ada".
func (e *env) seed(t testing.TB) {
	t.Helper()
	ctx := context.Background()
	m := e.mem(t, "ada")
	for _, s := range []struct{ content, meta string }{
		{"The deploy key lives in the vault under ops/deploy", `{"tags":["ops","secrets"],"category":"infra"}`},
		{"Lunch on Friday was pizza with the platform team", `{"tags":["social"]}`},
		{"The staging database is restored from backup every night at 02:00", `{"category":"infra"}`},
		{"Ada's cat is called Turing and hates the vacuum cleaner", ``},
	} {
		in := hippo.StoreInput{Content: s.content}
		if s.meta != "" {
			in.Metadata = []byte(s.meta)
		}
		if _, err := m.StoreMemory(ctx, in); err != nil {
			t.Fatal(err)
		}
		e.clk.Advance(9 * 24 * time.Hour)
	}
	for _, text := range []string{"I live in Paris.", "I live in Berlin.", "I live in Lisbon.", "My favourite editor is Neovim."} {
		if _, err := m.RememberFacts(ctx, text); err != nil {
			t.Fatal(err)
		}
		e.clk.Advance(6 * 24 * time.Hour)
	}
	// Recalled memories are stronger and fade more slowly.
	for range 4 {
		if _, err := m.Recall(ctx, hippo.RecallInput{Query: "where is the deploy key", Limit: 1}); err != nil {
			t.Fatal(err)
		}
		e.clk.Advance(24 * time.Hour)
	}
	if _, err := m.SetBlock(ctx, "persona", "Helpful and terse."); err != nil {
		t.Fatal(err)
	}
}

var _ ui.Store = (*sqlite.DB)(nil)
