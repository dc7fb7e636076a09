package local

import "strings"

// The word lists of the extractor and classifier: a small hand-made
// lexicon of English, enough for the short first-person statements agents
// are told, not a grammar of the language.

// verbBases are common verbs in their base form. Inflected forms are found
// by verbBase.
var verbBases = setOf(`
accept add admire adore agree allow answer appreciate arrive ask attend avoid bake be
become begin believe bike bother break bring build buy call care carry catch celebrate
change check choose clean climb close code collect come commute consider cook cost
create cycle dance date debug decide delete deploy design despise develop die dislike
do draw dream drink drive drop eat earn enjoy expect explain fail fall feel fight find
finish fix fly follow forget get give go graduate grow guess hate have hear help hike
hire hold hope host hurt install join keep kill know learn leave let like listen live
look lose love maintain make manage marry mean meet mention migrate mind miss move
need note open own paint pay pick plan play practice practise prefer prepare program
put quit raise read recommend refuse relocate rely remember remind remove rent report
reside retire return ride rise run save say see seem sell send set share ship show
sing sit sleep speak spend stand start stay stop struggle study suggest summarize
support suppose swim switch take talk teach tell test think train translate travel
try turn understand update use visit wait wake walk want watch wear weigh win wish
work worry write
adopt apply arrange belong bet borrow brew burn cancel carry charge chat cheer choose
cover cross cry cut deal deliver depend deserve destroy dig divide earn edit employ
end enter escape exercise exist explore face feed fill fit focus fold found gain gather
grab hang hate head hit hunt hurry ignore imagine improve include increase invest
invite jog jump kick knock land laugh lay lend lie lift light limit link list load lock
mark matter measure melt mix name order organise organize own pack park pass pause
perform phone pitch plant point pour pray prefer present press print produce promise
protect prove pull punch push race rain reach realise realize receive record reduce
refer reflect reject relax release repair repeat replace reply request require rescue
research rest review ring rob roll rule rush scan score search seek serve settle shake
shape shave shop shout sign skate ski slip smell smile smoke snow solve sort spell
split spread stare state steal stick sting store stream stretch strike submit succeed
suffer supply surf surprise survive swap sweep swing tap taste tear text thank throw
tie tour trade transfer trust tweet type unite upgrade vote wander warn wash waste wave
whisper wonder wrap yell zip
apologize apologise assume cite clarify convert define double elaborate format
highlight quote rephrase simplify skip sugarcoat
`)

// irregularVerbs maps irregular inflections to their base.
var irregularVerbs = map[string]string{
	"am": "be", "is": "be", "are": "be", "was": "be", "were": "be", "been": "be", "being": "be",
	"has": "have", "had": "have", "does": "do", "did": "do", "done": "do",
	"goes": "go", "went": "go", "gone": "go", "got": "get", "gotten": "get",
	"made": "make", "took": "take", "taken": "take", "saw": "see", "seen": "see",
	"came": "come", "knew": "know", "known": "know", "thought": "think", "said": "say",
	"told": "tell", "gave": "give", "given": "give", "found": "find", "felt": "feel",
	"left": "leave", "kept": "keep", "stood": "stand", "bought": "buy", "sold": "sell",
	"paid": "pay", "spent": "spend", "lost": "lose", "won": "win", "built": "build",
	"broke": "break", "broken": "break", "wrote": "write", "written": "write", "ran": "run",
	"ate": "eat", "eaten": "eat", "drank": "drink", "drunk": "drink", "drove": "drive",
	"driven": "drive", "rode": "ride", "ridden": "ride", "flew": "fly", "flown": "fly",
	"swam": "swim", "swum": "swim", "taught": "teach", "began": "begin", "begun": "begin",
	"became": "become", "grew": "grow", "grown": "grow", "chose": "choose", "chosen": "choose",
	"forgot": "forget", "forgotten": "forget", "met": "meet", "slept": "sleep", "woke": "wake",
	"woken": "wake", "sat": "sit", "spoke": "speak", "spoken": "speak", "wore": "wear",
	"worn": "wear", "held": "hold", "brought": "bring", "led": "lead", "meant": "mean",
	"sang": "sing", "sung": "sing", "drew": "draw", "drawn": "draw", "fell": "fall",
	"fallen": "fall", "heard": "hear", "sent": "send", "understood": "understand",
	"caught": "catch", "dying": "die", "lying": "lie", "rose": "rise", "risen": "rise",
	"fought": "fight",
}

