package local

import (
	"slices"
	"strings"
	"unicode"
)

// statement is a fact read as subject, relation and value: "User's design
// review" "is on" "Thursday". The classifier supersedes only when two
// statements fill the same slot: the same subject, the same relation and,
// within the value, the same kind of word in the same frame.
type statement struct {
	subject  subject
	relation string // canonical relation: "residence", "employer", "like", "when", …
	negated  bool
	past     bool     // "used to", "previously": no longer current
	future   bool     // a plan: "will", "is going to move", "next year"
	changed  bool     // says that something changed: "now", "actually", "new", "switched"
	value    []term   // content words after the relation, in order
	left     []string // for a move, the place left: "from Paris"
	article  bool     // the value opens with "a" or "an": a kind, not a quality
	content  []string // every content lemma, in order, for equality
}

// subject is who or what a statement is about.
type subject struct {
	owner  []string // the possessors, outermost first: ["user"] for "User's sister"
	head   string   // "user", "sister", "budget", "review"; "" for names alone
	mods   []string // its other content words: "design" review, budget for the "kitchen"
	names  []string // proper names: "rex" in "User's dog Rex"
	opaque bool     // named only by a pronoun ("User named her Pelusa"): matches nothing
}

// termKind is what a word of a value says: the thing itself, or when, how
// often or how much.
type termKind int

const (
	kindCore termKind = iota
	kindTime
	kindFreq
	kindAmount
)

// term is one content word of a value.
type term struct {
	lemma  string
	proper bool // capitalised inside the sentence: a name
	number bool
	kind   termKind
	prep   string // the preposition of its phrase: "in" Lisbon, "with" their partner
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
	s.settle(verb)
	s.content = s.subject.lemmas()
	s.content = append(s.content, s.relation)
	for _, t := range s.value {
		s.content = append(s.content, t.lemma)
	}
	return s
}

// statementTokens are the words of fact, without punctuation; a slash
// between two words joins them into one value ("she/her", "and/or"). A
// correction's tail naming the old value goes: "is 7, not 6", "three
// times a week instead of twice".
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
		if oldValueTail(all, i, len(toks)) {
			for i+1 < len(all) && !all[i+1].punct {
				i++
			}
			continue
		}
		if !t.punct {
			toks = append(toks, t)
		}
	}
	return toks
}

// oldValueTail reports whether all[i] opens the part of a correction that
// names the value it replaces: ", not 6", "instead of twice", "rather than
// Lisbon". kept is how many words are already kept.
func oldValueTail(all []token, i, kept int) bool {
	next := func(k int) string {
		if i+k < len(all) {
			return all[i+k].lower
		}
		return ""
	}
	switch {
	case kept < 3:
		return false
	case all[i].lower == "," && next(1) == "not" && next(2) != "":
		return true
	case all[i].lower == "instead" && next(1) == "of", all[i].lower == "rather" && next(1) == "than":
		return true
	}
	return false
}

// changeWords in a subject or verb group say that a value changed: "User's
// new manager", "User now works at Stripe", "is actually called Ines".
var changeWords = setOf(`new current now actually nowadays anymore instead`)

// readSubject reads the subject that opens toks ("User", "User's wife",
// "The user", "User's budget for the kitchen", a noun phrase) and returns
// the index past it. A subject noun that names a relation sets it: "User's
// home is in Berlin", "User's sister's name is Ana".
func (s *statement) readSubject(toks []token) int {
	i := 0
	if len(toks) > 1 && toks[0].lower == "the" && toks[1].lower == "user" {
		i++
	}
	var parts [][]token // split at "'s"
	var cur []token
	for start := i; i < len(toks) && (i == start || nounFollows(toks[i-1]) || !isVerbStart(toks, i) || nounBeforeVerb(toks, i)); i++ {
		t := toks[i]
		if t.lower == "'s" {
			parts, cur = append(parts, cur), nil
			continue
		}
		if i == 0 && t.text != "User" {
			// A capital that opens the fact is no name: "Budget is 8k".
			t.text = t.lower
		}
		cur = append(cur, t)
	}
	parts = append(parts, cur)
	sub := &s.subject
	for _, p := range parts[:len(parts)-1] {
		head, _, names := s.nounPhrase(p)
		if head == "" && len(names) > 0 {
			head = names[len(names)-1]
		}
		if head != "" {
			sub.owner = append(sub.owner, head)
		}
	}
	sub.head, sub.mods, sub.names = s.nounPhrase(parts[len(parts)-1])
	if r, ok := relationOf[sub.head]; ok && subjectRelations[r] && len(sub.owner) > 0 {
		// "User's home", "User's dog's name", "User's salary".
		s.relation = r
		sub.head, sub.owner, sub.mods, sub.names = sub.owner[len(sub.owner)-1], sub.owner[:len(sub.owner)-1], nil, nil
	}
	if len(sub.owner) == 0 && sub.head != "user" && sub.head != "" {
		sub.owner = []string{"user"} // "The budget", "Dad": the user's
	}
	return i
}

