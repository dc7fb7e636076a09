package engine

// A follow-up ("he has hay fever and needs his spray every morning",
// stored after "my son is 8") names what it is about only through the
// memory before it, and a question about that ("does my son have
// allergies?") meets its vector near the unrelated level. A memory that
// opens with a word pointing back (opensWithReference) gets one more part:
// its text read after the newest memory of its scope (contextText), mixed
// with its own vector as a sentence's part is (PartVectors). It is its last
// part, and hippo.Chunk.ContextOf names the memory it was read after: the
// stores drop the part when that memory is deleted or edited (a trigger),
// so that nothing forgotten lingers in a vector. Reembed makes it again
// with the new model (ReembedStore.ReembedMissing gives the memory's
// text); an import that re-embeds, and an edit of the follow-up, drop it.

import (
	"context"
	"strings"
	"unicode"

	"github.com/hippo-mem/hippo"
)

// referenceWords open a follow-up: pronouns and demonstratives that point
// back to what was said before.
var referenceWords = map[string]bool{
	"he": true, "she": true, "it": true, "they": true,
	"his": true, "her": true, "its": true, "their": true,
	"this": true, "that": true, "these": true, "those": true,
}

// opensWithReference reports whether content's first word points back
// (referenceWords), contractions included ("he's", "they’re").
func opensWithReference(content string) bool {
	content = strings.TrimLeftFunc(content, func(r rune) bool { return !unicode.IsLetter(r) })
	end := strings.IndexFunc(content, func(r rune) bool { return !unicode.IsLetter(r) })
	if end < 0 {
		end = len(content)
	}
	return referenceWords[strings.ToLower(content[:end])]
}

// contextText is text read after before: before's last sentences that fit
// in cfg.PartBytes (its last one cut to that when longer), a line break,
// then text. Embedders read a bounded number of tokens, and the follow-up
// must not be cut off by a long memory before it.
func contextText(cfg hippo.Config, before, text string) string {
	ss := Sentences(before)
	start, n := len(ss), 0
	for start > 0 && n+len(ss[start-1]) <= cfg.PartBytes {
		start--
		n += len(ss[start]) + 1
	}
	head := strings.Join(ss[start:], " ")
	if start == len(ss) && len(ss) > 0 {
		last := ss[len(ss)-1]
		cut := len(last) - cfg.PartBytes
		for cut > 0 && cut < len(last) && !utf8Start(last[cut]) {
			cut++
		}
		head = last[max(cut, 0):]
	}
	return head + "\n" + text
}

// utf8Start reports whether b begins a UTF-8 encoded rune.
func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// ContextPart is the part (from 1, hippo.Recalled.Part) of c read after
// the memory c.ContextOf names; 0 when it has none.
func ContextPart(cfg hippo.Config, c *hippo.Chunk) int {
	if c == nil || c.ContextOf == "" {
		return 0
	}
	return min(len(PartSentences(cfg, c.Kind, c.Content)), maxParts-1) + 1
}

// followUp is the memory a follow-up is read after: id "" for an earlier
// item of the same store_memories batch, whose hash is hash.
type followUp struct{ id, hash, text string }

// follows reports whether content is read after the memory before it:
// it opens with a reference, and memories of its length get parts.
func (m *Memory) follows(content string) bool {
	return m.cfg.PartBytes > 0 && m.cfg.PartWeight > 0 && len(content) <= m.cfg.PartBytes && opensWithReference(content)
}

// after is the memory content is a follow-up of (follows): the newest
// memory of the scope other than content itself; nil for none.
func (m *Memory) after(ctx context.Context, content string) (*followUp, error) {
	if !m.follows(content) {
		return nil, nil
	}
	c, err := m.newestMemory(ctx, content, false)
	if c == nil || strings.TrimSpace(c.Content) == "" || err != nil {
		return nil, err // an empty memory (an import's) gives no part
	}
	return &followUp{id: c.ID, text: c.Content}, nil
}

// before is the text f's follow-up is read after, for embedParts and
// partTexts: "" for none (f nil).
func (f *followUp) before() string {
	if f == nil {
		return ""
	}
	return f.text
}

// link links c, whose last part was read after f's text, to f's memory,
// through tx, which holds the agent's write lock; a batch item's (id "")
// is its chunk among stored, by hash. When that memory is gone or was
// edited since it was read, the part is dropped instead.
func (f *followUp) link(ctx context.Context, tx Tx, c *hippo.Chunk, stored map[string]*hippo.Chunk) error {
	if f.before() == "" || len(c.Embedding) == 0 || len(c.Parts) < len(c.Embedding) {
		return nil // embedParts made no part
	}
	id := f.id
	if id == "" {
		if p := stored[f.hash]; p != nil {
			id = p.ID
		}
	} else {
		got, err := tx.Recalled(ctx, []string{id})
		if err != nil {
			return err
		}
		if len(got) != 1 || got[0].Content != f.text {
			id = ""
		}
	}
	if id == "" {
		// The part is c's last, as long as its vector.
		if c.Parts = c.Parts[:len(c.Parts)-len(c.Embedding)]; len(c.Parts) == 0 {
			c.Parts = nil
		}
	}
	c.ContextOf = id
	return nil
}

// batchAfter are the follow-ups among valid, a store_memories batch in
// order, by hash (each content's first item): each is read after the item
// before it, the first after the newest memory stored before the batch.
func (m *Memory) batchAfter(ctx context.Context, valid []storing) (map[string]*followUp, error) {
	out := map[string]*followUp{}
	for k, it := range valid {
		if _, ok := out[it.hash]; ok || !m.follows(it.in.Content) {
			continue
		}
		if k > 0 {
			if prev := valid[k-1]; prev.hash != it.hash {
				out[it.hash] = &followUp{hash: prev.hash, text: prev.in.Content}
			}
			continue
		}
		f, err := m.after(ctx, it.in.Content)
		if err != nil {
			return nil, err
		}
		if f != nil {
			out[it.hash] = f
		}
	}
	return out, nil
}

// newestMemory is the newest memory (kind memory) of the scope, a text
// kept by remember_facts when kept, whose content is not content; nil when
// there is none.
func (m *Memory) newestMemory(ctx context.Context, content string, kept bool) (*hippo.Chunk, error) {
	ai, err := m.index(ctx, nil)
	if err != nil {
		return nil, err
	}
	// The newest two: the newest may be content itself.
	type row struct {
		id      string
		created int64
	}
	var newest [2]row
	ai.mu.RLock()
	if scope, ok := ai.scopes[m.opts.Scope]; ok && ai.idx != nil && (!kept || len(ai.texts) > 0) {
		ai.idx.EachRow(func(id string, r *Meta) {
			if r.Kind != hippo.KindMemory || r.Part != 0 || r.Scope != scope || kept && r.Group == 0 {
				return
			}
			later := func(o row) bool { return o.id == "" || r.Created > o.created || r.Created == o.created && id > o.id }
			switch {
			case later(newest[0]):
				newest[1], newest[0] = newest[0], row{id, r.Created}
			case later(newest[1]):
				newest[1] = row{id, r.Created}
			}
		})
	}
	ai.mu.RUnlock()
	var ids []string
	for _, r := range newest {
		if r.id != "" {
			ids = append(ids, r.id)
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	chunks, err := m.s.Peek(ctx, ids)
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		if c, ok := chunks[id]; ok && c.Content != content {
			return c, nil
		}
	}
	return nil, nil
}
