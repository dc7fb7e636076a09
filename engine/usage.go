package engine

import "github.com/hippo-mem/hippo"

// Usage is what the cached indexes hold now (the agents resident, their
// rows, and the bytes of their codes, scales and metadata) and how the
// cache has fared: loads, hits and evictions.
func (x *Indexes) Usage() hippo.IndexUsage {
	x.mu.Lock()
	list := make([]*Index, 0, len(x.byAgent))
	for _, ai := range x.byAgent {
		list = append(list, ai)
	}
	u := hippo.IndexUsage{Limit: x.limit, Loads: x.loads, Hits: x.hits, Evictions: x.evictions}
	x.mu.Unlock()
	for _, ai := range list {
		if st := ai.Stats(); st.Dimension > 0 {
			u.Agents++
			u.Rows += st.Rows
			u.Bytes += int64(st.VectorBytes + st.MetaBytes)
		}
	}
	return u
}
