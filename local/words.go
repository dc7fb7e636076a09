package local

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// nounDeterminers open a noun phrase that may be a clause's subject.
var nounDeterminers = setOf(`the a an this that these those his her its their my our every each no
	both all one two three four five six seven eight nine ten several many some`)

// statementVerb returns the index of the finite verb of a clause that
// opens with a subject of its own, "Fleur is five", "the nearest shop is",
// "there are", or -1. With pastToo a past tense counts ("Netflix raised its
// prices"); without, "a dog named Max" is no clause.
func statementVerb(toks []token, pastToo bool) int {
	if len(toks) < 2 || toks[0].punct {
		return -1
	}
	w := toks[0].lower
	b := toks[1].lower
	be := b == "is" || b == "are" || b == "was" || b == "were"
	switch {
	case w == "there":
		if be {
			return 1
		}
		return -1
	case nounDeterminers[w]:
		if (w == "this" || w == "that") && (be || finiteVerb(toks, 1, pastToo) == 1) {
			return -1 // "That is all": no subject to keep
		}
		return finiteVerb(toks, 2, pastToo)
	case stopwords[w] || negations[w] || questionWords[w] || subjectPronouns[w] || modals[w] || isNumber(w) && !be:
		return -1
	case verbBase(w) != "" && !(be || b == "has" || b == "had"):
		return -1 // a verb first: "Drives me crazy", an order
	}
	return finiteVerb(toks, 1, pastToo)
}

// finiteVerb returns the index of the first finite verb at or after from
// within the next few words of a subject, or -1: "is", "has", "can",
// "plays", "live" after a plural ("my grandparents live"), with pastToo a
// past tense ("raised").
func finiteVerb(toks []token, from int, pastToo bool) int {
	plural := false
	limit := from + 8
	for k := from; k < len(toks) && k < limit; k++ {
		t := toks[k]
		w := t.lower
		if (w == "\"" || w == "“") && !t.glued {
			if end := quoteEnd(toks, k); end > 0 {
				limit += end - k // a quoted title is one noun: "the structure of "The Weight of Water" was"
				k = end
				continue
			}
		}
		if (w == "and" || w == "or") && k > 0 {
			plural = true // "Ben and Alice live"
			continue
		}
		switch {
		case t.punct:
			if w == "." && k > 0 && titles[toks[k-1].lower] {
				continue // "Dr. Hill"
			}
			return -1
		case w == "'s" || adverbs[w] || w == "not":
			continue
		case (w == "am" || w == "pm") && k > 0 && isNumber(toks[k-1].lower):
			continue // "from 10 am": a time
		case possessiveDeterminers[w] && k > from:
			continue // "the purpose of my visit is"
		case subjectPronouns[w] || clauseWords[w] || dependentWords[w] || relativeStops[w]:
			return -1
		}
		switch w {
		case "is", "are", "was", "were", "am", "has", "have", "had", "does", "do", "did":
			return k
		}
		if modals[w] {
			return k
		}
		b := verbBase(w)
		if b == "" || strings.HasSuffix(w, "ing") || k == 0 || nounDeterminers[toks[k-1].lower] || toks[k-1].lower == "'s" {
			continue
		}
		prev := toks[k-1].lower
		switch {
		case b != w && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss"):
			return k // "plays"
		case b != w:
			if pastToo {
				return k // "raised", "grew"
			}
		case plural || len(prev) > 3 && strings.HasSuffix(prev, "s") && !strings.HasSuffix(prev, "ss") && verbBase(prev) == "":
			return k // "my grandparents live"
		}
	}
	return -1
}

// relativeStops end a subject: a verb after them is not its verb ("digital
// coupons to see what is available").
var relativeStops = setOf(`what where how why to`)

// participleAdjectives describe a noun rather than say what it did: "a
// dog named Max", "a company based in Oslo".
var participleAdjectives = setOf(`named called born based located known made built`)

// hasFiniteBe reports whether toks hold "is", "are", "was" or "were": then
// a clause opening with a verb-like word ("Light mode is better") is a
// statement, not an order.
func hasFiniteBe(toks []token) bool {
	for _, t := range toks {
		switch t.lower {
		case "is", "are", "was", "were":
			return true
		}
	}
	return false
}

// isParticiple reports whether w is a verb's -ing form ("swimming"), not a
// verb whose base ends so ("sing").
func isParticiple(w string) bool {
	return strings.HasSuffix(w, "ing") && !verbBases[w] && verbBase(w) != ""
}

// progressiveAux is the end, in body, of a form of "be" that makes its
// verb progressive ("User is reading"), 0 when there is none.
func progressiveAux(body []token, from int) int {
	for i := from; i+1 < len(body); i++ {
		if verbBase(body[i].lower) == "be" {
			j := i + 1
			for j < len(body) && adverbs[body[j].lower] {
				j++
			}
			if j < len(body) && isParticiple(body[j].lower) {
				return i + 1
			}
			return 0
		}
	}
	return 0
}

