package local

import (
	"context"
	"strings"

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
// Spanish", "when you explain code, show the example first"), reads a
// correction that names no one as the user's ("the budget is now 8k"),
// drops questions, greetings, one-off requests to the assistant and
// filler, rewrites first person as "User ..." and rates each fact's
// intensity from the cues in its text (signals). The zero value is ready
// to use.
type Extractor struct{}

var _ hippo.Extractor = (*Extractor)(nil)

// NewExtractor returns the default extractor.
func NewExtractor() *Extractor { return &Extractor{} }

// ExtractorName implements hippo.ExtractorNamer.
func (x *Extractor) ExtractorName() string { return hippo.ExtractorOffline }

// ExtractFacts returns the facts stated in text, in order, without
// repeats; it calls no LLM.
func (x *Extractor) ExtractFacts(ctx context.Context, text string) ([]hippo.Fact, []hippo.LLMCall, error) {
	return x.ExtractFactsAfter(ctx, "", text)
}

// ExtractFactsAfter implements hippo.FollowUpExtractor: it returns the
// facts of text as ExtractFacts does, with a pronoun opening text read as
// it would be after previous's last statement ("He has hay fever" after
// "My son is 8." is about the user's son). previous's own facts are not
// returned, and a pronoun it names no one for stays unresolved, as in
// ExtractFacts.
func (x *Extractor) ExtractFactsAfter(ctx context.Context, previous, text string) ([]hippo.Fact, []hippo.LLMCall, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	var all []*extracted
	seen := map[string]bool{}
	var last *extracted        // the latest fact, for elaboration in a later sentence
	var lastClause *clauseFact // its clause, for a pronoun opening a later sentence
	for _, s := range splitSentences(previous) {
		if _, cf := extractSentence(s, nil, lastClause); cf != nil {
			lastClause = cf
		}
	}
	if lastClause != nil {
		c := *lastClause
		c.before = true
		lastClause = &c
	}
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
	return facts, nil, nil
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
	wish bool // see clauseFact
	// tail is the qualifying clause that opened the sentence, added
	// once the sentence is read.
	tail string
}

// Leading words to drop, with the signal they carry.
var (
	asideMarkers = []string{"oh and", "oh", "by the way", "btw", "just fyi", "fyi", "fwiw", "tbh", "ngl", "anyway",
		"side note", "random thought", "fun fact", "incidentally"}
	importanceMarkers = []string{"remember this", "remember that", "please remember", "remember",
		"this is critical", "this is important", "this is crucial", "important", "critical",
		"note", "please note", "for the record", "keep in mind", "never forget", "do not forget"}
	fillerWords = setOf(`hi hello hey yo good morning evening afternoon night ok okay yeah yes yep
		no nope sure thanks thank cheers sorry ugh wow oops hmm um uh well lol haha nice cool
		great awesome alright quick question also so and but honestly actually basically
		anyway now then plus lol lmao haha omg`)
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
	toks, ok := sentenceTokens(s, last, lastClause)
	if !ok {
		return nil, nil
	}
	w := &sentenceWalk{last: last, opensWithTurn: len(toks) > 0 && turnWords[toks[0].lower]}
	toks, corrects := markersOff(toks, &w.shared)
	toks = neitherNor(toks)
	toks = profileField(toks)
	toks = frontAdverbial(toks)
	w.shared.bangs = s.bangs
	w.prev = lastClause
	if lastClause != nil {
		c := *lastClause
		c.earlier = true
		w.prev = &c
	}
	clauses := splitLead(splitClauses(toks))
	conditioned := conditions(clauses)
	for k := range clauses {
		clauses[k].conditioned, clauses[k].correcting = conditioned, corrects
	}
	for k, c := range clauses {
		w.clause(k, c, clauses[k+1:])
	}
	if len(w.facts) == 0 && last != nil {
		// Elaboration of the previous sentence's fact.
		if w.pending.strong() > 0 {
			last.sig.attach(w.pending)
		}
	}
	for _, f := range w.facts {
		f.content, f.tail = f.content+f.tail, ""
	}
	return w.facts, w.lastFact
}

// sentenceTokens returns the words of s with the user put back where notes
// and casual sentences leave them out, and without a closing question. ok
// is false when s holds no statement, or only narrows last: "Especially
// ones with trading".
func sentenceTokens(s sentence, last *extracted, lastClause *clauseFact) (toks []token, ok bool) {
	toks = lex(s.text)
	aboutUser := lastClause != nil && lastClause.asWritten && isUser(lastClause.subject)
	if (aboutUser || s.item) && notesGoOn(toks) {
		// Notes about the user go on without their subject: "The user is
		// a teacher. Prefers short answers.", "- Lives in Berlin".
		toks = append([]token{word("User"), word(toks[0].lower)}, toks[1:]...)
	}
	if last != nil && len(toks) > 1 && focusLeads[toks[0].lower] && isFragment(toks[1:]) {
		// "Especially ones with trading": the fact before, narrowed.
		last.content += ", " + render(lowerFirst(trimPunct(toks)))
		return nil, false
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
			return nil, false
		}
	}
	return toks, true
}

