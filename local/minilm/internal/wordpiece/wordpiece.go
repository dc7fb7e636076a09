// Package wordpiece is the BERT uncased tokenizer of all-MiniLM-L6-v2: the
// BertNormalizer (clean text, pad CJK characters, strip accents, lowercase),
// the BertPreTokenizer (split on whitespace and punctuation) and WordPiece
// (greedy longest match first, "##" continuations), as the model's
// tokenizer.json configures them. It also splits long token sequences into
// the model's windows. Both the embedder and its generator use it.
package wordpiece

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Settings of the model's tokenizer.json that this package implements.
const (
	// Prefix marks a piece that continues a word.
	Prefix = "##"
	// MaxWordChars is the longest word, in characters, WordPiece splits;
	// a longer one becomes [UNK].
	MaxWordChars = 100
	// MaxTokens is the model's window: [CLS], the pieces and [SEP].
	MaxTokens = 256
	// MaxPieces is the number of word pieces in one window.
	MaxPieces = MaxTokens - 2
	// Overlap is the minimum number of pieces shared by consecutive
	// windows of a long text.
	Overlap = 64
)

// Tokenizer maps texts to token IDs. It is read-only after New and safe
// for concurrent use.
type Tokenizer struct {
	ids                map[string]int32
	unk, cls, sep, pad int32
}

// New returns the tokenizer of vocab, the tokens in ID order. It needs
// [UNK], [CLS], [SEP] and [PAD].
func New(vocab []string) (*Tokenizer, error) {
	t := &Tokenizer{ids: make(map[string]int32, len(vocab))}
	for i, w := range vocab {
		if _, dup := t.ids[w]; dup {
			return nil, fmt.Errorf("wordpiece: token %q appears twice in the vocabulary", w)
		}
		t.ids[w] = int32(i)
	}
	for _, s := range []struct {
		name string
		id   *int32
	}{{"[UNK]", &t.unk}, {"[CLS]", &t.cls}, {"[SEP]", &t.sep}, {"[PAD]", &t.pad}} {
		id, ok := t.ids[s.name]
		if !ok {
			return nil, fmt.Errorf("wordpiece: vocabulary has no %s", s.name)
		}
		*s.id = id
	}
	return t, nil
}

// CLS is the ID of [CLS], which starts every window.
func (t *Tokenizer) CLS() int32 { return t.cls }

// SEP is the ID of [SEP], which ends every window.
func (t *Tokenizer) SEP() int32 { return t.sep }

// UNK is the ID of [UNK], given to words the vocabulary cannot spell.
func (t *Tokenizer) UNK() int32 { return t.unk }

// Encode returns [CLS], the pieces of text and [SEP], with no length limit.
func (t *Tokenizer) Encode(text string) []int32 {
	ids := []int32{t.cls}
	ids = t.AppendPieces(ids, text)
	return append(ids, t.sep)
}

// AppendPieces appends the word-piece IDs of text, without [CLS] and
// [SEP], to dst and returns it.
func (t *Tokenizer) AppendPieces(dst []int32, text string) []int32 {
	for _, w := range Words(text) {
		dst = t.appendWord(dst, w)
	}
	return dst
}

// appendWord appends the WordPiece split of one pre-tokenized word.
func (t *Tokenizer) appendWord(dst []int32, w string) []int32 {
	if utf8.RuneCountInString(w) > MaxWordChars {
		return append(dst, t.unk)
	}
	n := len(dst)
	var buf []byte
	for start := 0; start < len(w); {
		end := len(w)
		found := int32(-1)
		for end > start {
			var id int32
			var ok bool
			if start == 0 {
				id, ok = t.ids[w[:end]]
			} else {
				buf = append(append(buf[:0], Prefix...), w[start:end]...)
				id, ok = t.ids[string(buf)] // no allocation for a map lookup
			}
			if ok {
				found = id
				break
			}
			// Step back one character.
			_, size := utf8.DecodeLastRuneInString(w[start:end])
			end -= size
		}
		if found < 0 {
			return append(dst[:n], t.unk)
		}
		dst = append(dst, found)
		start = end
	}
	return dst
}

