package local

import (
	"unicode"
	"unicode/utf8"
)

// scanWords calls fn with each word of text in the form GloVe knows:
// lower case, accents folded ("café" → "cafe"), contractions expanded
// ("don't" → "do", "not"; "I'm" → "i", "am"), possessive "'s" dropped.
// Numbers stay whole ("3.5", "12,000"); punctuation is skipped. The slice
// passed to fn is reused: fn must not keep it.
func scanWords(text string, fn func(word []byte)) {
	var buf [64]byte
	word := buf[:0]
	for i := 0; i < len(text); {
		r, size := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(text[i:])
		}
		switch {
		case isWordRune(r):
			word = appendFolded(word, r)
		case len(word) > 0 && joins(r, word[len(word)-1], text[i+size:]):
			if r == '’' || r == '‘' {
				r = '\''
			}
			word = append(word, byte(r))
		default:
			if len(word) > 0 {
				emitWord(word, fn)
				word = word[:0]
			}
		}
		i += size
	}
	if len(word) > 0 {
		emitWord(word, fn)
	}
}

// words returns the words of text as scanWords sees them.
func words(text string) []string {
	var out []string
	scanWords(text, func(w []byte) { out = append(out, string(w)) })
	return out
}

func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// joins reports whether r, between the last byte of a word and rest,
// belongs to the word: an apostrophe or hyphen between letters or digits,
// a point or comma between digits ("3.5", "12,000").
func joins(r rune, last byte, rest string) bool {
	next, _ := utf8.DecodeRuneInString(rest)
	if !isWordRune(next) {
		return false
	}
	switch r {
	case '\'', '’', '‘', '-':
		return true
	case '.', ',':
		return isDigit(last) && isDigit(byte(next))
	}
	return false
}

func isDigit(b byte) bool { return '0' <= b && b <= '9' }

// emitWord expands a contraction or possessive into its words.
func emitWord(w []byte, fn func([]byte)) {
	n := len(w)
	switch {
	case n > 3 && string(w[n-3:]) == "n't":
		base := w[:n-3]
		switch string(base) {
		case "ca":
			base = append(base[:0], "can"...)
		case "wo":
			base = append(base[:0], "will"...)
		case "sha":
			base = append(base[:0], "shall"...)
		case "ai":
			base = append(base[:0], "is"...)
		}
		fn(base)
		fn(append(w[:0], "not"...))
		return
	case n > 2 && w[n-2] == '\'':
		switch w[n-1] {
		case 's': // possessive or "is": neither carries meaning here
			fn(w[:n-2])
			return
		case 'm':
			fn(w[:n-2])
			fn(append(w[:0], "am"...))
			return
		case 'd':
			fn(w[:n-2])
			fn(append(w[:0], "would"...))
			return
		}
	case n > 3 && w[n-3] == '\'':
		var full string
		switch string(w[n-2:]) {
		case "re":
			full = "are"
		case "ve":
			full = "have"
		case "ll":
			full = "will"
		}
		if full != "" {
			fn(w[:n-3])
			fn(append(w[:0], full...))
			return
		}
	}
	fn(w)
}

// appendFolded appends r lower-cased, with Latin accents removed.
func appendFolded(b []byte, r rune) []byte {
	if r < utf8.RuneSelf {
		if 'A' <= r && r <= 'Z' {
			r += 'a' - 'A'
		}
		return append(b, byte(r))
	}
	r = unicode.ToLower(r)
	if f, ok := foldAccent[r]; ok {
		return append(b, f...)
	}
	return utf8.AppendRune(b, r)
}

// foldAccent maps accented Latin letters to the ASCII letters GloVe's
// vocabulary spells them with.
var foldAccent = map[rune]string{
	'à': "a", 'á': "a", 'â': "a", 'ã': "a", 'ä': "a", 'å': "a", 'ā': "a", 'ą': "a",
	'æ': "ae", 'ç': "c", 'ć': "c", 'č': "c",
	'è': "e", 'é': "e", 'ê': "e", 'ë': "e", 'ē': "e", 'ę': "e", 'ě': "e",
	'ì': "i", 'í': "i", 'î': "i", 'ï': "i", 'ī': "i", 'ı': "i",
	'ñ': "n", 'ń': "n", 'ň': "n",
	'ò': "o", 'ó': "o", 'ô': "o", 'õ': "o", 'ö': "o", 'ø': "o", 'ō': "o", 'œ': "oe",
	'ù': "u", 'ú': "u", 'û': "u", 'ü': "u", 'ū': "u", 'ů': "u",
	'ý': "y", 'ÿ': "y", 'ß': "ss", 'ś': "s", 'š': "s", 'ş': "s",
	'ź': "z", 'ż': "z", 'ž': "z", 'ł': "l", 'ř': "r", 'ď': "d", 'ť': "t", 'ð': "d", 'þ': "th",
}
