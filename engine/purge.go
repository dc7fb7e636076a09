package engine

import (
	"context"
	"fmt"

	"github.com/hippo-mem/hippo"
)

// DeleteStore is a store's side of deleting and purging chunks across
// agents (Admin's DeleteChunks, PlanDelete and PurgeSuperseded).
type DeleteStore interface {
	// AdminView runs fn in one read snapshot.
	AdminView(ctx context.Context, fn func(AdminTx) error) error
	// AdminUpdate runs fn in one write transaction, committed when fn
	// returns nil, serialised with agentID's writers (when not "").
	AdminUpdate(ctx context.Context, agentID string, fn func(AdminTx) error) error
	// AfterDelete is called after a committed write that deleted chunks
	// (sqlite: the change log trimmed and a WAL checkpoint, so that
	// deleted text does not linger). It cannot fail.
	AfterDelete(ctx context.Context)
}

// AdminTx is a transaction of a DeleteStore.
type AdminTx interface {
	ChunkDeleter
	// Listed is the chunk id, of agentID unless "", without its vector;
	// nil when there is none.
	Listed(ctx context.Context, agentID, id string) (*hippo.Chunk, error)
	// SupersededBy lists the IDs of owner's chunks superseded by id, in
	// ID order.
	SupersededBy(ctx context.Context, owner, id string) ([]string, error)
	// Superseded lists the superseded chunks f selects (its agent, and
	// superseded before f.Before when set, or created before it when the
	// supersession time is unknown), without vectors, oldest first; in a
	// write transaction it locks them.
	Superseded(ctx context.Context, f hippo.PurgeFilter) ([]*hippo.Chunk, error)
	// Repoint points owner's chunks superseded by id at next instead.
	Repoint(ctx context.Context, owner, id, next string) error
	// Purge deletes the chunks ids, whatever their links.
	Purge(ctx context.Context, ids []string) error
}

// DeleteChunks implements hippo.Admin: it hard-deletes chunks by ID (of
// agentID only, unless "") in one transaction and clears the supersession
// links to them, so that what they had superseded is current again. It
// returns the IDs deleted and resurrected.
func (a *Admin) DeleteChunks(ctx context.Context, agentID string, ids []string) (deleted, resurrected []string, err error) {
	st := a.st
	err = st.AdminUpdate(ctx, agentID, func(tx AdminTx) error {
		deleted, resurrected, err = deleteChunks(ctx, tx, agentID, ids)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	st.AfterDelete(ctx)
	return deleted, resurrected, nil
}

// PlanDelete implements hippo.Admin: what DeleteChunks would do with the
// same arguments, read in one snapshot.
func (a *Admin) PlanDelete(ctx context.Context, agentID string, ids []string) (*hippo.DeletePlan, error) {
	plan := &hippo.DeletePlan{Chunks: []*hippo.Chunk{}, NotFound: []string{}, Resurrected: []string{}}
	err := a.st.AdminView(ctx, func(tx AdminTx) error {
		seen := map[string]bool{}
		for _, id := range ids {
			if seen[id] {
				continue
			}
			seen[id] = true
			c, err := tx.Listed(ctx, agentID, id)
			if err != nil {
				return err
			}
			if c == nil {
				plan.NotFound = append(plan.NotFound, id)
				continue
			}
			plan.Chunks = append(plan.Chunks, c)
		}
		for _, c := range plan.Chunks {
			back, err := tx.SupersededBy(ctx, c.AgentID, c.ID)
			if err != nil {
				return fmt.Errorf("find chunks superseded by %s: %w", c.ID, err)
			}
			for _, id := range back {
				if !seen[id] {
					plan.Resurrected = append(plan.Resurrected, id)
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return plan, nil
}

// PurgeSuperseded implements hippo.Admin: it hard-deletes the superseded
// chunks f selects and returns them (without vectors), oldest first.
// Unlike DeleteChunks it resurrects nothing: a chunk superseded by a
// purged one is re-pointed to the purged chunk's successor
// (purgeSuccessors), so it stays superseded.
func (a *Admin) PurgeSuperseded(ctx context.Context, f hippo.PurgeFilter) ([]*hippo.Chunk, error) {
	st := a.st
	var purged []*hippo.Chunk
	if f.DryRun {
		err := st.AdminView(ctx, func(tx AdminTx) error {
			var err error
			purged, err = tx.Superseded(ctx, f)
			return err
		})
		return purged, err
	}
	err := st.AdminUpdate(ctx, f.AgentID, func(tx AdminTx) error {
		var err error
		if purged, err = tx.Superseded(ctx, f); err != nil {
			return err
		}
		next := purgeSuccessors(purged)
		ids := make([]string, len(purged))
		for i, c := range purged {
			if err := tx.Repoint(ctx, c.AgentID, c.ID, next[c.ID]); err != nil {
				return fmt.Errorf("re-point chunks superseded by %s: %w", c.ID, err)
			}
			ids[i] = c.ID
		}
		if err := tx.Purge(ctx, ids); err != nil {
			return fmt.Errorf("purge chunks: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(purged) > 0 {
		st.AfterDelete(ctx)
	}
	return purged, nil
}

// purgeSuccessors is, for each chunk a purge deletes (superseded chunks),
// the chunk its successors should point at instead: its successor,
// followed past the chunks purged with it. The walk is bounded by the
// purge's size, which guards against a cycle.
func purgeSuccessors(purged []*hippo.Chunk) map[string]string {
	successor := make(map[string]string, len(purged))
	for _, c := range purged {
		successor[c.ID] = c.SupersededBy
	}
	out := make(map[string]string, len(purged))
	for _, c := range purged {
		next := c.SupersededBy
		for i := 0; i < len(purged); i++ {
			s, ok := successor[next]
			if !ok {
				break
			}
			next = s
		}
		out[c.ID] = next
	}
	return out
}
