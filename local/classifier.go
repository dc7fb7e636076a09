package local

import (
	"context"
	"math"
	"slices"
	"strings"

	"github.com/hippo-mem/hippo"
)

// Classifier is the offline default hippo.Classifier for the ambiguous
// band. It reads each fact as subject, relation and value ("User" "lives
// in" "Berlin") and compares them: the same content is a DUPLICATE; the
// same subject and relation with a different value of the same kind, a
// reversed opinion or a stopped habit SUPERSEDES; anything else is
// DISTINCT, which keeps both facts. The zero value is ready to use.
type Classifier struct{}

var _ hippo.Classifier = (*Classifier)(nil)

// NewClassifier returns the default classifier.
func NewClassifier() *Classifier { return &Classifier{} }

// ClassifyFacts returns one verdict per pair, in order; it calls no LLM.
func (c *Classifier) ClassifyFacts(ctx context.Context, pairs []hippo.FactPair) ([]hippo.Verdict, []hippo.LLMCall, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	v, err := loadVocab()
	if err != nil {
		return nil, nil, err
	}
	out := make([]hippo.Verdict, len(pairs))
	for i, p := range pairs {
		out[i] = classify(v, parseStatement(p.Existing), parseStatement(p.New))
	}
	return out, nil, nil
}

// statement is a fact read as subject, relation and value.
type statement struct {
	subject  []string // lemmas: ["user"], ["user", "wife"]
	relation string   // canonical relation: "residence", "employer", "like", …
	negated  bool
	past     bool     // "used to", "previously": no longer current
	value    []term   // content words after the relation, in order
	content  []string // every content lemma, in order, for equality
}

// term is one content word of a value.
type term struct {
	lemma  string
	proper bool // capitalised inside the sentence: a name
	number bool
}

// relationOf folds verbs, and nouns standing for a relation, onto one
// relation.
var relationOf = map[string]string{
	"live": "residence", "reside": "residence", "home": "residence", "based": "residence",
	"move": "move", "relocate": "move",
	"employer": "employer", "employ": "employer", "company": "employer",
	"call": "call", "name": "call",
	"age": "age", "born": "born", "birthplace": "born", "hometown": "born", "birthday": "birthday",
	"dislike": "hate", "detest": "hate", "despise": "hate", "adore": "love", "enjoy": "like",
	"own": "have", "learn": "learn", "study": "learn", "refuse": "want",
	"run": "run", "jog": "run", "switch": "switch", "migrate": "switch", "change": "switch",
	"join": "join",
}

// changeVerbs state a new value for whatever relation held the old one:
// "User switched to Emacs" supersedes "User uses Vim".
var changeVerbs = setOf(`switch join move become`)

// strongSingle are relations with one value at a time whatever the values:
// a different employer supersedes even when the two names look unrelated.
var strongSingle = setOf(`residence move employer call age born birthday marital`)

// exclusiveClasses are small sets of values that replace each other.
var exclusiveClasses = [][]string{
	{"single", "engaged", "married", "divorced", "widowed"},
	{"junior", "senior", "mid", "lead", "principal", "staff", "intern"},
	{"dark", "light"},
	{"frontend", "backend", "fullstack"},
}

// parseStatement reads a fact: its subject, its verb group, the relation
// the verb (or its complement) names, and the value after it.
func parseStatement(fact string) statement {
	toks := statementTokens(fact)
	var s statement
	i := s.readSubject(toks)
	verb, i := s.readVerb(toks, i)
	verb, rest := s.complementVerb(verb, toks[i:])
	s.readValue(s.readRelation(verb, rest))
	s.content = append(s.content, s.subject...)
	s.content = append(s.content, s.relation)
	for _, t := range s.value {
		s.content = append(s.content, t.lemma)
	}
	return s
}

