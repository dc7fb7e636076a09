package sqlite_test

import (
	"context"
	"database/sql"
	"net/url"
	"testing"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/sqlite"
)

// createMessages sets up a consumer-owned messages table and its FTS5
// index as seed 000 describes, with an agent_id column.
func createMessages(t *testing.T, e *env) {
	t.Helper()
	u := url.URL{Scheme: "file", Path: e.db.Path()}
	raw, err := sql.Open("sqlite", u.String()+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	stmts := []string{
		`CREATE TABLE messages (id INTEGER PRIMARY KEY, agent_id TEXT, role TEXT, content TEXT, created_at TEXT)`,
		`CREATE VIRTUAL TABLE messages_fts USING fts5(content, content=messages, content_rowid=id)`,
		`CREATE TRIGGER messages_ai AFTER INSERT ON messages BEGIN
			INSERT INTO messages_fts(rowid, content) VALUES (new.id, new.content); END`,
		`CREATE TRIGGER messages_ad AFTER DELETE ON messages BEGIN
			INSERT INTO messages_fts(messages_fts, rowid, content) VALUES ('delete', old.id, old.content); END`,
		`INSERT INTO messages (agent_id, role, content, created_at) VALUES
			('agent-a', 'user', 'We should migrate the OAuth flow next week', '2026-01-01T10:00:00Z'),
			('agent-a', 'assistant', 'The redirect URI was wrong in the OAuth config', '2026-01-01T10:01:00Z'),
			('agent-a', 'user', 'Lunch at noon?', '2026-01-01T11:00:00Z'),
			('agent-b', 'user', 'agent b also talks about OAuth', '2026-01-01T12:00:00Z')`,
	}
	for _, s := range stmts {
		if _, err := raw.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
}

func TestSearchConversation(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	createMessages(t, e)
	m := e.memory("agent-a", func(o *sqlite.MemoryOptions) { o.MessagesTable = "messages" })
	hits, err := m.SearchConversation(ctx, "OAuth redirect", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 || hits[0].Content != "The redirect URI was wrong in the OAuth config" || hits[0].Role != "assistant" {
		t.Fatalf("hits = %+v", hits)
	}
	for _, h := range hits {
		if h.Content == "agent b also talks about OAuth" {
			t.Error("another agent's message returned")
		}
	}
	// FTS syntax in user input is searched as words, never parsed.
	for _, q := range []string{`"OAuth`, `OAuth AND (`, `NEAR(OAuth* -flow)`, `content:OAuth`, `'; DROP TABLE messages; --`} {
		if _, err := m.SearchConversation(ctx, q, 5); err != nil {
			t.Errorf("query %q: %v", q, err)
		}
	}
	_, err = m.SearchConversation(ctx, `"*()`, 5)
	wantCode(t, err, hippo.EINVALID)
	_, err = m.SearchConversation(ctx, "OAuth", 51)
	wantCode(t, err, hippo.EINVALID)

	// Without a messages table the tool is unavailable.
	_, err = e.memory("agent-a").SearchConversation(ctx, "OAuth", 5)
	wantCode(t, err, hippo.EINVALID)
	// A configured table that does not exist is a clear error.
	missing := e.memory("agent-a", func(o *sqlite.MemoryOptions) { o.MessagesTable = "chat_log" })
	_, err = missing.SearchConversation(ctx, "OAuth", 5)
	wantCode(t, err, hippo.EINVALID)
}

func TestMessagesTableNameValidated(t *testing.T) {
	e := newEnv(t)
	for _, name := range []string{"messages; DROP TABLE chunks", `msg"s`, "1messages", "a b", "x\x00"} {
		_, err := e.db.Memory(sqlite.MemoryOptions{AgentID: "a", MessagesTable: name})
		wantCode(t, err, hippo.EINVALID)
	}
	if _, err := e.db.Memory(sqlite.MemoryOptions{AgentID: "a", MessagesTable: "chat_messages_2"}); err != nil {
		t.Error(err)
	}
}
