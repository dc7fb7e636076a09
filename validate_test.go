package hippo_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/hippo-mem/hippo"
)

// FuzzValidateMetadata checks, for any bytes given as metadata, that
// ValidateMetadata either refuses them with an "invalid" error on the
// metadata field, or returns a compact JSON object of at most
// MaxMetadataBytes that means the same as the input and validates to
// itself. The seeds run with the unit tests; testdata/fuzz holds more.
func FuzzValidateMetadata(f *testing.F) {
	for _, s := range []string{
		``, ` `, `null`, `{}`, `[]`, `"x"`, `1`, `true`, `{"a":1}{"b":2}`, `{"a":1} x`,
		`{"source":"chat","tags":["a","b"],"category":"decision"}`, ` { "tags" : [ ] } `,
		`{"a":{"b":{"c":[1,2,{"d":null}]}}}`, `{"a":1e999}`, `{"a":NaN}`, `{"a":"\ud800"}`,
		"{\"a\":\"\xff\"}", `{"a":"\u0000"}`, `{"":""}`, `{"a":1,"a":2}`, `{"a":1,}`, `{'a':1}`,
		`{"a":"` + strings.Repeat("x", hippo.MaxMetadataBytes) + `"}`, strings.Repeat(`{"a":`, 1000) + `1` + strings.Repeat(`}`, 1000),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		out, err := hippo.ValidateMetadata(raw)
		if err != nil {
			var e *hippo.Error
			if hippo.ErrorCode(err) != hippo.EINVALID || !errors.As(err, &e) || e.Field != "metadata" {
				t.Fatalf("%q: error %v, want an invalid metadata error", raw, err)
			}
			return
		}
		if out == "" {
			if s := strings.TrimSpace(string(raw)); s != "" && s != "null" {
				t.Fatalf("%q: accepted as no metadata", raw)
			}
			return
		}
		if len(out) > hippo.MaxMetadataBytes {
			t.Fatalf("%q: %d bytes accepted", raw, len(out))
		}
		var obj map[string]any
		if err := json.Unmarshal([]byte(out), &obj); err != nil || obj == nil {
			t.Fatalf("%q: returned %q, not a JSON object: %v", raw, out, err)
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, []byte(out)); err != nil || compact.String() != out {
			t.Fatalf("%q: returned %q, not compact", raw, out)
		}
		var in map[string]any
		if err := json.Unmarshal(raw, &in); err != nil {
			t.Fatalf("%q: accepted, but is not JSON: %v", raw, err)
		}
		a, _ := json.Marshal(in)
		b, _ := json.Marshal(obj)
		if !bytes.Equal(a, b) {
			t.Fatalf("%q: returned %q, which means something else", raw, out)
		}
		if again, err := hippo.ValidateMetadata(json.RawMessage(out)); err != nil || again != out {
			t.Fatalf("%q: %q validates to %q, %v", raw, out, again, err)
		}
	})
}
