package sqlite

import (
	"context"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
)

// The BM25 side of hybrid recall runs on chunks_fts (migration 0004), a
// contentless FTS5 index of chunk content beside one token per agent.
//
// Two costs bound it. FTS5's bm25() scores every row a query matches, so
// the query keeps the rarest of its words, up to ftsBudget matching rows:
// a word in more chunks than that says little about any one of them (its
// IDF is low) and would cost a BM25 evaluation per chunk. And bm25() counts
// the rows of every term of the query, the agent's token included, so
// ANDing that token costs a pass over all the agent's rows: agents of up
// to ftsAgentRows chunks that share the database with larger ones are
// searched that way, their own rows only; otherwise the query is the words
// alone and recall keeps the rowids of the agent's chunks. Both give the
// same scores: the agent column weighs nothing in the rank, and word
// statistics are the whole index's.

// ftsBudget is how many matching rows the words of a full-text query may
// have in all. On LongMemEval's 9,752 turns (eval/, tune half) 500 left out
// words a question needs: BM25 alone R@10 0.513 at 500, 0.616 at 2000,
// 0.595 at 5000; hybrid (α 0.5) 0.611, 0.622, 0.622. Hybrid recall among
// 10k chunks costs 1.34 ms at 500 and 1.51 ms at 2000.
const ftsBudget = 2000

// ftsAgentRows is the largest agent searched through its agent token.
const ftsAgentRows = 5000

// TextScores implements engine.RecallStore with FTS5: the BM25 score
// (higher is better) of every row of the full-text index matching words,
// by chunks rowid. Rows of other agents may be among them when the agent
// (of rows chunks) is not searched through its token. The words kept
// match at most ftsBudget rows in all (rareWords), so every match is read
// and each chunk's score is exact.
func (m *agentStore) TextScores(ctx context.Context, words []string, rows int) (map[int64]float64, float64, error) {
	agent, err := m.db.ftsAgent(ctx, m.opts.AgentID, rows)
	if err != nil {
		return nil, 0, err
	}
	words, err = m.db.rareWords(ctx, agent, words, ftsBudget)
	if err != nil || len(words) == 0 {
		return nil, 0, err
	}
	return m.db.searchFTS(ctx, agent+ftsContent(words), ftsBudget)
}

// ftsAgent returns the MATCH prefix that keeps a search to the agent's own
// rows, or "" when the words alone are cheaper: when the agent has more
// than ftsAgentRows chunks, or holds most of the database.
func (db *DB) ftsAgent(ctx context.Context, agentID string, rows int) (string, error) {
	var all int
	st, err := db.readStmt(ctx, `SELECT COALESCE(MAX(rowid), 0) FROM chunks`)
	if err == nil {
		err = st.QueryRowContext(ctx).Scan(&all)
	}
	if err != nil {
		return "", fmt.Errorf("full-text search: %w", err)
	}
	if rows > ftsAgentRows || 2*rows > all {
		return "", nil
	}
	return "agent:" + ftsToken(agentID) + " AND ", nil
}

// maxPreparedWords is the longest list of words whose rareWords query is
// prepared (DB.queryRead): one statement per length.
const maxPreparedWords = 16

// rareWords returns the words that match fewest rows (the agent's, when
// agent is its MATCH prefix), rarest first, as many as match budget rows
// in all. Words that match nothing are left out: they change no score.
func (db *DB) rareWords(ctx context.Context, agent string, words []string, budget int) ([]string, error) {
	var q strings.Builder
	args := make([]any, 0, 2*len(words))
	for i, w := range words {
		if i > 0 {
			q.WriteString(" UNION ALL ")
		}
		fmt.Fprintf(&q, `SELECT %d, (SELECT count(*) FROM (SELECT 1 FROM chunks_fts WHERE chunks_fts MATCH ? LIMIT ?))`, i)
		args = append(args, agent+ftsContent([]string{w}), budget+1) // enough to tell
	}
	// Prepared for the few lengths most queries have; a longer list of
	// words, a query of its own shape, runs unprepared.
	query := db.read.QueryContext
	if len(words) <= maxPreparedWords {
		query = db.queryRead
	}
	rows, err := query(ctx, q.String(), args...)
	if err != nil {
		return nil, fmt.Errorf("full-text search: %w", err)
	}
	defer rows.Close()
	type count struct{ word, n int }
	var counts []count
	for rows.Next() {
		var c count
		if err := rows.Scan(&c.word, &c.n); err != nil {
			return nil, fmt.Errorf("full-text search: %w", err)
		}
		if c.n > 0 {
			counts = append(counts, c)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("full-text search: %w", err)
	}
	sort.SliceStable(counts, func(i, j int) bool { return counts[i].n < counts[j].n })
	var out []string
	total := 0
	for _, c := range counts {
		if total += c.n; total <= budget {
			out = append(out, words[c.word])
		}
	}
	return out, nil
}

// searchFTS returns the BM25 score of up to limit rows matching match,
// by rowid (the index is contentless: rowids lead back to chunks), and the
// highest score.
func (db *DB) searchFTS(ctx context.Context, match string, limit int) (map[int64]float64, float64, error) {
	rows, err := db.queryRead(ctx, `SELECT rowid, -rank FROM chunks_fts WHERE chunks_fts MATCH ? LIMIT ?`, match, limit)
	if err != nil {
		return nil, 0, fmt.Errorf("full-text search: %w", err)
	}
	defer rows.Close()
	var (
		scores = map[int64]float64{}
		best   float64
		rowid  int64
		score  float64
	)
	for rows.Next() {
		if err := rows.Scan(&rowid, &score); err != nil {
			return nil, 0, fmt.Errorf("full-text search: %w", err)
		}
		scores[rowid] = score
		best = max(best, score)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("full-text search: %w", err)
	}
	if len(scores) == 0 {
		return nil, 0, nil
	}
	return scores, best, nil
}

// ftsContent is the MATCH expression for any of words in the content
// column. Every word is quoted, so no input is read as FTS5 syntax.
func ftsContent(words []string) string {
	var b strings.Builder
	b.WriteString("content:(")
	for i, w := range words {
		if i > 0 {
			b.WriteString(" OR ")
		}
		b.WriteString(`"` + w + `"`)
	}
	b.WriteString(")")
	return b.String()
}

// ftsToken is the single token the agent column holds for agentID: the
// migration's 'a' || hex(agent_id) || '0'.
func ftsToken(agentID string) string {
	return "a" + strings.ToUpper(hex.EncodeToString([]byte(agentID))) + "0"
}
