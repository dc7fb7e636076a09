package local

import "math"

// signals are the intensity cues found in a clause, or in the clauses
// elaborating it.
type signals struct {
	// Strong cues, counted per occurrence.
	emotion     int // "hate", "love", "nightmare", "incredible"
	consequence int // "broke production", "cost us the client"
	absolute    int // "never", "always", "I refuse", "non-negotiable"
	effort      int // "spent three days", "been struggling with"
	importance  int // "remember this", "this is critical"
	attached    int // strong cues in clauses that elaborate this one

	identity  bool // "I'm a backend person", "I don't do frontend"
	lifestyle bool // "vegan", "sober": a stance more than a fact

	opinion      int  // mild: "prefer", "like", "think"
	aside        bool // "oh and", "by the way", "tried"
	hedges       int  // "kind of", "I guess", "maybe"
	intensifiers int  // "really", "absolutely", "so much"
	shouted      int  // "NEVER"
	bangs        int  // "!" ending the sentence
}

// Intensity bands: how strongly a fact was stated.
const (
	casualIntensity = 0.15 // casual aside, no signal: 0.1–0.2
	plainIntensity  = 0.3  // clear statement: 0.3–0.5
	mildIntensity   = 0.4  // …with mild opinion
	strongIntensity = 0.6  // strong conviction or emotional charge: 0.6–0.8
	strongCeiling   = 0.8
	identityFloor   = 0.85 // sustained pattern + identity-level: 0.85–1.0
)

// intensity maps the signals onto the intensity bands.
func (s signals) intensity() float64 {
	emphasis := 0.0
	if s.shouted > 0 {
		emphasis += 0.05
	}
	emphasis += 0.03 * float64(min(s.bangs, 2))
	emphasis += 0.03 * float64(min(s.intensifiers, 2))
	kinds := s.strongKinds()
	var x float64
	switch {
	case s.identity || s.lifestyle && s.effort > 0:
		x = identityFloor + 0.04*float64(min(kinds, 3)) + emphasis/2
		x = min(x, 1)
	case kinds > 0:
		extra := s.strong() - kinds + min(s.attached, 2)
		x = strongIntensity + 0.07*float64(kinds-1) + 0.03*float64(min(extra, 3)) + emphasis
		x = min(x, strongCeiling)
		if s.hedges > 0 {
			x -= 0.15
		}
	case s.lifestyle:
		x = strongIntensity
	case s.attached > 0:
		x = 0.5 // elaborated with feeling, but not itself charged
	case s.hedges > 0 || s.aside:
		x = casualIntensity
		if s.opinion > 0 {
			x += 0.05
		}
	case s.opinion > 0:
		x = min(mildIntensity+emphasis, 0.55)
	default:
		x = min(plainIntensity+emphasis, 0.5)
	}
	return math.Round(x*100) / 100
}

// strong is the number of strong cues.
func (s signals) strong() int {
	return s.emotion + s.consequence + s.absolute + s.effort + s.importance
}

// strongKinds is the number of kinds of strong cue present.
func (s signals) strongKinds() int {
	n := 0
	for _, c := range []int{s.emotion, s.consequence, s.absolute, s.effort, s.importance} {
		if c > 0 {
			n++
		}
	}
	return n
}

// merge adds o's cues to s, as cues of the same clause.
func (s *signals) merge(o signals) {
	s.emotion += o.emotion
	s.consequence += o.consequence
	s.absolute += o.absolute
	s.effort += o.effort
	s.importance += o.importance
	s.attached += o.attached
	s.identity = s.identity || o.identity
	s.lifestyle = s.lifestyle || o.lifestyle
	s.opinion += o.opinion
	s.aside = s.aside || o.aside
	s.hedges += o.hedges
	s.intensifiers += o.intensifiers
	s.shouted += o.shouted
	s.bangs = max(s.bangs, o.bangs)
}

// attach adds o, the cues of a clause elaborating s's ("…, it was a
// nightmare"): its strong cues and emphasis count, at a discount.
func (s *signals) attach(o signals) {
	s.attached += o.strong() + o.attached
	if o.importance > 0 {
		s.importance += o.importance // "This is critical: …" applies in full
		s.attached -= o.importance
	}
	s.shouted += o.shouted
	s.bangs = max(s.bangs, o.bangs)
	s.aside = s.aside || o.aside
}

