package local

import "strings"

// clause is a stretch of a sentence that may hold one fact.
type clause struct {
	toks      []token
	connector string // the conjunction or punctuation before it
	// conditioned: the sentence holds a condition on what is to come
	// ("when you explain code", "if I ask"), which makes a request in
	// it hold from now on.
	conditioned bool
	// correcting: the sentence opens with a correction ("update:",
	// "scratch that,"): see userAttribute.
	correcting bool
}

// clauseWords open a new clause; dependentWords open one that only
// qualifies another and never holds a fact of its own.
var (
	clauseWords    = setOf(`and but so because or then`)
	dependentWords = setOf(`which since when while although though whereas if until unless whenever`)
	// qualifierWords open a clause that says when, on what condition or
	// of what the clause before it holds: it stays with that clause's
	// fact ("User gets seasick if the sea is rough").
	qualifierWords = setOf(`which since when while if until unless whenever`)
	// concessiveWords open a clause that states a fact of its own
	// ("although I grew up in Wales").
	concessiveWords = setOf(`although though whereas`)
	clausePunct     = setOf(`, ; : — – ( ) "`)
)

// splitClauses cuts a sentence at punctuation and conjunctions, then glues
// back the pieces that cannot stand alone ("really, really love" or
// "Sam, a developer").
func splitClauses(toks []token) []clause {
	return glueClauses(cutClauses(toks))
}

// cutClauses cuts a sentence at punctuation and conjunctions, keeping
// asides, quotations, lists and ranges whole.
func cutClauses(toks []token) []clause {
	var raw []clause
	cur := clause{}
	flush := func(conn string) {
		if len(cur.toks) > 0 || cur.connector != "" {
			raw = append(raw, cur)
		}
		cur = clause{connector: conn}
	}
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.lower == "(" {
			if end := asideEnd(toks, i); end > 0 {
				// An aside with no verb of its own stays in its clause:
				// "I'm a software engineer (backend, mostly Go) at a
				// logistics company".
				cur.toks = append(cur.toks, toks[i:end+1]...)
				i = end
				continue
			}
		}
		if (t.lower == "\"" || t.lower == "“") && !t.glued {
			if end := quoteEnd(toks, i); end > 0 {
				// A title or a saying stays whole: "War and Peace".
				cur.toks = append(cur.toks, toks[i:end+1]...)
				i = end
				continue
			}
		}
		if t.lower == ":" && listFollows(cur.toks, toks[i+1:]) {
			// "I have two brothers: Tom, who is a pilot, and Sam": what
			// the clause counts stays with it, to a ";" or the end.
			j := i + 1
			for j < len(toks) && toks[j].lower != ";" {
				j++
			}
			cur.toks = append(cur.toks, toks[i:j]...)
			i = j - 1
			continue
		}
		switch {
		case t.lower == "-" && i > 0 && i+1 < len(toks) && isNumber(toks[i-1].lower) && (isNumber(toks[i+1].lower) || leadPunct[toks[i+1].lower]):
			cur.toks = append(cur.toks, t) // a range: "$300-$400"
		case t.punct && (clausePunct[t.lower] || t.lower == "-" && i > 0 && !toks[i-1].punct):
			flush(t.lower)
		case t.lower == "while" && i > 0 && determiners[toks[i-1].lower], t.lower == "since" && i > 0 && toks[i-1].lower == "ever",
			t.lower == "so" && i > 0 && verbBase(toks[i-1].lower) == "be" && i+1 < len(toks) && !toks[i+1].punct && !subjectPronouns[toks[i+1].lower]:
			// "I'm so glad": "so" says how much, it joins nothing.
			cur.toks = append(cur.toks, t) // "after a while": a noun; "ever since"
		case t.lower == "so" && i > 0 && (i+1 == len(toks) || toks[i+1].punct):
			cur.toks = append(cur.toks, t) // "just say so": no clause follows
		case !t.punct && (clauseWords[t.lower] || dependentWords[t.lower]) && i > 0:
			conn := t.lower
			if cur.connector != "" && len(cur.toks) == 0 {
				conn = cur.connector + " " + conn // ", so"
			}
			if len(cur.toks) == 0 {
				cur.connector = conn
				continue
			}
			flush(conn)
		default:
			cur.toks = append(cur.toks, t)
		}
	}
	flush("")
	return raw
}

