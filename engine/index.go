package engine

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/hippo-mem/hippo"
	"github.com/hippo-mem/hippo/vector"
)

// Meta is what the recall scan filters and scores on, kept beside
// each vector of the index.
type Meta struct {
	RowID        int64 // the chunks row: how the full-text index names it
	Created      int64 // unix milliseconds
	LastAccess   int64 // unix milliseconds
	SupersededAt int64 // unix milliseconds; 0 while current
	Intensity    float32
	DecayRate    float32 // per hour, hippo.Config.DecayRate
	Scope        uint32  // interned scope name
	Category     uint32  // interned metadata category; 0 for none
	Tags         uint32  // interned tag set (Index.tagSet); 0 for none
	Size         uint32  // content bytes, for relevance's length discount
	// Group ties a text kept by remember_facts to the facts learned from
	// it (groupKey): recall returns one side of a group. 0 for none. 32
	// bits fill the struct's padding; two groups sharing a key only
	// matter when both come back for one query.
	Group uint32
	// Suspicious: the chunk reads as instructions to the agent (recall
	// leaves it out unless asked for it).
	Suspicious bool
	// Offline: a fact the offline extractor cut from its text; where the
	// text was kept, the text stands for it in recall (groupFilter).
	Offline bool
	// Part is the part (from 1) of its chunk a row holds (PartID); 0 for
	// the chunk's own row. Walks over the agent's chunks skip parts.
	Part uint8
	Kind hippo.Kind
}

// Index is the in-memory vector index of one agent's chunks, loaded
// lazily from a store and kept current through its change feed (see
// docs/ARCHITECTURE.md). Syncs hold mu to fold changes in; searches hold
// it for reading.
type Index struct {
	agent  string
	mu     sync.RWMutex
	idx    *vector.Index[Meta] // nil until the first row
	cfg    hippo.Config
	loader vector.Loader // the store's vectors by ID, for exact re-ranking
	scopes names
	cats   names
	tags   names
	// tagSets are the distinct tag sets of the chunks, by the ID
	// Meta keeps (1-based; tagSets[0] is none), so that a row holds
	// four bytes for its tags.
	tagSets  [][]uint32
	tagSetID map[string]uint32
	// texts counts the texts remember_facts kept, by group (Meta.Group):
	// a group with one stands for its facts in recall (groupFilter).
	texts map[uint32]int32
	// flaggedTexts counts those of them that are flagged (Meta.Suspicious).
	flaggedTexts map[uint32]int32
	// outdated lists, by group, the superseded facts of the group's
	// kept text: the text still states their old values
	// (correctionsFirst).
	outdated map[uint32][]string
	// rowGroups is the group of each row in one (Meta.Group), by RowID:
	// how a full-text match is counted once per message (linkedByWord).
	rowGroups map[int64]uint32
	// cues caches what chunks' content says to newerFirst (cueOf),
	// filled by recalls that hold mu for reading: cueMu guards it.
	cueMu sync.Mutex
	cues  map[string]chunkCue
	// parts counts the part rows of each chunk that has them (PartID).
	parts map[string]uint8
	// partRows is the sum of parts: rows that are not chunks.
	partRows int
	seq      int64 // last change-feed position folded in
	loaded   bool
	reserve  int     // rows to make room for when the index is created
	active   []int64 // hours of activity, ascending (active decay clock)
}

// newIndex is the empty index of agent's chunks: cfg gives the decay
// rates, loader reads float32 vectors back from the store by ID.
func newIndex(agent string, cfg hippo.Config, loader vector.Loader) *Index {
	return &Index{agent: agent, cfg: cfg, loader: loader}
}

// IndexStats describes an index: its rows, their dimension, and the bytes
// it holds.
type IndexStats struct {
	Rows        int `json:"rows"`
	Parts       int `json:"parts,omitempty"` // rows of chunks' parts beside them (PartID)
	Dimension   int `json:"dimension"`
	VectorBytes int `json:"vector_bytes"` // int8 codes, their scales and priors
	MetaBytes   int `json:"meta_bytes"`   // IDs and scan fields
}