// sentenceWalk is the state of extractSentence as it reads a sentence's
// clauses in order.
type sentenceWalk struct {
	last          *extracted // the latest fact of an earlier sentence
	opensWithTurn bool       // the sentence opens with "but", "now"
	shared        signals    // markers that apply to the whole sentence
	facts         []*extracted
	pending       signals     // from fact-less clauses waiting for a fact
	prev          *clauseFact // the clause before, for a shared subject
	lastFact      *clauseFact // the clause of the latest fact
	// made: the clause before made the sentence's latest fact, which a
	// qualifying clause after it ("when I run") then completes.
	// afterQualifier: the clause before was such a qualifying clause.
	made, afterQualifier bool
	// lead is a qualifying clause opening the sentence ("When I'm
	// stressed, I bake bread"), for the fact of the clause after it.
	lead []token
	// bare is the clause before when it has a subject and a verb but
	// states nothing alone ("I went there"): a qualifying clause after
	// it makes it a fact ("… when my father was ill").
	bare *clauseFact
}

// keepSignals gives a clause's signals to the fact before it in the
// sentence, or to the first one after it.
func (w *sentenceWalk) keepSignals(sig signals) {
	if len(w.facts) > 0 {
		w.facts[len(w.facts)-1].sig.attach(sig)
	} else {
		w.pending.merge(sig)
	}
}

// clause reads the sentence's clause c, the k-th, with rest after it.
func (w *sentenceWalk) clause(k int, c clause, rest []clause) {
	sig := scan(c.toks)
	if w.afterQualifier && len(w.facts) > 0 && sharesSubject(lastWord(c.connector)) &&
		(verbFirst(c.toks) || isParticiple(firstWord(c.toks)) && gerundAfterPreposition(lex(w.facts[len(w.facts)-1].content))) {
		// The qualifying clause goes on: "not sure if I should get
		// more or try something different".
		f := w.facts[len(w.facts)-1]
		f.content += joinClause(c.connector) + render(rewritePronouns(trimPunct(c.toks), w.lastFact != nil && isUser(w.lastFact.subject)))
		f.sig.attach(sig)
		return
	}
	w.afterQualifier = false
	if q := qualifier(c, k == 0); q != nil {
		w.qualify(k, c, q, sig)
		return
	}
	if k == 0 && len(c.toks) > 0 && concessiveWords[c.toks[0].lower] {
		c.toks = c.toks[1:] // "Although I grew up in Wales, ..."
	}
	cf := rewriteClause(c, w.prev)
	w.made, w.bare = false, nil
	if cf != nil && cf.content == "" && cf.dangling == "" && len(cf.subject) > 0 && cf.verbEnd > len(cf.subject) {
		w.bare = cf
		if to, text := bareGoesOn(cf, c, rest, w.facts, w.last, k == 0); to != nil {
			to.content += text
			to.sig.attach(sig)
			w.bare = nil
			return
		}
	}
	switch {
	case cf != nil && cf.dangling != "":
		w.prev = nil // its subject is not the one before it
		if len(w.facts) > 0 {
			// "I have an uncle in Lagos and he runs a restaurant":
			// the clause stays with the fact it continues.
			w.facts[len(w.facts)-1].content += joinClause(c.connector) + cf.dangling
		} else if k == 0 && w.last != nil && goesOnAbout(cf.dangling) {
			// A sentence going on about the fact before it: "I bought
			// a rowing machine. It has made a huge difference."
			w.last.content += "; " + cf.dangling
		}
		w.keepSignals(sig)
	case cf == nil || cf.content == "":
		// A clause with a subject keeps it for "and ..." clauses;
		// one with none ends the subject before it: "It looks nice
		// and helps my back" is not about the user.
		w.prev = cf
		w.keepSignals(sig)
	default:
		w.addFact(k, c, cf, sig)
	}
}