// glueClauses glues each piece of raw that does not open a clause back
// onto the clause before it.
func glueClauses(raw []clause) []clause {
	var out []clause
	for _, c := range raw {
		if len(c.toks) == 0 {
			continue
		}
		if len(out) > 0 && (!opensClause(c) && !opensStatement(c, out[len(out)-1]) && !ordersAfter(c, out[len(out)-1]) || completesAttitude(c, out[len(out)-1]) ||
			inSubject(c, out[len(out)-1]) || hedgedSubject(c, out[len(out)-1]) || namedPair(c, out[len(out)-1])) {
			prev := &out[len(out)-1]
			if strings.HasPrefix(c.connector, ", ") && inSubject(c, *prev) {
				prev.toks = append(prev.toks, token{text: ",", lower: ",", punct: true, glued: true})
			}
			if c.connector != "" {
				word := lastWord(c.connector)
				prev.toks = append(prev.toks, token{text: word, lower: word, punct: clausePunct[word], glued: clausePunct[word]})
			}
			prev.toks = append(prev.toks, c.toks...)
			continue
		}
		out = append(out, c)
	}
	return out
}

// ordersAfter reports whether c, after a comma, is an order that follows
// a condition or another order: "when you explain code, show the example
// first", "just say so, don't make stuff up".
func ordersAfter(c, prev clause) bool {
	if lastWord(c.connector) != "," || orderAt(c.toks) < 0 {
		return false
	}
	p := prev.toks
	return orderAt(p) >= 0 || len(p) > 2 && qualifierWords[p[0].lower] && p[0].lower != "which" && hasVerb(p[1:])
}

// orderAt returns the index of the verb of toks when they are an order,
// "just say so", "please don't make stuff up", else -1.
func orderAt(toks []token) int {
	i := 0
	for i < len(toks) && (adverbs[toks[i].lower] || toks[i].lower == "please" || toks[i].punct) {
		i++
	}
	if i+1 < len(toks) && toks[i].lower == "do" && toks[i+1].lower == "not" {
		i += 2
	}
	if i >= len(toks) || isCapitalized(toks[i]) && i > 0 {
		return -1
	}
	w := toks[i].lower
	if verbBase(w) != w || isParticiple(w) || hasFiniteBe(toks[i+1:]) || w == "let" {
		return -1
	}
	return i
}

// namedPair reports whether c, "and I …", makes a subject of two with the
// name prev ends with: "Anna and I went to Rome", "When Sam and I met".
func namedPair(c, prev clause) bool {
	if lastWord(c.connector) != "and" || len(c.toks) < 2 || c.toks[0].lower != "i" || len(prev.toks) == 0 || len(prev.toks) > 4 {
		return false
	}
	for k, t := range prev.toks {
		if !isCapitalized(t) || t.lower == "i" || k > 0 && !isProperNoun(t) {
			return false // "the Grand Canyon and I'm excited" is no pair
		}
		if k == 0 && !isProperNoun(t) && !qualifierWords[t.lower] {
			return false
		}
	}
	return !hasVerb(prev.toks)
}

// namedPairLen is the length of the name in toks opening with "Name and
// I" and a verb, else 0.
func namedPairLen(toks []token) int {
	for n := 1; n <= 3 && n+2 < len(toks); n++ {
		if !isCapitalized(toks[n-1]) || !isProperNoun(toks[n-1]) || toks[n-1].lower == "i" {
			return 0
		}
		if toks[n].lower == "and" && toks[n+1].lower == "i" {
			if w := toks[n+2].lower; verbBase(w) != "" || modals[w] || adverbs[w] {
				return n
			}
			return 0
		}
	}
	return 0
}

// hedgedSubject reports whether c, after "or" or "and", goes on the
// subject of what prev thinks: "I think a hoodie or a scarf would suit
// him". prev is "I think" or the like and a noun phrase with no verb.
func hedgedSubject(c, prev clause) bool {
	conn := lastWord(c.connector)
	if conn != "or" && conn != "and" {
		return false
	}
	toks := prev.toks
	i := firstNonAdverb(toks)
	if i < 0 || toks[i].lower != "i" || i+2 >= len(toks) || !hedgeVerbs[toks[i+1].lower] {
		return false
	}
	np := toks[i+2:]
	if np[0].lower == "that" {
		np = np[1:]
	}
	if len(np) == 0 || subjectPronouns[np[0].lower] {
		return false
	}
	for k, t := range np {
		// "like" before an article is a preposition: "something like a
		// cooking class or …".
		if w := t.lower; (verbBase(w) != "" && !isParticiple(w) || modals[w]) && !(w == "like" && k+1 < len(np) && determiners[np[k+1].lower]) {
			return false
		}
	}
	return true
}

// inSubject reports whether c, a "which" clause, describes prev, a noun
// phrase with no verb, inside the subject of the clause to come: "My
// office, which is in Soho, has a rooftop bar".
func inSubject(c, prev clause) bool {
	return lastWord(c.connector) == "which" && len(prev.toks) >= 2 &&
		possessiveDeterminers[prev.toks[0].lower] && finiteVerb(prev.toks, 1, true) < 0
}

// quoteEnd is the index of the quote closing the one opening at toks[i],
// 0 when none closes it.
func quoteEnd(toks []token, i int) int {
	closing := map[string]string{"\"": "\"", "“": "”"}[toks[i].lower]
	for j := i + 1; j < len(toks); j++ {
		if toks[j].lower == closing && j > i+1 {
			return j
		}
	}
	return 0
}

// quotedSpans marks the tokens of toks inside quotes that close.
func quotedSpans(toks []token) []bool {
	var in []bool
	for i := 0; i < len(toks); i++ {
		if t := toks[i]; (t.lower == "\"" || t.lower == "“") && !t.glued {
			if end := quoteEnd(toks, i); end > 0 {
				if in == nil {
					in = make([]bool, len(toks))
				}
				for j := i + 1; j < end; j++ {
					in[j] = true
				}
				i = end
			}
		}
	}
	if in == nil {
		return make([]bool, len(toks))
	}
	return in
}

// listFollows reports whether what follows a colon, after, lists what the
// statement before it, before, counts or names ("I speak three
// languages: English, Dutch and Turkish"), rather than stating something
// of its own ("Big news: I got the job"). Its first item has no verb.
func listFollows(before, after []token) bool {
	if len(after) > 0 && len(before) >= 2 && possessiveDeterminers[before[0].lower] && finiteVerb(before, 1, true) < 0 && !subjectPronouns[after[0].lower] {
		return true // "My plans for the weekend: clean the garage and ..."
	}
	if statementVerb(before, true) < 0 && !firstPersonVerb(before) {
		return false
	}
	end := 0
	for end < len(after) && !after[end].punct && after[end].lower != "and" && after[end].lower != "or" {
		end++
	}
	if end == 0 {
		return false
	}
	first := after[0].lower
	return !subjectPronouns[first] && !possessiveDeterminers[first] && !dependentWords[first] &&
		statementVerb(after[:end], true) < 0
}

// firstPersonVerb reports whether toks open with "I" or "we" and a verb:
// "I have", "we've got".
func firstPersonVerb(toks []token) bool {
	i := firstNonAdverb(toks)
	if i < 0 || toks[i].lower != "i" && toks[i].lower != "we" {
		return false
	}
	j := i + 1 + max(0, firstNonAdverb(toks[i+1:]))
	return j < len(toks) && (verbBase(toks[j].lower) != "" || modals[toks[j].lower])
}

// completesAttitude reports whether c, a "when" or "if" clause, is what the
// clause before it likes or hates: "I hate it when people are late", "I
// love when the build is green". Alone, "User hates it" states nothing
// and the condition would be dropped with the rest of the sentence.
func completesAttitude(c, prev clause) bool {
	if conn := lastWord(c.connector); conn != "when" && conn != "if" {
		return false
	}
	toks := trimPunct(prev.toks)
	if n := len(toks); n > 0 && toks[n-1].lower == "it" {
		toks = toks[:n-1]
	}
	n := len(toks)
	return n >= 2 && attitudeVerbs[verbBase(toks[n-1].lower)] && firstNonAdverb(toks) < n-1
}

// attitudeVerbs say what someone likes or hates, and can take a "when"
// clause for their object.
var attitudeVerbs = setOf(`hate love like prefer enjoy dislike adore despise mind appreciate`)

// leadPunct open what follows them: a handle, a tag, an amount, a quote.
var leadPunct = setOf(`@ # $ ' " “ ‘ (`)

// closes reports whether the punctuation p closes a quote or an aside
// that toks open.
func closes(toks []token, p string) bool {
	open := map[string]string{"'": "'", "’": "'", ")": "(", "\"": "\"", "”": "“"}[p]
	if open == "" {
		return false
	}
	for _, t := range toks {
		if t.lower == open && (open == "(" || !t.glued) {
			return true
		}
	}
	return false
}

// asideEnd is the index of the ")" closing the "(" at toks[i] when what
// they enclose has no verb of its own, else 0.
func asideEnd(toks []token, i int) int {
	for j := i + 1; j < len(toks); j++ {
		switch toks[j].lower {
		case "(":
			return 0
		case ")":
			if j == i+1 || statementVerb(toks[i+1:j], true) >= 0 {
				return 0
			}
			for _, t := range toks[i+1 : j] {
				if dependentWords[t.lower] || subjectPronouns[t.lower] {
					return 0
				}
			}
			return j
		}
	}
	return 0
}

// possessiveDeterminers open a noun phrase, not always a clause: "my
// partner and our two cats".
var possessiveDeterminers = setOf(`my our his her their`)

// opensClause reports whether c can stand as a clause of its own after its
// connector.
func opensClause(c clause) bool {
	conn := lastWord(c.connector)
	if (conn == "since" || conn == "until") && statementVerb(c.toks, true) < 0 {
		return false // "since 2015", "until March": a time, not a clause
	}
	if conn == "" || dependentWords[conn] {
		return true
	}
	if (conn == "and" || conn == "or") && len(c.toks) > 0 && (c.toks[0].lower == "\"" || c.toks[0].lower == "“") {
		return false // a quoted title goes on a list: "Amélie" and "The Lives of Others"
	}
	first := firstNonAdverb(c.toks)
	if first < 0 {
		return false
	}
	w := c.toks[first].lower
	switch {
	case possessiveDeterminers[w] && (conn == "and" || conn == "or") && statementVerb(c.toks, true) < 0:
		return false // "I live with my partner and our two cats in Lyon"
	case subjectPronouns[w] || w == "please" || w == "let":
		return true
	case conn == ":" || conn == ";" || conn == "(" || conn == ")" || conn == "—" || conn == "–" || conn == "-":
		return true
	case conn == "," || conn == "\"":
		return false
	case conn == "and" || conn == "or" || conn == "but" || conn == "then":
		// A verb opens a clause sharing the subject ("and work at
		// Google"); an article or number, one sharing subject and verb
		// ("and a dog named Max").
		// A capitalised word is a name, not a verb: "give Pomofocus and
		// Focus Booster a try".
		return verbBase(w) != "" && !isCapitalized(c.toks[first]) || determiners[w] || isNumber(w)
	case conn == "because":
		return w != "of"
	case conn == "so":
		return w != "much" && w != "many" && w != "far" && w != "long" && w != "that"
	}
	return false
}

// opensStatement reports whether c, after a conjunction or comma, is a
// statement with its own subject and verb following one that has a verb:
// "Noor is eight years old and Fleur is five", not "Ben and Alice".
func opensStatement(c, prev clause) bool {
	conn := lastWord(c.connector)
	if conn != "and" && conn != "but" && conn != "or" && conn != "," {
		return false
	}
	v := statementVerb(c.toks, false)
	if v < 0 {
		return false
	}
	if last := trimPunct(c.toks); v == len(last)-1 && strings.HasSuffix(last[v].lower, "s") && conn != "," {
		return false // "or thrift stores": a plural noun, not "thrift" that stores
	}
	for i, t := range prev.toks {
		if b := verbBase(t.lower); i > 0 && b != "" && !strings.HasSuffix(t.lower, "ing") && !nounDeterminers[prev.toks[i-1].lower] && prev.toks[i-1].lower != "'s" {
			return true // "I drink tea", "Noor is eight"
		}
	}
	return false
}

var determiners = setOf(`a an the two three four five six seven eight nine ten several many some`)

func lastWord(s string) string {
	if i := strings.LastIndexByte(s, ' '); i >= 0 {
		return s[i+1:]
	}
	return s
}

func firstNonAdverb(toks []token) int {
	for i, t := range toks {
		if t.punct || adverbs[t.lower] {
			continue
		}
		return i
	}
	return -1
}

func isNumber(w string) bool {
	if w == "" {
		return false
	}
	for _, c := range []byte(w) {
		if !isDigit(c) && c != '.' && c != ',' {
			return false
		}
	}
	return true
}
