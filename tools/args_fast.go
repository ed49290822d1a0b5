package tools

// A tool call's arguments decoded without encoding/json when they are
// what nearly every call sends: one flat object of strings, integers and
// booleans (a position: file, line, symbol). encoding/json's strict
// decoding (a Decoder over a bytes.Reader, DisallowUnknownFields, its
// reflection) cost a read 3 µs warm and 15-20 µs in a real call (its
// code and type tables are cold after the wait for the server), on the
// way of every call before anything is sent to Neovim. Anything else
// (a member the plan does not know by its exact name, an escape, a
// number that is not a plain integer, null, a nested value, invalid
// JSON) is left to encoding/json, whose answer, error included, is then
// the call's: this decodes only what encoding/json would decode the same.

import (
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"
)

// argsPlan says where each member of a flat argument object goes: by
// its JSON name, the field's index path (embedded structs flattened, as
// encoding/json flattens them) and kind.
type argsPlan struct {
	fields map[string]argsField
}

type argsField struct {
	index []int
	kind  reflect.Kind // String, Int, Bool
	ptr   bool         // *string, *int, *bool
}

// planArgs is t's plan, nil when t is not a struct or has a field whose
// decoding encoding/json may do otherwise than a plain assignment (a
// ",string" option, a type with its own UnmarshalJSON or
// UnmarshalText): such a type always goes to encoding/json. A member
// the plan lists as slow (a slice, a map, a nested struct, a float) sends
// the call there too.
func planArgs(t reflect.Type) *argsPlan {
	if t.Kind() != reflect.Struct || implementsUnmarshaler(t) {
		return nil
	}
	p := &argsPlan{fields: map[string]argsField{}}
	names := map[string]int{} // name -> depth of the field that holds it
	if !p.add(t, nil, names) {
		return nil
	}
	return p
}

