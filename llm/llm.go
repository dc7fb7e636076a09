// Package llm implements hippo.Extractor and hippo.Classifier on top of any
// hippo.LLM: one call to extract facts with their intensity, one call to
// classify every ambiguous pair. Prompts are embedded templates; replies are
// parsed leniently because cheap models wrap, rename and pad their JSON.
package llm

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"text/template"
)

//go:embed prompts/*.tmpl
var promptFS embed.FS

// prompts holds every template under prompts/, by file name.
var prompts = template.Must(template.New("").Funcs(template.FuncMap{
	"inc":     func(i int) int { return i + 1 },
	"oneLine": func(s string) string { return strings.Join(strings.Fields(s), " ") },
}).ParseFS(promptFS, "prompts/*.tmpl"))

// render executes the named prompt template with data.
func render(name string, data any) (string, error) {
	var b bytes.Buffer
	if err := prompts.ExecuteTemplate(&b, name, data); err != nil {
		return "", err
	}
	return b.String(), nil
}

// mustRender renders a prompt whose data is fixed at build time.
func mustRender(name string, data any) string {
	s, err := render(name, data)
	if err != nil {
		panic(err)
	}
	return s
}

// maxJSONTries bounds how many opening brackets eachJSON tries to decode,
// so a long reply full of brackets cannot cost quadratic time.
const maxJSONTries = 512

// eachJSON calls fn with each JSON object or array embedded in s, in order of
// their opening bracket, until fn returns true. Values nested in a value fn
// rejected are visited too. It reports whether any value parsed at all, and
// whether it stopped at a value cut off by the end of s (a reply that hit
// max_tokens): what follows is inside that value, a part of it.
func eachJSON(s string, fn func(raw json.RawMessage) bool) (parsed, cut bool) {
	tries := 0
	for i := 0; i < len(s) && tries < maxJSONTries; i++ {
		if s[i] != '{' && s[i] != '[' {
			continue
		}
		tries++
		// The decoder reads exactly one value and stops, so text after it
		// (a closing code fence, a remark) does not matter, and brackets
		// inside strings are handled by the JSON scanner itself.
		var raw json.RawMessage
		if err := json.NewDecoder(strings.NewReader(s[i:])).Decode(&raw); err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) {
				return parsed, true
			}
			continue
		}
		parsed = true
		if fn(raw) {
			return true, false
		}
	}
	return parsed, false
}

// jsonKind returns the first non-space byte of raw: '{', '[', '"', ...
func jsonKind(raw json.RawMessage) byte {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return 0
	}
	return t[0]
}

// field returns the value of the first of names present in m, matching keys
// exactly first and then case-insensitively, in a deterministic order.
func field(m map[string]json.RawMessage, names ...string) (json.RawMessage, bool) {
	for _, name := range names {
		if v, ok := m[name]; ok {
			return v, true
		}
	}
	keys := slices.Sorted(maps.Keys(m))
	for _, name := range names {
		for _, k := range keys {
			if strings.EqualFold(strings.TrimSpace(k), name) {
				return m[k], true
			}
		}
	}
	return nil, false
}

// isObject reports whether raw is a JSON object.
func isObject(raw json.RawMessage) bool { return jsonKind(raw) == '{' }

// object decodes raw as a JSON object; null and non-objects are not.
func object(raw json.RawMessage) (map[string]json.RawMessage, bool) {
	if jsonKind(raw) != '{' {
		return nil, false
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, false
	}
	return m, true
}

// number decodes raw as a JSON number or a string holding one ("0.8",
// " 85% ").
func number(raw json.RawMessage) (float64, bool) {
	if jsonKind(raw) == 'n' { // null would decode as 0
		return 0, false
	}
	var f float64
	if err := json.Unmarshal(raw, &f); err == nil {
		return f, true
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return 0, false
	}
	s = strings.TrimSpace(s)
	scale := 1.0
	if rest, ok := strings.CutSuffix(s, "%"); ok {
		s, scale = strings.TrimSpace(rest), 0.01
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, false
	}
	return f * scale, true
}
