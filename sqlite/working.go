package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/hippo-mem/hippo"
)

// FactHistory returns the supersession chain of a fact, oldest first: the
// fact with ID id, or else the fact (current or superseded) most similar to
// query, none when no fact is relevant to it (see bestFact). Each entry
// says from when until when it was current.
func (m *Memory) FactHistory(ctx context.Context, query, id string) ([]hippo.HistoryEntry, error) {
	if err := m.touch(ctx); err != nil {
		return nil, err
	}
	if id == "" {
		if err := hippo.ValidateText("query", query, m.cfg.MaxFactText); err != nil {
			return nil, hippo.Invalidf("query", "or id is required")
		}
		var err error
		if id, err = m.bestFact(ctx, query); err != nil || id == "" {
			return []hippo.HistoryEntry{}, err
		}
	}
	tx, err := m.db.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	start, err := getChunk(ctx, tx, m.opts.AgentID, id)
	if err != nil {
		return nil, err
	}
	chain := []*hippo.Chunk{start}
	seen := map[string]bool{start.ID: true}
	for cur := start; ; { // back: what this fact superseded
		var prev string
		err := tx.QueryRowContext(ctx, `SELECT id FROM chunks WHERE superseded_by = ? AND agent_id = ?
			ORDER BY created_at DESC LIMIT 1`, cur.ID, m.opts.AgentID).Scan(&prev)
		if err == sql.ErrNoRows || seen[prev] {
			break
		} else if err != nil {
			return nil, err
		}
		if cur, err = getChunk(ctx, tx, m.opts.AgentID, prev); err != nil {
			return nil, err
		}
		seen[cur.ID] = true
		chain = append([]*hippo.Chunk{cur}, chain...)
	}
	for cur := start; cur.SupersededBy != "" && !seen[cur.SupersededBy]; { // forward
		if cur, err = getChunk(ctx, tx, m.opts.AgentID, cur.SupersededBy); err != nil {
			break // the successor is gone: the chain ends here
		}
		seen[cur.ID] = true
		chain = append(chain, cur)
	}
	out := make([]hippo.HistoryEntry, len(chain))
	for i, c := range chain {
		out[i] = hippo.HistoryEntry{ID: c.ID, Content: c.Content, ValidFrom: c.CreatedAt,
			ValidUntil: c.SupersededAt, Current: c.SupersededBy == ""}
		if c.SupersededBy != "" && c.SupersededAt == nil && i+1 < len(chain) {
			t := chain[i+1].CreatedAt
			out[i].ValidUntil = &t
		}
	}
	return out, nil
}

// bestFact is the ID of the fact, current or superseded, most relevant to
// query in the recall scopes, by recall's relevance (cosine and BM25 at
// Config.HybridAlpha, see hippo.Config.Relevance), or "" when there is none
// or its relevance is 0 or below Config.MinRelevance: a fact no closer to
// the query than unrelated text is no answer.
func (m *Memory) bestFact(ctx context.Context, query string) (string, error) {
	qs, ai, err := m.queryIndex(ctx, hippo.FactVoice(query)) // facts are in their voice
	if err != nil {
		return "", err
	}
	q := qs[0]
	ai.mu.RLock()
	defer ai.mu.RUnlock()
	if ai.idx == nil {
		return "", nil
	}
	cfg, alpha := m.cfg, m.cfg.HybridAlpha
	var bm map[int64]float64
	if alpha > 0 {
		if bm, _, err = m.bm25Scores(ctx, ai, hippo.RecallInput{Query: query}); err != nil {
			return "", err
		}
	}
	f := ai.newFilter(hippo.KindFact, m.opts.RecallScopes)
	f.allSuperseded = true
	hits, err := ai.idx.Search(ctx, q, 1, func(c *chunkMeta, cos, _ float64, _ bool) (float64, bool) {
		return cfg.SizedRelevance(cos, bm[c.rowid], int(c.size), alpha), f.allows(c)
	})
	if err != nil || len(hits) == 0 {
		return "", err
	}
	if r := hits[0].Score; !(r > 0) || r < cfg.MinRelevance {
		return "", nil
	}
	return hits[0].ID, nil
}

// Reinforce applies explicit feedback: an upvote folds a reading of 1.0
// into the running intensity and counts as an access; a downvote folds in
// 0.0, so that sustained downvotes fade a memory while one does not erase
// it. IDs that are not the agent's are reported as not found.
func (m *Memory) Reinforce(ctx context.Context, up, down []string) (*hippo.ReinforceResult, error) {
	if err := m.touch(ctx); err != nil {
		return nil, err
	}
	if len(up)+len(down) == 0 {
		return nil, hippo.Invalidf("upvotes", "or downvotes must list at least one chunk ID")
	}
	if len(up)+len(down) > 1000 {
		return nil, hippo.Invalidf("upvotes", "and downvotes may list at most 1000 IDs together")
	}
	res := &hippo.ReinforceResult{Upvoted: []string{}, Downvoted: []string{}, NotFound: []string{}}
	tx, err := m.db.write.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	now := m.db.now()
	for _, vote := range []struct {
		ids     []string
		reading float64
		up      bool
		done    *[]string
	}{{up, 1, true, &res.Upvoted}, {down, 0, false, &res.Downvoted}} {
		for _, id := range vote.ids {
			c, err := getChunk(ctx, tx, m.opts.AgentID, id)
			if hippo.ErrorCode(err) == hippo.ENOTFOUND {
				res.NotFound = append(res.NotFound, id)
				continue
			} else if err != nil {
				return nil, err
			}
			c.Strengthen(vote.reading, now, vote.up)
			if err := saveStrength(ctx, tx, c); err != nil {
				return nil, fmt.Errorf("reinforce %s: %w", c.ID, err)
			}
			*vote.done = append(*vote.done, c.ID)
		}
	}
	return res, tx.Commit()
}

