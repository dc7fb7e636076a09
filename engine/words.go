package engine

import (
	"strings"
	"unicode"
)

// maxQueryWords bounds the words of a full-text query (QueryWords).
const maxQueryWords = 32

// QueryWords splits a recall query into the words its full-text side
// looks up, the same for every store so that they rank from the same
// words: runs of letters, digits and _, lower-cased and deduplicated,
// without English stop words unless there is nothing else (they match
// nearly every chunk and weigh almost nothing in BM25), at most
// maxQueryWords. Words hold no quote or operator, so a store may quote
// them into its query syntax.
func QueryWords(text string) []string {
	words, stops := distinctWords(text)
	if len(words) == 0 {
		words = stops
	}
	return words[:min(len(words), maxQueryWords)]
}

// distinctWords are text's runs of letters, digits and _, lower-cased,
// each once in the order they come, apart from its English stop words.
func distinctWords(text string) (words, stops []string) {
	all := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_'
	})
	seen := map[string]bool{}
	for _, w := range all {
		if seen[w] {
			continue
		}
		seen[w] = true
		if stopWords[w] {
			stops = append(stops, w)
		} else {
			words = append(words, w)
		}
	}
	return words, stops
}

// stopWords are English function words, question words and the verbs of
// asking ("tell me", "remind me").
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a about above after again against all am an and any are as at be because
		been before being below between both but by can could did do does doing down during each few for
		from further had has have having he her here hers herself him himself his how i if in into is it
		its itself just me more most my myself no nor not now of off on once only or other our ours
		ourselves out over own same she should so some such than that the their theirs them themselves
		then there these they this those through to too under until up us very was we were what when
		where which while who whom why will with would you your yours yourself yourselves s t don
		ever anything something tell remind know`) {
		m[w] = true
	}
	return m
}()
