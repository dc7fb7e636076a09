package hippo

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Fact is one discrete statement extracted from text, with how intensely
// it was stated (0..1).
type Fact struct {
	Content   string  `json:"fact"`
	Intensity float64 `json:"intensity"`
	// Replaces, when set, is a fact the text says stopped being true when
	// this one started ("I used to prefer VS Code, but now I use Neovim":
	// "User prefers VS Code"). RememberFacts supersedes a known fact that
	// says the same, or else keeps it in the history as already superseded,
	// so the change is neither lost nor stored as two current facts.
	Replaces string `json:"replaces,omitempty"`
}

// Verdict is how a new fact relates to an existing, similar one.
type Verdict string

const (
	// Duplicate: same information, different words. Strengthen the existing fact.
	Duplicate Verdict = "DUPLICATE"
	// Supersedes: same topic, new value. The existing fact is superseded.
	Supersedes Verdict = "SUPERSEDES"
	// Distinct: related but both true. Insert the new fact.
	Distinct Verdict = "DISTINCT"
)

// FactPair is a new fact and an existing candidate to classify.
type FactPair struct {
	New      string `json:"new"`
	Existing string `json:"existing"`
}

// Extractor pulls discrete facts out of free text.
type Extractor interface {
	// ExtractFacts returns the facts stated in text and the LLM calls it
	// made to find them (none for an offline extractor).
	ExtractFacts(ctx context.Context, text string) ([]Fact, []LLMCall, error)
}

// FollowUpExtractor is implemented by an Extractor that can read a text as
// said right after another. remember_facts gives it the agent's last
// kept text, so that a follow-up opening with "he", "she" or "it" ("He
// has hay fever" after "My son is 8.") is read against what that text
// named. It returns only the facts of text; where previous names nothing
// a pronoun can refer to, it extracts as ExtractFacts does.
type FollowUpExtractor interface {
	Extractor
	ExtractFactsAfter(ctx context.Context, previous, text string) ([]Fact, []LLMCall, error)
}

// ExtractorNamer is implemented by an Extractor that says what it is,
// ExtractorOffline or ExtractorLLM: each fact it extracts records that
// (Provenance.Extractor).
type ExtractorNamer interface {
	ExtractorName() string
}

// NoFactsExplainer is implemented by an Extractor that can say why a text
// yielded no fact ("text is a question"). RememberFacts puts the reason in
// its result, so a caller learns what was dropped and why instead of a bare
// "No facts extracted.".
type NoFactsExplainer interface {
	NoFactsReason(text string) string
}

// Classifier decides, in one call, the verdict of each pair. It returns one
// verdict per pair, in order, and the LLM calls it made (none for an
// offline classifier).
type Classifier interface {
	ClassifyFacts(ctx context.Context, pairs []FactPair) ([]Verdict, []LLMCall, error)
}

// Action is what remember_facts did with one extracted fact.
type Action string

const (
	ActionNew        Action = "new"
	ActionDuplicate  Action = "duplicate"
	ActionSupersedes Action = "supersedes"
	ActionDistinct   Action = "distinct"
)

// FactOutcome is the result for one extracted fact.
type FactOutcome struct {
	Action  Action `json:"action"`
	Content string `json:"content"`
	// ChunkID is the inserted chunk, or the strengthened one for duplicates.
	ChunkID   string  `json:"chunk_id"`
	Intensity float64 `json:"intensity"`
	// For duplicates: the existing chunk's content and intensity before and
	// after the moving average.
	ExistingContent string  `json:"existing_content,omitempty"`
	OldIntensity    float64 `json:"old_intensity,omitempty"`
	NewIntensity    float64 `json:"new_intensity,omitempty"`
	// For supersessions: the fact that stopped being current.
	SupersededID      string  `json:"superseded_id,omitempty"`
	SupersededContent string  `json:"superseded_content,omitempty"`
	Similarity        float64 `json:"similarity,omitempty"`
	// For a fact that replaces a former one (Fact.Replaces): the chunk
	// that stopped being current. FormerRecorded is set when no known
	// fact said the same, so the former one was stored from this text as
	// already superseded, for the history.
	FormerID       string `json:"former_id,omitempty"`
	FormerContent  string `json:"former_content,omitempty"`
	FormerRecorded bool   `json:"former_recorded,omitempty"`
	// Suspicious is set when the stored fact reads as an instruction to
	// the agent (Chunk.Suspicious): it is kept, but left out of
	// get_context and recall until a person trusts it.
	Suspicious       bool   `json:"suspicious,omitempty"`
	SuspiciousReason string `json:"suspicious_reason,omitempty"`
}

