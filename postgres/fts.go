package postgres

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/engine"
)

// The BM25 side of hybrid recall. chunks.fts is a generated tsvector with
// a GIN index (migration 0001). ts_rank knows nothing of a word's rarity
// in the corpus, so it is not BM25: PostgreSQL finds the matching rows
// and returns their postings (a word's occurrences in each row, and the
// row's length), and bm25 scores them as SQLite's FTS5 does, with the
// whole database's statistics, or with Config.AgentTextStatistics the
// agent's own (its rows, their mean length, each word's rows among them),
// so that its scores do not move with what other agents store, nor tell
// it what they hold. As on SQLite, the query keeps its rarest words, up
// to ftsBudget matching rows of the agent.

// ftsBudget is how many of the agent's rows the words of a query may
// match in all (sqlite's ftsBudget).
const ftsBudget = 2000

// corpusStats are a row count and mean row length in words, BM25's
// corpus statistics: the whole database's, read again after statsTTL, or
// an agent's, kept while they stand (engine.AgentStats). Both cost a pass
// over the rows and move slowly.
type corpusStats struct {
	rows   int64
	avgLen float64
	at     time.Time
}

const statsTTL = 30 * time.Second

// corpus is the database's statistics.
func (db *DB) corpus(ctx context.Context) (corpusStats, error) {
	db.statsMu.Lock()
	defer db.statsMu.Unlock()
	if !db.stats.at.IsZero() && time.Since(db.stats.at) < statsTTL {
		return db.stats, nil
	}
	var s corpusStats
	if err := db.pool.QueryRow(ctx, `SELECT count(*), coalesce(avg(words), 0)::float8 FROM chunks`).Scan(&s.rows, &s.avgLen); err != nil {
		return s, fmt.Errorf("full-text statistics: %w", err)
	}
	s.at = time.Now()
	db.stats = s
	return s, nil
}

// agentCorpus is agentID's statistics; its index holds indexed rows.
func (db *DB) agentCorpus(ctx context.Context, agentID string, indexed int) (corpusStats, error) {
	if s, ok := db.agentStats.Get(agentID, indexed); ok {
		return s, nil
	}
	var s corpusStats
	if err := db.pool.QueryRow(ctx, `SELECT count(*), coalesce(avg(words), 0)::float8 FROM chunks WHERE agent_id = $1`,
		agentID).Scan(&s.rows, &s.avgLen); err != nil {
		return s, fmt.Errorf("full-text statistics: %w", err)
	}
	db.agentStats.Put(agentID, indexed, s)
	return s, nil
}

// termsSQL reads, for each query word, its lexemes and for each lexeme
// how many of the agent's rows hold it (counted up to $3 + 1) and, when
// that is within the budget and $4 (the database's statistics) is true,
// how many rows of the whole database do.
const termsSQL = `SELECT t.i, l.lexeme, a.n, CASE WHEN $4 AND a.n <= $3 THEN
		(SELECT count(*) FROM chunks WHERE fts @@ quote_literal(l.lexeme)::tsquery) END
	FROM unnest($1::text[]) WITH ORDINALITY AS t (w, i),
	LATERAL unnest(to_tsvector('english'::regconfig, t.w)) AS l,
	LATERAL (SELECT count(*) AS n FROM (SELECT 1 FROM chunks
		WHERE agent_id = $2 AND fts @@ quote_literal(l.lexeme)::tsquery LIMIT $3 + 1) AS s) AS a`

// postingsSQL reads, for each of the agent's rows holding any of the
// lexemes $2, each lexeme's occurrences and the row's length.
const postingsSQL = `SELECT c.rowid, l.lexeme, coalesce(cardinality(l.positions), 1), c.words
	FROM chunks AS c, unnest(c.fts) AS l
	WHERE c.agent_id = $1 AND c.fts @@ (SELECT string_agg(quote_literal(x), ' | ')::tsquery FROM unnest($2::text[]) AS x)
	AND l.lexeme = ANY($2)`