// nounFollows reports whether the word after t is a noun, not a verb:
// "User's design review", "The meeting with the landlord".
func nounFollows(t token) bool {
	return t.lower == "'s" || t.lower == "the" || t.lower == "a" || t.lower == "an" || t.lower == "our" || t.lower == "my"
}

// nounBeforeVerb reports whether toks[i], which could be a verb, is the
// last noun of the subject because an auxiliary follows it: "User's design
// review is on Thursday".
func nounBeforeVerb(toks []token, i int) bool {
	if b := classVerb(toks[i].lower); b == "be" || b == "have" || b == "do" || modals[toks[i].lower] || adverbs[toks[i].lower] || negations[toks[i].lower] || toks[i].lower == "used" {
		return false
	}
	j := i + 1
	for j < len(toks) && (adverbs[toks[j].lower] || changeWords[toks[j].lower]) {
		j++
	}
	if j >= len(toks) {
		return false
	}
	b := classVerb(toks[j].lower)
	return b == "be" || b == "have" || modals[toks[j].lower]
}

// subjectRelations are the relations a subject noun may name.
var subjectRelations = setOf(`residence call age born birthday employer earn`)

// nounPhrase reads a noun phrase: its head (the last common noun before
// any preposition), its other content words, and the proper names after
// the head or alone. Change words ("new") are dropped and set s.changed.
func (s *statement) nounPhrase(toks []token) (head string, mods, names []string) {
	var pre []token
	k := 0
	for ; k < len(toks) && !prepositions[toks[k].lower]; k++ {
		t := toks[k]
		switch {
		case t.lower == "the" || t.lower == "a" || t.lower == "an":
			pre = pre[:0] // "Ugh the gig", "Unfortunately the christening"
		case changeWords[t.lower]:
			s.changed = true
		case t.lower == "user" || t.text == "User":
			pre = append(pre, token{text: "user", lower: "user"})
		case !stopwords[t.lower]:
			pre = append(pre, t)
		}
	}
	h := -1
	for j := len(pre) - 1; j >= 0; j-- {
		if !isProperNoun(pre[j]) {
			h = j
			break
		}
	}
	for j, t := range pre {
		l := lemmaOf(t.lower)
		switch {
		case j == h:
			head = l
		case j > h:
			names = append(names, l)
		default:
			mods = append(mods, l)
		}
	}
	for ; k < len(toks); k++ {
		if t := toks[k]; !stopwords[t.lower] && !prepositions[t.lower] {
			mods = append(mods, lemmaOf(t.lower))
		}
	}
	return head, mods, names
}

// lemmas are the subject's words in one order, for equality.
func (sub subject) lemmas() []string {
	out := append([]string{}, sub.owner...)
	mods := slices.Clone(sub.mods)
	slices.Sort(mods)
	out = append(out, mods...)
	out = append(out, sub.head)
	names := slices.Clone(sub.names)
	slices.Sort(names)
	return append(out, names...)
}

// matches reports whether two subjects are the same one: the same owner
// and head, and modifiers and names of which one has all the other's:
// "User's renovation budget" and "The budget", "User's dog Rex" and
// "User's dog", but not "User's budget for the kitchen" and "User's
// budget for the trip".
func (sub subject) matches(o subject) bool {
	if sub.opaque || o.opaque || sub.head != o.head || !slices.Equal(sub.owner, o.owner) {
		return false
	}
	if sub.head == "" && !sameSet(sub.names, o.names) {
		return false
	}
	return subsetEither(sub.mods, o.mods) && subsetEither(sub.names, o.names)
}