// afterVerb is the end, in body, of the auxiliaries and the first verb
// from index from on.
func afterVerb(body []token, from int) int {
	end := from
	for i := from; i < len(body); i++ {
		w := body[i].lower
		end = i + 1
		if adverbs[w] || w == "not" || modals[w] {
			continue
		}
		if b := verbBase(w); b == "be" || b == "have" || b == "do" {
			if i+1 < len(body) && (verbBase(body[i+1].lower) != "" || body[i+1].lower == "not" || adverbs[body[i+1].lower]) && !determiners[body[i+1].lower] {
				continue
			}
		}
		break
	}
	return end
}

// verbIndex returns the index in body of the first verb after the
// rewritten subject ending at subj, past the rest of a noun subject
// ("User's sister") and adverbs, or len(body).
func verbIndex(body []token, subj int) int {
	for i := subj; i < len(body); i++ {
		w := body[i].lower
		if body[i].punct || adverbs[w] {
			continue
		}
		if w == "used" || modals[w] || verbBase(w) != "" {
			return i
		}
	}
	return len(body)
}

// conjugate puts the verb after a dropped "I" or "we" into the third
// person: "am" → "is", "have" → "has", "want" → "wants", past tenses and
// modals unchanged.
func conjugate(rest []token) []token {
	out := append([]token{}, rest...)
	for i, t := range out {
		if t.punct || adverbs[t.lower] || strings.HasSuffix(t.lower, "ly") && verbBase(t.lower) == "" {
			continue // "I especially like"
		}
		if (t.lower == "kind" || t.lower == "sort") && i+1 < len(out) && out[i+1].lower == "of" {
			continue
		}
		if t.lower == "of" && i > 0 && (out[i-1].lower == "kind" || out[i-1].lower == "sort") {
			continue
		}
		if t.lower == "no" && i+1 < len(out) && out[i+1].lower == "longer" || t.lower == "longer" && i > 0 && out[i-1].lower == "no" {
			continue // "I no longer eat meat"
		}
		if sameFormPast[t.lower] && (saysPast(out[i+1:]) || i > 0 && pastAdverbs[out[i-1].lower]) {
			return out // "I quit my job last month": past, not "quits"
		}
		first := t.lower
		out[i] = word(thirdPerson(t))
		if verbBase(first) == first {
			conjugateList(out[i+1:])
		}
		return out
	}
	return out
}

// conjugateList puts the verbs of a list that goes on after a comma in
// the third person, as its first verb was: "I cook, clean and do the
// laundry" is "User cooks, cleans and does the laundry". An item is a
// verb when it is a verb's base form right after a comma, or after "and"
// or "or" that follows a comma item, and no infinitive before the first
// comma owns the list.
func conjugateList(toks []token) {
	for i, t := range toks {
		if t.lower == "," {
			if infinitiveIn(append([]token{word("")}, toks[:i]...)) {
				return // "I love to cook, bake and garden": the list is of "to"
			}
			break
		}
	}
	inList := false
	for i := 1; i < len(toks); i++ {
		w := toks[i].lower
		prev := toks[i-1].lower
		if verbBase(w) != w || isParticiple(w) || adverbs[w] || attitudeVerbs[w] {
			continue // "like five cups a day" is no verb
		}
		if prev == "," || inList && (prev == "and" || prev == "or") {
			toks[i] = word(thirdPerson(toks[i]))
			inList = true
		}
	}
}

// sameFormPast are verbs whose past tense is their base form.
var sameFormPast = setOf(`quit put set cut hit let shut cost hurt read spread bet split upset burst cast`)

// saysPast reports whether toks place what they say in the past:
// "yesterday", "… ago", "last week", "in 2019".
func saysPast(toks []token) bool {
	for i, t := range toks {
		switch {
		case t.lower == "yesterday" || t.lower == "ago":
			return true
		case t.lower == "last" && i+1 < len(toks) && pastUnits[toks[i+1].lower]:
			return true
		case t.lower == "in" && i+1 < len(toks) && len(toks[i+1].lower) == 4 && isNumber(toks[i+1].lower):
			return true
		}
	}
	return false
}

var pastUnits = setOf(`night week weekend month year summer winter spring autumn fall time monday tuesday wednesday thursday friday saturday sunday`)

// pastAdverbs before a verb that has one form for present and past say
// it is the past: "I recently put in an offer".
var pastAdverbs = setOf(`recently just already once`)