// statementTokens are the words of fact, without punctuation; a slash
// between two words joins them into one value ("she/her", "and/or").
func statementTokens(fact string) []token {
	var toks []token
	all := lex(fact)
	for i := 0; i < len(all); i++ {
		t := all[i]
		if t.lower == "/" && len(toks) > 0 && i+1 < len(all) && !all[i+1].punct {
			w := toks[len(toks)-1].text + "/" + all[i+1].text
			toks[len(toks)-1] = token{text: w, lower: strings.ToLower(w)}
			i++
			continue
		}
		if !t.punct {
			toks = append(toks, t)
		}
	}
	return toks
}

// readSubject reads the subject that opens toks ("User", "User's wife",
// "The user", or a noun phrase) and returns the index past it. A subject
// noun that names the relation sets it: "User's home is in Berlin".
func (s *statement) readSubject(toks []token) int {
	i := 0
	if i < len(toks) && toks[i].lower == "the" && len(toks) > 1 && toks[1].lower == "user" {
		i++
	}
	if i < len(toks) && (toks[i].lower == "user" || toks[i].lower == "users") {
		s.subject = []string{"user"}
		i++
		for i < len(toks) && toks[i].lower == "'s" {
			i++
			for i < len(toks) && toks[i].lower != "'s" && !isVerbStart(toks, i) {
				if l := lemmaOf(toks[i].lower); !stopwords[toks[i].lower] {
					s.subject = append(s.subject, l)
				}
				i++
			}
		}
	} else {
		for i < len(toks) && !isVerbStart(toks, i) {
			if !stopwords[toks[i].lower] {
				s.subject = append(s.subject, lemmaOf(toks[i].lower))
			}
			i++
		}
	}
	// "User's home is in Berlin", "User's wife's name is Ana".
	if n := len(s.subject); n > 1 {
		if r, ok := relationOf[s.subject[n-1]]; ok && (r == "residence" || r == "call" || r == "age" || r == "born" || r == "birthday" || r == "employer") {
			s.relation = r
			s.subject = s.subject[:n-1]
		}
	}
	return i
}

// readVerb reads the verb group at toks[i]: auxiliaries, negations (which
// flip s.negated), adverbs and marks of the past (which set s.past), then
// the main verb. It returns the main verb's base form and the index past
// it.
func (s *statement) readVerb(toks []token, i int) (string, int) {
	for ; i < len(toks); i++ {
		w := toks[i].lower
		switch {
		case negations[w]:
			s.negated = !s.negated
			continue
		case w == "longer" && i > 0 && toks[i-1].lower == "no":
			continue
		case w == "used" && i+1 < len(toks) && toks[i+1].lower == "to":
			s.past = true
			i++
			continue
		case w == "previously" || w == "formerly" || w == "once":
			s.past = true
			continue
		case adverbs[w] || modals[w] || w == "anymore":
			continue
		}
		b := verbBase(w)
		if b == "be" || b == "have" || b == "do" {
			// An auxiliary when a verb follows, past any negation.
			j, neg := i+1, false
			for j < len(toks) && (negations[toks[j].lower] || adverbs[toks[j].lower] || toks[j].lower == "longer" || toks[j].lower == "been") {
				if negations[toks[j].lower] {
					neg = !neg
				}
				j++
			}
			if j < len(toks) && verbBase(toks[j].lower) != "" && !determiners[toks[j].lower] && !marital[toks[j].lower] && isVerbStart(toks, j) {
				continue
			}
			if neg {
				s.negated = !s.negated
			}
			return b, j
		}
		if b == "" {
			b = lemmaOf(w)
		}
		return b, i + 1
	}
	return "", i
}

