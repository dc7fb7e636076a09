package trust

import (
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A prefilter is a set of strings of which every match of a pattern holds
// at least one, case folded: a text holding none of them cannot match, and
// the pattern need not run. Most texts stored hold none, and Go's regexp
// costs far more than a few substring searches. It is derived from the
// pattern's syntax, so it cannot drift from the rules.
type prefilter []string

// maxExact bounds the sets of exact strings built while deriving a
// prefilter (alternations times alternations grow fast).
const maxExact = 256

// newPrefilter derives the prefilter of pattern; nil when the pattern
// needs no particular string (the pattern then always runs).
func newPrefilter(pattern string) prefilter {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil // regexp.MustCompile reports it
	}
	return prefilter(necessary(re.Simplify()))
}

// pass reports whether folded (a text after fold) may match.
func (p prefilter) pass(folded string) bool {
	if p == nil {
		return true
	}
	for _, s := range p {
		if strings.Contains(folded, s) {
			return true
		}
	}
	return false
}

// fold maps s to one case of each letter, as (?i) compares them: every
// rune to the smallest rune of its simple case-folding orbit (K, k and
// the Kelvin sign all to K).
func fold(s string) string {
	return strings.Map(foldRune, s)
}

func foldRune(r rune) rune {
	least := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		least = min(least, f)
	}
	return least
}

// exact is the finite set of strings re matches, folded, or nil when it is
// infinite or larger than maxExact. The empty string is a member for
// patterns that may match nothing (zero-width assertions, x?).
func exact(re *syntax.Regexp) []string {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return []string{""}
	case syntax.OpLiteral:
		return []string{fold(string(re.Rune))}
	case syntax.OpCharClass:
		var out []string
		seen := map[rune]bool{}
		for i := 0; i+1 < len(re.Rune); i += 2 {
			if re.Rune[i+1]-re.Rune[i] > maxExact {
				return nil
			}
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				if f := foldRune(r); !seen[f] {
					seen[f] = true
					out = append(out, string(f))
				}
			}
			if len(out) > maxExact {
				return nil
			}
		}
		return out
	case syntax.OpCapture:
		return exact(re.Sub[0])
	case syntax.OpQuest:
		sub := exact(re.Sub[0])
		if sub == nil {
			return nil
		}
		return union(sub, []string{""})
	case syntax.OpConcat:
		out := []string{""}
		for _, sub := range re.Sub {
			if out = cross(out, exact(sub)); out == nil {
				return nil
			}
		}
		return out
	case syntax.OpAlternate:
		var out []string
		for _, sub := range re.Sub {
			e := exact(sub)
			if e == nil {
				return nil
			}
			if out = union(out, e); len(out) > maxExact {
				return nil
			}
		}
		return out
	}
	return nil
}

// necessary is a set of which every match of re holds one as a substring,
// folded, or nil when there is none.
func necessary(re *syntax.Regexp) []string {
	if e := exact(re); e != nil {
		return nonEmpty(e)
	}
	switch re.Op {
	case syntax.OpCapture, syntax.OpPlus:
		return necessary(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min > 0 {
			return necessary(re.Sub[0])
		}
	case syntax.OpAlternate:
		var out []string
		for _, sub := range re.Sub {
			n := necessary(sub)
			if n == nil {
				return nil
			}
			out = union(out, n)
		}
		return out
	case syntax.OpConcat:
		// Every part must match: the best of the parts' sets will do, and
		// consecutive exact parts make longer strings together.
		var best []string
		consider := func(s []string) {
			if s != nil && (best == nil || shortest(s) > shortest(best)) {
				best = s
			}
		}
		run := []string{""}
		for _, sub := range re.Sub {
			if e := exact(sub); e != nil {
				if next := cross(run, e); next != nil {
					run = next
					continue
				}
				consider(nonEmpty(run))
				run = e
				continue
			}
			consider(nonEmpty(run))
			run = []string{""}
			consider(necessary(sub))
		}
		consider(nonEmpty(run))
		return best
	}
	return nil
}

// nonEmpty is s when none of its strings is empty, else nil: a set with
// the empty string requires nothing.
func nonEmpty(s []string) []string {
	for _, x := range s {
		if x == "" {
			return nil
		}
	}
	return s
}

// shortest is the length in runes of s's shortest string.
func shortest(s []string) int {
	n := -1
	for _, x := range s {
		if l := utf8.RuneCountInString(x); n < 0 || l < n {
			n = l
		}
	}
	return n
}

// cross is every a followed by every b, nil when b is nil or the set would
// pass maxExact.
func cross(a, b []string) []string {
	if b == nil || len(a)*len(b) > maxExact {
		return nil
	}
	out := make([]string, 0, len(a)*len(b))
	for _, x := range a {
		for _, y := range b {
			out = append(out, x+y)
		}
	}
	return union(nil, out)
}

// union is a and b without repeats.
func union(a, b []string) []string {
	seen := make(map[string]bool, len(a)+len(b))
	var out []string
	for _, s := range append(append([]string(nil), a...), b...) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// A matcher tells which of a list of prefilters a text passes in one scan
// of the text, where asking each prefilter takes a substring search per
// string (hundreds of them). Strings are found by their first two bytes
// (a hash into buckets), or by their one byte.
type matcher struct {
	always  uint64 // prefilters that require nothing
	one     [256][]needle
	buckets [matcherBuckets][]needle
}

// needle is a string of the prefilters and the prefilters (bits) that
// hold it.
type needle struct {
	s    string
	bits uint64
}

const matcherBuckets = 1024

func bucket(a, b byte) int { return (int(a)*31 + int(b)) % matcherBuckets }

// newMatcher builds the matcher of at most 64 prefilters: bit i of a
// match stands for pres[i].
func newMatcher(pres []prefilter) *matcher {
	if len(pres) > 64 {
		panic("trust: more than 64 prefilters")
	}
	m := &matcher{}
	bits := map[string]uint64{}
	var order []string
	for i, p := range pres {
		if p == nil {
			m.always |= 1 << i
		}
		for _, s := range p {
			if _, ok := bits[s]; !ok {
				order = append(order, s)
			}
			bits[s] |= 1 << i
		}
	}
	for _, s := range order {
		n := needle{s, bits[s]}
		if len(s) == 1 {
			m.one[s[0]] = append(m.one[s[0]], n)
		} else {
			k := bucket(s[0], s[1])
			m.buckets[k] = append(m.buckets[k], n)
		}
	}
	return m
}

// match is the set of prefilters folded (a text after fold) passes, bit i
// for the i-th: pres[i].pass(folded) for each i.
func (m *matcher) match(folded string) uint64 {
	got := m.always
	for i := 0; i < len(folded); i++ {
		for _, n := range m.one[folded[i]] {
			got |= n.bits
		}
		if i+1 == len(folded) {
			break
		}
		for _, n := range m.buckets[bucket(folded[i], folded[i+1])] {
			if got&n.bits != n.bits && strings.HasPrefix(folded[i:], n.s) {
				got |= n.bits
			}
		}
	}
	return got
}
