package hippo

import (
	"bytes"
	"encoding/json"
	"time"
)

// Reinforcement is the vote an UpdateMemory carries, as the MVP design's
// modify_insight does: an edit usually says the memory is worth keeping.
type Reinforcement string

const (
	// ReinforceUp counts as an upvote (reinforce_memory's): a reading of
	// 1 folded into the running intensity, and an access now. The default.
	ReinforceUp Reinforcement = "up"
	// ReinforceDown counts as a downvote: a reading of 0, no access.
	ReinforceDown Reinforcement = "down"
	// ReinforceNone changes no strength.
	ReinforceNone Reinforcement = "none"
)

// ParseReinforcement reads a vote: "up", "down" or "none"; "" is
// ReinforceUp.
func ParseReinforcement(s string) (Reinforcement, error) {
	switch r := Reinforcement(s); r {
	case "":
		return ReinforceUp, nil
	case ReinforceUp, ReinforceDown, ReinforceNone:
		return r, nil
	}
	return "", Invalidf("reinforce", "must be %q, %q or %q, got %q", ReinforceUp, ReinforceDown, ReinforceNone, s)
}

// UpdateInput is the input of UpdateMemory: the chunk and what to change
// in it. Nil fields are left as they are; at least one must be set.
type UpdateInput struct {
	ID string
	// Content is the new text, re-embedded. A fact's old text becomes a
	// superseded version (fact_history, as-of recall), a memory's is kept
	// in its metadata "history" (MemoryVersion). Content another chunk of
	// the same kind already holds in the scope merges the edited chunk
	// into it, as storing it would.
	Content *string
	// Tags, Category and Context replace the metadata's "tags",
	// "category" and "context" (the situations the memory belongs to, as
	// the MVP design's insights have them); an empty value removes the
	// key.
	Tags     *[]string
	Category *string
	Context  *[]string
	// Intensity, 0 to 1, is the new running intensity; it is set after
	// the vote, whose encounter and access still count.
	Intensity *float64
	// Reinforce is the vote; "" is ReinforceUp.
	Reinforce Reinforcement
}

// UpdateResult says what UpdateMemory did.
type UpdateResult struct {
	// Chunk is the chunk as the update left it. A fact whose content
	// changed is a new version with a new ID; a memory keeps its ID.
	Chunk *Chunk `json:"chunk"`
	// PreviousID is the chunk given, when it is no longer Chunk: the
	// superseded version of a fact, or the chunk merged away.
	PreviousID string `json:"previous_id,omitempty"`
	// PreviousContent is the content before the edit, when it changed.
	PreviousContent string `json:"previous_content,omitempty"`
	// Merged is true when the new content was already held by Chunk, into
	// which the edited chunk was merged.
	Merged bool `json:"merged"`
	// Changed names what changed: "content", "tags", "category",
	// "context", "intensity".
	Changed []string `json:"changed"`
	// Reinforce is the vote applied.
	Reinforce Reinforcement `json:"reinforce"`
}

// MemoryVersion is an earlier content of a memory, kept in its metadata's
// "history" (oldest first) when UpdateMemory changes it: a memory is never
// superseded, so its versions live with it and are forgotten with it.
type MemoryVersion struct {
	Content string    `json:"content"`
	Until   time.Time `json:"until"`
}

// MaxMemoryVersions bounds the versions a memory keeps; older ones go.
const MaxMemoryVersions = 10

// MemoryVersions reads the versions kept in metadata, oldest first; none
// when there is no "history" or it is not a list of versions.
func MemoryVersions(metadata json.RawMessage) []MemoryVersion {
	var md struct {
		History []MemoryVersion `json:"history"`
	}
	if len(metadata) == 0 || json.Unmarshal(metadata, &md) != nil {
		return nil
	}
	out := md.History[:0]
	for _, v := range md.History {
		if v.Content != "" && !v.Until.IsZero() {
			out = append(out, v)
		}
	}
	return out
}

// EditMetadata returns metadata (a JSON object or empty) with the keys in
// set replaced (a nil value removes the key), and, when prev is set, prev
// appended to its "history" (at most MaxMemoryVersions, and as many as fit
// in MaxMetadataBytes). The result is compacted, "" for an empty object.
func EditMetadata(metadata json.RawMessage, set map[string]any, prev *MemoryVersion) (string, error) {
	obj := map[string]json.RawMessage{}
	if s := bytes.TrimSpace(metadata); len(s) > 0 && string(s) != "null" {
		if err := json.Unmarshal(s, &obj); err != nil || obj == nil {
			return "", Invalidf("metadata", "the stored metadata is not a JSON object")
		}
	}
	for k, v := range set {
		if v == nil {
			delete(obj, k)
			continue
		}
		b, err := json.Marshal(v)
		if err != nil {
			return "", Invalidf(k, "cannot be encoded: %v", err)
		}
		obj[k] = b
	}
	var history []MemoryVersion
	if prev != nil {
		history = append(MemoryVersions(metadata), *prev)
		if len(history) > MaxMemoryVersions {
			history = history[len(history)-MaxMemoryVersions:]
		}
	}
	for {
		if prev != nil {
			b, err := json.Marshal(history)
			if err != nil {
				return "", err
			}
			obj["history"] = b
		}
		if len(obj) == 0 {
			return "", nil
		}
		out, err := json.Marshal(obj)
		if err != nil {
			return "", err
		}
		if len(out) <= MaxMetadataBytes {
			return string(out), nil
		}
		if prev == nil || len(history) == 0 {
			return "", Invalidf("metadata", "would be %d bytes, more than the %d allowed", len(out), MaxMetadataBytes)
		}
		if len(history) == 1 {
			delete(obj, "history") // not even the last version fits: keep none
			prev, history = nil, nil
			continue
		}
		history = history[1:] // drop the oldest version until it fits
	}
}

// ReinforceResult says what Reinforce did.
type ReinforceResult struct {
	Upvoted   []string `json:"upvoted"`
	Downvoted []string `json:"downvoted"`
	// NotFound lists IDs that are not this agent's chunks: unknown IDs and
	// other agents' IDs alike, so that nothing is learnt about the latter.
	NotFound []string `json:"not_found"`
}