// complementVerb returns the verb that names the relation, and the rest,
// when what follows a light verb does: "is called Ana", "is 41", "has a
// fear of flying", "got engaged", "turned 35", "works at Google".
func (s *statement) complementVerb(verb string, rest []token) (string, []token) {
	if verb == "be" && len(rest) > 0 {
		switch {
		case rest[0].lower == "called" || rest[0].lower == "named":
			verb, rest = "call", rest[1:]
		case rest[0].lower == "born":
			verb, rest = "born", rest[1:]
		case rest[0].lower == "employed":
			verb, rest = "employer", rest[1:]
		case rest[0].lower == "based" || rest[0].lower == "located":
			verb, rest = "residence", rest[1:]
		case rest[0].lower == "in" && s.relation == "residence":
			rest = rest[1:]
		case len(rest) >= 2 && (rest[1].lower == "to" || rest[1].lower == "of") && (rest[0].lower == "allergic" || rest[0].lower == "afraid"):
			verb, rest = rest[0].lower, rest[2:]
		case isNumber(rest[0].lower) || numberWords[rest[0].lower] != "":
			if s.relation == "" && (len(rest) == 1 || rest[1].lower == "years") {
				verb = "age"
				rest = rest[:1]
			}
		}
		if len(rest) > 0 && marital[rest[0].lower] && s.relation == "" {
			verb = "marital"
		}
	}
	if verb == "have" {
		for k, t := range rest {
			if r, ok := nounRelations[t.lower]; ok {
				verb = r
				rest = append(append([]token{}, rest[:k]...), rest[k+1:]...)
				if k < len(rest) && rest[k].lower == "of" { // "a fear of flying"
					rest = append(rest[:k], rest[k+1:]...)
				}
				break
			}
		}
	}
	if (verb == "get" || verb == "become") && len(rest) > 0 && marital[rest[0].lower] {
		verb, rest = "marital", rest[:1] // "got engaged last month"
	}
	if verb == "turn" && len(rest) > 0 && (isNumber(rest[0].lower) || numberWords[rest[0].lower] != "") {
		verb, rest = "age", rest[:1] // "turned 35 last week"
	}
	if verb == "refuse" {
		s.negated = !s.negated // "refuses to use Redux": does not want to
	}
	if verb == "give" && len(rest) > 0 && rest[0].lower == "up" {
		verb, rest = "stop", rest[1:]
	}
	if verb == "work" && len(rest) > 0 && (rest[0].lower == "at" || rest[0].lower == "for") {
		verb = "employer"
	}
	if verb == "work" && len(rest) > 0 && rest[0].lower == "as" {
		verb = "be"
	}
	return verb, rest
}

// readRelation sets s.relation from verb, unless the subject set it, and
// returns the words that hold the value.
func (s *statement) readRelation(verb string, rest []token) []token {
	if s.relation == "" {
		s.relation = verb
		if r, ok := relationOf[verb]; ok {
			s.relation = r
		} else if r, ok := synonyms[verb]; ok {
			s.relation = r
		}
	}
	// Opinions "better than" / "more than" compare like a preference.
	for _, t := range rest {
		if (t.lower == "better" || t.lower == "more") && (s.relation == "like" || s.relation == "love") {
			s.relation = "prefer"
		}
	}
	// A move names the place left and the place reached: "moved from
	// Paris to Berlin" has the value Berlin.
	if s.relation == "move" {
		for k, t := range rest {
			if t.lower != "from" {
				continue
			}
			end := k + 1
			for end < len(rest) && rest[end].lower != "to" {
				end++
			}
			rest = append(append([]token{}, rest[:k]...), rest[min(end, len(rest)):]...)
			break
		}
	}
	return rest
}

// readValue sets s.value to the content words of rest; negations in it
// flip s.negated, marks of the past set s.past.
func (s *statement) readValue(rest []token) {
	for _, t := range rest {
		w := t.lower
		switch {
		case placeRelations[s.relation] && timeWords[w]:
			continue // "moved to Berlin last year" is in Berlin
		case w == "before" || w == "previously" || w == "formerly":
			s.past = true
			continue
		case negations[w]:
			s.negated = !s.negated
			continue
		case stopwords[w] && !(isCapitalized(t) && w != "i" && w != "user"), // "in May" names a month
			w == "'s" || w == "better" || w == "again" || w == "anymore" || w == "strongly":
			continue
		}
		l := lemmaOf(w)
		if l == "" {
			continue
		}
		s.value = append(s.value, term{lemma: l, proper: isProperNoun(t) && t.text != "User", number: isNumber(l)})
	}
}

