package local

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// sentence is one sentence of the input and how it ended.
type sentence struct {
	text     string
	bangs    int  // "!" at the end
	question bool // ends with "?"
	item     bool // a list item: "- Lives in Berlin"
}

// splitSentences splits text at ".", "!", "?" and "…" followed by a space
// or the end, and at line breaks. List markers are dropped. The full stop
// of an abbreviation ("St.", "Dr.", "K.", "e.g.", "U.S.", "etc.") does not
// end a sentence unless "I", "My", "We" or "Our" follows, which opens one.
func splitSentences(text string) []sentence {
	var out []sentence
	emit := func(s string, end string) {
		s = strings.TrimSpace(s)
		item := len(s) > 0 && strings.ContainsRune("-*•", rune(s[0]))
		s = strings.TrimLeft(s, "-*•>·# \t")
		if s == "" {
			return
		}
		out = append(out, sentence{text: s, bangs: strings.Count(end, "!"), question: strings.Contains(end, "?"), item: item})
	}
	start := 0
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == '\n':
			emit(text[start:i], "")
			start = i + size
		case r == '.' || r == '!' || r == '?' || r == '…':
			j := i + size
			for j < len(text) && strings.ContainsRune(".!?…", rune(text[j])) {
				j++
			}
			for j < len(text) && (text[j] == '"' || text[j] == ')' || text[j] == '\'') {
				j++
			}
			if j == len(text) || text[j] == ' ' || text[j] == '\n' || text[j] == '\t' || text[j] == '\r' {
				if r == '.' && j == i+1 && isAbbreviation(wordBefore(text, i)) {
					if j == len(text) || text[j] == '\n' {
						emit(text[start:j], "") // keep the abbreviation's stop
						start, i = j, j
						continue
					}
					if !opensSentence(text[j:]) {
						i = j
						continue
					}
				}
				emit(text[start:i], text[i:j])
				start, i = j, j
				continue
			}
		}
		i += size
	}
	emit(text[start:], "")
	return out
}

// titles are abbreviations that end with a full stop but not a sentence.
var titles = setOf(`st dr mr mrs ms prof mt jr sr vs etc approx dept fig inc ltd`)

// wordBefore returns the word that ends at text[i], without leading
// punctuation: "St" in "at St.", "U.S" in "the U.S.".
func wordBefore(text string, i int) string {
	j := i
	for j > 0 {
		r, size := utf8.DecodeLastRuneInString(text[:j])
		if unicode.IsSpace(r) || r == '(' || r == '"' {
			break
		}
		j -= size
	}
	return text[j:i]
}

// isAbbreviation reports whether w, written before a full stop, is an
// abbreviation: a title ("Dr"), a single capital initial ("K"), or short
// letter groups joined by stops ("e.g", "U.S", "a.m", "Ph.D").
func isAbbreviation(w string) bool {
	if w == "" {
		return false
	}
	if titles[strings.ToLower(w)] {
		return true
	}
	if r, size := utf8.DecodeRuneInString(w); size == len(w) {
		return unicode.IsUpper(r)
	}
	if !strings.Contains(w, ".") {
		return false
	}
	for _, part := range strings.Split(w, ".") {
		n := utf8.RuneCountInString(part)
		if n == 0 || n > 2 {
			return false
		}
		for _, r := range part {
			if !unicode.IsLetter(r) {
				return false
			}
		}
	}
	return true
}

// opensSentence reports whether rest, the text after an abbreviation's
// stop, starts a new first-person sentence: "etc. I also …".
func opensSentence(rest string) bool {
	rest = strings.TrimLeft(rest, " \t\r")
	for _, w := range []string{"I", "My", "We", "Our"} {
		if strings.HasPrefix(rest, w) {
			after := rest[len(w):]
			if after == "" || after[0] == ' ' || after[0] == '\'' || after[0] == ',' {
				return true
			}
		}
	}
	return false
}

// token is one word or punctuation mark of a sentence. Contractions come
// expanded: "I'm" is "I", "am"; "don't" is "do", "not".
type token struct {
	text  string // as written, or the expansion of a contraction
	lower string
	punct bool
	glued bool // written with no space before it ("'s", "g" of "e.g.")
	// money: a number written against a currency sign ("$42,000",
	// "900€"), which the sign's own token would not say to a word's kind.
	money bool
}