func thirdPerson(t token) string {
	w := t.lower
	switch w {
	case "am", "are", "be":
		return "is"
	case "were":
		return "was"
	case "have":
		return "has"
	case "do":
		return "does"
	case "go":
		return "goes"
	}
	if modals[w] || w == "was" || w == "is" || w == "has" || w == "does" || w == "not" || isParticiple(w) {
		return w
	}
	if strings.HasSuffix(w, "ed") && !verbBases[w] || irregularVerbs[w] != "" && irregularVerbs[w] != w {
		return w // past tense, not "need" or "feed"
	}
	n := len(w)
	switch {
	case strings.HasSuffix(w, "s") || strings.HasSuffix(w, "sh") || strings.HasSuffix(w, "ch") ||
		strings.HasSuffix(w, "x") || strings.HasSuffix(w, "z") || strings.HasSuffix(w, "o"):
		return w + "es"
	case n > 1 && w[n-1] == 'y' && !strings.ContainsRune("aeiou", rune(w[n-2])):
		return w[:n-1] + "ies"
	}
	return w + "s"
}

// rewritePronouns turns the user's other first-person words into the
// third person. When the user is the subject (user), possessives refer
// back to it: "I take my coffee black" → "User takes their coffee black";
// otherwise they name the user: "Alice is my sister" → "Alice is User's
// sister". "me" and "us" are "User".
func rewritePronouns(toks []token, user bool) []token {
	out := make([]token, 0, len(toks))
	agree := false // a subject "I" was rewritten: its verb is next
	quoted := quotedSpans(toks)
	for i, t := range toks {
		if quoted[i] || romanI(toks, i) {
			out = append(out, t) // what was said stays as said: "I feel"
			continue
		}
		if agree && !t.punct && !adverbs[t.lower] && t.lower != "no" && t.lower != "longer" {
			agree = false
			if user {
				// "User is not sure they like it": "they" takes the
				// verb as "I" did, but for "am" and "was".
				switch t.lower {
				case "am":
					t = word("are")
				case "was":
					t = word("were")
				}
			} else if verbBase(t.lower) != "" || modals[t.lower] {
				t = word(thirdPerson(t)) // "User's mum says User works too hard"
			}
			out = append(out, t)
			continue
		}
		if t.lower == "i" && i >= 2 && toks[i-1].lower == "and" && isCapitalized(toks[i-2]) {
			out = append(out, word("User")) // "when Sam and User met"
			continue
		}
		switch t.lower {
		case "my", "our":
			if user {
				out = append(out, word("their"))
			} else {
				out = append(out, word("User"), possessive())
			}
		case "mine", "ours":
			if user {
				out = append(out, word("theirs"))
			} else {
				out = append(out, word("User"), possessive())
			}
		case "i", "we":
			if user {
				out = append(out, word("they"))
			} else {
				out = append(out, word("User"))
			}
			agree = true
		case "me", "us":
			if t.text == "US" {
				out = append(out, t) // the country
				continue
			}
			out = append(out, word("User"))
		case "myself", "ourselves":
			out = append(out, word("themselves"))
		default:
			if isShouted(t) {
				t.text = t.lower
			}
			out = append(out, t)
		}
	}
	return out
}

// romanI reports whether toks[i] is an "I" inside a name, between two
// capitalised words: "a Fender Mustang I V2".
func romanI(toks []token, i int) bool {
	if toks[i].text != "I" || i == 0 || i+1 >= len(toks) {
		return false
	}
	before, after := toks[i-1], toks[i+1]
	return isCapitalized(before) && before.text != "User" && !before.punct &&
		(isCapitalized(after) || isNumber(after.lower)) && !after.punct
}

// possessive is the glued "'s" token.
func possessive() token { return token{text: "'s", lower: "'s", glued: true} }

func isCapitalized(t token) bool {
	r, _ := utf8.DecodeRuneInString(t.text)
	return !t.punct && unicode.IsUpper(r)
}

// isProperNoun reports whether t looks like a name or a product: written
// with a capital, and neither a function word nor a verb (which start
// sentences with capitals too).
func isProperNoun(t token) bool {
	r, _ := utf8.DecodeRuneInString(t.text)
	if !unicode.IsUpper(r) {
		return false
	}
	return !stopwords[t.lower] && verbBase(t.lower) == ""
}

// isShouted reports whether t is an ordinary word in capitals, "NEVER",
// rather than an acronym like "SQL".
func isShouted(t token) bool {
	if t.punct || len(t.text) < 2 || strings.ToUpper(t.text) != t.text || strings.ToLower(t.text) == t.text {
		return false
	}
	if len(t.lower) <= 4 {
		// Short words in capitals are mostly acronyms: "MIT", "AWS".
		return emphaticShort[t.lower]
	}
	v, err := loadVocab()
	if err != nil {
		return false
	}
	i := v.lookup([]byte(t.lower))
	return i >= 0 && i < 20000
}