// scan finds the cues in a clause's tokens.
func scan(toks []token) signals {
	var s signals
	for i, t := range toks {
		if t.punct {
			if t.lower == "!" {
				s.bangs++
			}
			continue
		}
		w := t.lower
		next := func(k int) string {
			if i+k < len(toks) {
				return toks[i+k].lower
			}
			return ""
		}
		prev := ""
		if i > 0 {
			prev = toks[i-1].lower
		}
		switch {
		case emotionWords[w]:
			s.emotion++
		case w == "stand" && prev == "not", w == "sick" && next(1) == "of", w == "fed" && next(1) == "up",
			w == "done" && next(1) == "with", w == "favourite" && next(1) == "thing", w == "favorite" && next(1) == "thing":
			s.emotion++
		case consequenceWords[w], w == "cost" && (next(1) == "us" || next(1) == "me" || next(1) == "the"):
			s.consequence++
		case absoluteWords[w], w == "at" && next(1) == "all", w == "no" && next(1) == "matter",
			w == "under" && next(1) == "no":
			s.absolute++
		case effortWords[w], isDuration(toks, i):
			s.effort++
		case importanceWords[w], w == "make" && next(1) == "sure", w == "keep" && next(1) == "in" && next(2) == "mind":
			s.importance++
		case lifestyleWords[w]:
			s.lifestyle = true
		case hedgeWords[w], (w == "kind" || w == "sort") && next(1) == "of", w == "a" && (next(1) == "bit" || next(1) == "little"):
			s.hedges++
		case intensifierWords[w], w == "so" && next(1) == "much":
			s.intensifiers++
		case opinionWords[w]:
			s.opinion++
		case w == "tried" || w == "these" && next(1) == "days" || w == "the" && next(1) == "other" && next(2) == "day":
			s.aside = true
		}
		if isShouted(t) {
			s.shouted++
		}
	}
	return s
}

// isDuration reports whether toks[i] starts a stretch of time spent: "for
// three days", "for weeks", "all weekend".
func isDuration(toks []token, i int) bool {
	at := func(k int) string {
		if i+k < len(toks) {
			return toks[i+k].lower
		}
		return ""
	}
	switch toks[i].lower {
	case "for":
		if timeUnits[at(1)] {
			return true
		}
		return (isNumber(at(1)) || countWords[at(1)]) && timeUnits[at(2)]
	case "all":
		return timeUnits[at(1)] || at(1) == "weekend" || at(1) == "night"
	}
	return false
}

var (
	emotionWords = setOf(`love loves loved loving adore adores hate hates hated hating despise
		despises detest loathe nightmare nightmares awful terrible horrible horrendous amazing
		incredible fantastic awesome brilliant wonderful superb disaster disastrous disgusting
		worst furious exhausted exhausting stressful stressed frustrating frustrated painful
		obsessed passionate miserable thrilled excited scared terrified anxious annoying annoyed
		angry hell dread dreading traumatic awesome beloved`)
	consequenceWords = setOf(`broke broken crashed crash crashes outage outages downtime incident
		incidents lost failed failure fired burned burnt disaster`)
	absoluteWords = setOf(`never always refuse refused refuses non-negotiable ever forever must
		absolutely-not`)
	effortWords = setOf(`spent spend spending struggling struggled struggle wrestling fought
		fighting`)
	importanceWords  = setOf(`critical crucial important essential vital`)
	lifestyleWords   = setOf(`vegan vegetarian pescatarian sober teetotal atheist`)
	hedgeWords       = setOf(`guess maybe probably perhaps somewhat suppose`)
	intensifierWords = setOf(`really absolutely extremely totally truly super seriously literally
		completely deeply utterly`)
	opinionWords = setOf(`like likes liked prefer prefers preferred think thinks find finds enjoy
		enjoys enjoyed interesting favourite favorite decided decide want wants wanted plan plans
		planning rather better good great nice cool fun`)
	evaluativeWords = setOf(`great good bad interesting boring overrated underrated slow clunky
		elegant ugly beautiful nice cool solid buggy confusing verbose bloated painful fun
		excellent mediocre useless pointless best`)
	timeUnits  = setOf(`hours days weeks months years decades day week month year decade hour`)
	countWords = setOf(`two three four five six seven eight nine ten eleven twelve fifteen twenty
		thirty few several many`)
)