// person reports whether the subject is someone, not something: the user,
// a relative, a role, a pet or a name.
func (sub subject) person() bool {
	h := sub.head
	if overlaps(sub.mods, slotWords) {
		return false // "User's main editor" is a tool
	}
	return h == "user" || relatives[h] || roleNouns[h] || pets[h] || h == "" && len(sub.names) > 0 ||
		h == "mom" || h == "father" || h == "kid" || h == "friend" || h == "flatmate"
}

// slotWords make a subject the one value of a preference: "User's
// favourite band", "User's main editor".
var slotWords = []string{"favourite", "main", "preferred", "primary", "usual", "default", "go-to"}

// prepositions open a phrase inside a subject or value.
var prepositions = setOf(`in on at to for from with near by of about into over under since until till during after around like than per as`)

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
			s.changed = true
			continue
		case w == "used" && i+1 < len(toks) && toks[i+1].lower == "to":
			s.past = true
			i++
			continue
		case w == "previously" || w == "formerly" || w == "once":
			s.past = true
			continue
		case w == "will":
			s.future = true
			continue
		case changeWords[w]:
			s.changed = true
			continue
		case adverbs[w] || modals[w] || w == "anymore":
			continue
		}
		b := classVerb(w)
		if b == "be" || b == "have" || b == "do" {
			// An auxiliary when a verb follows, past any negation.
			j, neg := i+1, false
			for j < len(toks) && (negations[toks[j].lower] || adverbs[toks[j].lower] || toks[j].lower == "longer" || toks[j].lower == "been") {
				if negations[toks[j].lower] {
					neg = !neg
				}
				if changeWords[toks[j].lower] {
					s.changed = true
				}
				j++
			}
			if j < len(toks) && classVerb(toks[j].lower) != "" && !determiners[toks[j].lower] && !marital[toks[j].lower] && isVerbStart(toks, j) {
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
		if (b == "call" || b == "name") && !afterBe(toks, i) && i+1 < len(toks) && !isProperNoun(toks[i+1]) {
			// "User named her Pelusa", "User calls him Benja": the name
			// of someone else.
			s.subject.opaque = true
		}
		return b, i + 1
	}
	return "", i
}

// afterBe reports whether a form of "be" comes before toks[i], past
// adverbs: "is called", "is actually called".
func afterBe(toks []token, i int) bool {
	for j := i - 1; j >= 0; j-- {
		if w := toks[j].lower; !adverbs[w] && !changeWords[w] && !negations[w] {
			return classVerb(w) == "be"
		}
	}
	return false
}

// extraVerbs are verbs of change the classifier knows beyond the shared
// lexicon: "postponed", "rescheduled", "retrained".
var extraVerbs = setOf(`postpone reschedule delay shift promote retrain relocate`)

// classVerb is verbBase, knowing extraVerbs too.
func classVerb(w string) string {
	if b := verbBase(w); b != "" {
		return b
	}
	if extraVerbs[w] {
		return w
	}
	for _, c := range deinflect(w) {
		if extraVerbs[c] {
			return c
		}
	}
	return ""
}