// Stats describes the index as it stands.
func (ai *Index) Stats() IndexStats {
	ai.mu.RLock()
	defer ai.mu.RUnlock()
	if ai.idx == nil {
		return IndexStats{}
	}
	return IndexStats{Rows: ai.chunks(), Parts: ai.partRows, Dimension: ai.idx.Dim(), VectorBytes: ai.idx.Bytes(), MetaBytes: ai.idx.MetaBytes()}
}

// Position is the change-feed position the index has folded in, and the
// last activity hour it has read (-1 for none): what Feed.Head is asked.
func (ai *Index) Position() (seq, lastHour int64) {
	ai.mu.RLock()
	defer ai.mu.RUnlock()
	return ai.seq, ai.lastHour()
}

// lastHour is the last activity hour read, -1 for none.
func (ai *Index) lastHour() int64 {
	if n := len(ai.active); n > 0 {
		return ai.active[n-1]
	}
	return -1
}

// Metas are the rows' scan fields, by chunk ID.
func (ai *Index) Metas() map[string]Meta {
	ai.mu.RLock()
	defer ai.mu.RUnlock()
	out := map[string]Meta{}
	if ai.idx != nil {
		for _, id := range ai.idx.IDs() {
			if m, _ := ai.idx.Meta(id); m.Part == 0 {
				out[id] = m
			}
		}
	}
	return out
}

// ScanCodes reads every int8 code of the index once, in parallel: the
// floor of a recall's first pass, for benchmarks.
func (ai *Index) ScanCodes() time.Duration {
	ai.mu.RLock()
	defer ai.mu.RUnlock()
	start := time.Now()
	if ai.idx != nil {
		_ = ai.idx.SumCodes()
	}
	return time.Since(start)
}

// Row is a chunk as a store reads it for the index: its columns as
// stored. The store may reuse Vector's bytes once the call it handed the
// row to returns.
type Row struct {
	ID    string
	RowID int64 // the store's row key, by which its text search names it
	Scope string
	Kind  hippo.Kind
	// Metadata is the chunk's metadata JSON, "" for none: its category
	// and tags are interned for the recall filters.
	Metadata  string
	Intensity float64
	Access    int
	// LastAccess, Created and SupersededAt are stored timestamps
	// (timestamp.Parse), "" when unknown; Superseded says the chunk is
	// superseded, even at an unknown time.
	LastAccess, Created, SupersededAt string
	Superseded                        bool
	Size                              int // content bytes
	// Suspicious: the chunk is flagged (hippo.Chunk.Suspicious).
	Suspicious bool
	// Group is the hash of the text the chunk holds or came from: a
	// memory's content hash, a fact's input hash; "" when unknown.
	Group string
	// Offline: a fact the offline extractor cut from its text
	// (hippo.ExtractorOffline).
	Offline bool
	Vector  []byte // the embedding as stored (vector.Encode)
	// Parts are the chunk's part vectors as stored (hippo.Chunk.Parts),
	// nil for none.
	Parts []byte
}

// OfflineColumn is the SQL expression of Row.Offline over the chunks
// table.
const OfflineColumn = `kind = 'fact' AND coalesce(extractor, '') = 'offline'`

// GroupColumn is the SQL expression of Row.Group over the chunks table:
// a fact's input, a kept text's own hash, nothing for other memories.
const GroupColumn = `CASE WHEN kind = 'fact' THEN input_hash WHEN origin = 'remember_facts' THEN content_hash END`

// groupKey is the group of a chunk whose Row.Group is hash: its first 32
// bits, 0 when there is none.
func groupKey(hash string) uint32 {
	if len(hash) < 8 {
		return 0
	}
	k, err := strconv.ParseUint(hash[:8], 16, 32)
	if err != nil {
		return 0
	}
	return uint32(k)
}