var marital = setOf(`single engaged married divorced widowed`)

// placeRelations hold one place or organisation at a time whatever the
// time said with it: "User moved to Berlin last year" and "User lives in
// Berlin" agree.
var placeRelations = setOf(`residence move employer join switch become`)

// timeWords say when, not what.
var timeWords = setOf(`
last next ago year years month months week weeks day days yesterday today recently
january february march april may june july august september october november december
spring summer autumn fall winter
`)

// nounRelations turn "has an X allergy" into "is allergic to X".
var nounRelations = map[string]string{"allergy": "allergic", "fear": "afraid", "phobia": "afraid"}

// isVerbStart reports whether toks[i] begins the verb group.
func isVerbStart(toks []token, i int) bool {
	w := toks[i].lower
	if negations[w] || modals[w] || w == "used" {
		return true
	}
	if adverbs[w] && i+1 < len(toks) {
		return isVerbStart(toks, i+1)
	}
	if determiners[w] || stopwords[w] && verbBase(w) == "" {
		return false
	}
	if b := verbBase(w); b != "" {
		// "name" and "home" are nouns more often than verbs in a subject.
		return b != "name" && b != "call" || w == "called" || w == "named"
	}
	return false
}

// lemmaOf is lemma with numbers spelt as digits.
func lemmaOf(w string) string {
	if n, ok := numberWords[w]; ok {
		return n
	}
	if w == "one" {
		return "1"
	}
	if marital[w] {
		return w
	}
	return lemma(w)
}

// classify decides how b, the new fact, relates to a, the existing one.
func classify(v *vocab, a, b statement) hippo.Verdict {
	if slices.Equal(a.content, b.content) && a.negated == b.negated && a.past == b.past {
		return hippo.Duplicate
	}
	if !slices.Equal(a.subject, b.subject) || a.past != b.past {
		return hippo.Distinct
	}
	a.value, b.value = joinCompounds(a.value, b.value), joinCompounds(b.value, a.value)
	d := compareValues(a.value, b.value)
	if sa, sb := opinionSign(a), opinionSign(b); sa != 0 && sb != 0 {
		return classifyOpinions(v, a, b, sa == sb, d)
	}
	// A stopped habit: "User quit coffee" after "User drinks coffee".
	if stopVerbs[a.relation] != stopVerbs[b.relation] {
		stopped, other := b, a
		if stopVerbs[a.relation] {
			stopped, other = a, b
		}
		if overlaps(lemmas(stopped.value), append(lemmas(other.value), other.relation)) {
			return hippo.Supersedes
		}
		return hippo.Distinct
	}
	if a.relation != b.relation {
		// A change verb states the new value of the relation.
		if changeVerbs[a.relation] || changeVerbs[b.relation] {
			switch {
			case d.same:
				return hippo.Duplicate
			case strongSingle[a.relation] && strongSingle[b.relation] || comparable(v, d.aOnly, d.bOnly, true):
				return hippo.Supersedes
			}
		}
		// Light verbs say the same with the same object: "has coffee"
		// and "drinks coffee".
		if (lightVerbs[a.relation] || lightVerbs[b.relation]) && d.same && len(d.av) > 0 {
			return hippo.Duplicate
		}
		return hippo.Distinct
	}
	return classifySameRelation(v, a, b, d)
}

// valueDiff compares the values of two statements.
type valueDiff struct {
	av, bv       []string // the lemmas of each value
	aOnly, bOnly []term   // the words of each value that the other lacks
	context      int      // shared value words that say something
	same         bool     // neither value has a word the other lacks
	subset       bool     // one value has every word of the other
}

// compareValues compares a's and b's values.
func compareValues(a, b []term) valueDiff {
	d := valueDiff{av: lemmas(a), bv: lemmas(b)}
	d.aOnly, d.bOnly = minus(a, d.bv), minus(b, d.av)
	for _, l := range d.av {
		if slices.Contains(d.bv, l) && l != "call" {
			d.context++
		}
	}
	d.same = len(d.aOnly) == 0 && len(d.bOnly) == 0
	d.subset = len(d.aOnly) == 0 || len(d.bOnly) == 0
	return d
}

