package engine

import (
	"context"

	"github.com/hippo-mem/hippo"
)

// MemorySource implements hippo.MemoryService: the chunk's provenance and
// the text it was extracted from, read in one snapshot. Another agent's
// chunk is ENOTFOUND, as an unknown one.
func (m *Memory) MemorySource(ctx context.Context, id string) (*hippo.SourceInfo, error) {
	if err := m.touch(ctx); err != nil {
		return nil, err
	}
	if err := checkChunkID(id); err != nil {
		return nil, err
	}
	var info *hippo.SourceInfo
	err := m.s.View(ctx, func(tx Tx) error {
		c, err := tx.Chunk(ctx, id)
		if err != nil {
			return err
		}
		info = &hippo.SourceInfo{ID: c.ID, Kind: c.Kind, Content: c.Content, WrittenAt: c.CreatedAt,
			Provenance: c.Provenance, Suspicious: c.Suspicious, SuspiciousReason: c.SuspiciousReason,
			Current: c.SupersededBy == ""}
		if p := c.Provenance; p != nil && p.InputHash != "" {
			info.Input, _, err = tx.Input(ctx, p.InputHash)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return info, nil
}

// Trust implements hippo.AgentMemory: the chunk's suspicious flag
// cleared, after a person's review. Another agent's chunk is ENOTFOUND.
func (m *Memory) Trust(ctx context.Context, id string) (*hippo.Chunk, error) {
	if err := checkChunkID(id); err != nil {
		return nil, err
	}
	var c *hippo.Chunk
	err := m.s.Update(ctx, func(tx Tx) error {
		if err := tx.SetSuspicious(ctx, id, ""); err != nil {
			return err
		}
		var err error
		c, err = tx.Chunk(ctx, id)
		return err
	})
	if err != nil {
		return nil, err
	}
	c.Embedding = nil
	return c, nil
}

// checkChunkID checks a chunk ID given by a caller.
func checkChunkID(id string) error {
	if err := hippo.ValidateText("id", id, hippo.MaxIDLength); err != nil {
		return err
	}
	return nil
}
