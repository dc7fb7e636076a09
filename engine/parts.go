package engine

import (
	"context"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/hippo-mem/hippo"
)

// A memory that says several things ("my son is 8. he has hay fever and
// needs his spray every morning") has one mean-pooled vector, between all
// it says, and a question about one of them meets it near the unrelated
// level. Such a memory gets parts: a vector per sentence, each mixed with
// the whole's (PartVectors), kept with the chunk (hippo.Chunk.Parts) and
// indexed as rows of their own (PartID) that stand for the chunk in
// recall.

// maxParts bounds the parts of one chunk.
const maxParts = 16

// PartSentences are the sentences of content that get parts, nil when it
// gets none: a memory (not a fact, whose one claim is its vector) of at
// most cfg.PartBytes bytes with two sentences or more.
func PartSentences(cfg hippo.Config, kind hippo.Kind, content string) []string {
	if cfg.PartBytes <= 0 || !(cfg.PartWeight > 0) || kind != hippo.KindMemory || len(content) > cfg.PartBytes {
		return nil
	}
	ss := Sentences(content)
	if len(ss) < 2 {
		return nil
	}
	return ss[:min(len(ss), maxParts)]
}

// Sentences splits text after '.', '!' or '?' followed by a space or the
// end, and at line breaks, trimmed, dropping pieces of one byte or none.
func Sentences(text string) []string {
	var out []string
	start := 0
	for i, r := range text {
		end := r == '\n' || (r == '.' || r == '!' || r == '?') && (i+1 == len(text) || text[i+1] == ' ' || text[i+1] == '\n')
		if !end {
			continue
		}
		if s := strings.TrimSpace(text[start : i+1]); len(s) > 1 {
			out = append(out, s)
		}
		start = i + 1
	}
	if s := strings.TrimSpace(text[start:]); len(s) > 1 {
		out = append(out, s)
	}
	return out
}

// PartVectors are the parts of a chunk whose vector is whole and whose
// sentences' vectors are sentences: for each sentence, w·sentence +
// (1−w)·whole scaled to unit length, concatenated (hippo.Chunk.Parts).
// Nil when there are no sentences or their lengths differ from whole's.
func PartVectors(w float64, whole []float32, sentences [][]float32) []float32 {
	if len(sentences) == 0 {
		return nil
	}
	wn, sn := unitScale(whole), 0.0
	out := make([]float32, 0, len(sentences)*len(whole))
	for _, s := range sentences {
		if len(s) != len(whole) {
			return nil
		}
		sn = unitScale(s)
		start := len(out)
		norm := 0.0
		for i := range whole {
			x := w*float64(s[i])*sn + (1-w)*float64(whole[i])*wn
			out = append(out, float32(x))
			norm += x * x
		}
		if norm = math.Sqrt(norm); norm > 0 {
			for i := start; i < len(out); i++ {
				out[i] = float32(float64(out[i]) / norm)
			}
		}
	}
	return out
}

// unitScale is 1/‖v‖, 0 for a zero vector.
func unitScale(v []float32) float64 {
	n := 0.0
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if n == 0 {
		return 0
	}
	return 1 / math.Sqrt(n)
}

// PartID is the index row ID of part n (from 1) of chunk id. Chunk IDs
// never hold '#'.
func PartID(id string, n int) string { return id + "#" + strconv.Itoa(n) }

// SplitPartID is the chunk of an index row ID and its part: 0 for the
// chunk's own row.
func SplitPartID(id string) (chunk string, part int) {
	i := strings.LastIndexByte(id, '#')
	if i < 0 {
		return id, 0
	}
	n, err := strconv.Atoi(id[i+1:])
	if err != nil || n <= 0 {
		return id, 0
	}
	return id[:i], n
}

// partTexts are the texts whose vectors make a memory's parts: its
// sentences (PartSentences), and when it is a follow-up of before (not
// ""), itself read after that last (contextText), in place of a
// sentence past maxParts.
func partTexts(cfg hippo.Config, text, before string) []string {
	ss := PartSentences(cfg, hippo.KindMemory, text)
	if before == "" || !(cfg.PartWeight > 0) {
		return ss
	}
	return append(ss[:min(len(ss), maxParts-1):min(len(ss), maxParts-1)], contextText(cfg, before, text))
}

// embedParts embeds texts with e in one request (hippo.Embed, dim as
// there), with the sentences of those that get parts (PartSentences, as
// memories; only those gets allows, nil: all): the texts' vectors, and
// each one's parts (PartVectors), nil for those with none. A text whose
// after (nil: none) is not "" is a follow-up: its last part is the text
// read after that one (contextText), and it has one sentence part fewer
// at most.
func embedParts(ctx context.Context, e hippo.Embedder, cfg hippo.Config, texts []string, dim int, gets func(i int) bool, after []string) (vecs, parts [][]float32, err error) {
	all := texts
	sentences := make([][]string, len(texts))
	for i, t := range texts {
		if gets != nil && !gets(i) {
			continue
		}
		before := ""
		if i < len(after) {
			before = after[i]
		}
		if sentences[i] = partTexts(cfg, t, before); len(sentences[i]) > 0 {
			if len(all) == len(texts) {
				all = slices.Clone(texts)
			}
			all = append(all, sentences[i]...)
		}
	}
	got, err := hippo.Embed(ctx, e, all, dim)
	if err != nil {
		return nil, nil, err
	}
	vecs, parts = got[:len(texts)], make([][]float32, len(texts))
	next := len(texts)
	for i, ss := range sentences {
		parts[i] = PartVectors(cfg.PartWeight, vecs[i], got[next:next+len(ss)])
		next += len(ss)
	}
	return vecs, parts, nil
}
