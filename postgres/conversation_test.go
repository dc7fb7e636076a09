package postgres_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/internal/pgtest"
	"github.com/hippo-mem/hippo/local"
	"github.com/hippo-mem/hippo/postgres"
)

// TestSearchConversation searches a consumer-owned messages table, as
// sqlite's TestSearchConversation does with FTS5: the agent's matching
// messages, the best first, with their role and time; another agent's
// never; text that looks like query syntax searched as words; a missing
// table or one without content refused by name.
func TestSearchConversation(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.New(t)
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, s := range []string{
		`CREATE TABLE messages (id bigserial PRIMARY KEY, agent_id text, role text, content text, created_at text)`,
		`INSERT INTO messages (agent_id, role, content, created_at) VALUES
			('agent-a', 'user', 'We should migrate the OAuth flow next week', '2026-01-01T10:00:00Z'),
			('agent-a', 'assistant', 'The redirect URI was wrong in the OAuth config: the OAuth redirect pointed at staging', '2026-01-01T10:01:00Z'),
			('agent-a', 'user', 'Lunch at noon?', '2026-01-01T11:00:00Z'),
			('agent-b', 'user', 'agent b also talks about OAuth redirects', '2026-01-01T12:00:00Z')`,
		`CREATE TABLE notes (id bigserial PRIMARY KEY, body text)`,
	} {
		if _, err := conn.Exec(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	db, err := postgres.Open(ctx, dsn, postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	memory := func(table string) hippo.AgentMemory {
		m, err := db.Service(hippo.MemoryOptions{AgentID: "agent-a", Embedder: local.NewEmbedder(), MessagesTable: table})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	m := memory("messages")
	hits, err := m.SearchConversation(ctx, "OAuth redirect", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 || hits[0].Role != "assistant" || hits[0].Content[:16] != "The redirect URI" ||
		hits[1].Content != "We should migrate the OAuth flow next week" || hits[0].CreatedAt != "2026-01-01T10:01:00Z" {
		t.Fatalf("hits = %+v, want the redirect message first, then the migration one, agent-a's only", hits)
	}
	if hits[0].Rank == hits[1].Rank {
		t.Errorf("ranks %v and %v do not order the hits", hits[0].Rank, hits[1].Rank)
	}
	hits, err = m.SearchConversation(ctx, `"OAuth" & (lunch | !noon) :*`, 10)
	if err != nil || len(hits) != 3 {
		t.Errorf("query syntax as words: %d hits, %v; want 3 (the OAuth and lunch messages)", len(hits), err)
	}
	for _, tt := range []struct{ table, want string }{
		{"missing", `messages table "missing" does not exist`},
		{"notes", `messages table "notes" needs id and content columns`},
	} {
		_, err := memory(tt.table).SearchConversation(ctx, "OAuth", 10)
		if he, ok := err.(*hippo.Error); !ok || he.Code != hippo.EINVALID || he.Message != tt.want {
			t.Errorf("table %s: error %v, want EINVALID %q", tt.table, err, tt.want)
		}
	}
}
