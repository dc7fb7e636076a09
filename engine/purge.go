package engine

import "github.com/hippo-mem/hippo"

// PurgeSuccessors is, for each chunk a purge deletes (superseded chunks),
// the chunk its successors should point at instead: its successor,
// followed past the chunks purged with it. A store re-points what each
// purged chunk superseded to that chunk before deleting them. The walk
// is bounded by the purge's size, which guards against a cycle.
func PurgeSuccessors(purged []*hippo.Chunk) map[string]string {
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
