package ui_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/ui"
)

// countingStore counts the per-agent queries of the agents page.
type countingStore struct {
	ui.Store
	queries atomic.Int64
}

func (s *countingStore) BrowseChunks(ctx context.Context, q hippo.BrowseQuery) ([]hippo.Browsed, int, error) {
	s.queries.Add(1)
	return s.Store.BrowseChunks(ctx, q)
}

func (s *countingStore) ListBlocks(ctx context.Context, agentID string, scope *string) ([]hippo.BlockInfo, error) {
	s.queries.Add(1)
	return s.Store.ListBlocks(ctx, agentID, scope)
}

// TestAgentsPaged: the agents page shows ui.AgentsPerPage agents at a time,
// with links to the others, and its per-agent queries are the page's only
// (it made two for every agent in the database: 18.7 s with 20,000).
func TestAgentsPaged(t *testing.T) {
	e := newEnv(t, "")
	ctx := context.Background()
	const n = 2*ui.AgentsPerPage + 30
	for i := range n {
		if err := e.db.InsertChunks(ctx, fmt.Sprintf("agent-%04d", i), "", "m", []*hippo.Chunk{{Content: "x", Embedding: []float32{1, 0}}}); err != nil {
			t.Fatal(err)
		}
	}
	store := &countingStore{Store: e.db}
	h, err := ui.New(ui.Config{Store: store, Memory: func(agent, scope string, look bool) (hippo.MemoryService, error) { return e.memory(agent, scope, look) }})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		query       string
		first, last string
		rows        int
		next        bool
	}{
		{"", "agent-0000", "agent-0099", ui.AgentsPerPage, true},
		{"?page=2", "agent-0100", "agent-0199", ui.AgentsPerPage, true},
		{"?page=3", "agent-0200", "agent-0229", 30, false},
		{"?page=9", "", "", 0, false},
	}
	for _, tt := range tests {
		store.queries.Store(0)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/ui/"+tt.query, nil))
		body := rec.Body.String()
		rows := strings.Count(body, `href="/ui/memory?agent=`)
		if rec.Code != http.StatusOK || rows != tt.rows {
			t.Errorf("/ui/%s: status %d, %d agents, want %d", tt.query, rec.Code, rows, tt.rows)
		}
		if tt.rows > 0 && (!strings.Contains(body, tt.first) || !strings.Contains(body, tt.last)) {
			t.Errorf("/ui/%s does not list %s to %s", tt.query, tt.first, tt.last)
		}
		if q := store.queries.Load(); q > int64(2*tt.rows) {
			t.Errorf("/ui/%s: %d per-agent queries for %d agents shown", tt.query, q, tt.rows)
		}
		if strings.Contains(body, ">Next<") != tt.next {
			t.Errorf("/ui/%s: a Next link %v, want %v", tt.query, !tt.next, tt.next)
		}
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/ui/?page=0", nil))
	if rec.Code != http.StatusBadRequest {
		t.Errorf("/ui/?page=0: status %d, want 400", rec.Code)
	}
}