// classifyOpinions decides between two opinions, of the same sign or
// not: the same object liked, then hated, supersedes.
func classifyOpinions(v *vocab, a, b statement, sameSign bool, d valueDiff) hippo.Verdict {
	switch {
	case a.relation == "prefer" && b.relation == "prefer" && d.same && !slices.Equal(d.av, d.bv):
		return hippo.Supersedes // "tabs over spaces", "spaces over tabs"
	case d.subset && (len(d.av) > 0 || len(d.bv) > 0):
		if sameSign {
			return hippo.Duplicate
		}
		return hippo.Supersedes
	case a.relation == "prefer" && b.relation == "prefer" && comparable(v, d.aOnly, d.bOnly, true):
		return hippo.Supersedes
	case ofAssistant(d.av) && ofAssistant(d.bv) && d.context > 1 && (len(d.aOnly) == 1 && len(d.bOnly) == 1 || comparable(v, d.aOnly, d.bOnly, true)):
		// A standing wish of the assistant changed, one word in the
		// same frame: "always answer in Spanish", then "… in
		// French"; "use metric units", then "imperial".
		return hippo.Supersedes
	}
	return hippo.Distinct
}

// classifySameRelation decides between two statements of one subject and
// relation.
func classifySameRelation(v *vocab, a, b statement, d valueDiff) hippo.Verdict {
	switch {
	case countsDiffer(a.value, b.value):
		return hippo.Supersedes // "two kids: Emma, who is 6, …", "three kids"
	case a.negated != b.negated:
		if d.context > 0 || len(d.av) == 0 || len(d.bv) == 0 {
			return hippo.Supersedes
		}
		return hippo.Distinct
	case d.same:
		return hippo.Duplicate
	case d.subset:
		// One adds detail to the other: "studied physics at university",
		// unless the detail is a number: "is 41", "is 41 and a half".
		if onlyNumbers(d.aOnly) || onlyNumbers(d.bOnly) {
			return hippo.Supersedes
		}
		return hippo.Duplicate
	case onlyNumbers(d.aOnly) && onlyNumbers(d.bOnly):
		return hippo.Supersedes // "two kids", "three kids"
	case strongSingle[a.relation] || a.relation == "be" && len(a.subject) > 1:
		// One value at a time: a residence, a name, "User's car is red".
		return hippo.Supersedes
	case multiValued[a.relation] || contextual[a.relation]:
		// Many values at once, unless the rest pins a slot: "plays tennis
		// on Sundays", "uses MySQL for the main database".
		if d.context > 0 && comparable(v, d.aOnly, d.bOnly, false) {
			return hippo.Supersedes
		}
		return hippo.Distinct
	case comparable(v, d.aOnly, d.bOnly, true):
		return hippo.Supersedes
	}
	return hippo.Distinct
}

// countsDiffer reports whether a and b count the same thing differently:
// "2 kid" and "3 kid", whatever else either says ("two kids: Emma, who is
// 6, and Noah, who is 3" has a 3 too, but not of kids).
func countsDiffer(a, b []term) bool {
	counts := func(ts []term) map[string]string {
		m := map[string]string{}
		for i := 0; i+1 < len(ts); i++ {
			if ts[i].number && !ts[i+1].number {
				m[ts[i+1].lemma] = ts[i].lemma
			}
		}
		return m
	}
	ca, cb := counts(a), counts(b)
	for noun, n := range ca {
		if m, ok := cb[noun]; ok && m != n {
			return true
		}
	}
	return false
}

// ofAssistant reports whether value lemmas are a wish of the assistant
// ("would like the assistant to always answer in Spanish").
func ofAssistant(lemmas []string) bool { return slices.Contains(lemmas, "assistant") }

