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

// classify decides how b, the new fact, relates to a, the existing one.
// A new value supersedes only when both facts fill the same slot: the same
// subject, the same relation (or two that state one attribute, like
// living and moving) and, in the value, the same kind of word in the same
// frame. Anything else is DISTINCT, which keeps both: a wrong
// supersession hides a true fact, a wrong DISTINCT only keeps an old one.
func classify(v *vocab, a, b statement) hippo.Verdict {
	if slices.Equal(a.content, b.content) && a.negated == b.negated && a.past == b.past {
		return hippo.Duplicate
	}
	if !a.subject.matches(b.subject) || a.past != b.past {
		return hippo.Distinct
	}
	if a.future != b.future && a.subject.person() {
		return hippo.Distinct // a plan changes nothing yet: "is moving to Osaka next year"
	}
	a.value, b.value = joinCompounds(a.value, b.value), joinCompounds(b.value, a.value)
	shortenWords(a.value, b.value)
	d := compareValues(a.value, b.value)
	if sa, sb := opinionSign(a), opinionSign(b); sa != 0 && sb != 0 {
		return classifyOpinions(v, a, b, sa == sb, d)
	}
	if stopVerbs[a.relation] != stopVerbs[b.relation] {
		return classifyStopped(a, b)
	}
	if a.relation != b.relation {
		return classifyAcross(v, a, b, d)
	}
	return classifySameRelation(v, a, b, d)
}

// exclusiveClasses are small sets of values that replace each other.
var exclusiveClasses = [][]string{
	{"single", "engaged", "married", "divorced", "widowed"},
	{"junior", "senior", "mid", "lead", "principal", "staff", "intern"},
	{"dark", "light"},
	{"frontend", "backend", "fullstack"},
}

// valueDiff compares the values of two statements.
type valueDiff struct {
	av, bv       []string // the lemmas of each value
	aOnly, bOnly []term   // the words of each value that the other lacks
	aCore, bCore []term   // of those, the ones that name the thing itself
	context      int      // shared value words that say something
	same         bool     // neither value has a word the other lacks
	subset       bool     // one value has every word of the other
	coresFit     bool     // one value names every thing the other names
	conflicts    map[termKind]bool
}

// compareValues compares a's and b's values.
func compareValues(a, b []term) valueDiff {
	d := valueDiff{av: lemmas(a), bv: lemmas(b), conflicts: map[termKind]bool{}}
	d.aOnly, d.bOnly = minus(a, d.bv), minus(b, d.av)
	d.aCore, d.bCore = ofKind(d.aOnly, kindCore), ofKind(d.bOnly, kindCore)
	for _, l := range d.av {
		if slices.Contains(d.bv, l) && l != "call" {
			d.context++
		}
	}
	d.same = len(d.aOnly) == 0 && len(d.bOnly) == 0
	d.subset = len(d.aOnly) == 0 || len(d.bOnly) == 0
	d.coresFit = len(d.aCore) == 0 || len(d.bCore) == 0
	for _, k := range []termKind{kindTime, kindFreq, kindAmount} {
		ka, kb := lemmas(ofKind(a, k)), lemmas(ofKind(b, k))
		if len(ka) > 0 && len(kb) > 0 && !sameSet(ka, kb) {
			d.conflicts[k] = true
		}
	}
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
	case !d.framed():
		return hippo.Distinct
	case a.relation == "prefer" && b.relation == "prefer" && comparable(v, d.aOnly, d.bOnly, true):
		return hippo.Supersedes
	case b.changed && sameSign && d.context > 0 && len(d.aCore) == 1 && len(d.bCore) == 1:
		// One word of the same wish changed, said as a change: "prefers
		// short answers", then "now wants detailed answers".
		return hippo.Supersedes
	case ofAssistant(d.av) && ofAssistant(d.bv) && d.context > 1 && (len(d.aOnly) == 1 && len(d.bOnly) == 1 || comparable(v, d.aOnly, d.bOnly, true)):
		// A standing wish of the assistant changed, one word in the
		// same frame: "always answer in Spanish", then "… in
		// French"; "use metric units", then "imperial".
		return hippo.Supersedes
	}
	return hippo.Distinct
}

// classifyStopped decides between a stopped habit and another fact: "User
// quit coffee" ends "User drinks coffee" and "User stopped running" ends
// "User runs every morning", but "User stopped eating red meat" does not
// end "User eats fish".
func classifyStopped(a, b statement) hippo.Verdict {
	stopped, other := b, a
	if stopVerbs[a.relation] {
		stopped, other = a, b
	}
	what := slices.DeleteFunc(lemmas(stopped.value), func(l string) bool { return l == other.relation })
	if len(what) < len(stopped.value) && len(what) == 0 || overlaps(what, lemmas(other.value)) {
		return hippo.Supersedes
	}
	return hippo.Distinct
}

