package sqlite

import (
	"context"
	"fmt"

	"github.com/hippo-mem/hippo"
)

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