// complementVerb returns the verb that names the relation, and the rest,
// when what follows a light verb does: "is called Ana", "is 41", "has a
// fear of flying", "got engaged", "turned 35", "works at Google", "goes
// climbing", "is sick of Tailwind", "got pushed to October", "went up to
// 8k", "started a new job at Stripe".
func (s *statement) complementVerb(verb string, rest []token) (string, []token) {
	first := func(k int) string {
		if k < len(rest) {
			return rest[k].lower
		}
		return ""
	}
	if verb == "be" && len(rest) > 0 {
		switch {
		case first(0) == "called" || first(0) == "named":
			verb, rest = "call", rest[1:]
		case first(0) == "born":
			verb, rest = "born", rest[1:]
		case first(0) == "employed":
			verb, rest = "employer", rest[1:]
		case first(0) == "based" || first(0) == "located":
			verb, rest = "residence", rest[1:]
		case first(0) == "in" && s.relation == "residence":
			rest = rest[1:]
		case (first(1) == "to" || first(1) == "of") && (first(0) == "allergic" || first(0) == "afraid"):
			verb, rest = first(0), rest[2:]
		case fedUp[first(0)] && (first(1) == "of" || first(1) == "with"):
			verb, rest = "hate", rest[2:] // "is sick of Tailwind"
		case first(0) == "fed" && first(1) == "up" && first(2) == "with":
			verb, rest = "hate", rest[3:]
		case (isNumber(first(0)) || numberWords[first(0)] != "") && !rest[0].money:
			if s.relation == "" && (len(rest) == 1 || first(1) == "years") {
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
	switch {
	case (verb == "get" || verb == "become") && len(rest) > 0 && marital[first(0)]:
		verb, rest = "marital", rest[:1] // "got engaged last month"
	case verb == "get" && len(rest) > 0 && classVerb(first(0)) != "" && strings.HasSuffix(first(0), "ed"):
		// A passive: "got pushed to October", "got promoted".
		verb, rest = classVerb(first(0)), rest[1:]
	case verb == "go" && len(rest) > 0 && strings.HasSuffix(first(0), "ing") && classVerb(first(0)) != "":
		verb, rest = lemmaOf(first(0)), rest[1:] // "goes climbing"
	case verb == "go" && first(0) == "to" && verbBases[first(1)]:
		verb, rest = first(1), rest[2:] // "is going to move to Osaka"
		s.future = true
	}
	if (verb == "promote" || verb == "retrain") && (first(0) == "to" || first(0) == "as") {
		verb, rest = "become", rest[1:] // "got promoted to senior designer"
		s.changed = true
	}
	if amountChange[verb] || verb == "go" && (first(0) == "up" || first(0) == "down") {
		// "went up to 8k", "rose to 1200 euros": a new amount.
		k := 0
		if first(0) == "up" || first(0) == "down" {
			k = 1
		}
		if k < len(rest) && rest[k].lower == "to" && amountFollows(rest[k+1:]) {
			verb, rest, s.changed = "be", rest[k+1:], true
		}
	}
	if jobVerbs[verb] {
		// "started a new job at Stripe", "took a job as a technical rep".
		for k := 0; k+1 < len(rest) && k < 4; k++ {
			if w := rest[k].lower; w != "job" && w != "position" && w != "role" {
				continue
			}
			switch rest[k+1].lower {
			case "at", "with", "for":
				verb, rest = "join", rest[k+2:]
			case "as":
				verb, rest = "become", rest[k+2:]
			}
			break
		}
	}
	if verb == "turn" && len(rest) > 0 && (isNumber(first(0)) || numberWords[first(0)] != "") {
		verb, rest = "age", rest[:1] // "turned 35 last week"
	}
	if verb == "refuse" {
		s.negated = !s.negated // "refuses to use Redux": does not want to
	}
	if verb == "plan" && first(0) == "to" {
		s.future = true // "plans to retire at 60"
	}
	if verb == "give" && first(0) == "up" {
		verb, rest = "stop", rest[1:]
	}
	if verb == "work" && (first(0) == "at" || first(0) == "for") {
		verb = "employer"
	}
	if verb == "work" && first(0) == "as" {
		verb = "be"
	}
	return verb, rest
}

// fedUp are the words of "is sick of X": a dislike.
var fedUp = setOf(`sick tired weary done`)

// amountChange are verbs that give an amount a new value.
var amountChange = setOf(`rise increase drop fall decrease jump raise`)

// jobVerbs take a job: "started a new job at Stripe".
var jobVerbs = setOf(`start take get land accept begin find`)

// amountFollows reports whether toks open with an amount.
func amountFollows(toks []token) bool {
	return len(toks) > 0 && (isNumber(toks[0].lower) || numberWords[toks[0].lower] != "" || unitNumber(toks[0].lower))
}

// rescheduleVerbs move something to another time or place: "moved the
// review to Friday", "postponed the trip to October".
var rescheduleVerbs = setOf(`move push postpone reschedule shift delay bring change put`)

// objectDeterminers open the object of a verb that moves it: "moved the
// review", "postponed their trip".
var objectDeterminers = setOf(`the a an our their his her my its this that`)

// readRelation sets s.relation from verb, unless the subject set it, and
// returns the words that hold the value. A verb that moves something
// ("moved the review to Friday") makes the thing moved the subject.
func (s *statement) readRelation(verb string, rest []token) []token {
	if rescheduleVerbs[verb] && len(rest) > 1 && objectDeterminers[rest[0].lower] {
		for k := 1; k < len(rest); k++ {
			if w := rest[k].lower; w == "to" || w == "for" || w == "until" || w == "till" {
				owner := append(slices.Clone(s.subject.owner), s.subject.head)
				s.subject = subject{owner: owner}
				s.subject.head, s.subject.mods, s.subject.names = s.nounPhrase(rest[:k])
				rest = rest[k:]
				s.changed = true
				break
			}
		}
	}
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
			for _, l := range rest[k+1 : end] {
				if !stopwords[l.lower] {
					s.left = append(s.left, lemmaOf(l.lower))
				}
			}
			rest = append(append([]token{}, rest[:k]...), rest[min(end, len(rest)):]...)
			break
		}
	}
	return rest
}

// readValue sets s.value to the content words of rest, each with the
// preposition of its phrase and its kind; negations in it flip s.negated,
// marks of the past set s.past.
func (s *statement) readValue(rest []token) {
	prep := ""
	for k, t := range rest {
		w := t.lower
		switch {
		case (w == "a" || w == "an") && len(s.value) == 0:
			s.article = true
			continue
		case prepositions[w]:
			prep = w
			continue
		case w == "next" || w == "tomorrow" || w == "soon":
			s.future = true // "is moving to Osaka next year"
			continue
		case placeRelations[s.relation] && timeWords[w]:
			continue // "moved to Berlin last year" is in Berlin
		case w == "before" || w == "previously" || w == "formerly":
			s.past = true
			continue
		case negations[w]:
			s.negated = !s.negated
			continue
		case changeWords[w] || w == "these" && k+1 < len(rest) && rest[k+1].lower == "days":
			s.changed = true
			continue
		case hedges[w]:
			continue
		case stopwords[w] && !(isCapitalized(t) && w != "i" && w != "user"), // "in May" names a month
			w == "'s" || w == "better" || w == "again" || w == "anymore" || w == "strongly":
			continue
		}
		l := lemmaOf(w)
		if l == "" {
			continue
		}
		s.value = append(s.value, term{lemma: l, proper: (isProperNoun(t) || innerCapital(t.text)) && t.text != "User" && !timeNames[w],
			number: isNumber(l) || unitNumber(w), kind: kindOf(rest, k), prep: prep})
	}
}

// innerCapital reports whether w has a capital after its first letter, as
// product names do: "iPhone", "macOS".
func innerCapital(w string) bool {
	for i, r := range w {
		if i > 0 && unicode.IsUpper(r) {
			return true
		}
	}
	return false
}

// hedges soften an amount: "more like 8k", "about 6 grand".
var hedges = setOf(`like about around roughly approximately approx circa`)

// settle names the slot of a statement about a thing by its value: when
// something is ("The review is on Friday", "moved to Friday"), where it is,
// how much it is ("The budget is now 8k"); and a person who is now in a
// place lives there. A person's plan is marked future.
func (s *statement) settle(verb string) {
	kinds := map[termKind]bool{}
	for _, t := range s.value {
		kinds[t.kind] = true
	}
	placed := len(s.value) > 0 && s.value[0].proper && (s.value[0].prep == "in" || s.value[0].prep == "to" || s.value[0].prep == "at")
	if !s.subject.person() {
		slotted := s.relation == "be" || rescheduleVerbs[verb] || verb == "plan" || verb == "schedule" || verb == "set"
		switch {
		case slotted && kinds[kindTime]:
			s.relation = "when"
		case s.relation == "move":
			s.relation = "switch" // "User's team moved to Linear"
		case slotted && kinds[kindAmount] && !kinds[kindCore]:
			s.relation = "amount"
		case slotted && placed:
			s.relation = "where"
		}
		return
	}
	switch {
	case s.relation == "be" && s.changed && placed && s.value[0].prep == "in":
		s.relation = "residence" // "User is now in Porto"
	case s.relation == "be" && s.subject.head != "user" && len(s.value) > 0 && !s.article && allProper(s.value):
		s.relation = "call" // "User's manager is Tom"
	}
}

func allProper(ts []term) bool {
	for _, t := range ts {
		if !t.proper {
			return false
		}
	}
	return true
}

// kindOf says what rest[k], a content word of a value, is about: a time
// ("on Friday", "at 9:30", "March 3rd", "in May"), a frequency ("twice a
// week", "every Monday"), an amount ("5k", "3000 euros"), or the thing
// itself.
func kindOf(rest []token, k int) termKind {
	w := rest[k].lower
	prev, next := "", ""
	if k > 0 {
		prev = rest[k-1].lower
	}
	if k+1 < len(rest) {
		next = rest[k+1].lower
	}
	switch {
	case freqWords[w], spanUnits[w] && (prev == "a" || prev == "per" || prev == "every" || prev == "each"):
		return kindFreq
	case (isNumber(w) || numberWords[w] != "") && (next == "times" || next == "time"):
		return kindFreq
	case rest[k].money, unitNumber(w), currency[w] && k > 0 && amountFollows(rest[k-1:k]):
		return kindAmount
	case (isNumber(w) || numberWords[w] != "") && (currency[next] || next == "k" || next == "grand"),
		isNumber(w) && len(next) == 3 && isNumber(next) && k+2 < len(rest) && currency[rest[k+2].lower]: // "25 000 złoty"
		return kindAmount
	case ordinalDate(w) && (timeNames[prev] || timeNames[next] || next == "of" || next == "" || stopwords[next]):
		return kindTime // "March 3rd", "the 13th"
	case timeNames[w], clockTime(w), spanUnits[w] && (timeWords[prev] || prev == "this" || prev == "the"):
		return kindTime
	case isNumber(w) && (prev == "at" || timeNames[prev] || timeNames[next] || len(w) == 4 && (w[:2] == "19" || w[:2] == "20")):
		return kindTime // "at 10", "May 3", "3 May", "2019"
	case (w == "first" || w == "last" || w == "second" || w == "third") && (timeNames[next] || spanUnits[next]):
		return kindTime // "the first Monday of the month"
	}
	return kindCore
}

// timeNames name a day, a month or a part of one.
var timeNames = setOf(`
monday tuesday wednesday thursday friday saturday sunday
mondays tuesdays wednesdays thursdays fridays saturdays sundays
january february march april may june july august september october november december
jan feb mar apr jun jul aug sep sept oct nov dec
morning mornings afternoon afternoons evening evenings night nights weekend weekends
noon midnight tonight tomorrow today yesterday am pm o'clock
`)

// spanUnits measure time: "a week", "every month".
var spanUnits = setOf(`day days week weeks month months year years fortnight weekend hour hours`)

// freqWords say how often.
var freqWords = setOf(`every once twice thrice times daily weekly monthly yearly nightly fortnightly hourly`)

// currency and units that make a number an amount.
var currency = setOf(`
euro euros eur dollar dollars usd pound pounds gbp quid buck bucks yen franc francs
zloty złoty zlotych peso pesos shilling shillings kes rupee rupees real reais krona kronor
grand k thousand million billion mil mg g kg km mile miles ml l percent
`)

// unitNumber reports whether w is a number with its unit: "5k", "2.4m",
// "100mg". A currency sign is a token of its own ("€900"): markMoney.
func unitNumber(w string) bool {
	i := 0
	for i < len(w) && (isDigit(w[i]) || i > 0 && (w[i] == '.' || w[i] == ',')) {
		i++
	}
	if i == 0 || i == len(w) {
		return false
	}
	return currency[w[i:]] || w[i:] == "m" || w[i:] == "bn"
}

// clockTime reports whether w is a time of day: "9:30", "7am", "10pm".
func clockTime(w string) bool {
	if strings.Contains(w, ":") && len(w) > 2 && isDigit(w[0]) {
		return true
	}
	return len(w) > 2 && isDigit(w[0]) && (strings.HasSuffix(w, "am") || strings.HasSuffix(w, "pm"))
}

// ordinalDate reports whether w is a day of a month: "3rd", "10th".
func ordinalDate(w string) bool {
	if len(w) < 3 || !isDigit(w[0]) {
		return false
	}
	suf := w[len(w)-2:]
	return (suf == "st" || suf == "nd" || suf == "rd" || suf == "th") && isNumber(w[:len(w)-2])
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
	"join": "join", "salary": "earn", "income": "earn", "earn": "earn",
}

// isVerbStart reports whether toks[i] begins the verb group.
func isVerbStart(toks []token, i int) bool {
	w := toks[i].lower
	if negations[w] || modals[w] || w == "used" {
		return true
	}
	if (adverbs[w] || changeWords[w]) && i+1 < len(toks) {
		return isVerbStart(toks, i+1)
	}
	if determiners[w] || stopwords[w] && classVerb(w) == "" {
		return false
	}
	if b := classVerb(w); b != "" {
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
	if b := classVerb(w); b != "" && extraVerbs[b] {
		return b
	}
	return lemma(w)
}