// Blocks lists the agent's blocks in the write scope.
func (m *Memory) Blocks(ctx context.Context) ([]BlockInfo, error) {
	scope := m.opts.Scope
	return m.db.ListBlocks(ctx, m.opts.AgentID, &scope)
}

// DeleteBlock deletes a block of the write scope. ENOTFOUND when missing.
func (m *Memory) DeleteBlock(ctx context.Context, key string) error {
	if err := m.touch(ctx); err != nil {
		return err
	}
	if err := hippo.ValidateBlockKey(key); err != nil {
		return err
	}
	res, err := m.db.write.ExecContext(ctx, `DELETE FROM memory_blocks WHERE agent_id = ? AND scope = ? AND key = ?`,
		m.opts.AgentID, m.opts.Scope, key)
	if err != nil {
		return fmt.Errorf("delete block %q: %w", key, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return hippo.Errorf(hippo.ENOTFOUND, "block %q does not exist", key)
	}
	m.db.checkpoint(ctx)
	return nil
}

// maxContextChars bounds get_context's budget.
const maxContextChars = 400_000

// Context assembles the agent's blocks (global scope and the write scope)
// and, for a query, its best memories into text for a system prompt,
// within a budget: blocks first, then memories by score. What does not fit
// is listed as left out.
func (m *Memory) Context(ctx context.Context, in hippo.ContextInput) (*hippo.Context, error) {
	if err := m.touch(ctx); err != nil {
		return nil, err
	}
	budget := in.MaxChars
	switch {
	case in.MaxChars < 0 || in.MaxTokens < 0:
		return nil, hippo.Invalidf("max_chars", "and max_tokens must not be negative")
	case in.MaxChars > 0 && in.MaxTokens > 0:
		return nil, hippo.Invalidf("max_tokens", "give max_chars or max_tokens, not both")
	case in.MaxTokens > 0:
		budget = in.MaxTokens * 4
	case budget == 0:
		budget = hippo.DefaultContextChars
	}
	if budget > maxContextChars {
		return nil, hippo.Invalidf("max_chars", "must be at most %d characters (%d tokens)", maxContextChars, maxContextChars/4)
	}
	out := &hippo.Context{Budget: budget, Blocks: []string{}, Memories: []string{}, OmittedBlocks: []string{}}
	scopes := []string{""}
	if m.opts.Scope != "" {
		scopes = append(scopes, m.opts.Scope)
	}
	var b strings.Builder
	used := 0
	add := func(s string) bool {
		n := utf8.RuneCountInString(s)
		if used+n > budget {
			return false
		}
		b.WriteString(s)
		used += n
		return true
	}
	var blocks []*hippo.Block
	for _, scope := range scopes {
		infos, err := m.db.ListBlocks(ctx, m.opts.AgentID, &scope)
		if err != nil {
			return nil, err
		}
		for _, info := range infos {
			blk, err := getBlock(ctx, m.db.read, m.opts.AgentID, scope, info.Key)
			if err == sql.ErrNoRows {
				continue
			} else if err != nil {
				return nil, err
			}
			blocks = append(blocks, blk)
		}
	}
	if len(blocks) > 0 && add("# Memory blocks\n") {
		for _, blk := range blocks {
			title := blk.Key
			if blk.Description != "" {
				title += " (" + blk.Description + ")"
			}
			if add(fmt.Sprintf("\n## %s\n%s\n", title, blk.Value)) {
				out.Blocks = append(out.Blocks, blk.Key)
			} else {
				out.OmittedBlocks = append(out.OmittedBlocks, blk.Key)
			}
		}
	} else {
		for _, blk := range blocks {
			out.OmittedBlocks = append(out.OmittedBlocks, blk.Key)
		}
	}
	if strings.TrimSpace(in.Query) != "" {
		res, err := m.Recall(ctx, hippo.RecallInput{Query: in.Query, Limit: in.Limit})
		if err != nil {
			return nil, err
		}
		sort.SliceStable(res, func(i, j int) bool { return res[i].Score > res[j].Score })
		header := "\n# Relevant memories\n"
		if len(blocks) == 0 {
			header = "# Relevant memories\n"
		}
		if len(res) > 0 && !add(header) {
			out.OmittedRecalls = len(res)
			res = nil
		}
		for i, r := range res {
			if !add(fmt.Sprintf("- %s\n", r.Chunk.Content)) {
				out.OmittedRecalls = len(res) - i
				break
			}
			out.Memories = append(out.Memories, r.Chunk.ID)
		}
	}
	out.Text, out.Chars = b.String(), used
	return out, nil
}