var emphaticShort = setOf(`no not so very all any ever hate love must dont cant wont want need best
	do is and yes only way will this that hell stop just one more less much what why who`)

// isUser reports whether subject is the user alone.
func isUser(subject []token) bool { return len(subject) == 1 && subject[0].text == "User" }

// lowerFirst returns toks with their first word in lower case, as it reads
// inside a sentence: "The best editor is Vim" after "User thinks".
func lowerFirst(toks []token) []token {
	if len(toks) == 0 {
		return toks
	}
	return append([]token{word(toks[0].lower)}, toks[1:]...)
}

// firstWord is the first word of toks that is not an adverb, lower case;
// "" when there is none.
func firstWord(toks []token) string {
	if i := firstNonAdverb(toks); i >= 0 {
		return toks[i].lower
	}
	return ""
}

// firstNonAuxiliary is the index in toks of the first word that is not
// an adverb or a form of "be" or "have", -1 when there is none.
func firstNonAuxiliary(toks []token) int {
	for i, t := range toks {
		if t.punct || adverbs[t.lower] {
			continue
		}
		if b := verbBase(t.lower); b == "be" || b == "have" {
			continue
		}
		return i
	}
	return -1
}

// thirdPersonVerb reports whether toks open with a verb in the third
// person, as notes written about the user go on: "…; prefers concise
// answers".
func thirdPersonVerb(toks []token) bool {
	w := firstWord(toks)
	b := verbBase(w)
	return b != "" && b != w && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss")
}

// verbFirst reports whether toks open with a verb, not a subject: "try
// something different", "took me three weeks".
func verbFirst(toks []token) bool {
	w := firstWord(toks)
	return verbBase(w) != "" && !isParticiple(w) && !subjectPronouns[w] && !determiners[w]
}

func word(s string) token { return token{text: s, lower: strings.ToLower(s)} }

// trimPunct drops punctuation at both ends, except the final stop of an
// abbreviation written with stops inside ("the U.S.").
func trimPunct(toks []token) []token {
	for len(toks) > 0 && toks[0].punct {
		toks = toks[1:]
	}
	for n := len(toks); n > 0 && toks[n-1].punct; n = len(toks) {
		if n >= 4 && toks[n-1].lower == "." && toks[n-1].glued && !toks[n-2].punct && toks[n-2].glued && toks[n-3].lower == "." {
			break
		}
		if closes(toks[:n-1], toks[n-1].lower) {
			break // "called 'buddy'", "an engineer (backend)"
		}
		toks = toks[:n-1]
	}
	return toks
}

// hasContent reports whether toks hold a word beyond function words, or a
// name.
func hasContent(toks []token) bool {
	for i, t := range toks {
		if t.lower == "/" && i > 0 && i+1 < len(toks) && !toks[i-1].punct && !toks[i+1].punct {
			return true // pronouns, "she/her", or a choice, "and/or"
		}
		if !t.punct && !stopwords[t.lower] && !negations[t.lower] && t.lower != "'s" && verbBase(t.lower) != "be" && verbBase(t.lower) != "have" {
			return true
		}
		if isCapitalized(t) && t.lower != "i" && t.lower != "user" {
			return true // a name that is also a word: "in May"
		}
	}
	return false
}

// hasOpinion reports whether toks express an evaluation.
func hasOpinion(toks []token) bool {
	for _, t := range toks {
		if emotionWords[t.lower] || evaluativeWords[t.lower] {
			return true
		}
	}
	return false
}

// render joins tokens into a sentence: "can not" as "cannot", a repeated
// word once ("really, really love" → "really love").
func render(toks []token) string {
	var b strings.Builder
	for i, t := range toks {
		if t.punct && t.lower == "," && i+1 < len(toks) && i > 0 && toks[i+1].lower == toks[i-1].lower {
			continue
		}
		if !t.punct && i > 0 && (toks[i-1].lower == t.lower || i > 1 && toks[i-1].lower == "," && toks[i-2].lower == t.lower) {
			continue
		}
		if t.lower == "not" && i > 0 && toks[i-1].lower == "can" {
			b.WriteString("not")
			continue
		}
		switch {
		case t.lower == "(" && b.Len() > 0:
			b.WriteByte(' ') // an aside: "engineer (backend, mostly Go)"
		case i > 0 && toks[i-1].lower == "(":
		case i > 0 && !toks[i-1].glued && (toks[i-1].lower == "\"" || toks[i-1].lower == "“"):
			// after an opening quote: "War and Peace"
		case b.Len() > 0 && !t.glued && (!t.punct || leadPunct[t.lower] || t.lower == "-" || t.lower == "—"):
			b.WriteByte(' ')
		}
		b.WriteString(t.text)
	}
	return strings.TrimSpace(b.String())
}