// TextScores implements engine.RecallStore: the BM25 score (higher is
// better) of each of the agent's rows matching words, by rowid, computed
// from their postings.
func (m *agentStore) TextScores(ctx context.Context, words []string, indexed int) (map[int64]float64, float64, error) {
	own := m.db.cfg.AgentTextStatistics
	rows, err := m.db.pool.Query(ctx, termsSQL, words, m.opts.AgentID, ftsBudget, !own)
	if err != nil {
		return nil, 0, fmt.Errorf("full-text search: %w", err)
	}
	type term struct {
		word        int
		lexeme      string
		agent, rows int64
	}
	var terms []term
	seen := map[string]bool{}
	for rows.Next() {
		var t term
		var all *int64
		if err := rows.Scan(&t.word, &t.lexeme, &t.agent, &all); err != nil {
			rows.Close()
			return nil, 0, fmt.Errorf("full-text search: %w", err)
		}
		if t.rows = t.agent; all != nil {
			t.rows = *all
		}
		if t.agent > 0 && !seen[t.lexeme] {
			seen[t.lexeme] = true
			terms = append(terms, t)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("full-text search: %w", err)
	}
	// The rarest lexemes, as many as match ftsBudget rows in all.
	sort.SliceStable(terms, func(i, j int) bool { return terms[i].agent < terms[j].agent })
	var kept []string
	df := map[string]int64{}
	total := int64(0)
	for _, t := range terms {
		if total += t.agent; total <= ftsBudget {
			kept = append(kept, t.lexeme)
			df[t.lexeme] = t.rows
		}
	}
	if len(kept) == 0 {
		return nil, 0, nil
	}
	var corpus corpusStats
	if own {
		corpus, err = m.db.agentCorpus(ctx, m.opts.AgentID, indexed)
	} else {
		corpus, err = m.db.corpus(ctx)
	}
	if err != nil {
		return nil, 0, err
	}
	rows, err = m.db.pool.Query(ctx, postingsSQL, m.opts.AgentID, kept)
	if err != nil {
		return nil, 0, fmt.Errorf("full-text search: %w", err)
	}
	defer rows.Close()
	scores := map[int64]float64{}
	var (
		rowid, tf, length int64
		lexeme            string
	)
	for rows.Next() {
		if err := rows.Scan(&rowid, &lexeme, &tf, &length); err != nil {
			return nil, 0, fmt.Errorf("full-text search: %w", err)
		}
		// The corpus statistics are cached: a newer row may hold a word
		// more often than they say.
		n := max(corpus.rows, df[lexeme])
		// FTS5 counts the agent column's token in a row's length.
		scores[rowid] += bm25(float64(tf), float64(length+1), corpus.avgLen+1, n, df[lexeme])
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("full-text search: %w", err)
	}
	if len(scores) == 0 {
		return nil, 0, nil
	}
	return scores, engine.BestScore(scores), nil
}

// bm25 is one term's BM25 contribution to a row's score, as FTS5
// computes it (engine.BM25IDF, engine.BM25Part): tf occurrences in a row
// of length dl, rows of mean length avgdl, n rows in all of which df hold
// the term.
func bm25(tf, dl, avgdl float64, n, df int64) float64 {
	if avgdl <= 0 {
		avgdl = max(dl, 1)
	}
	return engine.BM25IDF(n, df) * engine.BM25Part(tf, dl, avgdl)
}

// SearchConversation implements engine.Store over the consumer's
// messages table (a name the engine validated): its content column
// matched against the query's words with PostgreSQL's full-text search,
// ranked by ts_rank; only this agent's messages when the table has an
// agent_id column.
func (m *agentStore) SearchConversation(ctx context.Context, table, query string, limit int) ([]hippo.ConversationHit, error) {
	words := strings.FieldsFunc(query, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_'
	})
	if len(words) == 0 {
		return nil, hippo.Invalidf("query", "has no searchable words")
	}
	words = words[:min(len(words), 64)]
	table = strings.ToLower(table) // as PostgreSQL folds an unquoted name
	rows, err := m.db.pool.Query(ctx, `SELECT lower(column_name) FROM information_schema.columns
		WHERE table_schema = current_schema() AND table_name = $1`, table)
	if err != nil {
		return nil, fmt.Errorf("inspect table %q: %w", table, err)
	}
	cols := map[string]bool{}
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			rows.Close()
			return nil, err
		}
		cols[c] = true
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(cols) == 0 {
		return nil, hippo.Errorf(hippo.EINVALID, "messages table %q does not exist", table)
	}
	if !cols["content"] || !cols["id"] {
		return nil, hippo.Errorf(hippo.EINVALID, "messages table %q needs id and content columns", table)
	}
	sel := `m.id::bigint, m.content, ts_rank(to_tsvector('english'::regconfig, m.content), q)::float8`
	for _, c := range []string{"role", "created_at"} {
		if cols[c] {
			sel += ", m." + c + "::text"
		} else {
			sel += ", NULL::text"
		}
	}
	q := fmt.Sprintf(`SELECT %s FROM %s AS m,
		(SELECT string_agg(plainto_tsquery('english'::regconfig, w)::text, ' | ') AS s FROM unnest($1::text[]) AS w) AS qs,
		LATERAL (SELECT nullif(qs.s, '')::tsquery AS q) AS qq
		WHERE q IS NOT NULL AND to_tsvector('english'::regconfig, m.content) @@ q`, sel, pgIdent(table))
	args := []any{words}
	if cols["agent_id"] {
		q += ` AND m.agent_id = $3`
		args = append(args, limit, m.opts.AgentID)
	} else {
		args = append(args, limit)
	}
	q += ` ORDER BY 3 DESC LIMIT $2`
	rows, err = m.db.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("search conversation: %w", err)
	}
	defer rows.Close()
	hits := []hippo.ConversationHit{}
	for rows.Next() {
		var h hippo.ConversationHit
		var role, created *string
		if err := rows.Scan(&h.ID, &h.Content, &h.Rank, &role, &created); err != nil {
			return nil, fmt.Errorf("search conversation: %w", err)
		}
		if role != nil {
			h.Role = *role
		}
		if created != nil {
			h.CreatedAt = *created
		}
		hits = append(hits, h)
	}
	return hits, rows.Err()
}

// pgIdent quotes a validated identifier.
func pgIdent(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }
