package local

import (
	"context"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hippo-mem/hippo"
)

// maxFacts caps how many facts one extraction returns, as the LLM
// extractor does.
const maxFacts = 50

// Extractor is the offline default hippo.Extractor: rules instead of an
// LLM. It splits text into sentences and clauses, keeps the clauses in
// which the user states a fact, preference, decision or trait (with what
// qualifies it: "when", "if", "which" clauses stay with their fact),
// keeps what the user wants of the assistant for good ("always answer in
// Spanish"), drops questions, greetings, one-off requests to the
// assistant and filler, rewrites first person as "User ..." and rates
// each fact's intensity from the signals of seed 000. The zero value is
// ready to use.
type Extractor struct{}

var _ hippo.Extractor = (*Extractor)(nil)

// NewExtractor returns the default extractor.
func NewExtractor() *Extractor { return &Extractor{} }

// ExtractFacts returns the facts stated in text, in order, without
// repeats.
func (x *Extractor) ExtractFacts(ctx context.Context, text string) ([]hippo.Fact, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var all []*extracted
	seen := map[string]bool{}
	var last *extracted        // the latest fact, for elaboration in a later sentence
	var lastClause *clauseFact // its clause, for a pronoun opening a later sentence
	for _, s := range splitSentences(text) {
		facts, cf := extractSentence(s, last, lastClause)
		if cf != nil {
			lastClause = cf
		}
		for _, f := range facts {
			if key := strings.ToLower(f.content); !seen[key] && len(all) < maxFacts {
				seen[key] = true
				all = append(all, f)
				last = f
			}
		}
	}
	all = linkChanges(all)
	// Intensities last: later sentences may have added to the signals.
	facts := make([]hippo.Fact, len(all))
	for i, f := range all {
		facts[i] = hippo.Fact{Content: capitalized(f.content), Intensity: f.sig.intensity(), Replaces: f.replaces}
	}
	return facts, nil
}

// capitalized returns content with its first letter upper case when its
// first word is a common one ("the narrative structure was non-linear"),
// as a sentence starts; a name keeps its case ("iPhone").
func capitalized(content string) string {
	w, _, _ := strings.Cut(content, " ")
	if w == "" || !stopwords[w] && !determiners[w] {
		return content
	}
	return strings.ToUpper(content[:1]) + content[1:]
}

// linkChanges folds "used to X, but now Y" into one current fact: Y, which
// replaces X in the present tense. A past habit with no turn after it
// stays as it was said.
func linkChanges(all []*extracted) []*extracted {
	out := all[:0]
	for _, f := range all {
		if n := len(out); f.turn && n > 0 && out[n-1].former != "" && f.replaces == "" {
			f.replaces = out[n-1].former
			out[n-1] = f
			continue
		}
		out = append(out, f)
	}
	return out
}

var _ hippo.NoFactsExplainer = (*Extractor)(nil)

// NoFactsReason says why text yields no fact, for a caller told "No facts
// extracted": only questions, only greetings and filler, only requests to
// the assistant, or statements about no one. It is meant for a text
// ExtractFacts returned nothing for.
func (x *Extractor) NoFactsReason(text string) string {
	sents := splitSentences(text)
	if len(sents) == 0 {
		return "text is empty or only punctuation"
	}
	var questions, filler, requests int
	for _, s := range sents {
		if s.question {
			questions++
			continue
		}
		toks := trimPunct(stripMarkers(lex(s.text), &signals{}))
		switch {
		case len(toks) == 0:
			filler++
		case isRequest(toks):
			requests++
		}
	}
	n := len(sents)
	switch {
	case questions == n:
		return "text is a question, not a statement"
	case filler == n:
		return "text is empty after removing greetings, thanks and filler"
	case questions+filler+requests == n:
		return "text is a request to the assistant, not a statement about the user or someone named"
	}
	return "no first-person or third-person statement of a fact found"
}

// isRequest reports whether a sentence asks something of the assistant:
// an order ("Write a haiku"), "please", "let's", or words for "you".
func isRequest(toks []token) bool {
	first := toks[0].lower
	if first == "please" || first == "let" || verbBase(first) == first && !hasFiniteBe(toks[1:]) {
		return true
	}
	for _, t := range toks {
		if t.lower == "you" || t.lower == "your" {
			return true
		}
	}
	return false
}

// extracted is one fact with the signals behind its intensity.
type extracted struct {
	content string
	sig     signals
	// replaces is the fact this one ends: "User lives in Paris" for "User
	// moved to Berlin" said as "moved from Paris to Berlin".
	replaces string
	// former is set on a past habit, "User used to prefer VS Code": the
	// fact it no longer is, "User prefers VS Code". A following turn
	// ("but now …") replaces it; alone it stays a fact about the past.
	former string
	// turn: the clause opened with "but" or "now", stating what holds
	// instead of a former state before it.
	turn bool
}

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
		prev, _ := utf8.DecodeLastRuneInString(s[:i])
		for k, part := range expandContraction(word) {
			// A word right after punctuation with no space keeps it so:
			// "e.g.", "U.S.", "ana@example.com".
			glued := part.glued || k == 0 && i > 0 && !unicode.IsSpace(prev) && len(toks) > 0 && toks[len(toks)-1].punct && !clausePunct[toks[len(toks)-1].lower]
			add(part.text, false, glued)
		}
		i = j
	}
	// "'s" and "'d" before "been" are "has" and "had": "she's been";
	// so is "'s" before a participle that only "has" takes: "it's
	// become a habit".
	for i := 0; i+1 < len(toks); i++ {
		switch next := toks[i+1].lower; {
		case (toks[i].lower == "'s" || toks[i].lower == "is") && hasParticiples[next]:
			toks[i] = word("has")
		case toks[i].lower == "would" && next == "been":
			toks[i] = word("had")
		}
	}
	return toks
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

// clause is a stretch of a sentence that may hold one fact.
type clause struct {
	toks      []token
	connector string // the conjunction or punctuation before it
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

	// Glue back pieces that do not open a clause.
	var out []clause
	for _, c := range raw {
		if len(c.toks) == 0 {
			continue
		}
		if len(out) > 0 && (!opensClause(c) && !opensStatement(c, out[len(out)-1]) || completesAttitude(c, out[len(out)-1]) ||
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
	return !hasVerb(append([]token{{}}, prev.toks...))
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
	return len(np) > 0 && !subjectPronouns[np[0].lower] && !hasVerb(append([]token{{}}, np...))
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
		return verbBase(w) != "" || determiners[w] || isNumber(w)
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

// Leading words to drop, with the signal they carry.
var (
	asideMarkers = []string{"oh and", "oh", "by the way", "btw", "just fyi", "fyi", "anyway",
		"side note", "random thought", "fun fact", "incidentally"}
	importanceMarkers = []string{"remember this", "remember that", "please remember", "remember",
		"this is critical", "this is important", "this is crucial", "important", "critical",
		"note", "please note", "for the record", "keep in mind", "never forget", "do not forget"}
	fillerWords = setOf(`hi hello hey yo good morning evening afternoon night ok okay yeah yes yep
		no nope sure thanks thank cheers sorry ugh wow oops hmm um uh well lol haha nice cool
		great awesome alright quick question also so and but honestly actually basically
		anyway now then plus`)
)

// extractSentence returns the facts of one sentence and the clause of its
// last fact. Signals of clauses without a fact go to the fact before them
// in the sentence, or the one after, or else last, the latest fact of an
// earlier sentence: "I can't stand Jenkins. It has broken our builds so
// many times." lastClause, the clause of that fact, is what a pronoun
// opening the sentence may refer to: "My brother is Ruben. He is a lawyer."
// A clause whose pronoun refers to nothing clear stays attached to the
// fact before it in the sentence, so that it is not lost.
func extractSentence(s sentence, last *extracted, lastClause *clauseFact) ([]*extracted, *clauseFact) {
	toks := lex(s.text)
	aboutUser := lastClause != nil && lastClause.asWritten && len(lastClause.subject) == 1 && lastClause.subject[0].text == "User"
	if (aboutUser || s.item) && notesGoOn(toks) {
		// Notes about the user go on without their subject: "The user is
		// a teacher. Prefers short answers.", "- Lives in Berlin".
		toks = append([]token{word("User"), word(toks[0].lower)}, toks[1:]...)
	}
	if impliedI(toks) {
		// "Just got back from a week in Crete": the user, left out.
		if w := toks[0].lower; !isProperNoun(toks[0]) || adverbs[w] || verbBase(w) != "" {
			toks = append([]token{word(w)}, toks[1:]...)
		}
		toks = append([]token{word("I")}, toks...)
	}
	if s.question {
		// "I just adopted a kitten, what should I feed her?": the
		// statements before the question are kept, the question is not.
		if toks = statementsBefore(toks); toks == nil {
			return nil, nil
		}
	}
	opensWithTurn := len(toks) > 0 && turnWords[toks[0].lower]
	var shared signals // markers that apply to the whole sentence
	toks = stripMarkers(toks, &shared)
	toks = neitherNor(toks)
	toks = profileField(toks)
	toks = frontAdverbial(toks)
	shared.bangs = s.bangs

	var facts []*extracted
	var pending signals // from fact-less clauses waiting for a fact
	prev := lastClause
	if lastClause != nil {
		c := *lastClause
		c.earlier = true
		prev = &c
	}
	var lastFact *clauseFact
	// made: the clause before made the sentence's latest fact, which a
	// qualifying clause after it ("when I run") then completes. lead is
	// a qualifying clause opening the sentence ("When I'm stressed, I
	// bake bread"), for the fact of the clause after it.
	// bare is the clause before when it has a subject and a verb but
	// states nothing alone ("I went there"): a qualifying clause after
	// it makes it a fact ("… when my father was ill").
	made, afterQualifier := false, false
	var lead []token
	var bare *clauseFact
	// keepSignals gives a clause's signals to the fact before it in the
	// sentence, or to the first one after it.
	keepSignals := func(sig signals) {
		if len(facts) > 0 {
			facts[len(facts)-1].sig.attach(sig)
		} else {
			pending.merge(sig)
		}
	}
	clauses := splitLead(splitClauses(toks))
	for k, c := range clauses {
		sig := scan(c.toks)
		if afterQualifier && len(facts) > 0 && sharesSubject(lastWord(c.connector)) &&
			(verbFirst(c.toks) || isParticiple(firstWord(c.toks)) && gerundAfterPreposition(lex(facts[len(facts)-1].content))) {
			// The qualifying clause goes on: "not sure if I should get
			// more or try something different".
			f := facts[len(facts)-1]
			f.content += joinClause(c.connector) + render(rewritePronouns(trimPunct(c.toks), lastFact != nil && len(lastFact.subject) == 1 && lastFact.subject[0].text == "User"))
			f.sig.attach(sig)
			continue
		}
		afterQualifier = false
		if q := qualifier(c, k == 0); q != nil {
			switch {
			case made:
				f := facts[len(facts)-1]
				f.content += joinQualifier(c.connector) + renderQualifier(q, lastFact)
				f.sig.attach(sig)
				afterQualifier = true
				continue
			case bare != nil:
				sig.merge(shared)
				if len(facts) == 0 {
					sig.attach(pending)
					pending = signals{}
				}
				content := render(bare.body) + joinQualifier(c.connector) + renderQualifier(q, bare)
				facts = append(facts, &extracted{content: content, sig: sig})
				prev, lastFact, bare, made, afterQualifier = bare, bare, nil, true, true
				continue
			case k == 0:
				lead = q
			}
			made = false
			keepSignals(sig)
			continue
		}
		if k == 0 && len(c.toks) > 0 && concessiveWords[c.toks[0].lower] {
			c.toks = c.toks[1:] // "Although I grew up in Wales, ..."
		}
		cf := rewriteClause(c, prev)
		made, bare = false, nil
		if cf != nil && cf.content == "" && cf.dangling == "" && len(cf.subject) > 0 && cf.verbEnd > len(cf.subject) {
			bare = cf
			var to *extracted
			switch {
			case len(facts) > 0:
				to = facts[len(facts)-1]
			case k == 0:
				to = last
			}
			if to != nil && isUser(cf.subject) && pronounObject(cf.body[cf.verbEnd:]) {
				// What the user feels about what they just said:
				// "I got a Kindle and I love it", "… I hate it so much".
				verb := render(cf.body[len(cf.subject):])
				join := " and "
				if len(facts) > 0 && sharesSubject(lastWord(c.connector)) {
					join = joinClause(c.connector) // "… but did not like it"
				}
				if strings.HasPrefix(to.content, "User ") {
					to.content += join + verb
				} else {
					to.content += join + "User " + verb
				}
				to.sig.attach(sig)
				bare = nil
				continue
			}
			qualified := k+1 < len(clauses) && (qualifier(clauses[k+1], false) != nil || sharesSubject(lastWord(clauses[k+1].connector))) // "but I'm not sure if …"
			v := cf.body[len(cf.subject)+max(0, firstNonAuxiliary(cf.body[len(cf.subject):]))].lower
			if len(facts) > 0 && isUser(cf.subject) && sharesSubject(lastWord(c.connector)) && firstWord(c.toks) == "i" && !qualified &&
				!conversational[verbBase(v)] && !conversational[v] {
				// A verb of the user's with nothing else, after a fact:
				// "I can't have caffeine after 2 pm or I won't sleep".
				f := facts[len(facts)-1]
				f.content += joinClause(c.connector) + render(rewritePronouns(trimPunct(c.toks), true))
				f.sig.attach(sig)
				bare = nil
				continue
			}
		}
		if cf != nil && cf.dangling != "" {
			prev = nil // its subject is not the one before it
			if len(facts) > 0 {
				// "I have an uncle in Lagos and he runs a restaurant":
				// the clause stays with the fact it continues.
				facts[len(facts)-1].content += joinClause(c.connector) + cf.dangling
			} else if k == 0 && last != nil && goesOnAbout(cf.dangling) {
				// A sentence going on about the fact before it: "I bought
				// a rowing machine. It has made a huge difference."
				last.content += "; " + cf.dangling
			}
			keepSignals(sig)
			continue
		}
		if cf == nil || cf.content == "" {
			// A clause with a subject keeps it for "and ..." clauses;
			// one with none ends the subject before it: "It looks nice
			// and helps my back" is not about the user.
			prev = cf
			keepSignals(sig)
			continue
		}
		prev, lastFact = cf, cf
		sig.merge(shared)
		sig.identity = sig.identity || cf.identity
		if cf.hedged {
			sig.hedges++
		}
		f := &extracted{content: cf.content, sig: sig, replaces: cf.replaces, former: cf.former}
		if lead != nil {
			f.content += " " + renderQualifier(lead, cf)
			lead = nil
		}
		made = true
		f.turn = k == 0 && opensWithTurn || isTurn(c)
		if len(facts) == 0 {
			f.sig.attach(pending)
			pending = signals{}
		}
		facts = append(facts, f)
	}
	if len(facts) == 0 && last != nil {
		// Elaboration of the previous sentence's fact.
		if pending.strong() > 0 {
			last.sig.attach(pending)
		}
	}
	return facts, lastFact
}

// statementsBefore returns the part of a question before the question
// itself when the user states something first: "I just adopted a kitten"
// of "I just adopted a kitten, what should I feed her?". The question
// starts after a comma or conjunction, at a question word ("what",
// "can"), "any tips" or "I was wondering". A question with no statement
// of the user's first ("So I need to restart it?") returns nil.
func statementsBefore(toks []token) []token {
	i := firstNonAdverb(toks)
	if i < 0 {
		return nil
	}
	if w := toks[i].lower; w != "i" && w != "my" && w != "we" && w != "our" {
		return nil
	}
	for j := i + 2; j+1 < len(toks); j++ {
		if questionWords[toks[j].lower] && isCapitalized(toks[j]) && !toks[j-1].punct {
			return toks[:j] // "I'm learning the banjo Can you recommend …": a stop left out
		}
		if w := toks[j].lower; w != "," && w != ";" && w != "-" && w != "—" && !clauseWords[w] {
			continue
		}
		k := j + 1
		if clauseWords[toks[k].lower] {
			k++
		}
		if k >= len(toks) {
			break
		}
		w := toks[k].lower
		wondering := w == "i" && k+2 < len(toks) && (conversational[toks[k+1].lower] || conversational[toks[k+2].lower])
		if questionWords[w] || askingWords[w] || wondering {
			return toks[:j]
		}
	}
	return nil
}

// askingWords open a question with no question word: "any tips?", "thoughts?"
var askingWords = setOf(`any anything thoughts ideas suggestions tips advice`)

// splitLead splits a qualifying clause opening a sentence with no comma
// after it from the statement that follows: "When I was a student I
// worked in a bar" is "When I was a student" and "I worked in a bar".
// The statement starts at the first "I" or "we" after the qualifying
// clause's own subject and verb.
func splitLead(cs []clause) []clause {
	if len(cs) == 0 || cs[0].connector != "" {
		return cs
	}
	toks := cs[0].toks
	if len(toks) < 5 || !qualifierWords[toks[0].lower] || toks[0].lower == "which" {
		return cs
	}
	for j := 3; j+1 < len(toks); j++ {
		if w := toks[j].lower; (w == "i" || w == "we") && toks[j-1].lower != "that" && hasVerb(toks[1:j]) {
			out := []clause{{toks: toks[:j]}, {toks: toks[j:], connector: ","}}
			return append(out, cs[1:]...)
		}
	}
	return cs
}

// hasVerb reports whether toks hold a verb after their first word.
func hasVerb(toks []token) bool {
	for _, t := range toks[1:] {
		if verbBase(t.lower) != "" || modals[t.lower] {
			return true
		}
	}
	return false
}

// adverbialLeads open a phrase of time or place before the subject:
// "On Sundays I cook", "Last year, I moved to Spain".
var adverbialLeads = setOf(`on in at during after before for every last next this these each most
	yesterday today tomorrow tonight recently lately nowadays as growing back over since until`)

// leadingHedges open a clause the speaker is unsure of: "Maybe I'll go".
var leadingHedges = setOf(`maybe perhaps probably possibly hopefully`)

// timeAdverbs are a time on their own: "Yesterday I bought a bike".
var timeAdverbs = setOf(`yesterday today tomorrow tonight recently lately nowadays`)

// frontAdverbial moves a phrase of time or place that opens a sentence,
// before "I", "we", "my" or "our", to its end: "On Sundays I cook" is "I
// cook on Sundays", "Last year, I moved to Spain" "I moved to Spain last
// year". The phrase has no verb and at most five words.
func frontAdverbial(toks []token) []token {
	if len(toks) < 3 || !adverbialLeads[toks[0].lower] {
		return toks
	}
	j := -1
	for k := 1; k < len(toks) && k <= 6; k++ {
		w := toks[k].lower
		if w == "i" || w == "we" || w == "my" || w == "our" {
			j = k
			break
		}
		if subjectPronouns[w] || w == "you" || w == "your" || modals[w] || toks[k].punct && w != "," && w != "'s" && w != "'" {
			return toks
		}
	}
	if j < 0 || j+1 >= len(toks) {
		return toks
	}
	phrase := trimPunct(toks[:j])
	if len(phrase) == 1 && !timeAdverbs[phrase[0].lower] || len(phrase) == 0 || len(phrase) > 5 || !hasContent(append([]token{word(phrase[0].lower)}, phrase[1:]...)) && !isNumber(phrase[len(phrase)-1].lower) && !timeUnits[phrase[len(phrase)-1].lower] && !timeAdverbs[phrase[0].lower] {
		return toks // "Since I moved here, …", "As for my …" are no phrase
	}
	for _, t := range phrase[1:] {
		if b := verbBase(t.lower); b == "be" || b == "have" || modals[t.lower] || b != "" && strings.HasSuffix(t.lower, "ed") {
			return toks
		}
	}
	rest := toks[j:]
	end := len(rest)
	for end > 0 && rest[end-1].punct && !closes(rest[:end-1], rest[end-1].lower) {
		end--
	}
	out := append([]token{}, rest[:end]...)
	lead := phrase[0]
	if !isProperNoun(lead) || adverbialLeads[lead.lower] {
		lead = word(lead.lower)
	}
	out = append(out, lead)
	out = append(out, phrase[1:]...)
	return append(out, rest[end:]...)
}

// relativeStops end a subject: a verb after them is not its verb ("digital
// coupons to see what is available").
var relativeStops = setOf(`what where how why to`)

// hasParticiples follow "has", never "is": "it's become", "she's got".
var hasParticiples = setOf(`been become got gotten had`)

// profileField rewrites a field of a profile, "Occupation: civil
// engineer" or "Allergies: shellfish and latex", as the user's: "my
// occupation is civil engineer", "my allergies are shellfish and latex".
// The field is one to three words; its value has no verb and opens with
// no pronoun, so "Big news: I got the job" is left as it is.
func profileField(toks []token) []token {
	colon := -1
	lead := ownerLead(toks)
	if lead < 2 {
		lead = 0 // "My goals: …" is a list of the user's, kept as written
	}
	for i := 1; i < len(toks) && i <= 3+lead; i++ {
		if toks[i].lower == ":" {
			colon = i
			break
		}
		if toks[i].punct {
			return toks
		}
	}
	if colon < 0 || colon+1 >= len(toks) || toks[0].punct {
		return toks
	}
	key, value := toks[:colon], trimPunct(toks[colon+1:])
	if lead > 0 && lead < len(key) {
		key = key[lead:] // "User's preferred IDE: VS Code"
	}
	for _, t := range key {
		if subjectPronouns[t.lower] || stopwords[t.lower] && t.lower != "name" {
			return toks
		}
	}
	if len(value) == 0 || subjectPronouns[value[0].lower] || questionWords[value[0].lower] ||
		!hasContent(value) || hasVerb(append([]token{{}}, value...)) && statementVerb(value, true) >= 0 {
		return toks
	}
	for _, t := range value {
		if t.lower == "i" || t.lower == "you" || modals[t.lower] || verbBase(t.lower) == "be" {
			return toks
		}
	}
	be := "is"
	if last := key[len(key)-1].lower; strings.HasSuffix(last, "s") && !strings.HasSuffix(last, "ss") {
		be = "are"
	}
	out := []token{word("my")}
	for i, t := range key {
		if i == 0 && !isShouted(t) {
			t = word(t.lower) // "Preferred language", not "IDE"
		}
		out = append(out, t)
	}
	out = append(out, word(be))
	return append(out, toks[colon+1:]...)
}

// writersWords rewrites the first person in a note about the user as
// the one who wrote it, the assistant: "The user told me to avoid
// jargon" is "User told the assistant to avoid jargon".
func writersWords(toks []token) []token {
	quoted := quotedSpans(toks)
	return asAssistant(toks, func(i int, t token) bool {
		if quoted[i] {
			return false
		}
		return t.lower == "me" || t.lower == "my" || t.lower == "i" && i > 0
	})
}

// asAssistant rewrites the words of toks that pick names as the
// assistant: "you" or "me" as "the assistant", "your" or "my" as "the
// assistant's", "yourself" as "itself".
func asAssistant(toks []token, pick func(i int, t token) bool) []token {
	out := make([]token, 0, len(toks)+2)
	for i, t := range toks {
		if !pick(i, t) {
			out = append(out, t)
			continue
		}
		switch t.lower {
		case "your", "my":
			out = append(out, word("the"), word("assistant"), possessive())
		case "yourself":
			out = append(out, word("itself"))
		default:
			out = append(out, word("the"), word("assistant"))
		}
	}
	return out
}

// relativeObject returns the relative the user has, from after "has":
// "has a sister" gives "sister", "has an older brother" "older brother";
// nil for anything else.
func relativeObject(rest []token, pronoun string) []token {
	if len(rest) < 3 || rest[0].lower != "has" {
		return nil
	}
	plural := rest[1].lower != "a" && rest[1].lower != "an" && rest[1].lower != "one"
	if !determiners[rest[1].lower] && !isNumber(rest[1].lower) && rest[1].lower != "one" || plural != (pronoun == "they") {
		return nil // "I have two sisters. They …", "I have a sister. She …"
	}
	np := rest[2:]
	for i, t := range np {
		if t.punct || i > 2 {
			return nil
		}
		if w := lemma(t.lower); relatives[w] || pets[w] {
			return np[:i+1]
		}
	}
	return nil
}

// pets are what "he", "she" or "they" may be besides people: "I have a
// dog. He is called Max."
var pets = setOf(`dog cat puppy kitten rabbit hamster horse parrot budgie tortoise turtle`)

// ownerLead is the length of a lead naming the user as owner: "User's",
// "The user's", "My", "Our"; else 0.
func ownerLead(toks []token) int {
	switch {
	case len(toks) > 0 && (toks[0].lower == "my" || toks[0].lower == "our"):
		return 1
	case len(toks) > 1 && toks[0].lower == "user" && toks[1].lower == "'s":
		return 2
	case len(toks) > 2 && toks[0].lower == "the" && toks[1].lower == "user" && toks[2].lower == "'s":
		return 3
	}
	return 0
}

// neitherNor rewrites "Neither my wife nor I drink alcohol" as "my wife
// and I do not drink alcohol", which the subject-of-two rule reads.
func neitherNor(toks []token) []token {
	if len(toks) < 5 || toks[0].lower != "neither" {
		return toks
	}
	nor := -1
	for i, t := range toks {
		if t.punct {
			return toks
		}
		if t.lower == "nor" {
			nor = i
			break
		}
	}
	if nor < 2 {
		return toks
	}
	v := -1
	for j := nor + 2; j < len(toks) && v < 0; j++ {
		if w := toks[j].lower; verbBase(w) != "" || modals[w] {
			v = j
		}
	}
	if v < 0 {
		return toks
	}
	out := append(append([]token{}, toks[1:nor]...), word("and"))
	out = append(out, toks[nor+1:v]...)
	switch w := toks[v].lower; {
	case modals[w] || verbBase(w) == "be":
		out = append(out, toks[v], word("not"))
	case verbBase(w) != w && !strings.HasSuffix(w, "s"):
		out = append(out, word("did"), word("not"), word(verbBase(w)))
	default:
		out = append(out, word("do"), word("not"), word(verbBase(w)))
	}
	return append(out, toks[v+1:]...)
}

// qualifier returns a clause that says when, on what condition or of what
// the clause before it holds, from its qualifying word on ("when I run",
// "which I charge at work"), or nil. At the start of a sentence (first),
// the word opens the clause ("When I'm stressed, ..."). A clause that
// speaks to the assistant or holds nothing is no qualifier of a fact.
func qualifier(c clause, first bool) []token {
	toks := trimPunct(c.toks)
	conn := lastWord(c.connector)
	switch {
	case qualifierWords[conn]:
		toks = append([]token{word(conn)}, toks...)
	case !first || c.connector != "" || len(toks) < 2 || !qualifierWords[toks[0].lower] || toks[0].lower == "which":
		return nil
	}
	if !hasContent(toks[1:]) || toks[0].lower == "which" && (isJudgement(toks[1:]) || isComment(toks[1:])) {
		return nil // "which is sad": the signals of the fact before
	}
	for _, t := range toks {
		if t.lower == "you" || t.lower == "your" {
			return nil
		}
	}
	return toks
}

// commentWords say how the speaker feels about what they said: "which
// is sad", "which is a shame".
var commentWords = setOf(`sad shame pity annoying unfortunate funny weird ironic frustrating
	amazing awesome terrible awful hilarious lucky unlucky`)

// isComment reports whether toks, after "which", only comment on what came
// before: a form of "be" and a word of commentWords.
func isComment(toks []token) bool {
	i := firstNonAdverb(toks)
	if i < 0 || verbBase(toks[i].lower) != "be" {
		return false
	}
	for _, t := range toks[i+1:] {
		if commentWords[t.lower] {
			return true
		}
	}
	return false
}

// renderQualifier renders a qualifying clause, its word first, as part of
// the fact of cf: the user's "I" is "they" in a fact about the user ("User
// listens to podcasts when they run") and "User" in any other
// ("User's grandmother passed away when User was twelve").
func renderQualifier(q []token, cf *clauseFact) string {
	user := cf != nil && len(cf.subject) == 1 && cf.subject[0].text == "User"
	return q[0].lower + " " + render(rewritePronouns(q[1:], user))
}

// joinQualifier is what comes between a fact and a qualifying clause
// after it: a comma when one stood before the qualifying word ("…
// car, which I charge at work"), else a space.
func joinQualifier(connector string) string {
	if strings.HasPrefix(connector, ",") {
		return ", "
	}
	return " "
}

// joinClause is what joins a clause kept attached to the fact before it:
// its conjunction (" and "), or a comma or semicolon for punctuation.
func joinClause(connector string) string {
	w := lastWord(connector)
	switch {
	case w == "":
		return "; "
	case w == ",":
		return ", "
	case clausePunct[w] || w == "-":
		return "; "
	}
	return " " + w + " "
}

// turnWords open a clause that says what holds now, after a former state:
// "but now I use Neovim", "Now I live in Lyon".
var turnWords = setOf(`but now nowadays currently today`)

// isTurn reports whether c states what holds instead of what was said
// before it: it follows "but", or opens with "now" ("now I use", "I now
// use", "these days I use"), and says nothing like "also" or "still".
func isTurn(c clause) bool {
	for _, t := range c.toks {
		if t.lower == "also" || t.lower == "still" || t.lower == "too" {
			return false // "but I also love football": added, not instead
		}
	}
	if strings.Contains(c.connector, "but") {
		return true
	}
	for i, t := range c.toks {
		switch {
		case turnWords[t.lower] || t.lower == "these" && i+1 < len(c.toks) && c.toks[i+1].lower == "days":
			return true
		case t.punct || adverbs[t.lower] || t.lower == "i" || t.lower == "we":
			continue
		}
		return false
	}
	return false
}

// stripMarkers removes leading greetings, asides and importance markers,
// recording their signals in sig.
func stripMarkers(toks []token, sig *signals) []token {
	for {
		for len(toks) > 0 && toks[0].punct {
			toks = toks[1:]
		}
		if len(toks) == 0 {
			return toks
		}
		if n := matchPhrase(toks, asideMarkers); n > 0 {
			sig.aside = true
			toks = toks[n:]
			continue
		}
		if n := matchPhrase(toks, importanceMarkers); n > 0 && n < len(toks) && toks[n].punct {
			sig.importance++
			toks = toks[n:]
			continue
		}
		// A single filler word followed by punctuation or by "I".
		if fillerWords[toks[0].lower] && (len(toks) == 1 || toks[1].punct || toks[1].lower == "i" || fillerWords[toks[1].lower]) {
			toks = toks[1:]
			continue
		}
		return toks
	}
}

// matchPhrase returns the number of tokens of the first phrase that toks
// start with, or 0.
func matchPhrase(toks []token, phrases []string) int {
	for _, p := range phrases {
		words := strings.Fields(p)
		if len(words) > len(toks) {
			continue
		}
		ok := true
		for i, w := range words {
			if toks[i].lower != w {
				ok = false
				break
			}
		}
		if ok {
			return len(words)
		}
	}
	return 0
}

// clauseFact is the fact of one clause, rewritten in the third person.
type clauseFact struct {
	content string
	subject []token // the rewritten subject: "User", "User's wife"
	verbEnd int     // in body: the end of subject, auxiliaries and verb
	// np and npVerbEnd are, in body, the ends of the whole subject and of
	// its auxiliaries and verb, which a clause that shares them takes: a
	// possessive subject goes on to the verb ("User's old car" in "User's
	// old car was red"); any other subject is subject itself.
	np, npVerbEnd int
	body          []token // the rewritten clause
	identity      bool
	hedged        bool
	// asWritten: the clause was in the third person already ("The user
	// lives in Toronto", "Alice works at Google"), so a clause sharing its
	// subject keeps its verbs as they are.
	asWritten bool
	former    string // see extracted
	replaces  string // see extracted
	// earlier: the clause ended an earlier sentence. A pronoun opening a
	// sentence may refer to what it said the user has ("I have a
	// sister. She lives in Rome."); within one sentence, "and she" after
	// it stays attached to it.
	earlier bool
	// dangling is set, with no content, on a clause whose subject is a
	// pronoun with no clear referent: the clause as it would read
	// attached to the fact before it, "he runs a restaurant there".
	dangling string
}

// conversational verbs talk about the conversation, not the user.
var conversational = setOf(`mean meant said say asked ask wonder wondering wondered apologize apologise apologizes apologises apologized apologised`)

// rewriteClause turns a clause into a fact about the user, or returns nil
// when it holds none. A clause with a subject but no fact returns a
// clauseFact with empty content, so that a following "and ..." can share
// its subject.
func rewriteClause(c clause, prev *clauseFact) *clauseFact {
	toks := trimPunct(c.toks)
	conn := lastWord(c.connector)
	if qualifierWords[conn] {
		return nil
	}
	// Leading discourse words.
	for len(toks) > 0 && (toks[0].lower == "now" || toks[0].lower == "then" || toks[0].lower == "also" ||
		toks[0].lower == "honestly" || toks[0].lower == "actually" || toks[0].lower == "so" ||
		toks[0].lower == "and" || toks[0].lower == "but" || toks[0].lower == "basically" || toks[0].punct) {
		toks = toks[1:]
	}
	if len(toks) == 0 {
		return nil
	}
	if len(toks) > 2 && leadingHedges[toks[0].lower] && (subjectPronouns[toks[1].lower] || toks[1].lower == "user") {
		// "Maybe I'll check out the garden": a hedge before the subject.
		if cf := rewriteClause(clause{toks: toks[1:], connector: c.connector}, prev); cf != nil {
			cf.hedged = true
			return cf
		}
		return nil
	}
	if n := len(toks); n > 3 && toks[n-2].lower == "i" && hedgeVerbs[toks[n-1].lower] {
		// "My tablet runs Windows I think": a hedge at the end.
		if cf := rewriteClause(clause{toks: toks[:n-2], connector: c.connector}, prev); cf != nil {
			cf.hedged = true
			return cf
		}
		return nil
	}
	if n := memoLead(toks); n > 0 {
		// "Remember that I prefer metric units": what to remember.
		return rewriteClause(clause{toks: toks[n:], connector: c.connector}, prev)
	}
	if name := calledName(toks); name != nil {
		// "Call me Sam", "You can call me Jo": the name the user goes by.
		return finish([]token{word("User"), possessive()}, append([]token{word("name"), word("is")}, name...))
	}
	if n := matchPhrase(toks, opinionLeads); n > 0 {
		// "For me, the best editor is Vim": the user's opinion.
		rest := toks[n:]
		for len(rest) > 0 && rest[0].punct {
			rest = rest[1:]
		}
		if len(rest) > 1 && statementVerb(rest, true) >= 0 {
			if !isProperNoun(rest[0]) {
				rest = append([]token{word(rest[0].lower)}, rest[1:]...)
			}
			return finish([]token{word("User"), word("thinks")}, rest)
		}
	}
	if body := assistantWish(toks); body != nil {
		// "I'd like you to reply in Spanish", "Never suggest peanuts":
		// how the user wants to be answered, from now on.
		return finish([]token{word("User")}, body)
	}
	quoted := quotedSpans(toks)
	for i, t := range toks {
		if (t.lower == "you" || t.lower == "your" || t.lower == "yours") && !quoted[i] {
			return nil // about or for the assistant
		}
	}
	first := toks[0].lower
	var subject, rest []token
	switch {
	case first == "user" && len(toks) > 1 || first == "the" && len(toks) > 2 && toks[1].lower == "user":
		// Already in the third person: "The user prefers dark mode",
		// "User's favorite language is Rust".
		i := 1
		if first == "the" {
			i = 2
		}
		subject = []token{word("User")}
		if toks[i].lower == "'s" {
			subject = append(subject, possessive())
			i++
		} else if j := firstNonAdverb(toks[i:]); j < 0 || verbBase(toks[i+j].lower) == "" && !modals[toks[i+j].lower] && !negations[toks[i+j].lower] {
			return plainStatement(toks) // "the user interface is slow": not about the user
		}
		if len(subject) == 1 && i+1 < len(toks) && reportingVerbs[verbBase(toks[i].lower)] {
			// "The user mentioned that they have two dogs": what the user
			// said of themselves, as if said in the first person.
			j := i + 1
			if toks[j].lower == "that" {
				j++
			}
			if cf := rewriteClause(clause{toks: firstPersonOf(toks[j:]), connector: c.connector}, prev); cf != nil && cf.content != "" {
				return cf
			}
		}
		cf := finish(subject, writersWords(toks[i:]))
		cf.asWritten = true
		return cf
	case namedPairLen(toks) > 0:
		// The user and someone named: "Anna and I went to Rome".
		n := namedPairLen(toks)
		subject = append([]token{word("User"), word("and")}, toks[:n]...)
		cf := finish(subject, toks[n+2:])
		cf.asWritten = true
		return cf
	case namedSubject(toks) > 0:
		// Someone else, by name: "Alice is a software engineer at Google".
		n := namedSubject(toks)
		cf := finish(toks[:n], toks[n:])
		cf.asWritten = true
		return cf
	case first == "i" && len(toks) > 1 && hedgeVerbs[toks[1].lower] && (len(toks) == 2 || toks[2].lower == "i" || toks[2].lower == "that" && len(toks) > 3 && toks[3].lower == "i"):
		// "I guess I kind of like jazz": drop the hedge.
		inner := toks[2:]
		if len(inner) > 0 && inner[0].lower == "that" {
			inner = inner[1:]
		}
		cf := rewriteClause(clause{toks: inner}, prev)
		if cf != nil {
			cf.hedged = true
		}
		return cf
	case first == "i" && conn == "and" && len(toks) > 1 && prev != nil && prev.content == "" && prev.dangling == "" &&
		len(prev.subject) > 0 && prev.subject[len(prev.subject)-1].lower == "'s" &&
		prev.np == len(prev.subject) && len(prev.body) > len(prev.subject):
		// A subject of two: "My wife and I have been together for ten
		// years" is about both, and its verb agrees with both already.
		subject = append([]token{word("User"), word("and")}, prev.body...)
		cf := finish(subject, toks[1:])
		cf.asWritten = true
		return cf
	case first == "i" || first == "we":
		subject = []token{word("User")}
		rest = conjugate(toks[1:])
		if n := len(trimPunct(rest)); n >= 2 && rest[n-2].lower == "to" && conversational[verbBase(rest[n-1].lower)] {
			return nil // "I want to ask, …", "I just want to say"
		}
		if i := firstNonAdverb(rest); i >= 0 && (conversational[rest[i].lower] || conversational[verbBase(rest[i].lower)]) {
			return nil
		}
	case first == "my" || first == "our":
		subject = []token{word("User"), possessive()}
		rest = toks[1:]
	case referringPronouns[first] && len(toks) > 1:
		return resolvePronoun(toks, prev)
	case possessivePronouns[first] != "" && len(toks) > 1:
		// "and her husband is Italian": the husband of whom "she" is.
		if ref := referent(prev, possessivePronouns[first]); ref != nil {
			cf := finish(append(ref, possessive()), toks[1:])
			cf.asWritten = true
			return cf
		}
		return resolvePronoun(toks, nil)
	case first == "this" || first == "that" || first == "these" || first == "those" || first == "there":
		return plainStatement(toks) // "That laptop is mine", "There is a park", not "That is all"
	case subjectPronouns[first] || first == "these" || first == "those" || first == "let" || first == "please":
		return nil
	case questionWords[first] && !(sharesSubject(conn) && prev != nil && len(prev.subject) > 0 && verbBase(first) != ""):
		return nil // a question, not "and is training for a marathon"
	case (sharesSubject(conn) || conn == ";" && prev != nil && prev.asWritten && thirdPersonVerb(toks)) && prev != nil && len(prev.subject) > 0 &&
		statementVerb(toks, false) < 0: // not "and the nearest shop is ten miles away"
		i := firstNonAdverb(toks)
		if i < 0 {
			return nil
		}
		w := toks[i].lower
		if v := i + max(0, firstNonAuxiliary(toks[i:])); v < len(toks) && (conversational[toks[v].lower] || conversational[verbBase(toks[v].lower)]) {
			return nil // "and was wondering if you could help"
		}
		user := len(prev.subject) == 1 && prev.subject[0].text == "User"
		nounAfterI := user && !prev.asWritten && thirdPersonVerb(toks[i:])
		if user && !prev.asWritten && verbBase(w) == w && !isParticiple(w) && listOfVerbs(prev.body) {
			// The last verb of a list: "I cook, clean and do the
			// laundry". It stays with the list.
			return &clauseFact{dangling: render(rewritePronouns(conjugate(toks), true))}
		}
		pairedParticiple := strings.HasSuffix(w, "ed") && len(prev.body) > 0 && strings.HasSuffix(prev.body[len(prev.body)-1].lower, "ed")
		if nounAfterI || pairedParticiple || isParticiple(w) && (gerundAfterPreposition(prev.body) || infinitiveIn(prev.body)) ||
			verbBase(w) == w && !isParticiple(w) && infinitiveIn(prev.body) {
			// A gerund, an infinitive or a participle goes on: "thinking
			// about selling my car or lending it", "want to learn
			// Portuguese and visit Brazil", "feeling more energized and
			// focused". It stays with the fact before it.
			return &clauseFact{dangling: render(rewritePronouns(toks, user))}
		}
		if isParticiple(w) {
			if aux := progressiveAux(prev.body, len(prev.subject)); aux > 0 {
				// Shared subject and auxiliary: "I'm reading a book and
				// watching TV".
				body := append(append([]token{}, prev.body[:aux]...), toks...)
				cf := finish(prev.subject, body[len(prev.subject):])
				cf.asWritten = prev.asWritten
				return cf
			}
			// The last item of a list: "I go running, swimming and
			// cycling every week". It stays with the fact before it.
			return &clauseFact{dangling: render(toks)}
		}
		if (determiners[w] || isNumber(w)) && ownStatement(toks) {
			// A statement of its own after all: "but the repair shop
			// replaced the battery".
			return plainStatement(toks)
		}
		if (determiners[w] || isNumber(w)) && (gerundAfterPreposition(prev.body) || infinitiveIn(prev.body) || objectOfPreposition(prev.body)) {
			// What a gerund or an infinitive takes goes on: "thinking of
			// buying a tent or a hammock".
			return &clauseFact{dangling: render(rewritePronouns(toks, user))}
		}
		if determiners[w] || isNumber(w) {
			// Shared subject and verb: "I have two kids and a dog", "my
			// sister has a cat and a dog".
			body := append(append([]token{}, prev.body[:prev.npVerbEnd]...), toks...)
			cf := finish(prev.subject, body[len(prev.subject):])
			cf.asWritten = prev.asWritten
			return cf
		}
		// Shared subject: "I live in Utrecht and work at the hospital",
		// "my flat is on the fourth floor and has no lift". Only the
		// user's own verbs ("work") agree with "I" and need the third
		// person; a possessive subject's already have it ("has").
		subject = prev.body[:prev.np]
		rest = toks
		if m := prev.np; conn != "but" && m < len(prev.body) && modals[prev.body[m].lower] && verbBase(w) == w && !isParticiple(w) &&
			(m+1 == len(prev.body) || !negations[prev.body[m+1].lower]) {
			// Shared subject and modal: "I'll email the landlord and
			// then call the plumber" is "User will call the plumber".
			rest = append([]token{prev.body[m]}, toks...)
		} else if !prev.asWritten && len(subject) == 1 && subject[0].text == "User" {
			rest = conjugate(toks)
		}
		if cf := finish(subject, rest); cf.content != "" || !hasContent(toks) {
			return cf
		}
		// No statement of its own, the last item of a list: "I love
		// hiking, cycling and swimming". It stays with the fact before
		// it rather than being lost, a verb agreeing with "User" ("…
		// after a while and stretches").
		if verbBase(w) == w && !isParticiple(w) {
			return &clauseFact{dangling: render(rest)}
		}
		return &clauseFact{dangling: render(toks)}
	case verbBase(first) == first && !hasFiniteBe(toks[1:]):
		return nil // an imperative: "Write a haiku", "Remember this"
	default:
		// A statement about something else counts when it is the user's
		// opinion: "Tailwind is amazing". Any other statement is kept as
		// it was said: "Noor is eight years old".
		if !hasOpinion(toks) {
			return plainStatement(toks)
		}
		if statementVerb(toks, true) < 0 {
			// A fragment, "- exhausted but proud!": it stays with the
			// fact before it rather than read as an opinion.
			return &clauseFact{dangling: render(rewritePronouns(toks, true))}
		}
		subject = []token{word("User"), word("thinks")}
		rest = toks
		if !isProperNoun(toks[0]) {
			rest = append([]token{word(toks[0].lower)}, toks[1:]...)
		}
	}
	return finish(subject, rest)
}

// opinionLeads say that what follows is the speaker's opinion.
var opinionLeads = []string{"for me", "to me", "in my opinion", "in my view", "imo", "personally"}

// standingLeads say that an order holds from now on.
var standingLeads = []string{"from now on", "going forward", "in future", "in the future"}

// wishVerbs say what the user wants of the assistant: "I want you to".
var wishVerbs = setOf(`want like prefer need expect`)

// assistantWish returns, after "User", what the user wants of the
// assistant for good: "I'd like you to always reply in English" ("would
// like the assistant to always reply in English"), or an order that says
// always or never ("Never suggest recipes with peanuts": "wants the
// assistant to never suggest recipes with peanuts"). A one-off order
// ("Write a haiku") or anything else returns nil.
func assistantWish(toks []token) []token {
	var body []token
	switch i := firstNonAdverb(toks); {
	case i >= 0 && toks[i].lower == "i":
		j := i + 1
		for j < len(toks) && (adverbs[toks[j].lower] || modals[toks[j].lower]) {
			j++
		}
		if j+2 >= len(toks) || !wishVerbs[verbBase(toks[j].lower)] || toks[j+1].lower != "you" || toks[j+2].lower != "to" {
			return nil
		}
		body = conjugate(toks[i+1:])
	default:
		k := 0
		if n := matchPhrase(toks, standingLeads); n > 0 {
			k = n // "From now on, always answer in French"
		}
		for k < len(toks) && (toks[k].lower == "please" || toks[k].lower == ",") {
			k++
		}
		if k+1 >= len(toks) || toks[k].lower != "always" && toks[k].lower != "never" {
			return nil
		}
		if v := toks[k+1].lower; verbBase(v) != v || v == "be" && k+2 >= len(toks) {
			return nil
		}
		body = append([]token{word("wants"), word("you"), word("to"), word(toks[k].lower)}, toks[k+1:]...)
	}
	return asAssistant(body, func(_ int, t token) bool {
		return t.lower == "you" || t.lower == "your" || t.lower == "yourself"
	})
}

// thirdPersonVerb reports whether toks open with a verb in the third
// person, as notes written about the user go on: "…; prefers concise
// answers".
func thirdPersonVerb(toks []token) bool {
	w := firstWord(toks)
	b := verbBase(w)
	return b != "" && b != w && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss")
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

// listOfVerbs reports whether body holds a comma and a verb after it:
// "User cooks, cleans".
func listOfVerbs(body []token) bool {
	for i := 0; i+1 < len(body); i++ {
		if w := body[i+1].lower; body[i].lower == "," && verbBase(w) != "" && verbBase(w) != w && !isParticiple(w) {
			return true
		}
	}
	return false
}

// ownStatement reports whether toks, opening with an article or a
// number, state something of their own in the past or present: "the
// tickets sold out", not "a dog named Max".
func ownStatement(toks []token) bool {
	v := statementVerb(toks, true)
	return v > 0 && !participleAdjectives[toks[v].lower]
}

// participleAdjectives describe a noun rather than say what it did: "a
// dog named Max", "a company based in Oslo".
var participleAdjectives = setOf(`named called born based located known made built`)

// objectOfPreposition reports whether body ends with a noun phrase after
// a preposition, which "and the …" goes on: "went to the bakery and the
// post office", "like the black jeans and the white shirt".
func objectOfPreposition(body []token) bool {
	for i := len(body) - 1; i > 0; i-- {
		w := body[i].lower
		if body[i].punct || verbBase(w) != "" && !determiners[w] {
			return false
		}
		if determiners[w] || possessiveDeterminers[w] {
			return gerundPrepositions[body[i-1].lower] || body[i-1].lower == "to" || body[i-1].lower == "like" || body[i-1].lower == "with"
		}
	}
	return false
}

// gerundPrepositions come before a gerund that a list may go on: "by
// cooking at home and cycling everywhere".
var gerundPrepositions = setOf(`of about by for in on from without at into after before`)

// gerundAfterPreposition reports whether body's last -ing word follows a
// preposition: "thinking about selling my car".
func gerundAfterPreposition(body []token) bool {
	for i := len(body) - 1; i > 0; i-- {
		// Any -ing word after a preposition, known to the lexicon or
		// not: "before showering".
		if w := body[i].lower; isParticiple(w) || len(w) > 5 && strings.HasSuffix(w, "ing") && gerundPrepositions[body[i-1].lower] {
			return gerundPrepositions[body[i-1].lower]
		}
	}
	return false
}

// infinitiveIn reports whether body holds "to" and a verb's base form,
// which a verb after "and" continues: "wants to learn Portuguese".
func infinitiveIn(body []token) bool {
	for i := 0; i+1 < len(body); i++ {
		if body[i].lower != "to" {
			continue
		}
		if w := body[i+1].lower; verbBase(w) == w && !isParticiple(w) || i > 0 && catenative[verbBase(body[i-1].lower)] && !body[i+1].punct {
			return true
		}
	}
	return false
}

// catenative verbs take an infinitive: "try to approach it calmly",
// whatever verb follows, known to the lexicon or not.
var catenative = setOf(`try want need plan hope like love decide learn start begin continue prefer
	intend aim agree refuse manage forget remember expect wish have use be`)

// impliedI reports whether a sentence leaves out its "I" before a verb in
// the past: "Just got back from Crete", "Finally finished my thesis".
// "Got it" and other replies state nothing and stay no fact.
func impliedI(toks []token) bool {
	i := firstNonAdverb(toks)
	if i < 0 || i+1 >= len(toks) || isCapitalized(toks[i]) && i > 0 {
		return false
	}
	w := toks[i].lower
	b := verbBase(w)
	past := b != "" && b != w && !strings.HasSuffix(w, "s") && !isParticiple(w) && !participleAdjectives[w]
	end := i + 1
	for end < len(toks) && !toks[end].punct {
		end++
	}
	if end < len(toks) && toks[end].lower == ":" {
		return false // a field: "Preferred language: Go"
	}
	return past && !subjectPronouns[w] && hasContent(toks[i+1:end]) // not "Got it, thanks"
}

// notesGoOn reports whether toks, a sentence, open with a verb in the
// third person and no subject ("Prefers short answers"), but not as a
// reply does ("Sounds good", "Makes sense", "Works for me").
func notesGoOn(toks []token) bool {
	if len(toks) < 2 || !thirdPersonVerb(toks[:1]) {
		return false
	}
	switch toks[1].lower {
	case "good", "great", "fine", "sense", "nice", "perfect", "ok", "okay", "like", "for", "right", "about":
		return false
	}
	return true
}

// goesOnAbout reports whether a clause left with no referent, opening a
// sentence, says what "it" did, more about the fact before it: "it has
// made a huge difference", not "it looks nice", "it was okay" or "sounds
// good", which only judge it (their signals go to that fact).
func goesOnAbout(dangling string) bool {
	toks := lex(dangling)
	if len(toks) < 3 || toks[0].lower != "it" {
		return false
	}
	i := 1 + max(0, firstNonAuxiliary(toks[1:]))
	if i >= len(toks) {
		return false
	}
	b := verbBase(toks[i].lower)
	return b != "" && !appearanceVerbs[b] && !isJudgement(toks[1:]) && !hasOpinion(toks[1:])
}

// appearanceVerbs say how something seems: "it looks nice".
var appearanceVerbs = setOf(`look seem sound feel appear`)

// isUser reports whether subject is the user alone.
func isUser(subject []token) bool { return len(subject) == 1 && subject[0].text == "User" }

// pronounObject reports whether toks, after a verb, are only a pronoun
// for what was said before and words of degree: "it", "them so much".
func pronounObject(toks []token) bool {
	toks = trimPunct(toks)
	if len(toks) == 0 || toks[0].lower != "it" && toks[0].lower != "them" {
		return false
	}
	for _, t := range toks[1:] {
		if !adverbs[t.lower] && !degreeWords[t.lower] {
			return false
		}
	}
	return true
}

// degreeWords say how much: "I love it so much", "a lot".
var degreeWords = setOf(`so much a lot too already now`)

// verbFirst reports whether toks open with a verb, not a subject: "try
// something different", "took me three weeks".
func verbFirst(toks []token) bool {
	w := firstWord(toks)
	return verbBase(w) != "" && !isParticiple(w) && !subjectPronouns[w] && !determiners[w]
}

// sharesSubject reports whether a clause after conn may share the subject
// of the clause before it: "and works at Google".
func sharesSubject(conn string) bool {
	return conn == "and" || conn == "or" || conn == "but" || conn == "then"
}

// memoLead is the length of a lead that asks to remember what follows it
// ("remember that", "please note that", "keep in mind", "don't forget
// that") when a statement of the user's follows, else 0.
func memoLead(toks []token) int {
	i := 0
	for i < len(toks) && (toks[i].lower == "please" || toks[i].lower == "always") {
		i++
	}
	switch {
	case i < len(toks) && (toks[i].lower == "remember" || toks[i].lower == "note"):
		i++
	case i+2 < len(toks) && toks[i].lower == "keep" && toks[i+1].lower == "in" && toks[i+2].lower == "mind":
		i += 3
	case i+2 < len(toks) && toks[i].lower == "do" && toks[i+1].lower == "not" && toks[i+2].lower == "forget",
		i+1 < len(toks) && toks[i].lower == "never" && toks[i+1].lower == "forget":
		i += 2
		if toks[i].lower == "forget" {
			i++
		}
	default:
		return 0
	}
	if i < len(toks) && toks[i].lower == "that" {
		i++
	}
	if i < len(toks) && (toks[i].lower == "i" || toks[i].lower == "my" || toks[i].lower == "we" || toks[i].lower == "our") {
		return i
	}
	return 0
}

// reportingVerbs report what someone said: "the user mentioned that ...".
var reportingVerbs = setOf(`mention say tell explain note state share report add confirm clarify write`)

// firstPersonOf puts what the user was reported to say back in the first
// person: "they have two dogs" is "I have two dogs", "their favourite
// language" "my favourite language".
func firstPersonOf(toks []token) []token {
	out := make([]token, len(toks))
	for i, t := range toks {
		switch t.lower {
		case "they", "he", "she":
			t = word("I")
		case "their", "his":
			t = word("my")
		case "them", "him":
			t = word("me")
		case "themselves", "himself", "herself":
			t = word("myself")
		case "theirs":
			t = word("mine")
		}
		out[i] = t
	}
	return out
}

// referringPronouns open a clause about someone or something named
// before: "My sister is called Lotte and she works as a midwife".
var referringPronouns = setOf(`he she it they`)

// possessivePronouns refer to the owner as the pronoun would: "her" as
// "she".
var possessivePronouns = map[string]string{"his": "he", "her": "she", "its": "it", "their": "they"}

// resolvePronoun rewrites a clause opening with "he", "she", "it" or
// "they" about prev's subject: "and he is a carpenter" after "User's
// husband is called Pieter" is "User's husband is a carpenter". When prev
// names no one it could be (no clause, or the user, whom "I" names), the
// clause is returned as dangling, to stay attached to the fact before it,
// unless it only judges what came before ("it was a nightmare"): its
// signals say that.
func resolvePronoun(toks []token, prev *clauseFact) *clauseFact {
	if ref := referent(prev, toks[0].lower); len(ref) > 0 {
		if isJudgement(toks[1:]) {
			return nil // "and he is great": the signals of the fact before
		}
		rest := toks[1:]
		if head := ref[len(ref)-1].lower; toks[0].lower == "they" && (!strings.HasSuffix(head, "s") || strings.HasSuffix(head, "ss")) {
			// A singular "they": "my partner ... and they work in
			// finance" is "User's partner works in finance". The verbs
			// as written do not agree with it.
			cf := finish(ref, conjugate(rest))
			cf.asWritten = len(ref) != 1 || ref[0].text != "User"
			return cf
		}
		cf := finish(ref, rest)
		cf.asWritten = true
		return cf
	}
	if !hasContent(toks[1:]) || isJudgement(toks[1:]) {
		return nil
	}
	rest := append([]token{word(toks[0].lower)}, rewritePronouns(trimPunct(toks[1:]), false)...)
	return &clauseFact{dangling: render(rest)}
}

// isJudgement reports whether the words after a pronoun only judge it:
// "was a nightmare", "is great".
func isJudgement(toks []token) bool {
	i := firstNonAdverb(toks)
	if i < 0 || verbBase(toks[i].lower) != "be" {
		return false
	}
	for _, t := range toks {
		if opinionWords[t.lower] {
			return true // "it's my favourite thing in the world"
		}
	}
	return hasOpinion(toks)
}

// referent returns the subject of prev's fact that pronoun refers to, or
// nil: "User's husband" for "User's husband is called Pieter", "Daan" for
// "Daan is User's best friend". "he" or "she" after "User's cat's name" or
// "Alice's favourite food" is the owner: "User's cat", "Alice". The user is
// no referent: the user is "I".
func referent(prev *clauseFact, pronoun string) []token {
	if prev == nil || prev.content == "" || len(prev.body) < 2 {
		return nil
	}
	body, start := prev.body, 0
	if len(prev.subject) == 2 && prev.subject[0].text == "User" && prev.subject[1].lower == "thinks" {
		start = 2 // "User thinks Tailwind is amazing": Tailwind
	}
	end := finiteVerb(body, start+1, true)
	if end < 0 {
		return nil
	}
	np := body[start:end]
	for len(np) > 0 && (adverbs[np[len(np)-1].lower] || np[len(np)-1].lower == "not") {
		np = np[:len(np)-1]
	}
	if len(np) == 1 && np[0].text == "User" && pronoun != "it" && !prev.asWritten && prev.earlier {
		if rel := relativeObject(body[end:], pronoun); rel != nil {
			// "I have a sister. She lives in Rome": the sister.
			return append([]token{word("User"), possessive()}, rel...)
		}
	}
	if len(np) == 1 && np[0].text == "User" && prev.asWritten && pronoun != "it" {
		// Notes about the user in the third person go on with "they",
		// "she" or "he": "User works as a chef. She has a dog."
		return append([]token{}, np...)
	}
	if len(np) == 0 || len(np) == 1 && (np[0].text == "User" || np[0].lower == "there") {
		return nil // "I", "there is": no one "he" or "it" could be
	}
	for _, t := range np {
		if t.punct || subjectPronouns[t.lower] {
			return nil
		}
	}
	head := np[len(np)-1].lower
	if p := lastPossessive(np); p > 0 && head == "name" && pronoun != "it" {
		// "User's name is Priya and she is a data scientist": the one
		// the name is of, the user too.
		return append([]token{}, np[:p]...)
	}
	if p := lastPossessive(np); p > 0 && !(p == 1 && np[0].text == "User") {
		person := relatives[lemma(head)] || roleNouns[head]
		if (pronoun == "he" || pronoun == "she") && !person || personalNouns[head] {
			np = np[:p]
		}
	}
	return append([]token{}, np...)
}

func lastPossessive(toks []token) int {
	for i := len(toks) - 1; i >= 0; i-- {
		if toks[i].lower == "'s" {
			return i
		}
	}
	return -1
}

// plainStatement keeps a statement no other rule reads as it was said, in
// the third person: "Noor is eight years old", "The blue bike belongs to
// User's neighbour". Losing a statement is worse than storing it
// unpolished. It needs a subject of its own (a name, a thing, "there")
// and a finite verb after it, so that fragments ("Drives me crazy"),
// orders and bare pronouns ("That's all") stay no fact.
func plainStatement(toks []token) *clauseFact {
	v := statementVerb(toks, true)
	if v < 0 {
		return nil
	}
	subject := rewritePronouns(toks[:v], false)
	if r, size := utf8.DecodeRuneInString(subject[0].text); unicode.IsLower(r) {
		subject[0].text = string(unicode.ToUpper(r)) + subject[0].text[size:]
	}
	cf := finish(subject, toks[v:])
	cf.asWritten = true
	return cf
}

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

var (
	hedgeVerbs    = setOf(`guess suppose think believe reckon feel`)
	questionWords = setOf(`what why how where who whom whose which when can could would will do does did is are was were should shall may am`)
)

// finish renders subject and rest as a fact, or returns a fact-less
// clauseFact when rest says nothing.
func finish(subject, rest []token) *clauseFact {
	rest = trimPunct(rest)
	user := len(subject) == 1 && subject[0].text == "User"
	body := append(append([]token{}, subject...), rewritePronouns(rest, user)...)
	cf := &clauseFact{subject: subject, body: body}
	cf.verbEnd = afterVerb(body, len(subject))
	cf.np, cf.npVerbEnd = len(subject), cf.verbEnd
	if n := len(subject); n > 0 && subject[n-1].lower == "'s" && n < len(body) {
		// What follows a possessive is what is owned, even when it reads
		// as a verb too: "my work is stressful".
		if v := verbIndex(body, n+1); v < len(body) {
			cf.np, cf.npVerbEnd = v, afterVerb(body, v)
		}
	}
	// A verb alone states something of someone else ("Kiwi still
	// bites"), not of the user: "I see", "I agree" are replies.
	verbSays := !user && cf.verbEnd >= 2 && body[cf.verbEnd-2].lower != "'s" &&
		hasContent(body[cf.verbEnd-1:cf.verbEnd])
	if rest := body[cf.verbEnd:]; !user && len(rest) == 2 && rest[0].text == "User" && rest[1].lower == "'s" {
		verbSays = true // "That laptop is mine": the user's
	}
	if cf.verbEnd == len(subject) || !hasContent(body[cf.verbEnd:]) && !hasContent(body[len(subject):cf.verbEnd-1]) && !verbSays {
		return cf // "I", "I have been": nothing stated
	}
	cf.identity = body[0].text == "User" && isIdentity(body, len(subject))
	cf.former = formerState(body, len(subject))
	if moved, from := movedFrom(body, len(subject)); from != "" {
		body, cf.replaces = moved, from
	}
	cf.content = render(body)
	return cf
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

// formerState returns, for a past habit "User used to prefer VS Code"
// (body, its subject ending at subj), the fact it no longer is: "User
// prefers VS Code". Else "".
func formerState(body []token, subj int) string {
	i := verbIndex(body, subj)
	if i+2 >= len(body) || body[i].lower != "used" || body[i+1].lower != "to" {
		return ""
	}
	subj = i
	present := append(append([]token{}, body[:subj]...), conjugate(body[i+2:])...)
	if !hasContent(present[subj:]) {
		return ""
	}
	return render(present)
}

// isPlace reports whether a phrase ends in a word whose GloVe vector is
// near "city", "town" or "country" (Paris 0.51, Leeds 0.38, the suburbs
// 0.67) rather than a language or a tool (Java 0.35, Python 0.05). Words
// out of the vocabulary are not places: a move left as said loses nothing.
func isPlace(phrase []token) bool {
	v, err := loadVocab()
	if err != nil || len(phrase) == 0 {
		return false
	}
	w := phrase[len(phrase)-1].lower // as written: "leeds", not the lemma "leed"
	for _, kind := range []string{"city", "town", "country"} {
		if sim, known := wordSimilarity(v, w, kind); known && sim >= placeCosine {
			return true
		}
	}
	return false
}

// placeCosine is the cosine to "city", "town" or "country" above which a
// word names a place.
const placeCosine = 0.37

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

// movedFrom reads "User moved from Paris to Berlin last year" as the move,
// "User moved to Berlin last year", and the residence it ends, "User lives
// in Paris". Only a past move counts: "is moving from" is a plan.
func movedFrom(body []token, subj int) (moved []token, from string) {
	v := verbIndex(body, subj)
	subj = v
	if v+3 >= len(body) || body[v].lower != "moved" && body[v].lower != "relocated" || body[v+1].lower != "from" {
		return body, ""
	}
	to := -1
	for k := v + 2; k < len(body) && !body[k].punct; k++ {
		if body[k].lower == "to" {
			to = k
			break
		}
	}
	if to <= v+2 || to+1 >= len(body) {
		return body, ""
	}
	place := body[v+2 : to]
	if !isPlace(place) {
		return body, "" // "moved from Java to Go": said as it was
	}
	lived := append(append(append([]token{}, body[:subj]...), word("lives"), word("in")), place...)
	moved = append(append([]token{}, body[:v+1]...), body[to:]...)
	return moved, render(lived)
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
		if sameFormPast[t.lower] && saysPast(out[i+1:]) {
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

// possessive is the glued "'s" token.
func possessive() token { return token{text: "'s", lower: "'s", glued: true} }

// calledName returns the name in "Call me Sam", "You can call me Jo" or
// "Please call me Dr. Okafor", or nil.
func calledName(toks []token) []token {
	i := 0
	for i < len(toks) && callLead[toks[i].lower] {
		i++
	}
	if i+2 >= len(toks) || toks[i].lower != "call" || toks[i+1].lower != "me" {
		return nil
	}
	name := trimPunct(toks[i+2:])
	if len(name) == 0 || !isCapitalized(name[0]) || name[0].lower == "i" {
		return nil // "call me tomorrow"
	}
	return name
}

// callLead may come before "call me": "you can", "please", "just".
var callLead = setOf(`you can could may please just simply feel free to always`)

func isCapitalized(t token) bool {
	r, _ := utf8.DecodeRuneInString(t.text)
	return !t.punct && unicode.IsUpper(r)
}

// namedSubject returns the length of the subject when toks state a fact
// about a person named in them: a name, possibly with a title ("Dr.
// Patel") or a possessive noun ("Priya's favourite food"), followed by a
// predicate only people have: a personal verb ("lives", "works at"), a
// role ("is a teacher"), a relation to the user ("is my sister") or a
// personal state ("is married"). It returns 0 for anything else, so that
// "Jira is down again" or "Docker is running again" stay no fact.
func namedSubject(toks []token) int {
	n := 0
	for n < len(toks) {
		t := toks[n]
		if isCapitalized(t) && !stopwords[t.lower] && !subjectPronouns[t.lower] && !questionWords[t.lower] ||
			t.lower == "." && n > 0 && titles[toks[n-1].lower] {
			n++
			continue
		}
		break
	}
	if n == 0 || n >= len(toks) {
		return 0
	}
	if toks[n].lower == "'s" {
		// "Priya's favourite food is dosa".
		for k := n + 1; k < len(toks) && k <= n+4; k++ {
			if toks[k].lower == "is" || toks[k].lower == "was" {
				for _, t := range toks[n+1 : k] {
					if personalNouns[t.lower] || relatives[lemma(t.lower)] {
						return k
					}
				}
				return 0
			}
		}
		return 0
	}
	i := n
	for i < len(toks) && (adverbs[toks[i].lower] || toks[i].lower == "not") {
		i++
	}
	if i >= len(toks) {
		return 0
	}
	w := toks[i].lower
	if w == "is" || w == "was" {
		for k := i + 1; k < len(toks) && k <= i+6; k++ {
			x := toks[k].lower
			switch {
			case x == "my" || x == "our" || personalStates[x] || roleNouns[x] || identityNouns[x] || relatives[lemma(x)]:
				return n
			case toks[k].punct || x == "at" || x == "in" || x == "for" || x == "with" || x == "and":
				return 0
			}
		}
		return 0
	}
	if personalVerbs[verbBase(w)] && w != verbBase(w) && !strings.HasSuffix(w, "ing") {
		return n // "lives", "worked", "grew up"
	}
	return 0
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

// hasOpinion reports whether toks express an evaluation.
func hasOpinion(toks []token) bool {
	for _, t := range toks {
		if emotionWords[t.lower] || evaluativeWords[t.lower] {
			return true
		}
	}
	return false
}

// isIdentity reports whether body, whose subject ends at subj, is an
// identity statement: "User is a backend person", "User does not do
// frontend", "User is Sam".
func isIdentity(body []token, subj int) bool {
	if subj != 1 || len(body) < 3 {
		return false
	}
	v := body[1].lower
	rest := body[2:]
	if v == "does" && len(rest) >= 2 && rest[0].lower == "not" && rest[1].lower == "do" {
		return true
	}
	if v != "is" && v != "has" && v != "was" {
		return false
	}
	if v == "has" {
		if rest[0].lower != "been" {
			return false
		}
		rest = rest[1:]
	}
	if len(rest) > 0 && rest[0].lower == "not" {
		rest = rest[1:]
	}
	if len(rest) == 0 {
		return false
	}
	if isProperNoun(rest[0]) && !determiners[rest[0].lower] && (len(rest) == 1 || rest[1].punct) {
		return true // "I'm Sam"
	}
	for i, t := range rest {
		if t.punct && i > 0 {
			break
		}
		if identityNouns[t.lower] || t.lower == "die-hard" {
			return true
		}
		if t.lower == "through" && i+2 < len(rest) && rest[i+1].lower == "and" {
			return true
		}
	}
	return false
}

var identityNouns = setOf(`person guy girl type fan nerd geek purist fanatic evangelist
	developer engineer programmer designer scientist founder architect hacker introvert extrovert`)
