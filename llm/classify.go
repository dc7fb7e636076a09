package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/hippo-mem/hippo"
)

// classifyPrompt is the classification system prompt: the three verdicts
// with examples.
var classifyPrompt = mustRender("classify.tmpl", nil)

// Classifier decides, in one LLM call, whether each new fact duplicates,
// supersedes or stands beside an existing one. It implements
// hippo.Classifier.
type Classifier struct {
	client hippo.LLM
}

var _ hippo.Classifier = (*Classifier)(nil)

// NewClassifier returns a Classifier asking client, which must not be nil.
func NewClassifier(client hippo.LLM) *Classifier {
	return &Classifier{client: client}
}

// ClassifyFacts asks the LLM once for the verdict of every pair and returns
// exactly one verdict per pair, in order, with the call's usage when the
// LLM reported it (purpose "classify"). No pairs, no call. A pair the
// reply leaves out or answers with an unknown word is hippo.Distinct, which
// keeps both facts and so loses nothing. A reply with no verdict at all is
// an error wrapping hippo.ErrUnreadableReply.
func (c *Classifier) ClassifyFacts(ctx context.Context, pairs []hippo.FactPair) ([]hippo.Verdict, []hippo.LLMCall, error) {
	if len(pairs) == 0 {
		return []hippo.Verdict{}, nil, nil
	}
	user, err := render("pairs.tmpl", pairs)
	if err != nil {
		return nil, nil, fmt.Errorf("llm: fact classification failed: %w", err)
	}
	reply, usage, err := c.client.Complete(ctx, classifyPrompt, []hippo.Message{{Role: "user", Content: user}})
	calls := called(usage, "classify")
	if err != nil {
		return nil, calls, fmt.Errorf("llm: fact classification failed: %w", err)
	}
	verdicts, read := parseVerdicts(reply, len(pairs))
	if !read {
		return nil, calls, unreadable("the classification reply could not be parsed: no verdict in %q", truncate(reply, 200))
	}
	return verdicts, calls, nil
}

// parseVerdicts reads n verdicts out of a classification reply. It tries,
// in order, the JSON values in the reply ({"verdicts":[...]}, an array of
// objects keyed by 1-based pair number, a bare array of words in order, an
// object mapping pair numbers to words) and then plain-text lines such as
// "1: DUPLICATE". Whatever is still unknown is hippo.Distinct. It reports
// whether the reply gave any verdict at all.
func parseVerdicts(reply string, n int) ([]hippo.Verdict, bool) {
	if n <= 0 {
		return []hippo.Verdict{}, true
	}
	out := make([]hippo.Verdict, n)
	found := false
	eachJSON(reply, func(raw json.RawMessage) bool {
		found = jsonVerdicts(raw, out)
		return found
	})
	if !found {
		textVerdicts(reply, out)
	}
	read := false
	for i, v := range out {
		if v == "" {
			out[i] = hippo.Distinct
		} else {
			read = true
		}
	}
	return out, read
}

// verdictKeys and pairKeys are the names models use for an entry's two
// fields, preferred first.
var (
	verdictKeys = []string{"verdict", "classification", "label", "result", "relation", "answer", "decision"}
	pairKeys    = []string{"pair", "index", "id", "number", "n", "pair_number", "pair_id"}
)

// jsonVerdicts fills out from one JSON value and reports whether it gave
// any verdict at all; out is untouched when it did not.
func jsonVerdicts(raw json.RawMessage, out []hippo.Verdict) bool {
	var items []json.RawMessage
	switch jsonKind(raw) {
	case '[':
		if err := json.Unmarshal(raw, &items); err != nil {
			return false
		}
	case '{':
		m, ok := object(raw)
		if !ok {
			return false
		}
		items = []json.RawMessage{raw} // a single entry or a number → word map
		if v, ok := field(m, "verdicts", "results", "classifications", "answers", "pairs"); ok && jsonKind(v) == '[' {
			if err := json.Unmarshal(v, &items); err != nil {
				return false
			}
		}
	default:
		return false
	}
	set := 0
	for i, item := range items {
		set += verdictEntry(item, i, out)
	}
	return set > 0
}