// qualify reads q, the qualifying clause c ("when I run") is, the k-th of
// the sentence: it completes the fact before it, or makes one of a bare
// clause before it, or waits for the next fact when it opens the sentence.
func (w *sentenceWalk) qualify(k int, c clause, q []token, sig signals) {
	if mentionsYou(q) && !(k == 0 || w.made && w.lastFact != nil && w.lastFact.wish) {
		// "I'm fine, if you ask": no condition of a fact about the user.
		w.made, w.bare, w.prev = false, nil, nil
		w.keepSignals(sig)
		return
	}
	switch {
	case w.made:
		f := w.facts[len(w.facts)-1]
		f.content += joinQualifier(c.connector) + renderQualifier(q, w.lastFact)
		f.sig.attach(sig)
		w.afterQualifier = true
		return
	case w.bare != nil:
		sig.merge(w.shared)
		if len(w.facts) == 0 {
			sig.attach(w.pending)
			w.pending = signals{}
		}
		content := render(w.bare.body) + joinQualifier(c.connector) + renderQualifier(q, w.bare)
		w.facts = append(w.facts, &extracted{content: content, sig: sig})
		w.prev, w.lastFact, w.bare, w.made, w.afterQualifier = w.bare, w.bare, nil, true, true
		return
	case k == 0:
		w.lead = q
	}
	w.made = false
	w.keepSignals(sig)
}

// addFact adds cf, the fact of the k-th clause c, with its signals.
func (w *sentenceWalk) addFact(k int, c clause, cf *clauseFact, sig signals) {
	w.prev, w.lastFact = cf, cf
	sig.merge(w.shared)
	sig.identity = sig.identity || cf.identity
	if cf.hedged {
		sig.hedges++
	}
	f := &extracted{content: cf.content, sig: sig, replaces: cf.replaces, former: cf.former, wish: cf.wish}
	if w.lead != nil && (cf.wish || !mentionsYou(w.lead)) {
		// Put after all the fact says in the sentence: "User worked
		// in a bar and a cafe when they were a student".
		f.tail = " " + renderQualifier(w.lead, cf)
	}
	w.lead = nil
	w.made = true
	f.turn = k == 0 && w.opensWithTurn || isTurn(c)
	if len(w.facts) == 0 {
		f.sig.attach(w.pending)
		w.pending = signals{}
	}
	w.facts = append(w.facts, f)
}

