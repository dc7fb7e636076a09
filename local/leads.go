package local

import "strings"

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
		w := toks[j].lower
		if (w == "i" || w == "we") && toks[j-1].lower != "that" && hasVerb(toks[2:j]) {
			out := []clause{{toks: toks[:j]}, {toks: toks[j:], connector: ","}}
			return append(out, cs[1:]...)
		}
		if k := orderAt(toks[j:]); k >= 0 && j > 3 && (adverbs[w] && k > 0 && !toks[j-1].punct || k == 0 && ordersAfterNoun(toks, j)) && hasVerb(toks[2:j]) {
			// "when I ask for code just give me the code": an order.
			out := []clause{{toks: toks[:j]}, {toks: toks[j:], connector: ","}}
			return append(out, cs[1:]...)
		}
	}
	return cs
}

// ordersAfterNoun reports whether toks[j] may open an order after the
// qualifying clause before it: the word before ends a noun or a phrase
// ("for code", "not sure about something"), not a verb, "to", a modal or
// a conjunction that the verb would go on.
func ordersAfterNoun(toks []token, j int) bool {
	p := toks[j-1].lower
	return !toks[j-1].punct && verbBase(p) == "" && !modals[p] && !stopwords[p] && !subjectPronouns[p]
}

// hasVerb reports whether toks hold a verb.
func hasVerb(toks []token) bool {
	for _, t := range toks {
		if verbBase(t.lower) != "" || modals[t.lower] {
			return true
		}
	}
	return false
}

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

// adverbialLeads open a phrase of time or place before the subject:
// "On Sundays I cook", "Last year, I moved to Spain".
var adverbialLeads = setOf(`on in at during after before for every last next this these each most
	yesterday today tomorrow tonight recently lately nowadays as growing back over since until`)

// leadingHedges open a clause the speaker is unsure of: "Maybe I'll go".
var leadingHedges = setOf(`maybe perhaps probably possibly hopefully`)

// quantityLeads open a phrase of time only with a noun of time after
// them: "Some nights I read until 2 am".
var quantityLeads = setOf(`some many most`)

// timeNouns end such a phrase.
var timeNouns = setOf(`day days night nights morning mornings evening evenings week weeks weekend
	weekends month months year years time times`)

// focusLeads open a sentence that only narrows the one before it:
// "Especially ones with trading."
var focusLeads = setOf(`especially specifically particularly mainly mostly`)

// timeAdverbs are a time on their own: "Yesterday I bought a bike".
var timeAdverbs = setOf(`yesterday today tomorrow tonight recently lately nowadays`)

// frontAdverbial moves a phrase of time or place that opens a sentence,
// before "I", "we", "my" or "our", to its end: "On Sundays I cook" is "I
// cook on Sundays", "Last year, I moved to Spain" "I moved to Spain last
// year". The phrase has no verb and at most five words.
func frontAdverbial(toks []token) []token {
	if len(toks) < 3 || !adverbialLeads[toks[0].lower] && !quantityLeads[toks[0].lower] {
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
	if len(phrase) == 1 && !timeAdverbs[phrase[0].lower] || len(phrase) == 0 || len(phrase) > 5 || !hasContent(lowerFirst(phrase)) && !isNumber(phrase[len(phrase)-1].lower) && !timeUnits[phrase[len(phrase)-1].lower] && !timeAdverbs[phrase[0].lower] {
		return toks // "Since I moved here, …", "As for my …" are no phrase
	}
	for _, t := range phrase[1:] {
		if b := verbBase(t.lower); b == "be" || b == "have" || modals[t.lower] || b != "" && strings.HasSuffix(t.lower, "ed") {
			return toks
		}
	}
	if quantityLeads[toks[0].lower] && !timeNouns[phrase[len(phrase)-1].lower] {
		return toks // "Many people I know …" is no phrase of time
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
		!hasContent(value) || statementVerb(value, true) >= 0 {
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