// sameAttribute are pairs of relations that state one attribute: living
// somewhere and moving there, an employer and joining one, being and
// becoming.
var sameAttribute = map[[2]string]bool{
	{"residence", "move"}: true, {"move", "residence"}: true,
	{"employer", "join"}: true, {"join", "employer"}: true,
	{"be", "become"}: true, {"become", "be"}: true,
}

// classifyAcross decides between statements of one subject with different
// relations.
func classifyAcross(v *vocab, a, b statement, d valueDiff) hippo.Verdict {
	switch {
	case sameAttribute[[2]string{a.relation, b.relation}]:
		if d.same {
			return hippo.Duplicate
		}
		if moved := pick(a, b, "move"); moved != nil && movedAway(*moved, pick(a, b, "residence")) {
			return hippo.Supersedes // "moved away from Paris"
		}
		return classifySlot(v, a, b, d, a.relation != "be" && b.relation != "be")
	case a.relation == "switch" || b.relation == "switch":
		// "switched to light mode" states the new value of whatever
		// held the old one.
		switch {
		case d.same:
			return hippo.Duplicate
		case comparable(v, d.aCore, d.bCore, true):
			return hippo.Supersedes
		}
	case (lightVerbs[a.relation] || lightVerbs[b.relation]) && d.same && len(d.av) > 0:
		// Light verbs say the same with the same object: "has coffee"
		// and "drinks coffee".
		return hippo.Duplicate
	}
	return hippo.Distinct
}

// pick returns whichever of a and b has relation r, or nil.
func pick(a, b statement, r string) *statement {
	switch {
	case a.relation == r:
		return &a
	case b.relation == r:
		return &b
	}
	return nil
}

// movedAway reports whether a move names no new place, only the place
// left: "moved away from Paris" after "lives in Paris".
func movedAway(moved statement, home *statement) bool {
	for _, t := range moved.value {
		if t.lemma != "away" && t.lemma != "out" {
			return false
		}
	}
	return len(moved.value) > 0 && home != nil && (len(moved.left) == 0 || overlaps(moved.left, lemmas(home.value)))
}

// singleValued are relations with one value at a time whatever the
// values: a different employer supersedes even when the two names look
// unrelated.
var singleValued = setOf(`residence move employer join call age born birthday marital earn when where amount`)

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
	case len(d.conflicts) > 0 && (d.coresFit || typedSlot[a.relation]):
		// The same thing at another time, as often or as much: "the
		// standup is at 10 now", "twice a week", then "four times".
		if changesSlot(a, b, d) {
			return hippo.Supersedes
		}
		return hippo.Distinct
	case d.subset:
		// One adds detail to the other: "studied physics at university",
		// unless the detail is a number: "is 41", "is 41 and a half".
		if onlyNumbers(d.aOnly) || onlyNumbers(d.bOnly) {
			return hippo.Supersedes
		}
		return hippo.Duplicate
	}
	return classifySlot(v, a, b, d, singleValued[a.relation])
}

// typedSlot are relations whose value is a time or an amount: the other
// words said with it are comment, not the value ("The deadline got pushed,
// now 15 May because the department changed the calendar").
var typedSlot = setOf(`when amount`)

// changesSlot reports whether a time, frequency or amount that differs
// replaces the old one. How often and how much have one value; a thing
// (a meeting, a deadline) is at one time; a person may do one thing on
// several days, unless the new fact says it changed or gives a clock
// time.
func changesSlot(a, b statement, d valueDiff) bool {
	if d.conflicts[kindFreq] || d.conflicts[kindAmount] || singleValued[a.relation] || !a.subject.person() || b.changed {
		return true
	}
	return slices.ContainsFunc(a.value, isClock) && slices.ContainsFunc(b.value, isClock)
}

func isClock(t term) bool { return t.kind == kindTime && (t.number || clockTime(t.lemma)) }

// classifySlot decides between two values of one attribute whose things
// differ: a new value supersedes when differing words sit in the same
// frame ("in" Lisbon, "in" Porto; not "in" Porto, "with" their partner)
// and are of one kind.
func classifySlot(v *vocab, a, b statement, d valueDiff, single bool) hippo.Verdict {
	if !d.framed() || typedSlot[a.relation] {
		return hippo.Distinct
	}
	ac, bc := d.aCore, d.bCore
	switch {
	case single:
		if sameShape(ac, bc) || comparable(v, ac, bc, true) {
			return hippo.Supersedes
		}
	case a.relation == "be" || a.relation == "become" || b.relation == "become":
		return classifyBe(v, a, b, d)
	case multiValued[a.relation] || contextual[a.relation] || changeless[a.relation]:
		// Many values at once, unless the rest pins a slot ("plays tennis
		// on Sundays", "uses MySQL for the main database") or the new
		// fact says it changed ("uses Zed now").
		if (d.context > 0 || b.changed) && comparable(v, ac, bc, b.changed) {
			return hippo.Supersedes
		}
	default:
		// One thing for another: "drives a Volvo", "drives an Audi".
		if len(ac) <= 2 && len(bc) <= 2 && comparable(v, ac, bc, true) {
			return hippo.Supersedes
		}
	}
	return hippo.Distinct
}

