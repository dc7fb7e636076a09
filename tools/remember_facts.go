package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hippo-mem/hippo"
)

// RememberFactsInput is the input of remember_facts.
type RememberFactsInput struct {
	Text   string `json:"text,omitempty" jsonschema:"What the user said or what was established, in the original words. Required unless facts are given; with facts, kept as their source."`
	Source string `json:"source,omitempty" jsonschema:"Optional: where the text came from (a message ID, a URL, a file), kept as each fact's provenance and shown by memory_source and fact_history."`
	// Facts are read item by item (givenFacts), so that a bad item is
	// named by its index; the schema says what an item is.
	Facts []json.RawMessage `json:"facts,omitempty" jsonschema:"Optional: the facts you have already drawn from the text, each {fact, intensity}. Hippo then extracts nothing: each is checked against the known facts as an extracted fact would be."`
	Async bool              `json:"async,omitempty" jsonschema:"Optional: return at once, once the text is kept and queued; its facts are learned in the background and the text is searchable meanwhile. Not with facts."`
}

// RememberFactsItem is one item of remember_facts' facts.
type RememberFactsItem struct {
	Fact      string   `json:"fact" jsonschema:"One claim, in the third person, standing alone: \"User lives in Berlin\", \"User's daughter is called Mia\"."`
	Intensity *float64 `json:"intensity,omitempty" jsonschema:"How intensely it was stated, from 0 to 1: 0.1-0.2 a casual aside, 0.3-0.5 a clear statement, 0.6-0.8 strong conviction or emotion, 0.85-1 identity-level. Default 0.5."`
	Replaces  string   `json:"replaces,omitempty" jsonschema:"Optional, for a correction or a change: the earlier fact this one makes untrue, as you gave it or would have (\"User lives in Berlin\" for \"User lives in Lisbon\"). The known fact that says it stops being current."`
}

func rememberFacts(r resolver, cfg hippo.Config) Tool {
	schema := inputSchema[RememberFactsInput](func(p map[string]*jsonschema.Schema) {
		textSchema(p["text"], cfg.MaxFactText)
		p["source"].MaxLength = jsonschema.Ptr(hippo.MaxSourceLength)
		item, err := jsonschema.For[RememberFactsItem](nil)
		if err != nil {
			panic(err) // the item struct is fixed at build time
		}
		textSchema(item.Properties["fact"], cfg.MaxContent)
		item.Properties["replaces"].MaxLength = jsonschema.Ptr(cfg.MaxContent)
		in := item.Properties["intensity"]
		in.Types, in.Type = nil, "number"
		in.Minimum, in.Maximum, in.Default = jsonschema.Ptr(0.0), jsonschema.Ptr(1.0), json.RawMessage("0.5")
		p["facts"] = &jsonschema.Schema{Type: "array", Description: p["facts"].Description, Items: item,
			MinItems: jsonschema.Ptr(1), MaxItems: jsonschema.Ptr(hippo.MaxGivenFacts)}
	})
	return newTool(r, Tool{
		Name:         "remember_facts",
		OutputSchema: outputSchema[hippo.RememberResult](),
		Description: fmt.Sprintf(`Learn facts from a piece of text. Hippo extracts each discrete claim ("User lives in Berlin", "User strongly dislikes Redux") with how strongly it was stated, then checks it against the facts already known: a restatement strengthens the existing fact, a changed value ("User moved to Bangkok") supersedes the old fact, anything else is added as new.

Use it whenever the user reveals something that should still be known in later conversations: preferences, personal details, plans, decisions, corrections. Pass the relevant message or passage as it is; do not pre-summarise. For content to keep verbatim (documents, notes, experiences, decisions with their reasons) use store_memory; for always-relevant working notes use append_memory_block.

Better still, give the facts yourself in facts, with the message as text: Hippo then extracts nothing and checks each as above. One claim per item, in the third person, names and numbers as said, intensity from 0 (an aside) to 1 (identity-level), default 0.5; for a correction or a change, replaces names the earlier fact it makes untrue. For example:
{"text": "I moved to Lisbon last month, and I still can't stand Redux.", "facts": [{"fact": "User lives in Lisbon", "intensity": 0.6, "replaces": "User lives in Berlin"}, {"fact": "User strongly dislikes Redux", "intensity": 0.85}]}

Optional source says where the text came from (a message ID, a URL, a file); each fact keeps it, with the text itself, for memory_source. A fact that reads as an instruction to the assistant is kept but marked suspicious and left out of get_context and recall_memories until a person reviews it.

Returns a summary of what was learned (new, updated, superseding, distinct facts). The text itself is kept as a memory ("message"), searchable by recall_memories, so nothing said is lost when extraction misses it; recall returns one of a message and its facts, not copies (unless the server was started to keep no text). When no fact was learned, "reason" says why (a question, only filler, no statement of a fact). text: at most %d characters; facts: at most %d, each at most %d characters.`, cfg.MaxFactText, hippo.MaxGivenFacts, cfg.MaxContent),
	}, schema, func(ctx context.Context, svc hippo.MemoryService, in RememberFactsInput) (*Result, error) {
		facts, err := givenFacts(in.Facts)
		if err != nil {
			return nil, err
		}
		res, err := svc.Remember(ctx, hippo.RememberInput{Text: in.Text, Source: in.Source, Facts: facts, Async: in.Async})
		if err != nil {
			return nil, err
		}
		if res.Facts == nil {
			res.Facts = []hippo.FactOutcome{}
		}
		text := res.Summary
		for _, f := range res.Facts {
			if f.Suspicious {
				text += fmt.Sprintf("\nMarked suspicious (%s), kept but left out of get_context and recall until a person reviews it: %s (id %s)", f.SuspiciousReason, f.Content, f.ChunkID)
			}
		}
		return &Result{Text: text, Details: res}, nil
	})
}

