package hippo

import (
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Origins: the operation that wrote a chunk (Provenance.Origin).
const (
	OriginStoreMemory   = "store_memory"
	OriginRememberFacts = "remember_facts"
	OriginImport        = "import"
	// OriginUpdateMemory is a fact's version written by an edit of its
	// content (update_memory).
	OriginUpdateMemory = "update_memory"
	// OriginBulk is a chunk loaded as it was given (sqlite.DB.InsertChunks).
	OriginBulk = "bulk"
)

// Callers: who called the operation (Provenance.Caller,
// MemoryOptions.Caller).
const (
	CallerMCP     = "mcp"
	CallerCLI     = "cli"
	CallerLibrary = "library"
)

// Extractors: what stated a fact (Provenance.Extractor).
const (
	// ExtractorCaller: the caller gave the fact (RememberInput.Facts).
	ExtractorCaller = "caller"
	// ExtractorOffline: the offline extractor cut it from the text by
	// rules.
	ExtractorOffline = "offline"
	// ExtractorLLM: an LLM extracted it from the text.
	ExtractorLLM = "llm"
)

// Stated says in a few words what stated a fact (Extractor): "given by
// the caller", "extracted offline", "extracted by an LLM", or the
// extractor's name; "" when unknown.
func (p *Provenance) Stated() string {
	switch p.Extractor {
	case "":
		return ""
	case ExtractorCaller:
		return "given by the caller"
	case ExtractorOffline:
		return "extracted offline"
	case ExtractorLLM:
		return "extracted by an LLM"
	}
	return "extracted by " + p.Extractor
}

// MaxSourceLength bounds a caller-given source (a message ID, a URL, a
// file name).
const MaxSourceLength = 2048

// Provenance says where a chunk came from. A chunk stored before Hippo
// kept provenance has none (nil).
type Provenance struct {
	// Origin is the operation that wrote the chunk: OriginStoreMemory,
	// OriginRememberFacts, OriginUpdateMemory, OriginImport (a record that
	// carried no provenance of its own), OriginBulk. An import keeps the origin its
	// file records.
	Origin string `json:"origin"`
	// Caller is who ran the operation: CallerMCP (a tool call), CallerCLI
	// (a hippo command) or CallerLibrary; "" when unknown.
	Caller string `json:"caller,omitempty"`
	// Source is what the caller said the content came from: a message ID,
	// a URL, a file; "" when it said nothing.
	Source string `json:"source,omitempty"`
	// InputHash is the hex SHA-256 of the text a fact was extracted from
	// (remember_facts), kept once per agent however many facts it gave,
	// and deleted with the last chunk that refers to it; "" for content
	// stored as given.
	InputHash string `json:"input_hash,omitempty"`
	// Extractor is what stated a fact learned by remember_facts:
	// ExtractorCaller, ExtractorOffline or ExtractorLLM; "" for content
	// stored as given, or an extractor that does not say
	// (ExtractorNamer). A fact the offline extractor cut from a text that
	// was kept comes back in recall as that text (docs/MODEL.md).
	Extractor string `json:"extractor,omitempty"`
}

// SourceInfo is where a chunk came from, as memory_source reports it.
type SourceInfo struct {
	ID      string `json:"id"`
	Kind    Kind   `json:"kind"`
	Content string `json:"content"`
	// WrittenAt is when the chunk was written (its creation time; an
	// import keeps the exporter's).
	WrittenAt time.Time `json:"written_at"`
	// Provenance is nil for a chunk stored before provenance was kept.
	Provenance *Provenance `json:"provenance"`
	// Input is the text the chunk was extracted from (Provenance.InputHash),
	// "" when there is none or it was not kept.
	Input string `json:"input,omitempty"`
	// Suspicious and SuspiciousReason are the chunk's trust flag.
	Suspicious       bool   `json:"suspicious"`
	SuspiciousReason string `json:"suspicious_reason,omitempty"`
	// Current is false for a superseded fact.
	Current bool `json:"current"`
}

// ValidateSource checks a caller-given source: "" (none), or valid UTF-8
// of at most MaxSourceLength characters without control characters.
func ValidateSource(s string) error {
	switch {
	case s == "":
		return nil
	case strings.TrimSpace(s) == "":
		return Invalidf("source", "must not be blank (omit it instead)")
	case !utf8.ValidString(s):
		return Invalidf("source", "must be valid UTF-8")
	case utf8.RuneCountInString(s) > MaxSourceLength:
		return Invalidf("source", "must be at most %d characters, got %d", MaxSourceLength, utf8.RuneCountInString(s))
	case strings.IndexFunc(s, unicode.IsControl) >= 0:
		return Invalidf("source", "must not contain control characters")
	}
	return nil
}

// ValidateOrigin checks a provenance origin or caller read from a file:
// a short name of letters, digits and _ ("" for none).
func ValidateOrigin(field, s string) error {
	if s != "" && !originRe.MatchString(s) {
		return Invalidf(field, "%q is not a valid name (letters, digits and _, at most 64)", s)
	}
	return nil
}

var originRe = regexp.MustCompile(`^[A-Za-z0-9_]{1,64}$`)
