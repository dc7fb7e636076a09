package local

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

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
	// before: the clause ended the text said before this one
	// (ExtractFactsAfter). Only "he", "she" and "they" refer back to it:
	// "it" opening a new message is as often about the talk itself.
	before bool
	// wish: the fact is what the user wants of the assistant ("User
	// wants the assistant to …"); a condition on the assistant after it
	// names it "it" ("… when it explains code").
	wish bool
	// dangling is set, with no content, on a clause whose subject is a
	// pronoun with no clear referent: the clause as it would read
	// attached to the fact before it, "he runs a restaurant there".
	dangling string
}

// conversational verbs talk about the conversation, not the user.
var conversational = setOf(`mean meant said say asked ask wonder wondering wondered apologize apologise apologizes apologises apologized apologised`)

// isConversational reports whether w, or the verb it is a form of, talks
// about the conversation: "wondering", "asked".
func isConversational(w string) bool { return conversational[w] || conversational[verbBase(w)] }

// rewriteClause turns a clause into a fact about the user, or returns nil
// when it holds none. A clause with a subject but no fact returns a
// clauseFact with empty content, so that a following "and ..." can share
// its subject.
func rewriteClause(c clause, prev *clauseFact) *clauseFact {
	conn := lastWord(c.connector)
	if qualifierWords[conn] {
		return nil
	}
	toks := dropDiscourseWords(trimPunct(c.toks))
	if len(toks) == 0 {
		return nil
	}
	if sharesSubject(conn) || conn == "," {
		toks = frontAdverbial(toks) // "…, and some nights I read until 2 am"
	}
	if cf, done := rewriteLead(toks, c.connector, prev, c.conditioned); done {
		return cf
	}
	if cf := userAttribute(toks, c.correcting); cf != nil {
		return cf // "the budget is now 8k": the user's budget
	}
	if mine, ok := assistantInWhen(toks); ok {
		toks = mine // "I hate when you write walls of text": the assistant
	}
	quoted := quotedSpans(toks)
	for i, t := range toks {
		if (t.lower == "you" || t.lower == "your" || t.lower == "yours") && !quoted[i] {
			return nil // about or for the assistant
		}
	}
	return rewriteBySubject(toks, c.connector, prev)
}

// discourseWords open a clause without adding to it: "honestly", "so".
var discourseWords = setOf(`now then also honestly actually so and but basically`)

// dropDiscourseWords drops the discourse words and punctuation that open
// a clause.
func dropDiscourseWords(toks []token) []token {
	for len(toks) > 0 && (discourseWords[toks[0].lower] || toks[0].punct) {
		toks = toks[1:]
	}
	return toks
}

// rewriteLead rewrites a clause whose opening says how to read the rest: a
// hedge, "remember that", "call me", "for me", what the user wants of the
// assistant. done is false when the clause opens with none of them.
func rewriteLead(toks []token, connector string, prev *clauseFact, conditioned bool) (cf *clauseFact, done bool) {
	if len(toks) > 2 && leadingHedges[toks[0].lower] && (subjectPronouns[toks[1].lower] || toks[1].lower == "user") {
		// "Maybe I'll check out the garden": a hedge before the subject.
		return hedged(rewriteClause(clause{toks: toks[1:], connector: connector}, prev)), true
	}
	if n := len(toks); n > 3 && toks[n-2].lower == "i" && hedgeVerbs[toks[n-1].lower] {
		// "My tablet runs Windows I think": a hedge at the end.
		return hedged(rewriteClause(clause{toks: toks[:n-2], connector: connector}, prev)), true
	}
	if n := memoLead(toks); n > 0 {
		// "Remember that I prefer metric units": what to remember.
		return rewriteClause(clause{toks: toks[n:], connector: connector, conditioned: conditioned}, prev), true
	}
	if name := calledName(toks); name != nil {
		// "Call me Sam", "You can call me Jo": the name the user goes by.
		return finish([]token{word("User"), possessive()}, append([]token{word("name"), word("is")}, name...)), true
	}
	if n := matchPhrase(toks, opinionLeads); n > 0 {
		// "For me, the best editor is Vim": the user's opinion.
		rest := toks[n:]
		for len(rest) > 0 && rest[0].punct {
			rest = rest[1:]
		}
		if len(rest) > 1 && statementVerb(rest, true) >= 0 {
			if !isProperNoun(rest[0]) {
				rest = lowerFirst(rest)
			}
			return finish([]token{word("User"), word("thinks")}, rest), true
		}
	}
	// After "and", "or", "but", a verb shares the user's subject ("I
	// read and watch films"); after anyone else's it is an order ("my
	// name's Priya, and keep it casual with me").
	conn := lastWord(connector)
	order := !sharesSubject(conn) || prev == nil || prev.wish || !isUser(prev.subject) || toks[0].lower == "please"
	if body := assistantWish(toks, conditioned, order); body != nil {
		// "I'd like you to reply in Spanish", "Never suggest peanuts":
		// how the user wants to be answered, from now on.
		cf := finish([]token{word("User")}, body)
		cf.wish = true
		return cf, true
	}
	return nil, false
}

