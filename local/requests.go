package local

import "strings"

// A request to the assistant is a fact about the user when it says how the
// user wants to be answered from now on ("always give me temps in
// celsius", "when you explain code, show the example first", "keep ur
// answers short"), and no fact when it asks for one thing now ("can you
// draft an email for me"). What tells them apart is read from the request,
// never from its topic:
//   - a word that makes it hold from now on ("always", "never", "from now
//     on"), every one of a kind ("every time", "every message") or a
//     condition on what is to come ("when you explain code", "if I ask")
//     makes it a wish;
//   - so does how the assistant is to deal with the user ("be blunt with
//     me");
//   - a negative order ("don't", "stop" with an object), whom it answers ("to me", "for
//     me") or the assistant's answers in general ("your answers") make it
//     one too, unless its object is one thing to make now ("a cover
//     letter", "3 ideas", "this article", "it").

// standingWords make a request hold from now on.
var standingWords = setOf(`always never anymore`)

// standingPhrases do the same in several words.
var standingPhrases = []string{"any more", "by default", "in general"}

// askingLeads open a request without adding to it.
var askingLeads = []string{"please", "kindly", "can you", "could you", "would you", "will you", "also"}

// notOrders open an order that only says something to the one talking:
// "never mind", "don't worry", "thank you", "don't forget".
var notOrders = setOf(`mind worry thank forget`)

// oneOffWords open the object of a request for one thing now.
var oneOffWords = setOf(`a an one this that these those it another some`)

// objectPronouns may come between a verb and its object: "give me the code".
var objectPronouns = setOf(`me us them him her`)

// politeWords fill a condition that only asks politely: "when you get a
// chance", "if you don't mind", "if possible".
var politeWords = setOf(`can could mind chance time possible get have want like please free moment minute sec second`)

// request returns, after "User", what a request to the assistant says the
// user wants of it from now on: "wants the assistant to always give them
// temps in celsius". conditioned: the sentence holds a condition on what
// is to come ("when you explain code"). A request for one thing now, or
// no request, returns nil.
func request(toks []token, conditioned bool) []token {
	standing, asked := conditioned, false
	k := 0
	for k < len(toks) {
		if toks[k].punct {
			k++
			continue
		}
		if n := matchPhrase(toks[k:], standingLeads); n > 0 {
			standing, k = true, k+n // "From now on, answer in German"
			continue
		}
		if n := matchPhrase(toks[k:], askingLeads); n > 0 {
			asked, k = true, k+n
			continue
		}
		break
	}
	rest := withoutPlease(toks[k:])
	if len(rest) == 0 {
		return nil
	}
	if w := rest[0].lower; adverbs[w] || stopwords[w] || negations[w] || verbBase(w) != "" {
		rest = lowerFirst(rest) // "Never use emojis"
	}
	for _, t := range rest {
		standing = standing || standingWords[t.lower]
	}
	for i := range rest {
		standing = standing || matchPhrase(rest[i:], standingPhrases) > 0
	}
	i := 0
	for i < len(rest) && adverbs[rest[i].lower] {
		i++ // "always", "never", "just"
	}
	negative := false
	if i+1 < len(rest) && rest[i].lower == "do" && rest[i+1].lower == "not" {
		negative = true // "don't use bullet points"
		rest = append(append([]token{}, rest[:i]...), rest[i+2:]...)
	}
	if i >= len(rest) {
		return nil
	}
	v := rest[i].lower
	known := verbBase(v) == v && !isParticiple(v)
	// After "please", "can you" or "don't" the word in the verb's place
	// is a verb, in the lexicon or not ("pls sugarcoat nothing").
	led := asked || negative
	verb := known || led && !stopwords[v] && !determiners[v] && !subjectPronouns[v] && !negations[v] && !isNumber(v)
	if v == "be" && i+1 >= len(rest) {
		verb = false
	}
	if !verb {
		return verbless(toks, rest, standing)
	}
	if notOrders[v] || v == "let" {
		return nil // "never mind", "don't worry about it"
	}
	standing = standing || withMe(rest[i+1:]) || every(rest[i+1:])
	ends := (v == "stop" || v == "quit") && i+1 < len(rest)
	general := negative && v != "be" || ends || toUser(rest[i+1:]) || yourAnswers(rest)
	if !standing && (!general || oneOff(rest[i+1:])) {
		return nil
	}
	body := []token{word("wants"), word("you")}
	if negative {
		body = append(body, word("not"))
	}
	body = append(body, word("to"))
	return wishBody(append(body, rest...))
}

