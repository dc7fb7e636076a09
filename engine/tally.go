package engine

import "github.com/hippo-mem/hippo"

// strengthHistogram counts the agent's live (not superseded) chunks by
// effective strength now, by the active or the wall clock, in bins equal
// bands over [0, 1]: bin i holds strengths in [i/bins, (i+1)/bins), the
// last one 1 too. From the index's metadata: no row is read.
func (ai *Index) strengthHistogram(active bool, now int64, bins int) []int {
	out := make([]int, max(1, bins))
	ai.mu.RLock()
	defer ai.mu.RUnlock()
	if ai.idx == nil {
		return out
	}
	clock := ai.decayClock(active, now)
	ai.idx.EachRow(func(_ string, m *Meta) {
		if m.SupersededAt != 0 || m.Part != 0 {
			return
		}
		s := hippo.Decay(float64(m.Intensity), float64(m.DecayRate), clock(m.LastAccess))
		out[max(0, min(len(out)-1, int(s*float64(len(out)))))]++
	})
	return out
}