// hedged marks cf, if there is one, as hedged.
func hedged(cf *clauseFact) *clauseFact {
	if cf != nil {
		cf.hedged = true
	}
	return cf
}

// markAsWritten marks cf as in the third person already.
func markAsWritten(cf *clauseFact) *clauseFact {
	cf.asWritten = true
	return cf
}

// rewriteBySubject rewrites a clause by what its subject is: the user in
// the third person, someone named, "I", "my", a pronoun, the subject of
// the clause before, or something else (an opinion or a plain statement).
func rewriteBySubject(toks []token, connector string, prev *clauseFact) *clauseFact {
	conn := lastWord(connector)
	first := toks[0].lower
	switch {
	case first == "user" && len(toks) > 1 || first == "the" && len(toks) > 2 && toks[1].lower == "user":
		return rewriteThirdPerson(toks, connector, prev)
	case namedPairLen(toks) > 0:
		// The user and someone named: "Anna and I went to Rome".
		n := namedPairLen(toks)
		return markAsWritten(finish(append([]token{word("User"), word("and")}, toks[:n]...), toks[n+2:]))
	case namedSubject(toks) > 0:
		// Someone else, by name: "Alice is a software engineer at Google".
		n := namedSubject(toks)
		return markAsWritten(finish(toks[:n], toks[n:]))
	case first == "i" && len(toks) > 1 && hedgeVerbs[toks[1].lower] && (len(toks) == 2 || toks[2].lower == "i" || toks[2].lower == "that" && len(toks) > 3 && toks[3].lower == "i"):
		// "I guess I kind of like jazz": drop the hedge.
		inner := toks[2:]
		if len(inner) > 0 && inner[0].lower == "that" {
			inner = inner[1:]
		}
		return hedged(rewriteClause(clause{toks: inner}, prev))
	case first == "i" && conn == "and" && len(toks) > 1 && prev != nil && prev.content == "" && prev.dangling == "" &&
		len(prev.subject) > 0 && prev.subject[len(prev.subject)-1].lower == "'s" &&
		prev.np == len(prev.subject) && len(prev.body) > len(prev.subject):
		// A subject of two: "My wife and I have been together for ten
		// years" is about both, and its verb agrees with both already.
		return markAsWritten(finish(append([]token{word("User"), word("and")}, prev.body...), toks[1:]))
	case first == "i" || first == "we":
		rest := conjugate(toks[1:])
		if n := len(trimPunct(rest)); n >= 2 && rest[n-2].lower == "to" && conversational[verbBase(rest[n-1].lower)] {
			return nil // "I want to ask, …", "I just want to say"
		}
		if i := firstNonAdverb(rest); i >= 0 && isConversational(rest[i].lower) {
			return nil
		}
		return finish([]token{word("User")}, rest)
	case first == "my" || first == "our":
		return finish([]token{word("User"), possessive()}, toks[1:])
	case referringPronouns[first] && len(toks) > 1:
		return resolvePronoun(toks, prev)
	case possessivePronouns[first] != "" && len(toks) > 1:
		// "and her husband is Italian": the husband of whom "she" is.
		if ref := referent(prev, possessivePronouns[first]); ref != nil {
			return markAsWritten(finish(append(ref, possessive()), toks[1:]))
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
		return rewriteShared(toks, conn, prev)
	case verbBase(first) == first && !hasFiniteBe(toks[1:]):
		return nil // an imperative: "Write a haiku", "Remember this"
	default:
		return rewriteOpinion(toks)
	}
}

// rewriteThirdPerson rewrites a clause about the user in the third person
// already: "The user prefers dark mode", "User's favorite language is
// Rust", "The user mentioned that they have two dogs".
func rewriteThirdPerson(toks []token, connector string, prev *clauseFact) *clauseFact {
	i := 1
	if toks[0].lower == "the" {
		i = 2
	}
	subject := []token{word("User")}
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
		if cf := rewriteClause(clause{toks: firstPersonOf(toks[j:]), connector: connector}, prev); cf != nil && cf.content != "" {
			return cf
		}
	}
	return markAsWritten(finish(subject, writersWords(toks[i:])))
}