// verbBase returns the base form of w when w is a form of a known verb,
// or "".
func verbBase(w string) string {
	w = strings.ToLower(w)
	if verbBases[w] {
		return w
	}
	if b, ok := irregularVerbs[w]; ok {
		return b
	}
	for _, c := range deinflect(w) {
		if verbBases[c] {
			return c
		}
	}
	return ""
}

// deinflect returns the candidate stems of w, stripping -s, -es, -ies,
// -ed, -ied, -ing with the usual spelling changes.
func deinflect(w string) []string {
	var out []string
	add := func(s string) {
		if len(s) >= 2 {
			out = append(out, s)
		}
	}
	undouble := func(s string) {
		if n := len(s); n >= 3 && s[n-1] == s[n-2] && !strings.ContainsRune("aeiou", rune(s[n-1])) {
			add(s[:n-1])
		}
	}
	switch {
	case strings.HasSuffix(w, "ies"):
		add(w[:len(w)-3] + "y")
	case strings.HasSuffix(w, "es"):
		add(w[:len(w)-2])
		add(w[:len(w)-1])
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss"):
		add(w[:len(w)-1])
	case strings.HasSuffix(w, "ied"):
		add(w[:len(w)-3] + "y")
	case strings.HasSuffix(w, "ed"):
		add(w[:len(w)-2])
		add(w[:len(w)-1])
		undouble(w[:len(w)-2])
	case strings.HasSuffix(w, "ing"):
		add(w[:len(w)-3])
		add(w[:len(w)-3] + "e")
		undouble(w[:len(w)-3])
	}
	return out
}

// lemma reduces a lower-case word to a comparable stem: verbs to their base,
// regular and common irregular plurals to the singular, British spellings
// and a few synonyms to one form.
func lemma(w string) string {
	if s, ok := synonyms[w]; ok {
		return s
	}
	if b := verbBase(w); b != "" {
		if s, ok := synonyms[b]; ok {
			return s
		}
		return b
	}
	if s, ok := irregularPlurals[w]; ok {
		return s
	}
	n := len(w)
	switch {
	case n > 4 && strings.HasSuffix(w, "ies"):
		return w[:n-3] + "y"
	case n > 4 && (strings.HasSuffix(w, "ches") || strings.HasSuffix(w, "shes") || strings.HasSuffix(w, "sses") || strings.HasSuffix(w, "xes")):
		return w[:n-2]
	case n > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		if s, ok := synonyms[w[:n-1]]; ok {
			return s
		}
		return w[:n-1]
	}
	return w
}

var irregularPlurals = map[string]string{
	"children": "kid", "child": "kid", "kids": "kid", "people": "person", "men": "man",
	"women": "woman", "feet": "foot", "teeth": "tooth", "mice": "mouse", "wives": "wife",
	"knives": "knife",
}

// synonyms folds words that say the same thing in facts about a user onto
// one form. Only near-exact synonyms: co-hyponyms like Berlin and Bangkok
// must stay apart.
var synonyms = map[string]string{
	"favorite": "favourite", "color": "colour", "colors": "colour", "practice": "practise",
	"center": "centre", "organize": "organise", "children": "kid", "child": "kid",
	"named": "call", "name": "call", "called": "call", "call": "call",
	"study": "learn", "learning": "learn", "studying": "learn",
	"employed": "work", "job": "work",
	"engineer": "developer", "programmer": "developer", "dev": "developer",
	"reply": "answer", "replies": "answer", "response": "answer", "responses": "answer",
	"enjoy": "like", "dislike": "hate", "detest": "hate", "despise": "hate",
	"adore": "love", "own": "have", "kilos": "kilogram", "kg": "kilogram",
	"keybindings": "keybinding", "bindings": "binding",
	"remotely": "remote", "relocate": "move", "reside": "live",
	"develop": "build", "create": "build", "plan": "want", "intend": "want", "find": "think",
	"consider": "think", "reckon": "think",
	"mum": "mom", "mother": "mom", "dad": "father", "spouse": "partner",
	"tv": "television", "usa": "us", "uk": "britain", "nyc": "york",
	"cellphone": "phone", "automobile": "car",
}

