package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/hippo-mem/hippo"
)

// ChunkReader reads one agent's chunks inside a store transaction.
type ChunkReader interface {
	// Chunk is the agent's chunk id; ENOTFOUND when there is none.
	Chunk(ctx context.Context, id string) (*hippo.Chunk, error)
	// Predecessor is the ID of the newest of the agent's chunks that id
	// superseded, "" when there is none.
	Predecessor(ctx context.Context, id string) (string, error)
}

// ChunkWriter is a ChunkReader that can also write a chunk's strength.
type ChunkWriter interface {
	ChunkReader
	// SaveStrength writes the chunk's running intensity, encounters,
	// accesses and last access.
	SaveStrength(ctx context.Context, c *hippo.Chunk) error
}

// checkVotes checks reinforce_memory's input.
func checkVotes(up, down []string) error {
	if len(up)+len(down) == 0 {
		return hippo.Invalidf("upvotes", "or downvotes must list at least one chunk ID")
	}
	if len(up)+len(down) > 1000 {
		return hippo.Invalidf("upvotes", "and downvotes may list at most 1000 IDs together")
	}
	return nil
}

// reinforce applies explicit feedback through w: an upvote folds a
// reading of 1.0 into the running intensity and counts as an access at
// now; a downvote folds in 0.0, so that sustained downvotes fade a memory
// while one does not erase it (hippo.Chunk.Strengthen). IDs that are not
// the agent's are reported as not found.
func reinforce(ctx context.Context, w ChunkWriter, now time.Time, up, down []string) (*hippo.ReinforceResult, error) {
	res := &hippo.ReinforceResult{Upvoted: []string{}, Downvoted: []string{}, NotFound: []string{}}
	for _, vote := range []struct {
		ids     []string
		reading float64
		up      bool
		done    *[]string
	}{{up, 1, true, &res.Upvoted}, {down, 0, false, &res.Downvoted}} {
		for _, id := range vote.ids {
			c, err := w.Chunk(ctx, id)
			if hippo.ErrorCode(err) == hippo.ENOTFOUND {
				res.NotFound = append(res.NotFound, id)
				continue
			} else if err != nil {
				return nil, err
			}
			c.Strengthen(vote.reading, now, vote.up)
			if err := w.SaveStrength(ctx, c); err != nil {
				return nil, fmt.Errorf("reinforce %s: %w", c.ID, err)
			}
			*vote.done = append(*vote.done, c.ID)
		}
	}
	return res, nil
}

// history is the supersession chain through the fact id, oldest first,
// each entry saying from when until when it was current: back through
// what each fact superseded, forward through what superseded it, ending
// where a successor is gone. A memory's history is its earlier contents
// (hippo.MemoryVersions, kept by UpdateMemory), then its content now.
func history(ctx context.Context, r ChunkReader, id string) ([]hippo.HistoryEntry, error) {
	start, err := r.Chunk(ctx, id)
	if err != nil {
		return nil, err
	}
	if start.Kind == hippo.KindMemory {
		return memoryHistory(start), nil
	}
	chain := []*hippo.Chunk{start}
	seen := map[string]bool{start.ID: true}
	for cur := start; ; { // back: what this fact superseded
		prev, err := r.Predecessor(ctx, cur.ID)
		if err != nil {
			return nil, err
		}
		if prev == "" || seen[prev] {
			break
		}
		if cur, err = r.Chunk(ctx, prev); err != nil {
			return nil, err
		}
		seen[cur.ID] = true
		chain = append([]*hippo.Chunk{cur}, chain...)
	}
	for cur := start; cur.SupersededBy != "" && !seen[cur.SupersededBy]; { // forward
		if cur, err = r.Chunk(ctx, cur.SupersededBy); err != nil {
			break // the successor is gone: the chain ends here
		}
		seen[cur.ID] = true
		chain = append(chain, cur)
	}
	out := make([]hippo.HistoryEntry, len(chain))
	for i, c := range chain {
		out[i] = hippo.HistoryEntry{ID: c.ID, Content: c.Content, ValidFrom: c.CreatedAt,
			ValidUntil: c.SupersededAt, Current: c.SupersededBy == "", Provenance: c.Provenance,
			Suspicious: c.Suspicious, SuspiciousReason: c.SuspiciousReason}
		if c.SupersededBy != "" && c.SupersededAt == nil && i+1 < len(chain) {
			t := chain[i+1].CreatedAt
			out[i].ValidUntil = &t
		}
	}
	return out, nil
}

// memoryHistory is a memory's versions, oldest first, then its content.
func memoryHistory(c *hippo.Chunk) []hippo.HistoryEntry {
	vs := hippo.MemoryVersions(c.Metadata)
	out := make([]hippo.HistoryEntry, 0, len(vs)+1)
	from := c.CreatedAt
	for _, v := range vs {
		until := v.Until
		out = append(out, hippo.HistoryEntry{ID: c.ID, Content: v.Content, ValidFrom: from, ValidUntil: &until})
		from = until
	}
	return append(out, hippo.HistoryEntry{ID: c.ID, Content: c.Content, ValidFrom: from, Current: true})
}

// ChunkDeleter deletes chunks inside a store's write transaction.
type ChunkDeleter interface {
	// DeleteChunk hard-deletes the chunk id, of agentID unless "", and
	// returns its owner; "" when there was none.
	DeleteChunk(ctx context.Context, agentID, id string) (owner string, err error)
	// Unsupersede clears the supersession links of owner's chunks to id
	// and returns their IDs. Only the owner's: a link from another agent
	// (which only a crafted import makes) is that agent's to keep.
	Unsupersede(ctx context.Context, owner, id string) ([]string, error)
}

// deleteChunks hard-deletes chunks by ID (of agentID unless "") and
// clears the supersession links to them, so that what they had
// superseded is current again. It returns the IDs deleted and
// resurrected; a chunk deleted in the same call is not resurrected.
func deleteChunks(ctx context.Context, tx ChunkDeleter, agentID string, ids []string) (deleted, resurrected []string, err error) {
	for _, id := range ids {
		owner, err := tx.DeleteChunk(ctx, agentID, id)
		if err != nil {
			return nil, nil, fmt.Errorf("delete chunk %s: %w", id, err)
		}
		if owner == "" {
			continue
		}
		deleted = append(deleted, id)
		back, err := tx.Unsupersede(ctx, owner, id)
		if err != nil {
			return nil, nil, fmt.Errorf("resurrect chunks superseded by %s: %w", id, err)
		}
		resurrected = append(resurrected, back...)
	}
	gone := make(map[string]bool, len(deleted))
	for _, id := range deleted {
		gone[id] = true
	}
	out := resurrected[:0]
	for _, id := range resurrected {
		if !gone[id] {
			out = append(out, id)
		}
	}
	return deleted, out, nil
}