// add lists t's fields (at index path at) in p; false when t has a
// field the fast path must not decode in its place.
func (p *argsPlan) add(t reflect.Type, at []int, depth map[string]int) bool {
	for i := range t.NumField() {
		f := t.Field(i)
		tag, hasTag := f.Tag.Lookup("json")
		name, opts, _ := strings.Cut(tag, ",")
		if tag == "-" {
			continue
		}
		if strings.Contains(opts, "string") {
			return false
		}
		index := append(append([]int(nil), at...), i)
		if f.Anonymous && !hasTag && f.Type.Kind() == reflect.Struct {
			// Flattened as encoding/json flattens it; a name at two
			// depths goes to encoding/json (its rules of dominance).
			if implementsUnmarshaler(f.Type) || !p.add(f.Type, index, depth) {
				return false
			}
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if _, twice := depth[name]; twice {
			return false
		}
		depth[name] = len(index)
		ft, ptr := f.Type, false
		if ft.Kind() == reflect.Pointer {
			ft, ptr = ft.Elem(), true
		}
		if implementsUnmarshaler(ft) {
			return false
		}
		switch kind := ft.Kind(); kind {
		case reflect.String, reflect.Int, reflect.Bool:
			p.fields[name] = argsField{index: index, kind: kind, ptr: ptr}
		default:
			// Decoded by encoding/json whenever a call gives it.
		}
	}
	return true
}

var (
	jsonUnmarshaler = reflect.TypeFor[interface{ UnmarshalJSON([]byte) error }]()
	textUnmarshaler = reflect.TypeFor[interface{ UnmarshalText([]byte) error }]()
)

func implementsUnmarshaler(t reflect.Type) bool {
	pt := reflect.PointerTo(t)
	return t.Implements(jsonUnmarshaler) || pt.Implements(jsonUnmarshaler) || t.Implements(textUnmarshaler) || pt.Implements(textUnmarshaler)
}

// decode fills into (a pointer to the plan's struct, zero) from body;
// false when body is anything but a flat object of members the plan
// knows, each a plain value of its field's kind: into is then to be
// decoded by encoding/json (it may be partly filled).
func (p *argsPlan) decode(body []byte, into any) bool {
	v := reflect.ValueOf(into).Elem()
	i := jsonSpace(body, 0)
	if i >= len(body) || body[i] != '{' {
		return false
	}
	i = jsonSpace(body, i+1)
	if i < len(body) && body[i] == '}' {
		return jsonSpace(body, i+1) == len(body)
	}
	for {
		name, next, ok := plainString(body, i)
		if !ok {
			return false
		}
		f, known := p.fields[string(name)]
		if !known {
			return false // unknown, or in another case: encoding/json decides
		}
		i = jsonSpace(body, next)
		if i >= len(body) || body[i] != ':' {
			return false
		}
		i = jsonSpace(body, i+1)
		if i, ok = f.set(v, body, i); !ok {
			return false
		}
		i = jsonSpace(body, i)
		if i >= len(body) {
			return false
		}
		if body[i] == '}' {
			return jsonSpace(body, i+1) == len(body)
		}
		if body[i] != ',' {
			return false
		}
		i = jsonSpace(body, i+1)
	}
}

// set decodes the value at body[i:] into f's field of v; the offset past
// it, false when it is not a plain value of the field's kind.
func (f argsField) set(v reflect.Value, body []byte, i int) (int, bool) {
	field := v.FieldByIndex(f.index)
	if f.ptr {
		// encoding/json would decode into a pointer already there; a
		// field set twice (a duplicate member) gets a new one: equal.
		p := reflect.New(field.Type().Elem())
		end, ok := f.setValue(p.Elem(), body, i)
		if ok {
			field.Set(p)
		}
		return end, ok
	}
	return f.setValue(field, body, i)
}

// setValue decodes the value at body[i:] into field (of f's kind).
func (f argsField) setValue(field reflect.Value, body []byte, i int) (int, bool) {
	switch f.kind {
	case reflect.String:
		s, end, ok := plainString(body, i)
		if ok {
			field.SetString(string(s))
		}
		return end, ok
	case reflect.Int:
		n, end, ok := plainInt(body, i)
		if ok {
			field.SetInt(n)
		}
		return end, ok
	case reflect.Bool:
		var b bool
		var end int
		switch {
		case len(body)-i >= 4 && string(body[i:i+4]) == "true":
			b, end = true, i+4
		case len(body)-i >= 5 && string(body[i:i+5]) == "false":
			end = i + 5
		default:
			return 0, false
		}
		if end < len(body) && isWordByte(body[end]) {
			return 0, false
		}
		field.SetBool(b)
		return end, true
	}
	return 0, false
}

// plainString is the JSON string at body[i:] (its bytes, between the
// quotes) when it has no escape and
// no control character and is valid UTF-8 (encoding/json would decode it
// to the same bytes), and the offset past it.
func plainString(body []byte, i int) ([]byte, int, bool) {
	if i >= len(body) || body[i] != '"' {
		return nil, 0, false
	}
	for j := i + 1; j < len(body); j++ {
		switch c := body[j]; {
		case c == '"':
			s := body[i+1 : j]
			if !utf8.Valid(s) {
				return nil, 0, false
			}
			return s, j + 1, true
		case c == '\\' || c < 0x20:
			return nil, 0, false
		}
	}
	return nil, 0, false
}

// plainInt is the JSON integer at body[i:] (no fraction, no exponent, no
// leading zero, at most 18 digits: it fits an int64) and the offset past
// it.
func plainInt(body []byte, i int) (int64, int, bool) {
	j := i
	if j < len(body) && body[j] == '-' {
		j++
	}
	start := j
	for j < len(body) && body[j] >= '0' && body[j] <= '9' {
		j++
	}
	digits := j - start
	if digits == 0 || digits > 18 || digits > 1 && body[start] == '0' {
		return 0, 0, false
	}
	if j < len(body) && (body[j] == '.' || body[j] == 'e' || body[j] == 'E' || isWordByte(body[j])) {
		return 0, 0, false
	}
	var n int64
	for _, c := range body[start:j] {
		n = n*10 + int64(c-'0')
	}
	if start > i {
		n = -n
	}
	if strconv.IntSize == 32 && (n > 1<<31-1 || n < -1<<31) {
		return 0, 0, false
	}
	return n, j, true
}

// isWordByte: a byte that would continue a literal or a number (what
// follows a value must be a separator for it to be the whole value).
func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '+' || c == '-'
}