// Words normalizes text as BertNormalizer does (lowercase, strip accents,
// clean text, pad CJK characters) and splits it as BertPreTokenizer does:
// on whitespace, which is dropped, and around each punctuation character,
// which is a word of its own.
func Words(text string) []string {
	s := Normalize(text)
	var words []string
	start := -1
	for i, r := range s {
		switch {
		case r == ' ':
			if start >= 0 {
				words = append(words, s[start:i])
				start = -1
			}
		case isPunct(r):
			if start >= 0 {
				words = append(words, s[start:i])
				start = -1
			}
			words = append(words, s[i:i+utf8.RuneLen(r)])
		default:
			if start < 0 {
				start = i
			}
		}
	}
	if start >= 0 {
		words = append(words, s[start:])
	}
	return words
}

// Normalize applies BertNormalizer with the model's settings: drop NUL,
// U+FFFD and control characters, turn whitespace into spaces, put spaces
// around CJK ideographs, strip accents (NFD, then drop nonspacing marks)
// and lowercase.
func Normalize(text string) string {
	ascii := true
	for i := 0; i < len(text); i++ {
		if c := text[i]; c >= utf8.RuneSelf || c < ' ' && c != '\t' && c != '\n' && c != '\r' || c == 0x7f {
			ascii = false
			break
		}
	}
	if ascii {
		// The common case: only whitespace and case to change.
		var b strings.Builder
		b.Grow(len(text))
		for i := 0; i < len(text); i++ {
			c := text[i]
			switch {
			case c == '\t' || c == '\n' || c == '\r':
				c = ' '
			case 'A' <= c && c <= 'Z':
				c += 'a' - 'A'
			}
			b.WriteByte(c)
		}
		return b.String()
	}
	var b strings.Builder
	b.Grow(len(text) + 8)
	for _, r := range text {
		switch {
		case r == 0 || r == utf8.RuneError || isControl(r):
			continue
		case isWhitespace(r):
			b.WriteByte(' ')
		case isCJK(r):
			b.WriteByte(' ')
			b.WriteRune(r)
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	d := norm.NFD.String(b.String())
	b.Reset()
	for _, r := range d {
		if unicode.Is(unicode.Mn, r) {
			continue
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// isWhitespace is BERT's whitespace: the Unicode White_Space characters.
func isWhitespace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\r' || unicode.IsSpace(r)
}

// isControl is BERT's control character: other (Cc, Cf, Co, Cs or
// unassigned) but not tab, newline or carriage return, which count as
// whitespace.
func isControl(r rune) bool {
	if r == '\t' || r == '\n' || r == '\r' {
		return false
	}
	return unicode.Is(unicode.C, r) || !unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Z)
}

// isPunct is BERT's punctuation: every ASCII non-alphanumeric printable
// character and the Unicode punctuation categories.
func isPunct(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 33 && r <= 47 || r >= 58 && r <= 64 || r >= 91 && r <= 96 || r >= 123 && r <= 126
	}
	return unicode.IsPunct(r)
}

// isCJK reports whether r is in a CJK Unified Ideographs block, which
// BERT treats as one word per character.
func isCJK(r rune) bool {
	return r >= 0x4E00 && r <= 0x9FFF ||
		r >= 0x3400 && r <= 0x4DBF ||
		r >= 0x20000 && r <= 0x2A6DF ||
		r >= 0x2A700 && r <= 0x2B73F ||
		r >= 0x2B740 && r <= 0x2B81F ||
		r >= 0x2B820 && r <= 0x2CEAF ||
		r >= 0xF900 && r <= 0xFAFF ||
		r >= 0x2F800 && r <= 0x2FA1F
}

// Windows splits n word pieces into the spans [start, end) that the model
// embeds one at a time. Up to MaxPieces pieces make one window. Beyond,
// the text is covered by the fewest windows of MaxPieces pieces in which
// consecutive windows share at least Overlap pieces, spread evenly from
// the first piece to the last, so that no piece is left out and every
// piece has context on both sides in some window.
func Windows(n int) [][2]int {
	if n <= MaxPieces {
		return [][2]int{{0, n}}
	}
	step := MaxPieces - Overlap
	k := (n-MaxPieces+step-1)/step + 1
	spans := make([][2]int, k)
	for i := range spans {
		// Integer rounding of i·(n−MaxPieces)/(k−1).
		start := (2*i*(n-MaxPieces) + (k - 1)) / (2 * (k - 1))
		spans[i] = [2]int{start, start + MaxPieces}
	}
	return spans
}