// add upserts the chunk r, whose vector v (copied) and times are decoded.
// A vector whose length is not the index's is skipped, or, when strict,
// stops the caller with errDimension so that it rebuilds the index. Call
// with ai.mu held.
func (ai *Index) add(r *Row, times [3]int64, v []float32, strict bool) error {
	if ai.idx == nil {
		ai.idx = vector.NewIndex[Meta](len(v), ai.loader)
		// Strength never exceeds intensity: the prior recall's bound
		// skips rows with (recallBound).
		ai.idx.SetPrior(func(m *Meta) float32 { return m.Intensity })
		ai.idx.Grow(ai.reserve)
	}
	if len(v) != ai.idx.Dim() {
		if strict {
			return errDimension
		}
		return nil
	}
	m := Meta{
		RowID:     r.RowID,
		Intensity: float32(r.Intensity), DecayRate: float32(ai.cfg.DecayRate(r.Intensity, r.Access)),
		Scope: ai.scopes.id(r.Scope), Kind: r.Kind, Size: uint32(min(r.Size, math.MaxUint32)),
		LastAccess: times[0], Created: times[1], SupersededAt: times[2],
		Suspicious: r.Suspicious, Offline: r.Offline, Group: groupKey(r.Group),
	}
	if r.Superseded && m.SupersededAt == 0 {
		m.SupersededAt = 1 // superseded at an unknown time: as good as always
	}
	if r.Metadata != "" {
		var md struct {
			Category any `json:"category"`
			Tags     any `json:"tags"`
		}
		if json.Unmarshal([]byte(r.Metadata), &md) == nil {
			if c, ok := md.Category.(string); ok && c != "" {
				m.Category = ai.cats.id(c)
			}
			if tags, ok := md.Tags.([]any); ok {
				var ids []uint32
				for _, t := range tags {
					if t, ok := t.(string); ok && t != "" {
						ids = append(ids, ai.tags.id(t))
					}
				}
				m.Tags = ai.tagSet(ids)
			}
		}
	}
	if ai.loaded { // a load starts from an empty index
		ai.forgetGroup(r.ID)
	}
	if m.Group != 0 {
		if ai.rowGroups == nil {
			ai.rowGroups = map[int64]uint32{}
		}
		ai.rowGroups[m.RowID] = m.Group
	}
	switch {
	case m.Group == 0:
	case m.Kind == hippo.KindMemory:
		if ai.texts == nil {
			ai.texts, ai.flaggedTexts = map[uint32]int32{}, map[uint32]int32{}
		}
		ai.texts[m.Group]++
		if m.Suspicious {
			ai.flaggedTexts[m.Group]++
		}
	case m.Kind == hippo.KindFact && m.SupersededAt != 0:
		if ai.outdated == nil {
			ai.outdated = map[uint32][]string{}
		}
		ai.outdated[m.Group] = append(ai.outdated[m.Group], r.ID)
	}
	ai.idx.Upsert(r.ID, v, m)
	ai.addParts(r.ID, r.Parts, len(v), m)
	return nil
}

// addParts indexes the parts of chunk id (stored as parts, each dim
// long), with the chunk's meta, in place of those it had. A parts blob
// that does not decode, or is not whole vectors, counts as none. Call
// with ai.mu held.
func (ai *Index) addParts(id string, parts []byte, dim int, m Meta) {
	var vs []float32
	if len(parts) > 0 && dim > 0 {
		if v, err := vector.Decode(nil, parts); err == nil && len(v)%dim == 0 {
			vs = v
		}
	}
	n := min(len(vs)/max(1, dim), maxParts)
	ai.removeParts(id, n)
	for i := range n {
		pm := m
		pm.Part = uint8(i + 1)
		ai.idx.Upsert(PartID(id, i+1), vs[i*dim:(i+1)*dim], pm)
	}
	if n > 0 {
		if ai.parts == nil {
			ai.parts = map[string]uint8{}
		}
		ai.partRows += n - int(ai.parts[id])
		ai.parts[id] = uint8(n)
	}
}

// removeParts drops the part rows of chunk id past the first keep. Call
// with ai.mu held.
func (ai *Index) removeParts(id string, keep int) {
	had := int(ai.parts[id])
	for i := keep + 1; i <= had; i++ {
		ai.idx.Remove(PartID(id, i))
	}
	if had > keep {
		ai.partRows -= had - keep
		if keep == 0 {
			delete(ai.parts, id)
		} else {
			ai.parts[id] = uint8(keep)
		}
	}
}