// rewriteShared rewrites a clause after "and", "or", "but" with no subject
// of its own: it shares the subject of the clause before ("I live in
// Utrecht and work at the hospital"), or stays with that clause as what it
// goes on with (dangling) when it says nothing on its own.
func rewriteShared(toks []token, conn string, prev *clauseFact) *clauseFact {
	i := firstNonAdverb(toks)
	if i < 0 {
		return nil
	}
	w := toks[i].lower
	if v := i + max(0, firstNonAuxiliary(toks[i:])); v < len(toks) && isConversational(toks[v].lower) {
		return nil // "and was wondering if you could help"
	}
	user := isUser(prev.subject)
	if cf, ok := goesOn(toks, i, user, prev); ok {
		return cf
	}
	if determiners[w] || isNumber(w) {
		return sharedObject(toks, user, prev)
	}
	// Shared subject: "I live in Utrecht and work at the hospital",
	// "my flat is on the fourth floor and has no lift". Only the
	// user's own verbs ("work") agree with "I" and need the third
	// person; a possessive subject's already have it ("has").
	subject := prev.body[:prev.np]
	rest := toks
	if m := prev.np; conn != "but" && m < len(prev.body) && modals[prev.body[m].lower] && verbBase(w) == w && !isParticiple(w) &&
		(m+1 == len(prev.body) || !negations[prev.body[m+1].lower]) {
		// Shared subject and modal: "I'll email the landlord and
		// then call the plumber" is "User will call the plumber".
		rest = append([]token{prev.body[m]}, toks...)
	} else if !prev.asWritten && isUser(subject) {
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
}

// goesOn returns, with ok set, a clause with no subject that goes on with
// the verbs of the clause before (toks[i] is its first word past any
// adverb): the rest of a relative clause or of a list of verbs, a gerund,
// an infinitive or a participle.
func goesOn(toks []token, i int, user bool, prev *clauseFact) (cf *clauseFact, ok bool) {
	w := toks[i].lower
	if verbBase(w) == w && !isParticiple(w) && pluralRelative(prev.body) {
		// The relative clause goes on: "a book club where we swap
		// novels and review them".
		return &clauseFact{dangling: render(rewritePronouns(toks, user))}, true
	}
	nounAfterI := user && !prev.asWritten && thirdPersonVerb(toks[i:])
	if user && !prev.asWritten && verbBase(w) == w && !isParticiple(w) && listOfVerbs(prev.body) {
		// The last verb of a list: "I cook, clean and do the
		// laundry". It stays with the list.
		return &clauseFact{dangling: render(rewritePronouns(conjugate(toks), true))}, true
	}
	pairedParticiple := strings.HasSuffix(w, "ed") && len(prev.body) > 0 && strings.HasSuffix(prev.body[len(prev.body)-1].lower, "ed")
	if nounAfterI || pairedParticiple || isParticiple(w) && (gerundAfterPreposition(prev.body) || infinitiveIn(prev.body)) ||
		verbBase(w) == w && !isParticiple(w) && infinitiveIn(prev.body) {
		// A gerund, an infinitive or a participle goes on: "thinking
		// about selling my car or lending it", "want to learn
		// Portuguese and visit Brazil", "feeling more energized and
		// focused". It stays with the fact before it.
		return &clauseFact{dangling: render(rewritePronouns(toks, user))}, true
	}
	if isParticiple(w) {
		if aux := progressiveAux(prev.body, len(prev.subject)); aux > 0 {
			// Shared subject and auxiliary: "I'm reading a book and
			// watching TV".
			body := append(append([]token{}, prev.body[:aux]...), toks...)
			cf := finish(prev.subject, body[len(prev.subject):])
			cf.asWritten = prev.asWritten
			return cf, true
		}
		// The last item of a list: "I go running, swimming and
		// cycling every week". It stays with the fact before it.
		return &clauseFact{dangling: render(toks)}, true
	}
	return nil, false
}

// sharedObject rewrites a clause with no subject that opens with a
// determiner or a number: a statement of its own after all, what a gerund
// or an infinitive before it takes, or one more object of the verb before.
func sharedObject(toks []token, user bool, prev *clauseFact) *clauseFact {
	if ownStatement(toks) {
		// A statement of its own after all: "but the repair shop
		// replaced the battery".
		return plainStatement(toks)
	}
	if gerundAfterPreposition(prev.body) || infinitiveIn(prev.body) || objectOfPreposition(prev.body) {
		// What a gerund or an infinitive takes goes on: "thinking of
		// buying a tent or a hammock".
		return &clauseFact{dangling: render(rewritePronouns(toks, user))}
	}
	// Shared subject and verb: "I have two kids and a dog", "my sister
	// has a cat and a dog".
	body := append(append([]token{}, prev.body[:prev.npVerbEnd]...), toks...)
	cf := finish(prev.subject, body[len(prev.subject):])
	cf.asWritten = prev.asWritten
	return cf
}

// rewriteOpinion rewrites a statement about something else. It counts
// when it is the user's opinion: "Tailwind is amazing". Any other
// statement is kept as it was said: "Noor is eight years old".
func rewriteOpinion(toks []token) *clauseFact {
	if !hasOpinion(toks) {
		return plainStatement(toks)
	}
	if statementVerb(toks, true) < 0 {
		// A fragment, "- exhausted but proud!": it stays with the
		// fact before it rather than read as an opinion.
		return &clauseFact{dangling: render(rewritePronouns(toks, true))}
	}
	rest := toks
	if !isProperNoun(toks[0]) {
		rest = lowerFirst(toks)
	}
	return finish([]token{word("User"), word("thinks")}, rest)
}

// opinionLeads say that what follows is the speaker's opinion.
var opinionLeads = []string{"for me", "to me", "in my opinion", "in my view", "imo", "personally"}

// standingLeads say that an order holds from now on.
var standingLeads = []string{"from now on", "going forward", "in future", "in the future", "for the future"}

// wishVerbs say what the user wants of the assistant: "I want you to".
var wishVerbs = setOf(`want like prefer need expect`)

// assistantWish returns, after "User", what the user wants of the
// assistant for good: "I'd like you to always reply in English" ("would
// like the assistant to always reply in English"), or a request that
// holds from now on (request: "Never suggest recipes with peanuts" is
// "wants the assistant to never suggest recipes with peanuts"). A request
// for one thing now ("Write a haiku", "I need you to write a toast") or
// anything else returns nil. conditioned: see request; order: the clause
// may be an order, not a verb sharing the user's subject.
func assistantWish(toks []token, conditioned, order bool) []token {
	i := firstNonAdverb(toks)
	if i < 0 || toks[i].lower != "i" {
		if !order {
			return nil
		}
		return request(toks, conditioned)
	}
	j := i + 1
	for j < len(toks) && (adverbs[toks[j].lower] || modals[toks[j].lower]) {
		j++
	}
	if j+3 >= len(toks) || !wishVerbs[verbBase(toks[j].lower)] || toks[j+1].lower != "you" || toks[j+2].lower != "to" {
		return nil
	}
	if vp := toks[j+3:]; !conditioned && oneOff(vp[1:]) && request(vp, false) == nil {
		return nil // "I need you to write a toast": one thing, now
	}
	return wishBody(conjugate(toks[i+1:]))
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

// sharesSubject reports whether a clause after conn may share the subject
// of the clause before it: "and works at Google".
func sharesSubject(conn string) bool {
	return conn == "and" || conn == "or" || conn == "but" || conn == "then"
}

// pluralRelative reports whether body ends with a relative clause whose
// subject is plural, "where they swap novels", so that a verb's base form
// after "and" is its own.
func pluralRelative(body []token) bool {
	for i := len(body) - 2; i > 0; i-- {
		switch body[i].lower {
		case "where", "who", "which", "that":
			w := body[i+1].lower
			return w == "they" || w == "we"
		}
	}
	return false
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

// objectOfPreposition reports whether body ends with a noun phrase after
// a preposition, which "and the …" goes on: "went to the bakery and the
// post office", "like the black jeans and the white shirt", "in 27
// minutes and 12 seconds".
func objectOfPreposition(body []token) bool {
	for i := len(body) - 1; i > 0; i-- {
		w := body[i].lower
		if body[i].punct || verbBase(w) != "" && !determiners[w] {
			return false
		}
		if determiners[w] || possessiveDeterminers[w] || isNumber(w) {
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
	if prev == nil || prev.content == "" || len(prev.body) < 2 || prev.before && pronoun == "it" {
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
	if (pronoun == "he" || pronoun == "she") && !animate(np) {
		return nil // "the garden is too much work. He has Parkinson's"
	}
	for i := len(np) - 1; i >= 0; i-- {
		if g := genderOf[np[i].lower]; g != "" {
			if (pronoun == "he" || pronoun == "she") && g != pronoun {
				return nil // "My wife is a midwife. He plays rugby": not the wife
			}
			break
		}
	}
	return append([]token{}, np...)
}

// animate reports whether np may be what "he" or "she" refers to: it
// holds a word for a person or a pet, or a name (capitalised, or a lone
// word as chat writes names: "tama"), not a thing ("the garden").
func animate(np []token) bool {
	if len(np) == 1 {
		return true
	}
	for i, t := range np {
		w := lemma(t.lower)
		if relatives[w] || roleNouns[t.lower] || pets[w] || t.text == "User" {
			return true
		}
		// A capital past the first word, not shouting ("BIG NEWS"): a
		// name. The first word's may only open the sentence.
		if i > 0 && t.text != t.lower && t.text != strings.ToUpper(t.text) && !stopwords[t.lower] {
			return true
		}
	}
	return false
}

// genderOf is the pronoun of the relatives that have one: "he" cannot
// refer to a wife.
var genderOf = func() map[string]string {
	m := map[string]string{}
	for _, w := range strings.Fields(`wife mother mum mom mam sister daughter girlfriend grandmother grandma nan granddaughter
		aunt niece fiancée fiancee stepmother stepdaughter wives mothers sisters daughters`) {
		m[w] = "she"
	}
	for _, w := range strings.Fields(`husband father dad brother son boyfriend grandfather grandpa granddad grandson
		uncle nephew fiancé fiance stepfather stepson husbands fathers brothers sons`) {
		m[w] = "he"
	}
	return m
}()

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