// RememberInput is the input of Remember: RememberFacts with a source, or
// facts the caller states itself.
type RememberInput struct {
	// Text is what the user said. Required unless Facts are given; with
	// Facts it is kept as their source (Provenance.InputHash).
	Text string
	// Source, optional, is where the text came from (a message ID, a URL,
	// a file): kept in each stored fact's Provenance.
	Source string
	// Facts, optional, are facts the caller has already drawn from the
	// text (at most MaxGivenFacts): Remember then extracts nothing and
	// checks, supersedes, stamps and flags each as an extracted fact.
	Facts []GivenFact
	// Async returns as soon as the text is kept and queued, durably;
	// its facts are learned in the background (RememberResult.Pending),
	// and a crash leaves them pending, to be learned at the next start
	// (LearnPending). Not with Facts.
	Async bool
}

// GivenFact is a fact stated by the caller (RememberInput.Facts), phrased
// as the extractor phrases its facts: one claim in the third person, "User
// lives in Berlin".
type GivenFact struct {
	Fact string `json:"fact"`
	// Intensity is how intensely it was stated, from 0 (an aside) to 1
	// (identity-level); nil is Config.DefaultIntensity, as an extracted
	// fact without one.
	Intensity *float64 `json:"intensity,omitempty"`
	// Replaces, optional, is an earlier fact this one makes untrue, as the
	// caller remembers it ("User lives in Berlin" for "User lives in
	// Lisbon"): the known fact that says the same is superseded, whatever
	// the similarity of the two, or else it is kept in the history as
	// already superseded (Fact.Replaces).
	Replaces string `json:"replaces,omitempty"`
}

// MaxGivenFacts bounds RememberInput.Facts: as many facts as one
// extraction may return.
const MaxGivenFacts = 50

// ValidateGivenFacts checks facts given to Remember, naming the item:
// at most MaxGivenFacts, each non-empty text of at most maxFact characters
// with an intensity, when given, from 0 to 1.
func ValidateGivenFacts(facts []GivenFact, maxFact int) error {
	if len(facts) > MaxGivenFacts {
		return Invalidf("facts", "give at most %d facts, got %d", MaxGivenFacts, len(facts))
	}
	for i, f := range facts {
		if err := ValidateText(fmt.Sprintf("facts[%d].fact", i), f.Fact, maxFact); err != nil {
			return err
		}
		if v := f.Intensity; v != nil && !(*v >= 0 && *v <= 1) {
			return Invalidf(fmt.Sprintf("facts[%d].intensity", i), "must be between 0 and 1, got %v", *v)
		}
		if f.Replaces != "" {
			if err := ValidateText(fmt.Sprintf("facts[%d].replaces", i), f.Replaces, maxFact); err != nil {
				return err
			}
		}
	}
	return nil
}

// RememberResult is the outcome of RememberFacts.
type RememberResult struct {
	Summary string        `json:"summary"`
	Facts   []FactOutcome `json:"facts"`
	// Reason says, when no fact was extracted, why: "text is a question",
	// "no first-person or third-person statement of a fact found". Text to
	// keep anyway belongs in StoreMemory (store_memory, `hippo store`).
	Reason string `json:"reason,omitempty"`
	// LLMCalls are the calls to the LLM this remember_facts made and the
	// tokens each cost, as the provider reported them; empty with the
	// offline extractor.
	LLMCalls []LLMCall `json:"llm_calls,omitempty"`
	// Fallback says, when the LLM gave an unreadable reply or timed out,
	// what was done instead: the offline extractor's facts, or the facts
	// kept as distinct. The summary ends with it too.
	Fallback string `json:"fallback,omitempty"`
	// Message is the text kept as a memory of its own, searchable and
	// linked to the facts it gave (their Provenance.InputHash is its
	// ContentHash), whatever extraction yielded; nil when the text was
	// not kept (MemoryOptions.DiscardText, or no text given).
	Message *KeptMessage `json:"message,omitempty"`
	// Pending says the facts are being learned in the background
	// (RememberInput.Async): Facts is empty.
	Pending bool `json:"pending,omitempty"`
}