// lex splits a sentence into tokens.
func lex(s string) []token {
	var toks []token
	add := func(text string, punct, glued bool) {
		toks = append(toks, token{text: text, lower: strings.ToLower(text), punct: punct, glued: glued})
	}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) {
			i += size
			continue
		}
		if !isWordRune(r) {
			// Punctuation is written against the word before it, but
			// for what opens a word after a space: "is @mira-dev",
			// "called 'buddy'".
			prev, _ := utf8.DecodeLastRuneInString(s[:i])
			add(s[i:i+size], true, !leadPunct[string(r)] || i > 0 && !unicode.IsSpace(prev))
			i += size
			continue
		}
		j := i
		for j < len(s) {
			r, size := utf8.DecodeRuneInString(s[j:])
			if isWordRune(r) {
				j += size
				continue
			}
			if j > i && (r == '\'' || r == '’' || r == '-' || (r == '.' || r == ',' || r == ':') && isDigit(s[j-1])) {
				if next, _ := utf8.DecodeRuneInString(s[j+size:]); isWordRune(next) && (r != '.' && r != ',' && r != ':' || unicode.IsDigit(next)) {
					j += size
					continue
				}
			}
			break
		}
		word := strings.ReplaceAll(s[i:j], "’", "'")
		if spelled, ok := chatSpellings[word]; ok {
			word = spelled // "dont" is "don't", "u" is "you"
		} else if spelled, ok := chatSpellings[strings.ToLower(word)]; ok && len(word) > 2 {
			word = spelled // "Im", "Dont": not "U" or "Ur", a letter or a name
		}
		prev, _ := utf8.DecodeLastRuneInString(s[:i])
		for k, part := range expandContraction(word) {
			// A word right after punctuation with no space keeps it so:
			// "e.g.", "U.S.", "ana@example.com".
			glued := part.glued || k == 0 && i > 0 && !unicode.IsSpace(prev) && len(toks) > 0 && toks[len(toks)-1].punct && !clausePunct[toks[len(toks)-1].lower]
			add(part.text, false, glued)
		}
		i = j
	}
	markMoney(toks)
	dropChatTails(&toks)
	// "'s" and "'d" before "been" are "has" and "had": "she's been";
	// so is "'s" before a participle that only "has" takes: "it's
	// become a habit".
	for i := 0; i+1 < len(toks); i++ {
		j := i + 1
		for j+1 < len(toks) && adverbs[toks[j].lower] {
			j++ // "it's really become", "she's always had"
		}
		switch next := toks[j].lower; {
		case (toks[i].lower == "'s" || toks[i].lower == "is") && (hasParticiples[next] || participleWithObject(toks, j)):
			toks[i] = word("has")
		case toks[i].lower == "'s" && j == i+1 && isAfterIs[next]:
			toks[i] = word("is") // "the team's down to 4", "Sam's a nurse"
		case toks[i].lower == "would" && next == "been" && j == i+1:
			toks[i] = word("had")
		}
	}
	return toks
}

// chatSpellings are words as people type them in a chat, with the
// apostrophe left out or shortened, and what they stand for. Words that
// are words of their own as well ("ill", "its", "were", "well", "id",
// "lets") are not among them.
var chatSpellings = map[string]string{
	"im": "I'm", "ive": "I've", "dont": "don't", "doesnt": "doesn't", "didnt": "didn't",
	"cant": "can't", "wont": "won't", "isnt": "isn't", "arent": "aren't", "wasnt": "wasn't",
	"werent": "weren't", "havent": "haven't", "hasnt": "hasn't", "hadnt": "hadn't",
	"wouldnt": "wouldn't", "couldnt": "couldn't", "shouldnt": "shouldn't", "thats": "that's",
	"whats": "what's", "theres": "there's", "youre": "you're", "youve": "you've",
	"theyre": "they're", "theyve": "they've", "weve": "we've", "hes": "he's", "shes": "she's",
	"u": "you", "pls": "please", "plz": "please", "bc": "because", "cuz": "because",
	"tho": "though", "thx": "thanks", "idk": "I don't know",
}

// chatTails are words that end a clause without adding to it: "I'm so
// tired lol", "my name is Priya btw".
var chatTails = setOf(`lol lmao lmfao haha hahaha hehe btw ugh tbh ngl fyi xd`)

