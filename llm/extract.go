package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/hippo-mem/hippo"
)

// maxFacts caps how many facts one extraction returns.
const maxFacts = 50

// defaultIntensity is the reading given to a fact whose intensity is
// missing or unreadable: the middle of the scale, neither aside nor
// conviction.
const defaultIntensity = 0.5

// extractPrompt is the extraction system prompt. It carries the intensity
// signals and calibration bands the model rates each fact with.
var extractPrompt = mustRender("extract.tmpl", struct{ MaxFacts int }{maxFacts})

// Extractor pulls facts and their intensity out of free text with one LLM
// call. It implements hippo.Extractor.
type Extractor struct {
	client hippo.LLM
}

var _ hippo.Extractor = (*Extractor)(nil)

// NewExtractor returns an Extractor asking client, which must not be nil.
func NewExtractor(client hippo.LLM) *Extractor {
	return &Extractor{client: client}
}

// ExtractorName implements hippo.ExtractorNamer.
func (e *Extractor) ExtractorName() string { return hippo.ExtractorLLM }

// ExtractFacts asks the LLM once for the facts stated in text, each a
// standalone third-person statement about the user with an intensity in
// [0,1], and returns the call's usage when the LLM reported it (purpose
// "extract"). Blank text yields no facts without a call. A reply with no
// readable JSON, or JSON cut off, is an EINTERNAL *hippo.Error wrapping
// hippo.ErrUnreadableReply; one with no facts yields an empty slice.
func (e *Extractor) ExtractFacts(ctx context.Context, text string) ([]hippo.Fact, []hippo.LLMCall, error) {
	return e.ExtractFactsAfter(ctx, "", text)
}

// ExtractFactsAfter implements hippo.FollowUpExtractor: ExtractFacts with
// previous, the message before text, sent first as context for what
// "he", "she" or "it" in text refer to; the prompt asks for text's facts
// alone.
func (e *Extractor) ExtractFactsAfter(ctx context.Context, previous, text string) ([]hippo.Fact, []hippo.LLMCall, error) {
	if strings.TrimSpace(text) == "" {
		return []hippo.Fact{}, nil, nil
	}
	content := text
	if strings.TrimSpace(previous) != "" {
		content = previousLabel + previous + "\n\n" + messageLabel + text
	}
	reply, usage, err := e.client.Complete(ctx, extractPrompt, []hippo.Message{{Role: "user", Content: content}})
	calls := called(usage, "extract")
	if err != nil {
		return nil, calls, fmt.Errorf("llm: fact extraction failed: %w", err)
	}
	facts, err := parseFacts(reply)
	return facts, calls, err
}

// previousLabel and messageLabel mark the message before and the message
// in a follow-up's request (extract.tmpl names them).
const (
	previousLabel = "Previous message (context only):\n"
	messageLabel  = "Message:\n"
)

// called is the usage of one call made for purpose, as a list: none when
// the LLM reported none.
func called(usage *hippo.LLMCall, purpose string) []hippo.LLMCall {
	if usage == nil {
		return nil
	}
	c := *usage
	if c.Purpose == "" {
		c.Purpose = purpose
	}
	return []hippo.LLMCall{c}
}

// parseFacts reads the facts out of an extraction reply: a bare array, a
// {"facts":[...]} wrapper, a single fact object, any of them inside code
// fences or prose. Malformed entries and repeated facts are dropped. A
// reply cut off inside its JSON is unreadable, not the facts before the
// cut: the rest would be lost without a word.
func parseFacts(reply string) ([]hippo.Fact, error) {
	var facts []hippo.Fact
	parsed, cut := eachJSON(reply, func(raw json.RawMessage) bool {
		items, ok := factItems(raw)
		if ok {
			facts = collectFacts(items)
		}
		return ok
	})
	switch {
	case cut && facts == nil:
		return nil, unreadable("the extraction reply could not be parsed: its JSON is cut off (max_tokens reached?) in %q", truncate(reply, 200))
	case !parsed:
		return nil, unreadable("the extraction reply could not be parsed: no JSON in %q", truncate(reply, 200))
	}
	if facts == nil {
		// Valid JSON, but nothing shaped like facts: the model found none.
		facts = []hippo.Fact{}
	}
	return facts, nil
}