// verbless returns what a request with no verb asks for from now on, "no
// emojis in your replies please": "wants no emojis in the assistant's
// replies". It says please, names the assistant's answers or holds from
// now on, and asks for no one thing ("the bill please").
func verbless(toks, rest []token, standing bool) []token {
	please := false
	for _, t := range toks {
		please = please || t.lower == "please"
	}
	if !please && !standing && !yourAnswers(rest) || !hasContent(rest) {
		return nil
	}
	for _, t := range rest {
		if subjectPronouns[t.lower] && !possessiveDeterminers[t.lower] || modals[t.lower] || verbBase(t.lower) == "be" {
			return nil // a clause of its own: "ok wait I never told you"
		}
	}
	if w := rest[0].lower; oneOffWords[w] || stopwords[w] || adverbs[w] || isNumber(w) || questionWords[w] || verbBase(w) != "" {
		return nil // "the bill please", "always happy to help", "more please"
	}
	return wishBody(append([]token{word("wants")}, rest...))
}

// withoutPlease drops "please" wherever it stands.
func withoutPlease(toks []token) []token {
	out := make([]token, 0, len(toks))
	for _, t := range toks {
		if t.lower != "please" {
			out = append(out, t)
		}
	}
	return trimPunct(out)
}

// every reports whether toks speak of every one of a kind: "every
// message", "all the time".
func every(toks []token) bool {
	for i := 0; i+1 < len(toks); i++ {
		if w := toks[i].lower; (w == "every" || w == "each" || w == "all") && !toks[i+1].punct {
			return true
		}
	}
	return false
}

// toUser reports whether toks say whom the assistant answers: "to me",
// "for me".
func toUser(toks []token) bool {
	for i := 0; i+1 < len(toks); i++ {
		if w := toks[i].lower; (w == "to" || w == "for") && toks[i+1].lower == "me" {
			return true
		}
	}
	return false
}

// withMe reports whether toks say how the assistant is to deal with the
// user, which holds beyond one answer: "be blunt with me".
func withMe(toks []token) bool {
	for i := 0; i+1 < len(toks); i++ {
		if toks[i].lower == "with" && toks[i+1].lower == "me" {
			return true
		}
	}
	return false
}

// yourAnswers reports whether toks name what the assistant says in
// general: "your" before a plural, "your answers", "your replies".
func yourAnswers(toks []token) bool {
	for i := 0; i+1 < len(toks); i++ {
		if n := toks[i+1].lower; toks[i].lower == "your" && strings.HasSuffix(n, "s") && !strings.HasSuffix(n, "ss") {
			return true
		}
	}
	return false
}

// oneOff reports whether toks, after a request's verb, open with one
// thing to make now: "a cover letter", "3 ideas", "this article", "it".
func oneOff(toks []token) bool {
	i := 0
	for i < len(toks) && (objectPronouns[toks[i].lower] || adverbs[toks[i].lower]) {
		i++
	}
	if i >= len(toks) {
		return false
	}
	w := toks[i].lower
	return oneOffWords[w] || isNumber(w) || countWords[w]
}

// wishBody rewrites what the user wants of the assistant in the words of
// a fact about the user: "you" is the assistant, "me" and "my" the user
// ("them", "their").
func wishBody(toks []token) []token {
	out := make([]token, 0, len(toks))
	for _, t := range toks {
		if t.lower == "me" {
			t = word("them")
		}
		out = append(out, t)
	}
	return asAssistant(out, func(_ int, t token) bool {
		return t.lower == "you" || t.lower == "your" || t.lower == "yourself"
	})
}

