package engine

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hippo-mem/hippo"
)

// A correction stored as it was said ("update: the budget is more like 8k
// now", "the gig got moved to the 13th") is never linked to the message it
// corrects: nothing supersedes it. Both come back for a question about the
// value, and the older one often ranks first, since it names the topic
// while the correction only names the change. StatesChange tells the
// messages that say something changed, so that recall can rank such a
// message above an older one on the same topic (newerFirst).

// changeWords say that what a message states replaces what was said
// before: correction markers, "instead", "anymore", and the past forms of
// the verbs of change ("moved", "got pushed", "quit"). A bare form is a
// plan or a question ("move staging to Hetzner", "any changes?"), not
// news; verbs with other common senses ("raised $250", "dropped off",
// "sold") are left out.
var changeWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`updated correction instead anymore
		scratch scrap scrapped nevermind mistake mistaken misread typo
		changed switched moved postponed rescheduled delayed cancelled canceled pushed replaced
		swapped shifted increased risen reduced lowered quit`) {
		m[w] = true
	}
	return m
}()

// nowPhrases are the words before "now" that make it a phrase of its own
// ("right now", "for now", "by now", "just now", "until now"), or a
// duration or count so far ("for 9 months now", "10 times now").
var nowPhrases = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`right for from by until till just than
		minute minutes hour hours day days week weeks month months year years while ages time times`) {
		m[w] = true
	}
	return m
}()

// verbBefore are the words that make the next one a verb: "to update",
// "I'll update", "can you update".
var verbBefore = map[string]bool{"to": true, "will": true, "i'll": true, "we'll": true, "can": true, "could": true,
	"should": true, "would": true, "must": true, "please": true, "pls": true, "i": true, "we": true, "you": true,
	"they": true, "don't": true, "didn't": true, "not": true}

// openers may come before a sentence's "actually" that corrects: "oh
// actually, …", "wait actually …". Inside a sentence, "I actually went"
// only stresses.
var openers = map[string]bool{"oh": true, "hmm": true, "wait": true, "no": true, "um": true, "ok": true,
	"okay": true, "well": true, "sorry": true, "and": true, "but": true}

// newsAdjectives announce a change as news: "big change", "a slight change".
var newsAdjectives = map[string]bool{"big": true, "small": true, "slight": true, "little": true,
	"quick": true, "major": true, "minor": true, "last": true}

// StatesChange reports whether text says that something changed: a
// correction marker, a verb of change, "now" outside a phrase of its own,
// "no longer", "went up", "gone down". It is a cue, not a reading: it
// only orders a message against older ones on the same topic.
func StatesChange(text string) bool {
	for _, sentence := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return r == '.' || r == '!' || r == '?' || r == '\n' || r == ';'
	}) {
		if sentenceStatesChange(strings.FieldsFunc(sentence, func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
		})) {
			return true
		}
	}
	return false
}

// sentenceStatesChange is StatesChange of one sentence's words. Where a
// word stands matters: a "now" that opens a sentence moves the talk on
// ("Now, let's look at …"), an "actually" that opens one corrects.
func sentenceStatesChange(words []string) bool {
	for i, w := range words {
		w = strings.Trim(w, "'")
		prev := ""
		if i > 0 {
			prev = words[i-1]
		}
		next := ""
		if i+1 < len(words) {
			next = words[i+1]
		}
		switch {
		case changeWords[w] && !(prev == "from" && w == "scratch"):
			return true // not "made from scratch"
		case w == "update" && !verbBefore[prev]:
			return true // "update:", "van budget update", not "I need to update my address"
		case w == "actually" && (i == 0 || i == 1 && openers[prev]):
			return true // "actually scrap that"
		case w == "change" && (next == "of" || newsAdjectives[prev]):
			return true // "change of plan", "big change"
		case w == "now" && i > 0 && !nowPhrases[prev]:
			return true
		case w == "longer" && prev == "no":
			return true
		case (w == "up" || w == "down") && (prev == "went" || prev == "gone" || prev == "go" || prev == "goes" || prev == "going" || prev == "bumped"):
			return true
		case w == "not" && next != "" && strings.IndexFunc(next, unicode.IsDigit) >= 0:
			return true // "420, not 350"
		}
	}
	return false
}

