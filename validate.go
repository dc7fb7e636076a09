package hippo

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxIDLength bounds agent IDs, scopes and block keys.
const MaxIDLength = 128

// ValidateAgentID checks an agent ID: non-empty, at most MaxIDLength
// characters, valid UTF-8, no control characters.
func ValidateAgentID(id string) error {
	return validateName("agent_id", id, false)
}

// ValidateScope checks a scope name; "" is the global scope.
func ValidateScope(scope string) error {
	return validateName("scope", scope, true)
}

// ValidateBlockKey checks a memory block key.
func ValidateBlockKey(key string) error {
	return validateName("key", key, false)
}

func validateName(field, s string, emptyOK bool) error {
	switch {
	case s == "" && emptyOK:
		return nil
	case strings.TrimSpace(s) == "":
		return Invalidf(field, "must not be empty")
	case !utf8.ValidString(s):
		return Invalidf(field, "must be valid UTF-8")
	case utf8.RuneCountInString(s) > MaxIDLength:
		return Invalidf(field, "must be at most %d characters, got %d", MaxIDLength, utf8.RuneCountInString(s))
	case strings.IndexFunc(s, unicode.IsControl) >= 0:
		return Invalidf(field, "must not contain control characters")
	}
	return nil
}

// ValidateChunkID checks a chunk ID given from outside (an import, a
// supersession link in one): at most MaxIDLength characters of ASCII
// letters, digits and "-_.:", which Hippo's ULIDs and the TypeScript
// Hippo's IDs are made of. An ID is shown in pages and terminals and
// used in URLs: markup, spaces and controls have no place in one.
func ValidateChunkID(field, id string) error {
	switch {
	case id == "":
		return Invalidf(field, "must not be empty")
	case len(id) > MaxIDLength:
		return Invalidf(field, "must be at most %d characters, got %d", MaxIDLength, utf8.RuneCountInString(id))
	case strings.IndexFunc(id, func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("-_.:", r))
	}) >= 0:
		return Invalidf(field, "must be ASCII letters, digits and -_.: only")
	}
	return nil
}

// ValidateText checks free text given to a tool: non-blank, valid UTF-8 and
// at most max characters.
func ValidateText(field, s string, max int) error {
	switch {
	case strings.TrimSpace(s) == "":
		return Invalidf(field, "must not be empty")
	case !utf8.ValidString(s):
		return Invalidf(field, "must be valid UTF-8")
	case max > 0 && utf8.RuneCountInString(s) > max:
		return Invalidf(field, "must be at most %d characters, got %d", max, utf8.RuneCountInString(s))
	}
	return nil
}

// MaxDescription bounds a block description, in characters.
const MaxDescription = 1000

// ValidateDescription checks a block description: "" (none) or valid
// UTF-8 of at most MaxDescription characters.
func ValidateDescription(s string) error {
	switch {
	case !utf8.ValidString(s):
		return Invalidf("description", "must be valid UTF-8")
	case utf8.RuneCountInString(s) > MaxDescription:
		return Invalidf("description", "must be at most %d characters, got %d", MaxDescription, utf8.RuneCountInString(s))
	}
	return nil
}

// MaxMetadataBytes bounds the size of a chunk's metadata JSON.
const MaxMetadataBytes = 16 << 10

// ValidateMetadata checks that metadata, if present, is a JSON object of
// reasonable size, and returns it compacted ("" for none).
func ValidateMetadata(raw json.RawMessage) (string, error) {
	// JSON's own whitespace only: TrimSpace would also drop a \v or NBSP
	// that makes the text not JSON.
	s := strings.Trim(string(raw), " \t\n\r")
	if s == "" || s == "null" {
		return "", nil
	}
	if len(s) > MaxMetadataBytes {
		return "", Invalidf("metadata", "must be at most %d bytes, got %d", MaxMetadataBytes, len(s))
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s), &obj); err != nil || obj == nil {
		return "", Invalidf("metadata", "must be a JSON object")
	}
	// Numbers must fit a float64, or readers of the metadata (the recall
	// filters on tags and category) could not decode it.
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return "", Invalidf("metadata", "must be a JSON object whose numbers fit a float64: %v", err)
	}
	var out bytes.Buffer
	if err := json.Compact(&out, []byte(s)); err != nil {
		return "", Invalidf("metadata", "must be a JSON object")
	}
	return out.String(), nil
}

// CheckLimit resolves a result limit: 0 means cfg.DefaultLimit; otherwise
// it must be within 1..cfg.MaxLimit.
func (c Config) CheckLimit(limit int) (int, error) {
	if limit == 0 {
		return c.DefaultLimit, nil
	}
	if limit < 1 || limit > c.MaxLimit {
		return 0, Invalidf("limit", "must be between 1 and %d, got %d", c.MaxLimit, limit)
	}
	return limit, nil
}

var identRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,63}$`)

// ValidateTableName checks that name is a plain SQL identifier, so that a
// store can quote it into a statement safely (the messages table).
func ValidateTableName(name string) error {
	if !identRe.MatchString(name) {
		return Invalidf("messages_table", "%q is not a valid table name (letters, digits and _, starting with a letter or _, at most 64)", name)
	}
	return nil
}