// bareGoesOn returns the fact that bare, a clause of the user's with a
// verb but nothing stated ("I love it", "I won't sleep"), goes on, and
// the text it adds to it; nil when it goes on none. c is its clause, rest
// the clauses after it in the sentence, facts the sentence's facts so far
// and last the latest fact of an earlier sentence, for a clause opening
// its sentence (first).
func bareGoesOn(bare *clauseFact, c clause, rest []clause, facts []*extracted, last *extracted, first bool) (*extracted, string) {
	if !isUser(bare.subject) {
		return nil, ""
	}
	var to *extracted
	switch {
	case len(facts) > 0:
		to = facts[len(facts)-1]
	case first:
		to = last
	}
	if to != nil && to.wish {
		return nil, "" // what the user wants of the assistant is no clause of theirs
	}
	if to != nil && pronounObject(bare.body[bare.verbEnd:]) {
		// What the user feels about what they just said: "I got a
		// Kindle and I love it", "… I hate it so much".
		join := " and "
		if len(facts) > 0 && sharesSubject(lastWord(c.connector)) {
			join = joinClause(c.connector) // "… but did not like it"
		}
		if !strings.HasPrefix(to.content, "User ") {
			join += "User "
		}
		return to, join + render(bare.body[len(bare.subject):])
	}
	// A verb of the user's with nothing else, after a fact: "I can't have
	// caffeine after 2 pm or I won't sleep"; not when a qualifying or
	// sharing clause follows ("but I'm not sure if …"), or the verb only
	// talks ("and I was wondering").
	qualified := len(rest) > 0 && (qualifier(rest[0], false) != nil || sharesSubject(lastWord(rest[0].connector)))
	v := bare.body[len(bare.subject)+max(0, firstNonAuxiliary(bare.body[len(bare.subject):]))].lower
	if len(facts) > 0 && sharesSubject(lastWord(c.connector)) && firstWord(c.toks) == "i" && !qualified && !isConversational(v) {
		return facts[len(facts)-1], joinClause(c.connector) + render(rewritePronouns(trimPunct(c.toks), true))
	}
	return nil, ""
}

// isFragment reports whether toks have no subject and no finite verb:
// "ones with trading and negotiation".
func isFragment(toks []token) bool {
	for _, t := range toks {
		if w := t.lower; subjectPronouns[w] && !possessiveDeterminers[w] || modals[w] || verbBase(w) == "be" || verbBase(w) == "have" {
			return false
		}
	}
	return finiteVerb(toks, 0, true) < 0
}

// qualifier returns a clause that says when, on what condition or of what
// the clause before it holds, from its qualifying word on ("when I run",
// "which I charge at work"), or nil. At the start of a sentence (first),
// the word opens the clause ("When I'm stressed, ..."). A clause that
// holds nothing is no qualifier of a fact; one that names the assistant
// ("when you explain code") qualifies only what the user wants of it.
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
// ("User's grandmother passed away when User was twelve"); the assistant
// is "it" in what the user wants of it ("… when it explains code").
func renderQualifier(q []token, cf *clauseFact) string {
	if cf != nil && cf.wish {
		return q[0].lower + " " + render(assistantAsIt(q[1:]))
	}
	user := cf != nil && isUser(cf.subject)
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
	toks, _ = markersOff(toks, sig)
	return toks
}

// markersOff is stripMarkers, and says whether a correction marker was
// among the markers: "update:", "scratch that,", "actually".
func markersOff(toks []token, sig *signals) (rest []token, corrects bool) {
	for {
		for len(toks) > 0 && toks[0].punct {
			toks = toks[1:]
		}
		if len(toks) == 0 {
			return toks, corrects
		}
		if n := correctionMarker(toks); n > 0 {
			corrects, toks = true, toks[n:]
			continue
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
		// A single filler word followed by punctuation, by "I" or by a
		// marker: "hey quick update, …".
		if fillerWords[toks[0].lower] && (len(toks) == 1 || toks[1].punct || toks[1].lower == "i" || fillerWords[toks[1].lower] || correctionMarker(toks[1:]) > 0) {
			toks = toks[1:]
			continue
		}
		return toks, corrects
	}
}

// matchPhrase returns the number of tokens of the first phrase that toks
// start with, or 0.
func matchPhrase(toks []token, phrases []string) int {
	for _, p := range phrases {
		// Word by word, without splitting p: this runs for every clause.
		n, ok := 0, true
		for rest := p; ok && rest != ""; n++ {
			var w string
			w, rest, _ = strings.Cut(rest, " ")
			ok = n < len(toks) && toks[n].lower == w
		}
		if ok {
			return n
		}
	}
	return 0
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
