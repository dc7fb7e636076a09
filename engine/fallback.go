package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hippo-mem/hippo"
)

// extract runs the extractor on text, said after previous (the agent's
// last kept text, "" for none) for an extractor that reads follow-ups
// (hippo.FollowUpExtractor). When its LLM answers with an unreadable
// reply or not within its timeout, the fallback extractor
// (MemoryOptions.FallbackExtractor), if any, extracts from the text
// instead, and note says so; any other error fails the call. by names the
// extractor that found the facts (extractorName).
func (m *Memory) extract(ctx context.Context, previous, text string, calls *[]hippo.LLMCall) (facts []hippo.Fact, by, note string, err error) {
	facts, used, err := extractAfter(ctx, m.opts.Extractor, previous, text)
	*calls = append(*calls, used...)
	if err == nil {
		return facts, extractorName(m.opts.Extractor), "", nil
	}
	why := llmFailure(ctx, err)
	if why == "" || m.opts.FallbackExtractor == nil {
		return nil, "", "", fmt.Errorf("extract facts: %w", err)
	}
	facts, used, ferr := extractAfter(ctx, m.opts.FallbackExtractor, previous, text)
	*calls = append(*calls, used...)
	if ferr != nil {
		return nil, "", "", fmt.Errorf("extract facts: %w (the fallback extractor failed too: %v)", err, ferr)
	}
	return facts, extractorName(m.opts.FallbackExtractor), fmt.Sprintf("Extraction: the LLM %s, so the offline extractor extracted the facts.", why), nil
}

// extractAfter extracts the facts of text with e, as said after previous
// when e reads follow-ups and previous is not "".
func extractAfter(ctx context.Context, e hippo.Extractor, previous, text string) ([]hippo.Fact, []hippo.LLMCall, error) {
	if f, ok := e.(hippo.FollowUpExtractor); ok && previous != "" {
		return f.ExtractFactsAfter(ctx, previous, text)
	}
	return e.ExtractFacts(ctx, text)
}

// extractorName is what e says it is (hippo.ExtractorNamer), "" when it
// does not say.
func extractorName(e hippo.Extractor) string {
	if n, ok := e.(hippo.ExtractorNamer); ok {
		return n.ExtractorName()
	}
	return ""
}

// classify asks the classifier for the verdict of every pair. When its LLM
// answers with an unreadable reply or not within its timeout, every pair
// is DISTINCT, the safe verdict: both facts are kept, none is replaced on
// a guess, and note says so.
func (m *Memory) classify(ctx context.Context, pairs []hippo.FactPair, calls *[]hippo.LLMCall) (verdicts []hippo.Verdict, note string, err error) {
	verdicts, used, err := m.opts.Classifier.ClassifyFacts(ctx, pairs)
	*calls = append(*calls, used...)
	if err == nil {
		return verdicts, "", nil
	}
	why := llmFailure(ctx, err)
	if why == "" {
		return nil, "", fmt.Errorf("classify facts: %w", err)
	}
	verdicts = make([]hippo.Verdict, len(pairs))
	for i := range verdicts {
		verdicts[i] = hippo.Distinct
	}
	return verdicts, fmt.Sprintf("Comparison with known facts: the LLM %s, so each fact was kept as distinct.", why), nil
}

// llmFailure says what went wrong when err is a failure a fallback covers:
// an unreadable reply (hippo.ErrUnreadableReply), or the LLM's own
// timeout, a deadline other than the caller's. It is "" for any other
// error, such as a refused request, which the caller must see.
func llmFailure(ctx context.Context, err error) string {
	switch {
	case errors.Is(err, hippo.ErrUnreadableReply):
		return "gave a reply that could not be read"
	case ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded):
		return "did not answer within its timeout"
	}
	return ""
}

// noteFallbacks records in res what was done instead of using the LLM's
// answer, in its Fallback and at the end of its summary.
func noteFallbacks(res *hippo.RememberResult, notes []string) {
	if len(notes) == 0 {
		return
	}
	res.Fallback = strings.Join(notes, " ")
	res.Summary += " " + res.Fallback
}
