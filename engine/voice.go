package engine

import "strings"

// FactVoice rewrites a first-person query into the voice facts are stored
// in: extractors state what the user says about themselves as "User …"
// ("I live in Berlin" is stored as "User lives in Berlin"), so "where do I
// live" is compared with facts as "where does User live". Recall compares
// facts with this form and raw memories, kept as they were said, with the
// query itself. A text with no first-person word is returned unchanged.
func FactVoice(query string) string {
	words := splitWords(query)
	changed := false
	for i, w := range words {
		if !w.word {
			continue
		}
		lw := strings.ToLower(strings.ReplaceAll(w.text, "’", "'"))
		if rep, ok := firstPerson[lw]; ok {
			words[i].text, changed = rep, true
			continue
		}
		// "am" only beside "I": "what am I studying", not "at 9 am".
		if lw == "am" && (isI(words, i-2) || isI(words, i+2)) {
			words[i].text = "is"
		}
		// An auxiliary asking about "I" agrees with "User": "what do I
		// do" is "what does User do", "have I" "has User".
		if third, ok := thirdPerson[lw]; ok && isI(words, i+2) {
			words[i].text = matchCase(w.text, third)
		}
	}
	if !changed {
		return query
	}
	var b strings.Builder
	for _, w := range words {
		b.WriteString(w.text)
	}
	return b.String()
}

// firstPerson maps first-person words, lower case, to their fact voice.
var firstPerson = map[string]string{
	"i": "User", "me": "User", "my": "User's", "mine": "User's", "myself": "User",
	"i'm": "User is", "i've": "User has", "i'd": "User would", "i'll": "User will",
}

// thirdPerson maps auxiliaries that come before "I" in a question to the
// form that agrees with "User".
var thirdPerson = map[string]string{"do": "does", "have": "has"}

// matchCase returns to capitalised when w is.
func matchCase(w, to string) string {
	if w != "" && w[0] >= 'A' && w[0] <= 'Z' {
		return strings.ToUpper(to[:1]) + to[1:]
	}
	return to
}

// span is a run of query text: a word (letters, digits, inner
// apostrophes) or what lies between words.
type span struct {
	text string
	word bool
}

// splitWords cuts s into alternating word and non-word spans.
func splitWords(s string) []span {
	var out []span
	for i := 0; i < len(s); {
		j := i
		word := isWordByte(s[i])
		for j < len(s) && (isWordByte(s[j]) == word || word && s[j] == '\'' && j+1 < len(s) && isWordByte(s[j+1])) {
			j++
		}
		out = append(out, span{s[i:j], word})
		i = j
	}
	return out
}

// isI reports whether words[i] is the word "I".
func isI(words []span, i int) bool {
	return i >= 0 && i < len(words) && words[i].word && (words[i].text == "I" || words[i].text == "i")
}

// isWordByte reports whether c is part of a word: ASCII letters and
// digits, and every byte of a multi-byte rune (first-person words are
// ASCII, so other letters only need to stay whole).
func isWordByte(c byte) bool {
	return c >= 0x80 || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}