// dropChatTails drops the words of chatTails that end a clause after a
// word of it: before punctuation or at the end, not alone ("lol").
// "ur" is "you are" before what "you're" takes ("ur not", "ur going"),
// else "your".
func dropChatTails(toks *[]token) {
	in := *toks
	out := in[:0]
	for i, t := range in {
		if chatTails[t.lower] && len(out) > 0 && !out[len(out)-1].punct && (i+1 == len(in) || in[i+1].punct) {
			continue
		}
		if t.text == "ur" {
			if i+1 < len(in) && (youAreNext[in[i+1].lower] || strings.HasSuffix(in[i+1].lower, "ing")) {
				out = append(out, word("you"), word("are"))
				continue
			}
			t = word("your")
		}
		out = append(out, t)
	}
	*toks = out
}

// youAreNext follow "you're", not "your".
var youAreNext = setOf(`not so a an the welcome right too very always never just still`)

// isAfterIs follow "'s" only when it is "is": an article, "not", a
// preposition or particle, or an adverb ("the car's in the shop").
var isAfterIs = setOf(`a an the not down up off out over at on in from with gone done here
	there still also always never so really very just finally now already`)

// hasParticiples follow "has", never "is": "it's become", "she's got".
var hasParticiples = setOf(`been become got gotten had`)

// participleWithObject reports whether toks[j] is a verb's past form with
// an object after it, which only "has" takes: "it's really changed our
// routine", "she's helped me a lot".
func participleWithObject(toks []token, j int) bool {
	w := toks[j].lower
	b := verbBase(w)
	if b == "" || b == w || strings.HasSuffix(w, "s") || strings.HasSuffix(w, "ing") || j+1 >= len(toks) {
		return false
	}
	switch toks[j+1].lower {
	case "my", "our", "your", "his", "her", "their", "me", "us", "him", "them":
		return true
	}
	return false
}

type wordPart struct {
	text  string
	glued bool
}

// expandContraction splits a contraction into its words, keeping the case
// of the first; a possessive "'s" stays a glued token.
func expandContraction(w string) []wordPart {
	lw := strings.ToLower(w)
	one := []wordPart{{text: w}}
	switch {
	case lw == "can't" || lw == "cannot":
		return []wordPart{{text: w[:3]}, {text: "not"}}
	case lw == "won't":
		return []wordPart{{text: w[:1] + "ill"}, {text: "not"}}
	case lw == "ain't":
		return []wordPart{{text: "is"}, {text: "not"}}
	case lw == "let's":
		return []wordPart{{text: w[:3]}, {text: "us"}}
	case strings.HasSuffix(lw, "n't"):
		return []wordPart{{text: w[:len(w)-3]}, {text: "not"}}
	}
	i := strings.LastIndexByte(w, '\'')
	if i <= 0 {
		return one
	}
	base, suffix := w[:i], strings.ToLower(w[i+1:])
	switch suffix {
	case "m":
		return []wordPart{{text: base}, {text: "am"}}
	case "re":
		return []wordPart{{text: base}, {text: "are"}}
	case "ve":
		return []wordPart{{text: base}, {text: "have"}}
	case "ll":
		return []wordPart{{text: base}, {text: "will"}}
	case "d":
		return []wordPart{{text: base}, {text: "would"}}
	case "s":
		switch strings.ToLower(base) {
		case "it", "that", "what", "there", "here", "he", "she", "who", "where", "how", "this":
			return []wordPart{{text: base}, {text: "is"}}
		}
		return []wordPart{{text: base}, {text: "'s", glued: true}}
	}
	return one
}

// markMoney marks the numbers written against a currency sign, before
// ("$42,000", "£9,000") or after ("900€").
func markMoney(toks []token) {
	sign := func(t token) bool {
		r, _ := utf8.DecodeRuneInString(t.text)
		return t.punct && unicode.Is(unicode.Sc, r)
	}
	for i := range toks {
		if toks[i].punct || toks[i].lower == "" || !isDigit(toks[i].lower[0]) {
			continue
		}
		before := i > 0 && sign(toks[i-1]) && toks[i].glued
		after := i+1 < len(toks) && sign(toks[i+1]) && toks[i+1].glued
		toks[i].money = before || after
	}
}
