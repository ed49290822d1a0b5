// Package luacats checks Go types against the LuaCATS classes that describe
// the tables crossing between Go and the Lua bridge (lua/nvbridge/_meta.lua):
// every tagged Go field is a field of the class with a matching type and
// optionality, and every field of the class is a Go field. It is a test
// helper: only tests import it.
package luacats

import (
	"bufio"
	"fmt"
	"io/fs"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	bridgelua "github.com/nvbridge/nvbridge/lua"
)

// Field is one ---@field line.
type Field struct {
	Name     string
	Type     string
	Optional bool
}

// Class is one ---@class with its fields.
type Class struct {
	Name   string
	File   string
	Fields map[string]Field
}

var (
	classRe = regexp.MustCompile(`^---@class\s+([\w.]+)`)
	fieldRe = regexp.MustCompile(`^---@field\s+([\w]+)(\?)?\s+(table<[^>]*>(?:\[\])?|\S+)`)
	aliasRe = regexp.MustCompile(`^---@alias\s+([\w.]+)\s+(.+)$`)
)

// Classes parses every ---@class of the embedded Lua modules, and the
// ---@alias names (as classes without fields).
func Classes() (map[string]*Class, error) {
	out := map[string]*Class{}
	err := fs.WalkDir(bridgelua.Modules, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".lua") {
			return err
		}
		f, err := bridgelua.Modules.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		var cur *Class
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			line := strings.TrimSpace(sc.Text())
			if m := classRe.FindStringSubmatch(line); m != nil {
				if prev, dup := out[m[1]]; dup {
					return fmt.Errorf("class %s declared in %s and %s", m[1], prev.File, p)
				}
				cur = &Class{Name: m[1], File: p, Fields: map[string]Field{}}
				out[m[1]] = cur
				continue
			}
			if m := aliasRe.FindStringSubmatch(line); m != nil {
				out[m[1]] = &Class{Name: m[1], File: p}
				cur = nil
				continue
			}
			if m := fieldRe.FindStringSubmatch(line); m != nil && cur != nil {
				cur.Fields[m[1]] = Field{Name: m[1], Optional: m[2] == "?", Type: m[3]}
				continue
			}
			if !strings.HasPrefix(line, "---") {
				cur = nil
			}
		}
		return sc.Err()
	})
	return out, err
}

// Check compares the Go type of v (a struct, or a pointer to one) with the
// class, by the struct's tag (msgpack or json), recursively for fields whose
// Lua type is another nvbridge class.
func Check(t testing.TB, classes map[string]*Class, v any, class, tag string) {
	t.Helper()
	typ := reflect.TypeOf(v)
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	for _, problem := range compare(classes, typ, class, tag, map[string]bool{}) {
		t.Error(problem)
	}
}

type goField struct {
	name     string
	typ      reflect.Type
	optional bool
}

// fieldsOf lists the encoded fields of a struct (embedded structs flattened).
func fieldsOf(typ reflect.Type, tag string) []goField {
	var out []goField
	for i := 0; i < typ.NumField(); i++ {
		f := typ.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get(tag), ",")
		if f.Anonymous && name == "" {
			out = append(out, fieldsOf(f.Type, tag)...)
			continue
		}
		if name == "-" || (name == "" && !f.IsExported()) {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, goField{name: name, typ: f.Type,
			optional: f.Type.Kind() == reflect.Pointer || strings.Contains(opts, "omitempty")})
	}
	return out
}

func compare(classes map[string]*Class, typ reflect.Type, class, tag string, seen map[string]bool) []string {
	if seen[class] {
		return nil
	}
	seen[class] = true
	c, ok := classes[class]
	if !ok {
		return []string{fmt.Sprintf("no ---@class %s in lua/nvbridge (for Go %s)", class, typ)}
	}
	var problems []string
	where := fmt.Sprintf("%s (%s) vs Go %s", class, c.File, typ)
	goNames := map[string]bool{}
	for _, f := range fieldsOf(typ, tag) {
		goNames[f.name] = true
		lf, ok := c.Fields[f.name]
		if !ok {
			problems = append(problems, fmt.Sprintf("%s: Go field %q is not annotated", where, f.name))
			continue
		}
		if lf.Optional != f.optional {
			problems = append(problems, fmt.Sprintf("%s: field %q optional in Lua = %v, in Go (pointer or omitempty) = %v", where, f.name, lf.Optional, f.optional))
		}
		problems = append(problems, compareType(classes, where, f.name, f.typ, lf.Type, tag, seen)...)
	}
	var extra []string
	for name := range c.Fields {
		if !goNames[name] {
			extra = append(extra, name)
		}
	}
	sort.Strings(extra)
	for _, name := range extra {
		problems = append(problems, fmt.Sprintf("%s: Lua field %q has no Go field", where, name))
	}
	return problems
}

// compareType checks one field's Lua type against its Go type.
func compareType(classes map[string]*Class, where, name string, typ reflect.Type, lua, tag string, seen map[string]bool) []string {
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	bad := func() []string {
		return []string{fmt.Sprintf("%s: field %q is %s in Lua but %s in Go", where, name, lua, typ)}
	}
	if lua == "any" || typ.Kind() == reflect.Interface {
		return nil
	}
	switch typ.Kind() {
	case reflect.String:
		if lua != "string" {
			return bad()
		}
	case reflect.Bool:
		if lua != "boolean" {
			return bad()
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if lua != "integer" {
			return bad()
		}
	case reflect.Float32, reflect.Float64:
		if lua != "number" {
			return bad()
		}
	case reflect.Slice, reflect.Array:
		if typ.Elem().Kind() == reflect.Uint8 && lua == "string" {
			return nil // bytes: a Lua string (msgpack str or bin)
		}
		elem, ok := strings.CutSuffix(lua, "[]")
		if !ok {
			return bad()
		}
		return compareType(classes, where, name+"[]", typ.Elem(), elem, tag, seen)
	case reflect.Map:
		m := regexp.MustCompile(`^table<(\w+),\s*(.+)>$`).FindStringSubmatch(lua)
		if m == nil || (m[1] != "string" && m[1] != "integer") {
			return bad()
		}
		return compareType(classes, where, name+"{}", typ.Elem(), m[2], tag, seen)
	case reflect.Struct:
		if !strings.HasPrefix(lua, "nvbridge.") {
			return bad()
		}
		if c, ok := classes[lua]; ok && c.Fields == nil {
			return nil // an alias (array-encoded struct): described by hand
		}
		return compare(classes, typ, lua, tag, seen)
	default:
		return bad()
	}
	return nil
}