// remove drops chunk id's rows, its parts' too. Call with ai.mu held.
func (ai *Index) remove(id string) {
	ai.forgetGroup(id)
	ai.removeParts(id, 0)
	ai.idx.Remove(id)
}

// chunks is how many chunks the index holds (its rows but parts). Call
// with ai.mu held, ai.idx not nil.
func (ai *Index) chunks() int { return ai.idx.Len() - ai.partRows }

// setMeta sets the meta of chunk id's rows, its parts' too. Call with
// ai.mu held.
func (ai *Index) setMeta(id string, m Meta) {
	ai.idx.SetMeta(id, m)
	for i := 1; i <= int(ai.parts[id]); i++ {
		pm := m
		pm.Part = uint8(i)
		ai.idx.SetMeta(PartID(id, i), pm)
	}
}

// forgetGroup takes the row id, about to be replaced or removed, out of
// its group's books: the kept texts' count, the superseded facts. Call
// with ai.mu held.
func (ai *Index) forgetGroup(id string) {
	ai.forgetCue(id)
	old, ok := ai.idx.Meta(id)
	if ok && old.Group != 0 {
		delete(ai.rowGroups, old.RowID)
	}
	switch {
	case !ok || old.Group == 0:
	case old.Kind == hippo.KindMemory:
		if ai.texts[old.Group]--; ai.texts[old.Group] <= 0 {
			delete(ai.texts, old.Group)
		}
		if old.Suspicious {
			if ai.flaggedTexts[old.Group]--; ai.flaggedTexts[old.Group] <= 0 {
				delete(ai.flaggedTexts, old.Group)
			}
		}
	case old.Kind == hippo.KindFact && old.SupersededAt != 0:
		rest := slices.DeleteFunc(ai.outdated[old.Group], func(s string) bool { return s == id })
		if len(rest) == 0 {
			delete(ai.outdated, old.Group)
		} else {
			ai.outdated[old.Group] = rest
		}
	}
}

// hasText reports whether a text remember_facts kept is in group g. Call
// with ai.mu held.
func (ai *Index) hasText(g uint32) bool { return ai.texts[g] > 0 }

// hasPlainText reports whether an unflagged text remember_facts kept is in
// group g. Call with ai.mu held.
func (ai *Index) hasPlainText(g uint32) bool { return ai.texts[g] > ai.flaggedTexts[g] }

// tagsOf is the interned tags of the tag set id (Meta.Tags).
func (ai *Index) tagsOf(id uint32) []uint32 {
	if int(id) >= len(ai.tagSets) {
		return nil
	}
	return ai.tagSets[id]
}

// tagSet interns a chunk's interned tags as a set ID: 0 for none.
func (ai *Index) tagSet(tags []uint32) uint32 {
	if len(tags) == 0 {
		return 0
	}
	key := make([]byte, 0, 4*len(tags))
	for _, t := range tags {
		key = binary.LittleEndian.AppendUint32(key, t)
	}
	if id, ok := ai.tagSetID[string(key)]; ok {
		return id
	}
	if ai.tagSets == nil {
		ai.tagSets, ai.tagSetID = [][]uint32{nil}, map[string]uint32{}
	}
	id := uint32(len(ai.tagSets))
	ai.tagSets = append(ai.tagSets, tags)
	ai.tagSetID[string(key)] = id
	return id
}

// names interns strings to small integers, 1-based so 0 means none.
type names map[string]uint32

func (n *names) id(s string) uint32 {
	if *n == nil {
		*n = names{}
	}
	id, ok := (*n)[s]
	if !ok {
		id = uint32(len(*n) + 1)
		(*n)[s] = id
	}
	return id
}

// errDimension reports a changed row whose vector length is not the
// index's.
var errDimension = errors.New("vector dimension differs from the index")