// verdictEntry records the verdicts of the entry at position pos of a list
// and returns how many it recorded. A word alone stands for pair pos+1.
func verdictEntry(raw json.RawMessage, pos int, out []hippo.Verdict) int {
	switch jsonKind(raw) {
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return 0
		}
		if v, ok := parseVerdict(s); ok {
			return record(out, pos+1, v)
		}
		if num, v, ok := lineVerdict(s); ok && num > 0 { // "1: DUPLICATE"
			return record(out, num, v)
		}
	case '{':
		m, ok := object(raw)
		if !ok {
			return 0
		}
		if w, ok := field(m, verdictKeys...); ok {
			var s string
			if err := json.Unmarshal(w, &s); err != nil {
				return 0
			}
			v, ok := parseVerdict(s)
			if !ok {
				return 0
			}
			num := pos + 1
			if p, ok := field(m, pairKeys...); ok {
				if num, ok = pairNumber(p); !ok {
					return 0
				}
			}
			return record(out, num, v)
		}
		// {"1": "DUPLICATE", "2": "DISTINCT"}
		set := 0
		for _, k := range slices.Sorted(maps.Keys(m)) {
			w := m[k]
			num, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(strings.ToLower(strings.TrimSpace(k)), "pair")))
			if err != nil {
				continue
			}
			var s string
			if err := json.Unmarshal(w, &s); err != nil {
				continue
			}
			if v, ok := parseVerdict(s); ok {
				set += record(out, num, v)
			}
		}
		return set
	}
	return 0
}

// record sets the verdict of 1-based pair num unless it is out of range or
// already set, and returns how many verdicts it set.
func record(out []hippo.Verdict, num int, v hippo.Verdict) int {
	if num < 1 || num > len(out) || out[num-1] != "" {
		return 0
	}
	out[num-1] = v
	return 1
}

// pairNumber reads a pair number given as 3, 3.0, "3" or "Pair 3".
func pairNumber(raw json.RawMessage) (int, bool) {
	if f, ok := number(raw); ok {
		if f != float64(int(f)) {
			return 0, false
		}
		return int(f), true
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return 0, false
	}
	num, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(strings.ToLower(strings.TrimSpace(s)), "pair")))
	return num, err == nil
}

// textVerdicts fills out from plain-text lines: numbered ones ("1:
// DUPLICATE", "2. supersedes", "Pair 3 - DISTINCT") or, when none is
// numbered, lines holding nothing but a verdict word, taken in order.
func textVerdicts(reply string, out []hippo.Verdict) {
	var bare []hippo.Verdict
	numbered := false
	for line := range strings.Lines(reply) {
		num, v, ok := lineVerdict(line)
		switch {
		case !ok:
		case num > 0:
			numbered = true
			record(out, num, v)
		default:
			bare = append(bare, v)
		}
	}
	if numbered {
		return
	}
	for i, v := range bare {
		record(out, i+1, v)
	}
}

// lineVerdict reads one line of a plain-text reply. A numbered line is a
// number, optionally after "pair", then optionally filler ("verdict",
// "is"), then the verdict word; it returns the number. A bare line is the
// verdict word alone; it returns 0. Anything else, prose mentioning a
// verdict word included, is not a verdict.
func lineVerdict(line string) (num int, v hippo.Verdict, ok bool) {
	words := strings.FieldsFunc(line, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	if len(words) == 1 {
		v, ok := parseVerdict(words[0])
		return 0, v, ok
	}
	if len(words) > 0 && strings.EqualFold(words[0], "pair") {
		words = words[1:]
	}
	if len(words) < 2 {
		return 0, "", false
	}
	num, err := strconv.Atoi(words[0])
	if err != nil || num < 1 {
		return 0, "", false
	}
	for _, w := range words[1:] {
		if v, ok := parseVerdict(w); ok {
			return num, v, true
		}
		switch strings.ToLower(w) {
		case "verdict", "is", "classification", "answer", "label", "result":
			continue
		}
		return 0, "", false
	}
	return 0, "", false
}

// parseVerdict reads a verdict word, case-insensitively, with common
// variants ("supersede", "superceded", "duplicates").
func parseVerdict(s string) (hippo.Verdict, bool) {
	w := strings.ToUpper(strings.Trim(s, " \t\r\n.,:;!?*_\"'`()[]"))
	switch w {
	case "DUPLICATE", "DUPLICATES", "DUPLICATED":
		return hippo.Duplicate, true
	case "SUPERSEDES", "SUPERSEDE", "SUPERSEDED", "SUPERCEDES", "SUPERCEDE", "SUPERCEDED":
		return hippo.Supersedes, true
	case "DISTINCT":
		return hippo.Distinct, true
	}
	return "", false
}