// politeCondition reports whether q, a condition, only asks politely:
// "when you get a chance", "if you don't mind".
func politeCondition(q []token) bool {
	for _, t := range q[1:] {
		if w := t.lower; !t.punct && !stopwords[w] && !negations[w] && !politeWords[w] {
			return false
		}
	}
	return true
}

// conditions reports whether the clauses of a sentence hold a condition on
// what is to come, "when you explain code", "if I ask", or say that what
// follows holds from now on ("for the future:"): a request beside it
// holds from now on.
func conditions(cs []clause) bool {
	for k, c := range cs {
		if toks := dropDiscourseWords(trimPunct(c.toks)); len(toks) > 0 && matchPhrase(toks, standingLeads) == len(toks) {
			return true // "so for the future: short answers"
		}
		if k > 0 && c.connector == "if" && asksWhether(cs[k-1].toks) {
			continue // "check if this sounds natural": what to check
		}
		if q := qualifier(c, k == 0); q != nil && q[0].lower != "which" && q[0].lower != "since" && !politeCondition(q) {
			return true
		}
	}
	return false
}

// asksWhether reports whether toks end with a verb, or a verb and "me",
// that an "if" after them completes: "check if", "tell me if".
func asksWhether(toks []token) bool {
	toks = trimPunct(toks)
	n := len(toks)
	if n > 1 && objectPronouns[toks[n-1].lower] {
		n--
	}
	return n > 0 && verbBase(toks[n-1].lower) != ""
}

// mentionsYou reports whether toks name the assistant.
func mentionsYou(toks []token) bool {
	for _, t := range toks {
		if t.lower == "you" || t.lower == "your" || t.lower == "yours" {
			return true
		}
	}
	return false
}

// assistantAsIt rewrites a condition on the assistant, after a wish:
// "when you explain code" is "when it explains code", "your" is "its",
// "me" and "my" are the user's ("them", "their").
func assistantAsIt(toks []token) []token {
	out := addressedAs(make([]token, 0, len(toks)), toks, []token{word("it")}, []token{word("its")})
	return rewritePronouns(out, true)
}

// addressedAs appends toks to out with the assistant they address named
// by you ("you") and your ("your"), the user's "me" as "them", and the
// verb "you" is the subject of in the third person ("if I send you code":
// no verb of its).
func addressedAs(out, toks []token, you, your []token) []token {
	agree := false
	for i, t := range toks {
		switch {
		case t.lower == "you":
			out = append(out, you...)
			agree = subjectAt(toks, i)
			continue
		case t.lower == "your":
			out = append(out, your...)
			continue
		case t.lower == "me":
			t = word("them")
		case agree && !t.punct && !adverbs[t.lower]:
			agree = false
			if verbBase(t.lower) != "" || modals[t.lower] {
				t = word(thirdPerson(t))
			}
		}
		out = append(out, t)
	}
	return out
}

// subjectAt reports whether toks[i], in a condition after its word,
// is a subject: first, or after "and", "or".
func subjectAt(toks []token, i int) bool {
	return i == 0 || toks[i-1].lower == "and" || toks[i-1].lower == "or"
}

// assistantInWhen rewrites, in a clause of the user's, the assistant a
// condition names ("I hate when you write walls of text"): "you" is "the
// assistant", "me" the user ("them"). ok is false when "you" stands
// anywhere else ("I told you").
func assistantInWhen(toks []token) (out []token, ok bool) {
	i := firstNonAdverb(toks)
	if i < 0 || toks[i].lower != "i" {
		return nil, false
	}
	cond := -1
	for j, t := range toks {
		if qualifierWords[t.lower] && t.lower != "which" && cond < 0 {
			cond = j
		}
		if (t.lower == "you" || t.lower == "your" || t.lower == "yours") && (cond < 0 || t.lower == "yours") {
			return nil, false
		}
	}
	if cond < 0 {
		return nil, false
	}
	out = append([]token{}, toks[:cond+1]...)
	return addressedAs(out, toks[cond+1:], []token{word("the"), word("assistant")},
		[]token{word("the"), word("assistant"), possessive()}), true
}