// newerFirst reorders hits, ranked by score, so that a memory that says
// something changed comes just above an older memory on the same topic
// when it is relevant enough itself (past the floor, and
// cfg.NewerRelevance of the older one's relevance): "the gig got moved to
// the 13th" above "first gig is on dec 6". Two memories are on one topic
// when their cosine's relevance is at least cfg.NewerTopic, or at least
// cfg.NewerLink and they share a rare word (linkedByWord). It names the
// older hit in Updates. Only memories take part: facts have supersession
// (correctionsFirst). A memory longer than cfg.LengthPivot does not move:
// it says many things, and a cue in it says little about what it says of
// the query (an assistant's long reply that mentions "instead"). The
// results stay the same, only their order changes. Call with ai.mu held.
func newerFirst(ctx context.Context, cfg hippo.Config, ai *Index, st RecallStore, hits []hit) ([]hit, error) {
	if !(cfg.NewerTopic > 0) || len(hits) < 2 {
		return hits, nil
	}
	// topicOf says, its cue and words aside, whether n may move above o:
	// on one topic by their cosine, or maybe, when a shared rare word
	// decides.
	topicOf := func(n, o *hit) (on, maybe bool) {
		if n.Weak || n.Meta.Kind != hippo.KindMemory || o.Meta.Kind != hippo.KindMemory || !newer(n, o) ||
			n.Relevance < cfg.NewerRelevance*o.Relevance || cfg.LengthPivot > 0 && int(n.Meta.Size) > cfg.LengthPivot {
			return false, false
		}
		c, ok := ai.idx.Cosine(n.ID, o.ID)
		if !ok {
			return false, false
		}
		r := cfg.CosineRelevance(c)
		return r >= cfg.NewerTopic, !(r >= cfg.NewerTopic) && cfg.NewerLink > 0 && r >= cfg.NewerLink
	}
	// Read the cue (and words) of those that may move, and the words of
	// those a shared word may put below them, once.
	var ask []string
	asked := map[string]bool{}
	need := func(id string) {
		if _, known := ai.cue(id); !asked[id] && !known {
			asked[id] = true
			ask = append(ask, id)
		}
	}
	for j := 1; j < len(hits); j++ {
		for i := range j {
			if on, maybe := topicOf(&hits[j], &hits[i]); on || maybe {
				need(hits[j].ID)
				if maybe {
					need(hits[i].ID)
				}
			}
		}
	}
	if len(ask) > 0 {
		chunks, err := st.Peek(ctx, ask)
		if err != nil {
			return nil, err
		}
		for id, c := range chunks {
			ai.setCue(id, cueOf(c.Content))
		}
	}
	cues := map[string]chunkCue{}
	for _, h := range hits {
		cues[h.ID], _ = ai.cue(h.ID)
	}
	rows := map[string]int{} // things said holding a word, by word (distinctTexts)
	above := func(n, o *hit) (bool, error) {
		if !cues[n.ID].says {
			return false, nil
		}
		on, maybe := topicOf(n, o)
		if on || !maybe {
			return on, nil
		}
		return linkedByWord(ctx, st, ai, cues[n.ID].words, cues[o.ID].words, rows)
	}
	// At each place, the newest hit below that may move above the one
	// there takes it, and is then held against those below it in turn.
	for p := 0; p < len(hits); {
		best := -1
		for j := p + 1; j < len(hits); j++ {
			if best >= 0 && !newer(&hits[j], &hits[best]) {
				continue
			}
			ok, err := above(&hits[j], &hits[p])
			if err != nil {
				return nil, err
			}
			if ok {
				best = j
			}
		}
		if best < 0 {
			p++
			continue
		}
		moved := hits[best]
		moved.Updates = hits[p].ID
		copy(hits[p+1:best+1], hits[p:best])
		hits[p] = moved
	}
	return hits, nil
}

// linkRows is how many things said may hold a word for it to link two
// memories (NewerLink): a word that few hold names one thing ("the
// deadline", "Kilimani"), one that many hold names a kind of talk.
// linkLookups bounds the words a recall counts so.
const (
	linkRows    = 2
	linkLookups = 8
)

// linkedByWord reports whether the word lists a and b share a word that
// at most linkRows things said hold, as the store's full-text index finds
// them (the agent's chunks, or every agent's for a large one), a kept
// text and its facts counting once (distinctTexts); rows caches the
// counts for one recall.
func linkedByWord(ctx context.Context, st RecallStore, ai *Index, a, b []string, rows map[string]int) (bool, error) {
	for _, w := range a {
		if !slices.Contains(b, w) {
			continue
		}
		n, ok := rows[w]
		if !ok {
			if len(rows) >= linkLookups {
				return false, nil
			}
			scores, _, err := st.TextScores(ctx, []string{w}, ai.chunks())
			if err != nil {
				return false, err
			}
			n = ai.distinctTexts(scores)
			rows[w] = n
		}
		if n > 0 && n <= linkRows {
			return true, nil
		}
	}
	return false, nil
}

// chunkCue is what newerFirst reads from a chunk's content: whether it
// says something changed, and its words that may link it to another
// chunk (LinkWords).
type chunkCue struct {
	says  bool
	words []string
}

func cueOf(content string) chunkCue {
	return chunkCue{says: StatesChange(content), words: LinkWords(content)}
}

// LinkWords are the distinct words of text (as QueryWords reads them) of
// four letters or more and not stop words: those that may name a thing
// (NewerLink).
func LinkWords(text string) []string {
	words, _ := distinctWords(text)
	return slices.DeleteFunc(words, func(w string) bool { return utf8.RuneCountInString(w) < 4 })
}

// newer reports whether a was stored after b: by creation time, then by
// ID, which grows with time.
func newer(a, b *hit) bool {
	return cmp.Or(cmp.Compare(a.Meta.Created, b.Meta.Created), cmp.Compare(a.ID, b.ID)) > 0
}

// cue is what chunk id's content says to newerFirst (cueOf), and whether
// that is known: it is read from the content the first time a recall
// needs it and kept until the chunk changes.
func (ai *Index) cue(id string) (c chunkCue, known bool) {
	ai.cueMu.Lock()
	defer ai.cueMu.Unlock()
	c, known = ai.cues[id]
	return c, known
}

func (ai *Index) setCue(id string, c chunkCue) {
	ai.cueMu.Lock()
	defer ai.cueMu.Unlock()
	if ai.cues == nil {
		ai.cues = map[string]chunkCue{}
	}
	ai.cues[id] = c
}

// forgetCue drops what is known of chunk id's cue: it changed or went.
func (ai *Index) forgetCue(id string) {
	ai.cueMu.Lock()
	defer ai.cueMu.Unlock()
	delete(ai.cues, id)
}

// distinctTexts counts the rows of a full-text match once per thing said:
// a text kept by remember_facts and the facts learned from it count as
// one, since the facts repeat its words. Call with ai.mu held.
func (ai *Index) distinctTexts(rows map[int64]float64) int {
	n, seen := 0, map[uint32]bool{}
	for id := range rows {
		g, ok := ai.rowGroups[id]
		if ok && ai.hasText(g) {
			if seen[g] {
				continue
			}
			seen[g] = true
		}
		n++
	}
	return n
}
