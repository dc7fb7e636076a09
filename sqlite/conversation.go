package sqlite

import (
	"context"
	"fmt"
	"strings"
	"unicode"

	"github.com/hippo-mem/hippo"
)

// SearchConversation implements engine.Store over the consumer-owned
// messages table and its <table>_fts FTS5 index. The query is reduced to
// its words, each quoted, so no input can be read as FTS syntax. When the
// table has an agent_id column, only this agent's messages are searched.
func (m *agentStore) SearchConversation(ctx context.Context, table, query string, limit int) ([]hippo.ConversationHit, error) {
	match := ftsQuery(query)
	if match == "" {
		return nil, hippo.Invalidf("query", "has no searchable words")
	}
	cols, err := m.db.columns(ctx, table)
	if err != nil {
		return nil, err
	}
	if !cols["content"] {
		return nil, hippo.Errorf(hippo.EINVALID, "messages table %q has no content column", table)
	}
	sel := `m.rowid, m.content, f.rank`
	sel += optionalColumn(cols, "role")
	sel += optionalColumn(cols, "created_at")
	q := fmt.Sprintf(`SELECT %s FROM %q AS f JOIN %q AS m ON m.rowid = f.rowid WHERE %q MATCH ?`,
		sel, table+"_fts", table, table+"_fts")
	args := []any{match}
	if cols["agent_id"] {
		q += ` AND m.agent_id = ?`
		args = append(args, m.opts.AgentID)
	}
	q += ` ORDER BY f.rank LIMIT ?`
	args = append(args, limit)

	var indexed bool
	if err := m.db.read.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM sqlite_schema
		WHERE type = 'table' AND name = ? COLLATE NOCASE)`, table+"_fts").Scan(&indexed); err != nil {
		return nil, fmt.Errorf("search conversation: %w", err)
	}
	if !indexed {
		return nil, hippo.Errorf(hippo.EINVALID, "messages FTS index %q does not exist", table+"_fts")
	}
	rows, err := m.db.read.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("search conversation: %w", err)
	}
	defer rows.Close()
	hits := []hippo.ConversationHit{}
	for rows.Next() {
		var h hippo.ConversationHit
		dest := []any{&h.ID, nullable(&h.Content), &h.Rank}
		if cols["role"] {
			dest = append(dest, nullable(&h.Role))
		}
		if cols["created_at"] {
			dest = append(dest, nullable(&h.CreatedAt))
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, fmt.Errorf("search conversation: %w", err)
		}
		hits = append(hits, h)
	}
	return hits, rows.Err()
}

func optionalColumn(cols map[string]bool, name string) string {
	if cols[name] {
		return ", m." + name
	}
	return ""
}

// columns returns the column names of a table; EINVALID when it does not
// exist. table must already be a validated identifier.
func (db *DB) columns(ctx context.Context, table string) (map[string]bool, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT name FROM pragma_table_info(?)`, table)
	if err != nil {
		return nil, fmt.Errorf("inspect table %q: %w", table, err)
	}
	defer rows.Close()
	cols := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, err
		}
		cols[strings.ToLower(name)] = true
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(cols) == 0 {
		return nil, hippo.Errorf(hippo.EINVALID, "messages table %q does not exist", table)
	}
	return cols, nil
}

// ftsQuery turns free text into a safe FTS5 query: each word becomes a
// quoted string and any word may match (bm25 ranks messages that match more
// words first). It returns "" when the text has no words.
func ftsQuery(text string) string {
	words := strings.FieldsFunc(text, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_'
	})
	if len(words) > 64 {
		words = words[:64]
	}
	for i, w := range words {
		words[i] = `"` + w + `"`
	}
	return strings.Join(words, " OR ")
}
