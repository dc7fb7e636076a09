package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hippo-mem/hippo"
)

// decoder reads the JSON input of one tool's calls into its input struct,
// in one pass over the input: each value is decoded straight into its
// field. The schema says which arguments there are, which are required
// and which are integers; the struct's json tags say where each goes.
type decoder struct {
	schema  *jsonschema.Schema
	fields  map[string]*field // by argument name, aliases included
	aliases []*field
}

// field is where one argument goes.
type field struct {
	name   string // as the call gives it
	target string // the schema's name: name, or what an alias stands for
	index  []int
	given  uint64 // this name's bit: the argument was given, even null
	set    uint64 // the target's bit: it was given a value other than null
	// integer arguments also take whole numbers written as floats (5.0,
	// 5e0), as clients with one number type send them.
	integer bool
	// required arguments are decoded through a pointer, so that null
	// tells from "", 0 and false.
	required bool
}

// newDecoder builds the decoder of input struct typ (flat, every field
// tagged) for schema, with aliases mapping other names to the schema's.
func newDecoder(typ reflect.Type, schema *jsonschema.Schema, aliases map[string]string) *decoder {
	d := &decoder{schema: schema, fields: map[string]*field{}}
	bits := map[string]uint64{}
	for i := range typ.NumField() {
		sf := typ.Field(i)
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		p := schema.Properties[name]
		if sf.Anonymous || p == nil {
			panic(fmt.Sprintf("tools: %s.%s is not a property of the schema", typ, sf.Name))
		}
		bits[name] = 1 << len(bits)
		d.fields[name] = &field{name: name, target: name, index: sf.Index, given: bits[name], set: bits[name],
			integer: p.Type == "integer", required: slices.Contains(schema.Required, name)}
	}
	if len(d.fields) != len(schema.Properties) {
		panic(fmt.Sprintf("tools: %s lacks properties of its schema", typ))
	}
	for _, alias := range slices.Sorted(maps.Keys(aliases)) {
		f := *d.fields[aliases[alias]]
		f.name, f.given = alias, 1<<len(bits)
		bits[alias] = f.given
		d.fields[alias] = &f
		d.aliases = append(d.aliases, &f)
	}
	if len(bits) > 64 {
		panic(fmt.Sprintf("tools: %s has more than 64 arguments", typ))
	}
	return d
}

// read decodes input into dst, the input struct, and the values of the
// arguments named in extra, which the tool does not know (a server's:
// see Tool.Serve), into values, raw; null is left out. A malformed input
// (not one JSON object, too large) is err. Problems with the tool's own
// arguments are bad: unknown, duplicated through an alias, missing or of
// the wrong type, the first of each kind in that order, which the caller
// reports after the server's arguments.
func (d *decoder) read(input json.RawMessage, dst reflect.Value, extra []string, values []json.RawMessage) (bad, err error) {
	if len(input) > MaxInputBytes {
		return nil, hippo.Errorf(hippo.EINVALID, "input is %d bytes, more than the %d allowed", len(input), MaxInputBytes)
	}
	// encoding/json would silently turn invalid bytes into U+FFFD and
	// store that. A server's argument names its own invalid bytes.
	if !utf8.Valid(input) {
		bad = hippo.Errorf(hippo.EINVALID, "input is not valid UTF-8")
		if len(extra) == 0 {
			return nil, bad
		}
	}
	data := bytes.TrimSpace(input)
	if len(data) == 0 || string(data) == "null" {
		data = []byte("{}")
	}
	if data[0] != '{' {
		return nil, notObject(data)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil { // {
		return nil, malformed(data, err)
	}
	var (
		given, set uint64
		unknown    []string
		typeErr    *hippo.Error
	)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, malformed(data, err)
		}
		name, _ := tok.(string)
		if i := slices.Index(extra, name); i >= 0 {
			if err := dec.Decode(&values[i]); err != nil {
				return nil, malformed(data, err)
			}
			if string(values[i]) == "null" {
				values[i] = nil
			}
			continue
		}
		f := d.fields[name]
		if f == nil {
			unknown = append(unknown, name)
			if err := dec.Decode(new(skip)); err != nil {
				return nil, malformed(data, err)
			}
			continue
		}
		given |= f.given
		ok, wrong, err := d.decodeField(dec, dst.FieldByIndex(f.index), f)
		switch {
		case err != nil:
			return nil, malformed(data, err)
		case wrong != nil: // given, though not as it should be
			if typeErr == nil {
				typeErr = wrong
			}
			set |= f.set
		case ok:
			set |= f.set
		default: // null, perhaps after a value
			set &^= f.set
		}
	}
	if _, err := dec.Token(); err != nil { // }
		return nil, malformed(data, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, hippo.Errorf(hippo.EINVALID, "input must be a single JSON object, found more after it")
	}

	if bad != nil {
		return bad, nil
	}
	for _, a := range d.aliases {
		if given&a.given != 0 && given&d.fields[a.target].given != 0 {
			return &hippo.Error{Code: hippo.EINVALID, Field: a.name, Message: fmt.Sprintf(
				"%s and %s are the same argument; give only %s", a.name, a.target, a.target)}, nil
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		return &hippo.Error{Code: hippo.EINVALID, Field: unknown[0], Message: fmt.Sprintf(
			"unknown field %q; the fields are %s", unknown[0], strings.Join(d.schema.PropertyOrder, ", "))}, nil
	}
	for _, name := range d.schema.Required {
		if set&d.fields[name].set == 0 {
			return hippo.Invalidf(name, "is required"), nil
		}
	}
	if typeErr != nil {
		return typeErr, nil
	}
	return nil, nil
}

// decodeField decodes the next value of dec into v, the field of f, and
// reports whether it was other than null. A value of the wrong type is
// wrong, naming the field; err means the input is not valid JSON.
func (d *decoder) decodeField(dec *json.Decoder, v reflect.Value, f *field) (ok bool, wrong *hippo.Error, err error) {
	if f.integer {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return false, nil, err
		}
		return d.setInteger(v, f, raw)
	}
	target := v.Addr()
	if f.required {
		target = reflect.New(target.Type())
	}
	if err := dec.Decode(target.Interface()); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return false, d.wrongType(f, te.Value), nil
		}
		return false, nil, err
	}
	if f.required {
		if target.Elem().IsNil() {
			return false, nil, nil
		}
		v.Set(target.Elem().Elem())
	}
	return true, nil, nil
}

