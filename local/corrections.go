package local

import "strings"

// A correction often names no one: "the budget is now 8k", "update:
// deadline is the 30th", "the review moved to friday". What it corrects was
// said of the user ("my budget is 5k"), so the correction is read as the
// user's too, in the same form, "User's budget is 8k", so that it meets
// the fact it corrects. It is read so only when the clause says both that
// something changed (a correction marker before it, "now", "instead", a
// verb of change, "not" and the old value) and what it is now: a value, a
// number, a day, a month, before any punctuation. Anything else without a person stays as
// it was said ("The weather is finally nice now").

// correctionMarkers open a sentence that corrects something said before.
// All but "actually" stand before punctuation: "update:", "scratch that,".
var correctionMarkers = []string{"quick update", "small update", "update", "correction",
	"scratch that", "change of plans", "change of plan", "actually"}

// correctionMarker returns the length of the correction marker toks open
// with, or 0.
func correctionMarker(toks []token) int {
	n := matchPhrase(toks, correctionMarkers)
	if n == 0 || n < len(toks) && !toks[n].punct && toks[n-1].lower != "actually" {
		return 0
	}
	return n
}

// valueChangeVerbs say that a value changed: "moved to friday", "went up to
// 1450", "got pushed to october", "has been extended to march 3".
var valueChangeVerbs = setOf(`move push change extend reschedule shift bump postpone delay raise
	cut drop rise go increase reduce lower update`)

// changeVerb reports whether w is a form of a verb of valueChangeVerbs,
// in the lexicon or not ("postponed").
func changeVerb(w string) bool {
	if b := verbBase(w); b != "" {
		return valueChangeVerbs[b]
	}
	for _, c := range deinflect(w) {
		if valueChangeVerbs[c] {
			return true
		}
	}
	return false
}

// correctionWords in a clause say that what it states replaces what was said.
var correctionWords = setOf(`now instead anymore`)

// valueWords are values a correction gives, besides numbers.
var valueWords = setOf(`monday tuesday wednesday thursday friday saturday sunday
	mondays tuesdays wednesdays thursdays fridays saturdays sundays
	january february march april may june july august september october november december
	jan feb mar apr jun jul aug sep sept oct nov dec
	today tomorrow tonight noon midnight`)

// userAttribute returns the fact of a clause that gives a new value to
// something of the user's: "the budget is now 8k", "rent went up to 1450",
// "my deadline is now the 30th". Its subject is the user's ("User's
// budget") and "now", which only marks the change, is dropped. correcting:
// the sentence opened with a correction marker. It returns nil for any
// other clause.
func userAttribute(toks []token, correcting bool) *clauseFact {
	start := 0
	switch w := toks[0].lower; {
	case w == "the" || w == "my" || w == "our":
		start = 1
	case toks[0].text != w:
		return nil // a name, or a capital that cannot tell one: kept as said
	case stopwords[w] || determiners[w] || subjectPronouns[w] || negations[w] || questionWords[w] ||
		adverbs[w] || modals[w] || isNumber(w) || verbBase(w) == w && len(toks) > 1 && verbBase(toks[1].lower) == "":
		return nil // "call the plumber", not "rent went up"
	}
	v := finiteVerb(toks, start+1, true)
	if v <= start {
		return nil
	}
	for _, t := range toks[start:v] {
		if t.punct || t.lower == "'s" || subjectPronouns[t.lower] || stopwords[t.lower] && t.lower != "of" && t.lower != "for" && t.lower != "the" && t.lower != "to" {
			return nil // "the kids' school", "the one I like"
		}
	}
	end := v
	for end < len(toks) && !toks[end].punct {
		end++
	}
	if !givesValue(toks[v:end]) || !changed(toks, start, v, correcting) {
		return nil
	}
	subject := append([]token{word("User"), possessive()}, toks[start:v]...)
	cf := finish(subject, withoutNow(toks[v:]))
	cf.asWritten = true
	return cf
}

// givesValue reports whether toks, after a verb, give a value: a number
// ("8k", "4:30", "the 30th"), a day or a month.
func givesValue(toks []token) bool {
	for _, t := range toks {
		if valueWords[t.lower] || strings.IndexAny(t.lower, "0123456789") >= 0 {
			return true
		}
	}
	return false
}

// changed reports whether a clause whose subject is toks[start:v] says its
// value changed: a correction marker before it, "now", "instead", a verb
// of change, "not" and the old value after it. "new" does not say it:
// "the new season starts on friday" is news.
func changed(toks []token, start, v int, correcting bool) bool {
	if correcting {
		return true
	}
	for i, t := range toks[v:] {
		switch {
		case correctionWords[t.lower] && !partOfNowPhrase(toks, v+i):
			return true
		case changeVerb(t.lower) && i < 4:
			return true
		case t.lower == "down" && v+i+1 < len(toks) && toks[v+i+1].lower == "to":
			return true // "is down to 4 people"
		case t.lower == "not" && i > 1 && givesValue(toks[v+i+1:]):
			return true // "at 3, not 2"
		}
	}
	return false
}

// partOfNowPhrase reports whether the "now" at toks[i] belongs to a
// phrase of its own: "right now", "for now", "from now on", "by now".
func partOfNowPhrase(toks []token, i int) bool {
	if toks[i].lower != "now" || i == 0 {
		return false
	}
	switch toks[i-1].lower {
	case "right", "for", "from", "by", "until", "till", "just":
		return true
	}
	return false
}

// withoutNow drops "now" that only marks a change: "is now 8k" is "is
// 8k", "is at 10 now" "is at 10".
func withoutNow(toks []token) []token {
	out := make([]token, 0, len(toks))
	for i, t := range toks {
		if t.lower == "now" && !partOfNowPhrase(toks, i) {
			continue
		}
		out = append(out, t)
	}
	return out
}