// stopwords are words that carry no content of their own in a fact.
var stopwords = setOf(`
a an the this that these those it its to of in on at for from by with about as into
onto over under than then and or but so because if while when is am are was were be
been being has have had do does did will would can could shall should may might must
user user's users i me my mine we us our you your he him his she her they them their
there here very really just also still now currently again ever already actually
quite rather pretty too much more most some any all every each both either one ones
lot lots bit kind sort thing things stuff way ago these days today nowadays
`)

// negations flip a statement's polarity.
var negations = setOf(`not never no nor cannot none nothing neither`)

// stopVerbs express the end of a habit or state: "User quit coffee" negates
// "User drinks coffee".
var stopVerbs = setOf(`quit stop give abandon drop`)

// opinionVerbs are relations a user holds with many objects at once
// ("likes pizza" and "likes sushi" are both true); their polarity is the
// sign of the opinion.
var opinionVerbs = map[string]int{
	"like": 1, "love": 1, "enjoy": 1, "adore": 1, "appreciate": 1, "admire": 1,
	"hate": -1, "dislike": -1, "despise": -1, "detest": -1, "mind": -1,
}

// multiValued are relations that hold for many values at once: a new value
// is another fact, not a replacement.
var multiValued = setOf(`
like love enjoy hate admire appreciate have speak play visit know read watch attend
cook bake collect travel avoid allergic afraid interested learn study dream miss
worry hope wish follow listen write
`)

// subjectPronouns open a clause with its own subject.
var subjectPronouns = setOf(`i we you he she it they this that there my our his her their`)

// adverbs may sit between a subject and its verb ("I NEVER want", "I
// usually wake up").
var adverbs = setOf(`
never always usually often sometimes rarely seldom really absolutely totally definitely
truly just still also actually honestly generally mostly strongly completely now
currently already even only seriously literally genuinely simply certainly basically
probably maybe recently finally typically normally occasionally constantly
`)

// modals are verbs that take no third-person -s.
var modals = setOf(`will would can could should shall may might must`)

func setOf(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// personalVerbs are what people do and things do not: "Alice lives in
// Paris" is a fact about Alice, "Docker runs again" none.
var personalVerbs = setOf(`
live work study prefer like love hate enjoy dislike adore despise speak own teach grow
marry date attend graduate cook move relocate retire visit travel
`)

// personalStates follow "is" in a fact about a person: "Bob is married".
var personalStates = setOf(`
married single engaged divorced widowed pregnant retired allergic vegetarian vegan
born based left-handed right-handed
`)

// roleNouns are occupations and roles: "Maria is a high school teacher".
var roleNouns = setOf(`
teacher nurse doctor lawyer student manager director ceo cto founder accountant analyst
artist writer author journalist musician chef cook pilot driver farmer carpenter
electrician plumber mechanic pharmacist dentist surgeon physician therapist professor
lecturer researcher consultant editor photographer officer soldier firefighter
librarian secretary assistant intern lead owner boss colleague coworker neighbour
neighbor friend mentor tutor coach vet veterinarian paramedic scientist
`)

// relatives are people related to the user: "Alice is my sister",
// "Priya's husband is a chef".
var relatives = setOf(`
wife husband partner spouse girlfriend boyfriend fiance fiancee son daughter child kid
baby mother mom mum dad father parent brother sister sibling grandmother grandma
grandfather grandpa aunt uncle cousin niece nephew
`)

// personalNouns after a name's "'s" make a fact about the person: "Priya's
// favourite food", "Ana's birthday".
var personalNouns = setOf(`
favourite favorite name birthday age job hometown email phone address nickname
`)