// rowFilter says which rows a search may see.
type rowFilter struct {
	Kind          hippo.Kind // "" for both
	scopes        []bool     // by interned scope; nil for all
	category      uint32     // 0 for any
	tagSets       []bool     // by tag set: holds any of the tags; nil for all
	since, until  int64      // creation bounds, unix ms; 0 for none
	asOf          int64      // unix ms; 0 for now
	none          bool       // a named scope, tag or category is unknown
	AllSuperseded bool       // history: superseded rows too
	// HideSuspicious leaves out chunks flagged suspicious: a recall's
	// default (hippo.RecallInput.IncludeSuspicious).
	HideSuspicious bool
}

// newFilter resolves names against the index. Call with ai.mu held.
func (ai *Index) newFilter(kind hippo.Kind, scopes []string) rowFilter {
	f := rowFilter{Kind: kind}
	if scopes != nil {
		f.scopes = make([]bool, len(ai.scopes)+1)
		for _, s := range scopes {
			if id, ok := ai.scopes[s]; ok {
				f.scopes[id] = true
			}
		}
	}
	return f
}

// recallFilter is newFilter plus the filters of a recall.
func (ai *Index) recallFilter(in hippo.RecallInput, scopes []string) rowFilter {
	f := ai.newFilter(in.Kind, scopes)
	if in.Category != "" {
		id, ok := ai.cats[in.Category]
		f.category, f.none = id, f.none || !ok
	}
	if len(in.Tags) > 0 {
		wanted := make([]bool, len(ai.tags)+1)
		known := false
		for _, t := range in.Tags {
			if id, ok := ai.tags[t]; ok {
				wanted[id], known = true, true
			}
		}
		f.none = f.none || !known
		f.tagSets = make([]bool, max(1, len(ai.tagSets)))
		for i, set := range ai.tagSets {
			for _, t := range set {
				if wanted[t] {
					f.tagSets[i] = true
					break
				}
			}
		}
	}
	if in.Since != nil {
		f.since = in.Since.UnixMilli()
	}
	if in.Until != nil {
		f.until = in.Until.UnixMilli()
	}
	if in.AsOf != nil {
		f.asOf = in.AsOf.UnixMilli()
	}
	f.HideSuspicious = !in.IncludeSuspicious
	return f
}

func (f *rowFilter) allows(m *Meta) bool {
	switch {
	case f.none:
		return false
	case f.asOf != 0:
		if m.Created > f.asOf || (m.SupersededAt != 0 && m.SupersededAt <= f.asOf) {
			return false
		}
	case m.SupersededAt != 0 && !f.AllSuperseded:
		return false
	}
	if f.Kind != "" && m.Kind != f.Kind {
		return false
	}
	if f.HideSuspicious && m.Suspicious {
		return false
	}
	if f.scopes != nil && (int(m.Scope) >= len(f.scopes) || !f.scopes[m.Scope]) {
		return false
	}
	if f.category != 0 && m.Category != f.category {
		return false
	}
	if f.since != 0 && m.Created < f.since {
		return false
	}
	if f.until != 0 && m.Created > f.until {
		return false
	}
	if f.tagSets != nil {
		return int(m.Tags) < len(f.tagSets) && f.tagSets[m.Tags]
	}
	return true
}

// decayClock is the decay clock at now (unix ms): wall time, or under the
// active clock (active) only the hours in which the agent was active.
// Call with ai.mu held.
func (ai *Index) decayClock(active bool, now int64) hippo.DecayClock {
	if !active {
		return hippo.WallHours(now)
	}
	return hippo.ActiveHours(ai.active, now)
}

// Strength of a row by clock.
func (m *Meta) Strength(clock hippo.DecayClock) float64 {
	return hippo.Decay(float64(m.Intensity), float64(m.DecayRate), clock(m.LastAccess))
}

func (m *Meta) Recency(cfg hippo.Config, now int64) float64 {
	return cfg.Recency(m.age(now))
}

// age is how long before now (Unix milliseconds) the chunk was created.
func (m *Meta) age(now int64) time.Duration {
	return time.Duration(now-m.Created) * time.Millisecond
}