// contextual are relations that hold many values unless a shared context
// pins one slot.
var contextual = setOf(`use run drink eat play read watch wear listen`)

// joinCompounds joins adjacent words of ts that the other value writes as
// one: "key bindings" and "keybindings".
func joinCompounds(ts, other []term) []term {
	if len(ts) < 2 {
		return ts
	}
	var out []term
	for i := 0; i < len(ts); i++ {
		if i+1 < len(ts) {
			joined := ts[i].lemma + ts[i+1].lemma
			if slices.ContainsFunc(other, func(t term) bool { return t.lemma == joined }) {
				out = append(out, term{lemma: joined, proper: ts[i].proper})
				i++
				continue
			}
		}
		out = append(out, ts[i])
	}
	return out
}

var lightVerbs = setOf(`have get do make take go`)

// opinionSign is +1 for a liking, -1 for a dislike, 0 for no opinion.
func opinionSign(s statement) int {
	sign, ok := opinionVerbs[s.relation]
	switch {
	case s.relation == "prefer":
		sign, ok = 1, true
	case s.relation == "stand" && s.negated:
		return -1 // "cannot stand"
	case s.relation == "want" && len(s.value) > 0:
		sign, ok = 1, true
	}
	if !ok {
		return 0
	}
	if s.negated {
		sign = -sign
	}
	return sign
}

// comparable reports whether two differing parts of values are values of
// the same kind, one replacing the other: numbers, words of one exclusive
// class, words whose GloVe vectors are close (Berlin and Bangkok, dark and
// light, apartment and house) or, when names is set, two names.
func comparable(v *vocab, a, b []term, names bool) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	if onlyNumbers(a) && onlyNumbers(b) {
		return true
	}
	for _, x := range a {
		for _, y := range b {
			if sameClass(x.lemma, y.lemma) {
				return true
			}
			sim, known := wordSimilarity(v, x.lemma, y.lemma)
			if known && sim >= comparableCosine {
				return true
			}
			if names && x.proper && y.proper {
				return true
			}
		}
	}
	return false
}

// comparableCosine is the cosine between GloVe word vectors above which
// two words are values of one kind (dark and light 0.72, apartment and
// house 0.64) rather than different things (short and example 0.60).
const comparableCosine = 0.62

func sameClass(a, b string) bool {
	for _, c := range exclusiveClasses {
		if slices.Contains(c, a) && slices.Contains(c, b) {
			return true
		}
	}
	return false
}

// wordSimilarity is the cosine of two words' GloVe vectors; known is false
// when either is out of the vocabulary.
func wordSimilarity(v *vocab, a, b string) (sim float64, known bool) {
	i, j := v.lookup([]byte(a)), v.lookup([]byte(b))
	if i < 0 || j < 0 {
		return 0, false
	}
	var dot, na, nb float64
	ra := v.vecs[int(i)*v.dim : int(i+1)*v.dim]
	rb := v.vecs[int(j)*v.dim : int(j+1)*v.dim]
	for d := range v.dim {
		x, y := float64(int8(ra[d])), float64(int8(rb[d]))
		dot += x * y
		na += x * x
		nb += y * y
	}
	if na == 0 || nb == 0 {
		return 0, false
	}
	return dot / math.Sqrt(na*nb), true
}

func lemmas(ts []term) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.lemma
	}
	return out
}

// minus returns the terms of ts whose lemma is not in set.
func minus(ts []term, set []string) []term {
	var out []term
	for _, t := range ts {
		if !slices.Contains(set, t.lemma) {
			out = append(out, t)
		}
	}
	return out
}

func sameSet(a, b []string) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	for _, x := range b {
		if !slices.Contains(a, x) {
			return false
		}
	}
	return true
}

func overlaps(a, b []string) bool {
	for _, x := range a {
		if slices.Contains(b, x) {
			return true
		}
	}
	return false
}

func onlyNumbers(ts []term) bool {
	if len(ts) == 0 {
		return false
	}
	for _, t := range ts {
		if !t.number {
			return false
		}
	}
	return true
}