// factItems returns the candidate fact entries of one JSON value, and false
// when the value does not look like an extraction reply.
func factItems(raw json.RawMessage) ([]json.RawMessage, bool) {
	switch jsonKind(raw) {
	case '[':
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, false
		}
		// An array of numbers or strings is more likely prose ("[1]")
		// than a reply; keep looking.
		if len(items) > 0 && !slices.ContainsFunc(items, isObject) {
			return nil, false
		}
		return items, true
	case '{':
		m, ok := object(raw)
		if !ok {
			return nil, false
		}
		for _, key := range []string{"facts", "items", "results", "data", "memories"} {
			v, ok := field(m, key)
			if !ok {
				continue
			}
			switch jsonKind(v) {
			case 'n': // null: no facts
				return []json.RawMessage{}, true
			case '[':
				var items []json.RawMessage
				if err := json.Unmarshal(v, &items); err == nil {
					return items, true
				}
			}
		}
		if _, ok := field(m, factKeys...); ok {
			return []json.RawMessage{raw}, true
		}
	}
	return nil, false
}

// factKeys and intensityKeys are the names models use for a fact's two
// fields, preferred first.
var (
	factKeys      = []string{"fact", "content", "text", "statement"}
	intensityKeys = []string{"intensity", "importance", "strength"}
)

// collectFacts turns entries into facts: trimmed, clamped, deduplicated
// case-insensitively, at most maxFacts.
func collectFacts(items []json.RawMessage) []hippo.Fact {
	facts := []hippo.Fact{}
	seen := make(map[string]bool)
	for _, item := range items {
		f, ok := parseFact(item)
		if !ok {
			continue
		}
		key := strings.ToLower(f.Content)
		if seen[key] {
			continue
		}
		seen[key] = true
		facts = append(facts, f)
		if len(facts) == maxFacts {
			break
		}
	}
	return facts
}

// parseFact reads one entry; it fails for non-objects and empty facts.
func parseFact(raw json.RawMessage) (hippo.Fact, bool) {
	m, ok := object(raw)
	if !ok {
		return hippo.Fact{}, false
	}
	v, ok := field(m, factKeys...)
	if !ok {
		return hippo.Fact{}, false
	}
	var content string
	if err := json.Unmarshal(v, &content); err != nil {
		return hippo.Fact{}, false
	}
	content = strings.TrimSpace(content)
	if content == "" {
		return hippo.Fact{}, false
	}
	intensity := defaultIntensity
	if v, ok := field(m, intensityKeys...); ok {
		if f, ok := number(v); ok {
			intensity = f
		}
	}
	f := hippo.Fact{Content: content, Intensity: clamp(intensity)}
	if v, ok := field(m, "replaces"); ok {
		var former string
		if json.Unmarshal(v, &former) == nil {
			f.Replaces = strings.TrimSpace(former)
		}
	}
	return f, true
}

// clamp bounds an intensity to [0,1]; NaN becomes defaultIntensity.
func clamp(x float64) float64 {
	switch {
	case math.IsNaN(x):
		return defaultIntensity
	case x < 0:
		return 0
	case x > 1:
		return 1
	}
	return x
}

// unreadable is an EINTERNAL *hippo.Error that also wraps
// hippo.ErrUnreadableReply, so the engine can fall back.
func unreadable(format string, args ...any) error {
	return &unreadableError{hippo.Errorf(hippo.EINTERNAL, "llm: "+format, args...)}
}

// unreadableError is a reply that could not be read: its text is the
// *hippo.Error's, and errors.Is sees hippo.ErrUnreadableReply.
type unreadableError struct{ err *hippo.Error }

func (e *unreadableError) Error() string   { return e.err.Message }
func (e *unreadableError) Unwrap() []error { return []error{e.err, hippo.ErrUnreadableReply} }

// truncate shortens s to at most n bytes, on a rune boundary, for messages.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
