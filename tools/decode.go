package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
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

// decoder reads the JSON input of one tool's calls into its input struct:
// one scan finds the object's members (members), and each value is
// decoded once, straight into its field. The schema says which arguments
// there are, which are required and which are integers; the struct's json
// tags say where each goes.
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
			integer: p.Type == "integer"}
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

// read decodes input into dst, the input struct, and hands the values of
// the arguments named in extra, which the tool does not know (a server's:
// see Tool.Serve), to values, raw (slices of input; null is left out). A
// malformed input (not one JSON object, too large) is err. Problems with
// the tool's own arguments are bad: an argument given twice through an
// alias, unknown ones, missing ones, then the first of the wrong type,
// which the caller reports after the server's arguments.
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
	var (
		given, set uint64
		unknown    []string
		typeErr    *hippo.Error
	)
	err = members(data, func(key, value []byte) error {
		name, err := unquote(key)
		if err != nil {
			return err
		}
		if i := slices.Index(extra, name); i >= 0 {
			if !json.Valid(value) {
				return errSyntax
			}
			values[i] = nil
			if string(value) != "null" {
				values[i] = value
			}
			return nil
		}
		f := d.fields[name]
		if f == nil {
			unknown = append(unknown, name)
			if !json.Valid(value) {
				return errSyntax
			}
			return nil
		}
		given |= f.given
		ok, wrong, err := d.decodeField(value, dst.FieldByIndex(f.index), f)
		switch {
		case err != nil:
			return err
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
		return nil
	})
	if err == errMore {
		return nil, err
	}
	if err != nil {
		return nil, malformed(data, err)
	}

	if bad != nil {
		return bad, nil
	}
	return d.check(given, set, unknown, typeErr), nil
}

// check judges the arguments as a whole once read, in this order: an
// alias given with its target, an unknown name, a required argument
// missing, then the first value of a wrong type.
func (d *decoder) check(given, set uint64, unknown []string, typeErr *hippo.Error) error {
	for _, a := range d.aliases {
		if given&a.given != 0 && given&d.fields[a.target].given != 0 {
			return &hippo.Error{Code: hippo.EINVALID, Field: a.name, Message: fmt.Sprintf(
				"%s and %s are the same argument; give only %s", a.name, a.target, a.target)}
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		return &hippo.Error{Code: hippo.EINVALID, Field: unknown[0], Message: fmt.Sprintf(
			"unknown field %q; the fields are %s", unknown[0], strings.Join(d.schema.PropertyOrder, ", "))}
	}
	for _, name := range d.schema.Required {
		if set&d.fields[name].set == 0 {
			return hippo.Invalidf(name, "is required")
		}
	}
	if typeErr != nil {
		return typeErr
	}
	return nil
}

// decodeField decodes value into v, the field of f, and reports whether it
// was other than null. A value of the wrong type is wrong, naming the
// field; err means the input is not valid JSON.
func (d *decoder) decodeField(value []byte, v reflect.Value, f *field) (ok bool, wrong *hippo.Error, err error) {
	if f.integer {
		return d.setInteger(v, f, value)
	}
	if err := json.Unmarshal(value, v.Addr().Interface()); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return false, d.wrongType(f, te.Value), nil
		}
		return false, nil, err
	}
	return string(value) != "null", nil, nil
}

// setInteger sets v, an integer field or a pointer to one, to the JSON
// value lit: an integer, or a whole number in another notation.
func (d *decoder) setInteger(v reflect.Value, f *field, lit []byte) (ok bool, wrong *hippo.Error, err error) {
	if !json.Valid(lit) {
		return false, nil, errSyntax
	}
	switch lit[0] {
	case 'n': // as encoding/json: nil for a pointer, else no change
		if v.Kind() == reflect.Pointer {
			v.SetZero()
		}
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
	n, err := strconv.ParseInt(string(lit), 10, 64)
	if err != nil {
		if n, ok = integral(string(lit)); !ok {
			return false, d.wrongType(f, "number "+string(lit)), nil
		}
	}
	if v.Kind() == reflect.Pointer {
		p := reflect.New(v.Type().Elem())
		v.Set(p)
		v = p.Elem()
	}
	if v.OverflowInt(n) {
		return false, d.wrongType(f, "number "+string(lit)), nil
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

// errSyntax stands for a syntax error that malformed describes.
var errSyntax = errors.New("syntax error")

// members calls member with the key (quoted) and the value of each member
// of the JSON object data, in order, without decoding either. It checks
// the object's structure, that nothing follows it and that each value
// ends where JSON says it does; member checks the value itself.
func members(data []byte, member func(key, value []byte) error) error {
	i := space(data, 1) // after {
	if i < len(data) && data[i] == '}' {
		i++
	} else {
		for {
			k := stringEnd(data, i)
			if k < 0 {
				return errSyntax
			}
			key := data[i:k]
			i = space(data, k)
			if i >= len(data) || data[i] != ':' {
				return errSyntax
			}
			i = space(data, i+1)
			v := valueEnd(data, i)
			if v < 0 {
				return errSyntax
			}
			if err := member(key, data[i:v]); err != nil {
				return err
			}
			i = space(data, v)
			if i < len(data) && data[i] == ',' {
				i = space(data, i+1)
				continue
			}
			if i < len(data) && data[i] == '}' {
				i++
				break
			}
			return errSyntax
		}
	}
	if space(data, i) < len(data) {
		return errMore
	}
	return nil
}

// errMore is an input with more after its object.
var errMore = hippo.Errorf(hippo.EINVALID, "input must be a single JSON object, found more after it")

// space returns the index of the first byte of data at or after i that is
// not JSON white space.
func space(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the index just after the JSON string at data[i], or -1.
func stringEnd(data []byte, i int) int {
	if i >= len(data) || data[i] != '"' {
		return -1
	}
	for i++; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}

// valueEnd returns the index just after the JSON value at data[i], or -1.
// It finds the end only: a string's closing quote, the bracket that
// closes an array or object, the byte after a number or literal.
func valueEnd(data []byte, i int) int {
	if i >= len(data) {
		return -1
	}
	switch data[i] {
	case '"':
		return stringEnd(data, i)
	case '{', '[':
		depth := 0
		for ; i < len(data); i++ {
			switch data[i] {
			case '"':
				if i = stringEnd(data, i); i < 0 {
					return -1
				}
				i--
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return -1
	}
	start := i
	for i < len(data) && !strings.ContainsRune(",}] \t\n\r", rune(data[i])) {
		i++
	}
	if i == start {
		return -1
	}
	return i
}

// unquote returns the JSON string key as Go text.
func unquote(key []byte) (string, error) {
	for _, c := range key[1 : len(key)-1] {
		if c == '\\' || c < ' ' {
			var s string
			if err := json.Unmarshal(key, &s); err != nil {
				return "", err
			}
			return s, nil
		}
	}
	return string(key[1 : len(key)-1]), nil
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
	return errMore // null, and more
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
