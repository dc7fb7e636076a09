package sqlite

import (
	"context"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/hippo-mem/hippo/engine"
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
// and each chunk's score is exact. With Config.AgentTextStatistics, when
// other agents share the database, the scores are the agent's own
// (agentBM25).
func (m *agentStore) TextScores(ctx context.Context, words []string, rows int) (map[int64]float64, float64, error) {
	stats := m.db.cfg.AgentTextStatistics
	agent, alone, err := m.db.ftsAgent(ctx, m.opts.AgentID, rows, stats)
	if err != nil {
		return nil, 0, err
	}
	// FTS5's one query scores with the whole index's statistics, which
	// are the agent's own when it is alone in the database.
	own := stats && !alone
	if own {
		agent = "agent:" + ftsToken(m.opts.AgentID) + " AND " // counts of its own rows
	}
	words, counts, err := m.db.rareWords(ctx, agent, words, ftsBudget)
	if err != nil || len(words) == 0 {
		return nil, 0, err
	}
	if own {
		return m.db.agentBM25(ctx, m.opts.AgentID, agent, words, counts, rows)
	}
	return m.db.searchFTS(ctx, agent+ftsContent(words), ftsBudget)
}

// FTS5's bm25() takes its statistics from the whole index: the number of
// rows, each word's number of rows (its IDF) and the mean row length. An
// agent's scores would then move with what other agents store, and an
// agent could learn whether another agent's memories hold a word by
// watching its own scores. agentBM25 scores with the agent's statistics
// instead. FTS5 gives no term frequencies outside its own functions, so it
// reads them back from bm25() of each word alone: that score is the
// database's IDF (known from the same counts FTS5 uses) times the word's
// term-frequency part, which with the row's length (FTS5's docsize table)
// and the database's mean length gives the word's count in the row. The
// score is then BM25 of that count with the agent's IDF and mean length.

// agentBM25 is the BM25 score of each of the agent's rows matching words
// (at most ftsBudget in all), by rowid, with the agent's statistics: rows
// is the agent's row count, counts each word's rows among them, and agent
// the MATCH prefix that keeps a query to its rows.
func (db *DB) agentBM25(ctx context.Context, agentID, agent string, words []string, counts []int, rows int) (map[int64]float64, float64, error) {
	total, dbLen, err := db.ftsAverages(ctx)
	if err != nil {
		return nil, 0, err
	}
	agentLen, err := db.agentLength(ctx, agentID, rows)
	if err != nil {
		return nil, 0, err
	}
	var q strings.Builder
	args := make([]any, 0, len(words))
	for i, w := range words {
		if i > 0 {
			q.WriteString(" UNION ALL ")
		}
		// The word's rows in the whole index.
		fmt.Fprintf(&q, `SELECT %d, (SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?)`, i)
		args = append(args, ftsContent([]string{w}))
	}
	crows, err := db.queryReadN(ctx, len(words), q.String(), args...)
	if err != nil {
		return nil, 0, fmt.Errorf("full-text search: %w", err)
	}
	idfDB, idfAgent := make([]float64, len(words)), make([]float64, len(words))
	for crows.Next() {
		var i int
		var inDB int64
		if err := crows.Scan(&i, &inDB); err != nil {
			crows.Close()
			return nil, 0, fmt.Errorf("full-text search: %w", err)
		}
		inAgent := int64(counts[i])
		idfDB[i], idfAgent[i] = engine.BM25IDF(max(total, inDB), inDB), engine.BM25IDF(max(int64(rows), inAgent), inAgent)
	}
	if err := crows.Err(); err != nil {
		return nil, 0, fmt.Errorf("full-text search: %w", err)
	}
	q.Reset()
	args = args[:0]
	for i, w := range words {
		if i > 0 {
			q.WriteString(" UNION ALL ")
		}
		fmt.Fprintf(&q, `SELECT %d, f.rowid, -f.rank, d.sz FROM chunks_fts AS f
			JOIN chunks_fts_docsize AS d ON d.id = f.rowid WHERE chunks_fts MATCH ?`, i)
		args = append(args, agent+ftsContent([]string{w}))
	}
	srows, err := db.queryReadN(ctx, len(words), q.String(), args...)
	if err != nil {
		return nil, 0, fmt.Errorf("full-text search: %w", err)
	}
	defer srows.Close()
	scores := map[int64]float64{}
	for srows.Next() {
		var (
			i     int
			rowid int64
			score float64
			size  []byte
		)
		if err := srows.Scan(&i, &rowid, &score, &size); err != nil {
			return nil, 0, fmt.Errorf("full-text search: %w", err)
		}
		length, ok := varintSum(size)
		if !ok {
			return nil, 0, fmt.Errorf("full-text search: FTS5 docsize of row %d is malformed", rowid)
		}
		tf := engine.BM25Count(score/idfDB[i], length, dbLen)
		scores[rowid] += idfAgent[i] * engine.BM25Part(tf, length, agentLen)
	}
	if err := srows.Err(); err != nil {
		return nil, 0, fmt.Errorf("full-text search: %w", err)
	}
	if len(scores) == 0 {
		return nil, 0, nil
	}
	return scores, engine.BestScore(scores), nil
}

// ftsAverages are the index's row count and mean row length in tokens
// (every column's) as bm25() reads them: FTS5's averages record
// (chunks_fts_data row 1), the row count and then each column's tokens.
func (db *DB) ftsAverages(ctx context.Context) (rows int64, avgLen float64, err error) {
	var rec []byte
	st, err := db.readStmt(ctx, `SELECT block FROM chunks_fts_data WHERE id = 1`)
	if err == nil {
		err = st.QueryRowContext(ctx).Scan(&rec)
	}
	if errors.Is(err, sql.ErrNoRows) {
		return 0, 0, nil
	}
	if err != nil {
		return 0, 0, fmt.Errorf("full-text search: %w", err)
	}
	n, size, ok := sqliteVarint(rec)
	tokens, ok2 := varintSum(rec[size:])
	if !ok || !ok2 {
		return 0, 0, fmt.Errorf("full-text search: FTS5 averages record of %d bytes is malformed", len(rec))
	}
	if n == 0 {
		return 0, 0, nil
	}
	return int64(n), tokens / float64(n), nil
}

// agentLength is the mean length in tokens of agentID's rows of the
// full-text index, every column's as bm25() counts it, from FTS5's
// docsize table: a pass over them (about 0.5 µs a row), kept while it
// stands (engine.AgentStats); rows is the agent's row count.
func (db *DB) agentLength(ctx context.Context, agentID string, rows int) (float64, error) {
	if avg, ok := db.lengths.Get(agentID, rows); ok {
		return avg, nil
	}
	rs, err := db.queryRead(ctx, `SELECT d.sz FROM chunks AS c JOIN chunks_fts_docsize AS d ON d.id = c.rowid
		WHERE c.agent_id = ?`, agentID)
	if err != nil {
		return 0, fmt.Errorf("full-text search: %w", err)
	}
	defer rs.Close()
	var sum, n float64
	var size []byte
	for rs.Next() {
		if err := rs.Scan(&size); err != nil {
			return 0, fmt.Errorf("full-text search: %w", err)
		}
		if l, ok := varintSum(size); ok {
			sum, n = sum+l, n+1
		}
	}
	if err := rs.Err(); err != nil {
		return 0, fmt.Errorf("full-text search: %w", err)
	}
	avg := 1.0
	if n > 0 {
		avg = sum / n
	}
	db.lengths.Put(agentID, rows, avg)
	return avg, nil
}

// varintSum is the sum of the SQLite varints that fill b.
func varintSum(b []byte) (float64, bool) {
	sum := 0.0
	for len(b) > 0 {
		v, n, ok := sqliteVarint(b)
		if !ok {
			return 0, false
		}
		sum += float64(v)
		b = b[n:]
	}
	return sum, true
}

// sqliteVarint decodes SQLite's variable-length integer at the start of
// b (1 to 9 bytes, big-endian, 7 bits a byte with the high bit set on all
// but the last; the ninth byte carries 8) and its length in bytes.
func sqliteVarint(b []byte) (v uint64, n int, ok bool) {
	for i := 0; i < 9 && i < len(b); i++ {
		if i == 8 {
			return v<<8 | uint64(b[i]), 9, true
		}
		v = v<<7 | uint64(b[i]&0x7f)
		if b[i] < 0x80 {
			return v, i + 1, true
		}
	}
	return 0, 0, false
}

// ftsAgent returns the MATCH prefix that keeps a search to the agent's own
// rows, or "" when the words alone are cheaper: when the agent has more
// than ftsAgentRows chunks, or holds most of the database. With
// askAlone, alone is whether the agent's are the only chunks in the
// database (or there are none), read in the same statement from the two
// ends of the agent_id index.
func (db *DB) ftsAgent(ctx context.Context, agentID string, rows int, askAlone bool) (prefix string, alone bool, err error) {
	var (
		all    int
		lo, hi sql.NullString
	)
	query, dest := `SELECT COALESCE(MAX(rowid), 0) FROM chunks`, []any{&all}
	if askAlone {
		query, dest = `SELECT COALESCE(MAX(rowid), 0),
			(SELECT agent_id FROM chunks ORDER BY agent_id LIMIT 1),
			(SELECT agent_id FROM chunks ORDER BY agent_id DESC LIMIT 1) FROM chunks`, []any{&all, &lo, &hi}
	}
	st, err := db.readStmt(ctx, query)
	if err == nil {
		err = st.QueryRowContext(ctx).Scan(dest...)
	}
	if err != nil {
		return "", false, fmt.Errorf("full-text search: %w", err)
	}
	alone = askAlone && (!lo.Valid || lo.String == agentID) && (!hi.Valid || hi.String == agentID)
	if rows > ftsAgentRows || 2*rows > all {
		return "", alone, nil
	}
	return "agent:" + ftsToken(agentID) + " AND ", alone, nil
}

// maxPreparedWords is the longest list of words whose rareWords query is
// prepared (DB.queryRead): one statement per length.
const maxPreparedWords = 16

// queryReadN runs a query built for n words: prepared (queryRead) for
// the few lengths most queries have, unprepared for a longer list, a
// query of its own shape.
func (db *DB) queryReadN(ctx context.Context, n int, query string, args ...any) (*sql.Rows, error) {
	if n <= maxPreparedWords {
		return db.queryRead(ctx, query, args...)
	}
	return db.read.QueryContext(ctx, query, args...)
}

// rareWords returns the words that match fewest rows (the agent's, when
// agent is its MATCH prefix), rarest first, as many as match budget rows
// in all, and how many rows each matches. Words that match nothing are
// left out: they change no score.
func (db *DB) rareWords(ctx context.Context, agent string, words []string, budget int) ([]string, []int, error) {
	var q strings.Builder
	args := make([]any, 0, 2*len(words))
	for i, w := range words {
		if i > 0 {
			q.WriteString(" UNION ALL ")
		}
		fmt.Fprintf(&q, `SELECT %d, (SELECT count(*) FROM (SELECT 1 FROM chunks_fts WHERE chunks_fts MATCH ? LIMIT ?))`, i)
		args = append(args, agent+ftsContent([]string{w}), budget+1) // enough to tell
	}
	rows, err := db.queryReadN(ctx, len(words), q.String(), args...)
	if err != nil {
		return nil, nil, fmt.Errorf("full-text search: %w", err)
	}
	defer rows.Close()
	type count struct{ word, n int }
	var counts []count
	for rows.Next() {
		var c count
		if err := rows.Scan(&c.word, &c.n); err != nil {
			return nil, nil, fmt.Errorf("full-text search: %w", err)
		}
		if c.n > 0 {
			counts = append(counts, c)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("full-text search: %w", err)
	}
	sort.SliceStable(counts, func(i, j int) bool { return counts[i].n < counts[j].n })
	var (
		out []string
		ns  []int
	)
	total := 0
	for _, c := range counts {
		if total += c.n; total <= budget {
			out, ns = append(out, words[c.word]), append(ns, c.n)
		}
	}
	return out, ns, nil
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