// PendingSummary is the summary of an async remember_facts whose text was
// kept as memory id ("" when not kept).
func PendingSummary(id string) string {
	if id == "" {
		return "Queued: its facts are learned in the background."
	}
	return "Kept the text as memory " + id + "; its facts are learned in the background."
}

// KeptMessage is the memory a remember_facts text was kept as.
type KeptMessage struct {
	ID string `json:"id"`
	// New is false when the same text was already stored in the scope:
	// that memory was strengthened instead.
	New bool `json:"new"`
}

// NoFactsSummary is the summary of a RememberFacts call that extracted no
// fact: the reason, and where raw content goes instead.
func NoFactsSummary(reason string) string {
	if reason == "" {
		return "No facts extracted."
	}
	return "No facts extracted: " + reason + ". To keep the text verbatim, use store_memory."
}

// KeptSummary is the summary of a RememberFacts call that extracted no
// fact and kept the text as memory id.
func KeptSummary(reason, id string) string {
	if reason == "" {
		return "No facts extracted. The text was kept as memory " + id + "."
	}
	return "No facts extracted: " + reason + ". The text was kept as memory " + id + "."
}

// Summarize renders outcomes as one line for the agent: "Learned 2 facts:
// 1 new (…), 1 updated (… — intensity 0.85 → running avg 0.83)".
func Summarize(outcomes []FactOutcome) string {
	if len(outcomes) == 0 {
		return "No facts extracted."
	}
	groups := []struct {
		action Action
		label  string
		items  []string
	}{
		{ActionNew, "new", nil},
		{ActionDuplicate, "updated", nil},
		{ActionSupersedes, "superseding", nil},
		{ActionDistinct, "distinct", nil},
	}
	for _, o := range outcomes {
		for g := range groups {
			if groups[g].action != o.Action {
				continue
			}
			item := o.Content
			switch o.Action {
			case ActionDuplicate:
				item = fmt.Sprintf("%s — intensity %.2f → running avg %.2f", o.ExistingContent, o.OldIntensity, o.NewIntensity)
			case ActionSupersedes:
				item = fmt.Sprintf("%s — replaces %q", o.Content, o.SupersededContent)
			}
			if o.FormerContent != "" && o.FormerContent != o.SupersededContent {
				item += fmt.Sprintf(" — replaces %q", o.FormerContent)
			}
			groups[g].items = append(groups[g].items, item)
		}
	}
	noun := "facts"
	if len(outcomes) == 1 {
		noun = "fact"
	}
	var parts []string
	for _, g := range groups {
		if len(g.items) > 0 {
			parts = append(parts, fmt.Sprintf("%d %s (%s)", len(g.items), g.label, strings.Join(g.items, "; ")))
		}
	}
	return fmt.Sprintf("Learned %d %s: %s", len(outcomes), noun, strings.Join(parts, ", "))
}

// HistoryEntry is one value in a fact's history: what was believed, from
// when until when.
type HistoryEntry struct {
	ID         string     `json:"id"`
	Content    string     `json:"content"`
	ValidFrom  time.Time  `json:"valid_from"`
	ValidUntil *time.Time `json:"valid_until"` // nil while current
	Current    bool       `json:"current"`
	// Provenance says where this value came from; nil when unknown.
	Provenance *Provenance `json:"provenance,omitempty"`
	// Suspicious and SuspiciousReason are the value's trust flag.
	Suspicious       bool   `json:"suspicious,omitempty"`
	SuspiciousReason string `json:"suspicious_reason,omitempty"`
}