// setInteger sets v, an integer field or a pointer to one, to the JSON
// number raw: an integer, or a whole number in another notation.
func (d *decoder) setInteger(v reflect.Value, f *field, raw json.RawMessage) (ok bool, wrong *hippo.Error, err error) {
	lit := string(raw)
	switch lit[0] {
	case 'n':
		return false, nil, nil
	case '"':
		return false, d.wrongType(f, "string"), nil
	case 't', 'f':
		return false, d.wrongType(f, "bool"), nil
	case '[':
		return false, d.wrongType(f, "array"), nil
	case '{':
		return false, d.wrongType(f, "object"), nil
	}
	n, err := strconv.ParseInt(lit, 10, 64)
	if err != nil {
		if n, ok = integral(lit); !ok {
			return false, d.wrongType(f, "number "+lit), nil
		}
	}
	if v.Kind() == reflect.Pointer {
		p := reflect.New(v.Type().Elem())
		v.Set(p)
		v = p.Elem()
	}
	if v.OverflowInt(n) {
		return false, d.wrongType(f, "number "+lit), nil
	}
	v.SetInt(n)
	return true, nil, nil
}

// integral returns the number lit when it is a whole number within int64
// written in another notation (5.0, 5e0).
func integral(lit string) (int64, bool) {
	if !strings.ContainsAny(lit, ".eE") {
		return 0, false
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) >= 1<<63 {
		return 0, false
	}
	return int64(f), true
}

// wrongType is the error for a value of f described by got ("string",
// "number 1.5").
func (d *decoder) wrongType(f *field, got string) *hippo.Error {
	return hippo.Invalidf(f.target, "must be %s, got %s", typeName(d.schema.Properties[f.target]), got)
}

// typeName is the JSON type a property schema expects, with an article.
func typeName(s *jsonschema.Schema) string {
	if s == nil {
		return "a valid value"
	}
	switch s.Type {
	case "integer", "object", "array":
		return "an " + s.Type
	case "":
		return "a valid value"
	}
	return "a " + s.Type
}

// notObject is the error for an input that is not a JSON object.
func notObject(data []byte) error {
	var fields map[string]json.RawMessage
	err := json.NewDecoder(bytes.NewReader(data)).Decode(&fields)
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &te):
		return hippo.Errorf(hippo.EINVALID, "input must be a JSON object, got %s", te.Value)
	case err != nil:
		return malformed(data, err)
	}
	return hippo.Errorf(hippo.EINVALID, "input must be a single JSON object, found more after it") // null and more
}

// malformed is the error for data, which is not valid JSON: err, as
// json.Unmarshal would say it.
func malformed(data []byte, err error) error {
	var v any
	if e := json.NewDecoder(bytes.NewReader(data)).Decode(&v); e != nil {
		err = e
	}
	return hippo.Errorf(hippo.EINVALID, "input is not valid JSON: %v", err)
}

// skip takes any JSON value and keeps nothing: the value of an unknown
// argument.
type skip struct{}

func (*skip) UnmarshalJSON([]byte) error { return nil }