// changeless are relations that hold many values and say nothing of
// change: "thinks Rust is interesting" and "thinks Go is boring".
var changeless = setOf(`think feel believe say get buy`)

// classifyBe decides between two values of "is": a thing has one value of
// each kind ("User's phone is an iPhone", then "a Pixel"); a person has
// many qualities and roles at once, so only a value of one exclusive class
// ("engaged", "married"), or a role said as a change or in the same frame
// ("a junior developer", "a senior developer") supersedes.
func classifyBe(v *vocab, a, b statement, d valueDiff) hippo.Verdict {
	ac, bc := d.aCore, d.bCore
	if !a.subject.person() {
		// A thing's colour, model or timezone: one at a time, but a
		// judgement of it ("slow", "buggy") is one of many.
		judged := slices.ContainsFunc(append(slices.Clone(ac), bc...), func(t term) bool { return evaluativeWords[t.lemma] })
		if comparable(v, ac, bc, true) || !judged && sameShape(ac, bc) {
			return hippo.Supersedes
		}
		return hippo.Distinct
	}
	for _, x := range ac {
		for _, y := range bc {
			if sameClass(x.lemma, y.lemma) {
				return hippo.Supersedes
			}
		}
	}
	kind := a.article && b.article || b.relation == "become" || ac[0].prep != ""
	if kind && (d.context > 0 || b.changed || b.relation == "become") && (b.changed || comparable(v, ac, bc, false)) {
		return hippo.Supersedes
	}
	return hippo.Distinct
}

// framed keeps, of the differing words that name things, those behind a
// preposition both values have (counting "in", "at", "to", "for" and none
// as one place), and reports whether both keep some: "lives in Lisbon with
// their partner" and "moved to Porto" differ in Lisbon and Porto; "lives
// in Porto" and "lives with their partner" in nothing they share.
func (d *valueDiff) framed() bool {
	frames := func(ts []term) []string {
		var out []string
		for _, t := range ts {
			if f := prepGroup(t.prep); !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
		return out
	}
	fa, fb := frames(d.aCore), frames(d.bCore)
	keep := func(ts []term, other []string) []term {
		return slices.DeleteFunc(slices.Clone(ts), func(t term) bool { return !slices.Contains(other, prepGroup(t.prep)) })
	}
	d.aCore, d.bCore = keep(d.aCore, fb), keep(d.bCore, fa)
	return len(d.aCore) > 0 && len(d.bCore) > 0
}

func prepGroup(p string) string {
	switch p {
	case "", "in", "at", "to", "into", "for":
		return "at"
	}
	return p
}

// sameShape reports whether two sets of words are of one shape: all names,
// all numbers or all common words.
func sameShape(a, b []term) bool {
	shape := func(ts []term) int {
		s := -1
		for _, t := range ts {
			k := 0
			switch {
			case t.number:
				k = 1
			case t.proper:
				k = 2
			}
			if s >= 0 && s != k {
				return 3
			}
			s = k
		}
		return s
	}
	sa := shape(a)
	return sa != 3 && sa == shape(b)
}

func ofKind(ts []term, k termKind) []term {
	var out []term
	for _, t := range ts {
		if t.kind == k {
			out = append(out, t)
		}
	}
	return out
}

// countsDiffer reports whether a and b count the same thing differently:
// "2 kid" and "3 kid", whatever else either says ("two kids: Emma, who is
// 6, and Noah, who is 3" has a 3 too, but not of kids).
func countsDiffer(a, b []term) bool {
	counts := func(ts []term) map[string]string {
		m := map[string]string{}
		for i := 0; i+1 < len(ts); i++ {
			if ts[i].number && !ts[i+1].number && ts[i].kind == kindCore && ts[i+1].kind == kindCore {
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

// shortenWords writes a word of one value that begins with a whole word
// of the other, five letters or more, as that word: "physio" and
// "physiotherapist".
func shortenWords(a, b []term) {
	for i := range a {
		for j := range b {
			x, y := a[i].lemma, b[j].lemma
			switch {
			case len(x) >= 5 && len(y) > len(x) && strings.HasPrefix(y, x):
				b[j].lemma = x
			case len(y) >= 5 && len(x) > len(y) && strings.HasPrefix(x, y):
				a[i].lemma = y
			}
		}
	}
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

// subsetEither reports whether one of a and b has every word of the other.
func subsetEither(a, b []string) bool {
	in := func(x, y []string) bool {
		for _, w := range x {
			if !slices.Contains(y, w) {
				return false
			}
		}
		return true
	}
	return in(a, b) || in(b, a)
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