// givenFacts reads the items of remember_facts' facts: {fact, intensity}
// objects, or a bare string for a fact of the default intensity. An item
// of the wrong shape is named by its index (facts[2].intensity: …); the
// service checks the values.
func givenFacts(items []json.RawMessage) ([]hippo.GivenFact, error) {
	facts := make([]hippo.GivenFact, len(items))
	for i, raw := range items {
		name := fmt.Sprintf("facts[%d]", i)
		if jsonType(raw) == "string" {
			json.Unmarshal(raw, &facts[i].Fact) // valid JSON: the input was read
			continue
		}
		var fields map[string]json.RawMessage
		if jsonType(raw) != "object" || json.Unmarshal(raw, &fields) != nil {
			return nil, hippo.Invalidf(name, `must be an object {"fact": …, "intensity": …}, got %s`, jsonType(raw))
		}
		for _, k := range slices.Sorted(maps.Keys(fields)) {
			if k != "fact" && k != "intensity" && k != "replaces" {
				return nil, hippo.Invalidf(name, "unknown field %q; the fields are fact, intensity, replaces", k)
			}
		}
		if v, ok := fields["fact"]; ok && jsonType(v) != "null" {
			if json.Unmarshal(v, &facts[i].Fact) != nil {
				return nil, hippo.Invalidf(name+".fact", "must be a string, got %s", jsonType(v))
			}
		}
		if v, ok := fields["intensity"]; ok && jsonType(v) != "null" {
			if json.Unmarshal(v, &facts[i].Intensity) != nil {
				return nil, hippo.Invalidf(name+".intensity", "must be a number, got %s", jsonType(v))
			}
		}
		if v, ok := fields["replaces"]; ok && jsonType(v) != "null" {
			if json.Unmarshal(v, &facts[i].Replaces) != nil {
				return nil, hippo.Invalidf(name+".replaces", "must be a string, got %s", jsonType(v))
			}
		}
	}
	return facts, nil
}

// jsonType names the JSON type of a valid JSON value: "string", "object", ….
func jsonType(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}
