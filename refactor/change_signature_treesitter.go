package refactor

// Python's and TypeScript's syntax for change_signature, from tree-sitter
// through Neovim (package syntax): function and method declarations and
// their parameters, calls and their arguments, the uses of a parameter in
// its body, and which arguments are free of side effects.

import (
	"context"
	"slices"
	"strings"

	"github.com/nvbridge/nvbridge/preview"
	"github.com/nvbridge/nvbridge/syntax"
)

type tsSigSyntax struct {
	c syntax.Caller
	*treeSitterSig
}

// treeSitterSig is what differs between the tree-sitter languages'
// declarations and calls, for change_signature.
type treeSitterSig struct {
	sigRules
	// useQuery captures a body's identifiers (@id); @skip ones that are
	// not variables (attribute and keyword argument names), @short
	// shorthand properties (renamed as name: new).
	useQuery string
	// receivers are the names of a method's first parameter that calls
	// do not pass (Python's self and cls).
	receivers []string
	// boundFunctions: a function may be a variable's value
	// (TypeScript's const f = (a) => ...), named by the variable.
	boundFunctions bool
	// methodAncestor, when set, is the node a method's declaration sits
	// in (Python's class_definition, past blocks and decorators);
	// otherwise methods are declarations of their own types.
	methodAncestor string
	// keywordMarker is written before the first keyword-only parameter
	// that follows no variadic one (Python's *); variadicPrefix before a
	// variadic parameter's name (* or ...).
	keywordMarker, variadicPrefix string
	// tightDefaults: an untyped parameter's default is written
	// name=value (Python's PEP 8), a typed one name: T = value.
	tightDefaults bool
}

func (s tsSigSyntax) rules() sigRules { return s.sigRules }

// tsFunctionTypes are the declarations whose parameters change_signature
// rewrites.
var tsFunctionTypes = []string{
	"function_definition", // Python
	"function_declaration", "generator_function_declaration", "method_definition", "method_signature",
	"abstract_method_signature", "function_signature",
}

func (s tsSigSyntax) source(rel, text string) (syntax.Source, error) {
	return syntax.ForFile(rel, text)
}

func (s tsSigSyntax) funcAt(ctx context.Context, rel string, m *preview.Mapper, off int) (*sigFunc, error) {
	text := m.Text()
	src, err := s.source(rel, text)
	if err != nil {
		return nil, err
	}
	row, col := m.Position(off)
	n, ancestors, err := syntax.Enclosing(ctx, s.c, src, row, col, tsFunctionTypes, 3)
	if err != nil {
		return nil, err
	}
	var name *syntax.Node
	if n != nil {
		name = n.Child("name")
	}
	if (name == nil || !name.Contains(off)) && s.boundFunctions {
		// const f = (a, b) => ... / function (a, b) {...}: the name is the variable's.
		v, _, err := syntax.Enclosing(ctx, s.c, src, row, col, []string{"variable_declarator"}, 4)
		if err != nil {
			return nil, err
		}
		if v != nil {
			if val := v.Child("value"); val != nil && (val.Type == "arrow_function" || val.Type == "function_expression") {
				if nm := v.Child("name"); nm != nil && nm.Contains(off) {
					n, name, ancestors = val, nm, nil
				}
			}
		}
	}
	if n == nil || name == nil || !name.Contains(off) {
		return nil, nil
	}
	params := n.Child("parameters")
	if params == nil {
		return nil, nil
	}
	fn := &sigFunc{Name: name.Text, NameOff: name.StartByte, BodyNames: map[string]bool{}}
	fn.ListStart, fn.ListEnd = params.StartByte+1, params.EndByte-1
	header := text[n.StartByte:n.EndByte]
	body := n.Child("body")
	if body != nil {
		fn.HasBody = true
		header = text[n.StartByte:body.StartByte]
	}
	header = strings.TrimRight(strings.TrimSpace(header), ":;{ ")
	if n.Type == "arrow_function" || n.Type == "function_expression" {
		header = name.Text + " = " + strings.TrimSuffix(strings.TrimSpace(header), "=>")
		header = strings.TrimSpace(header)
	}
	fn.Signature = oneLine(header)
	fn.Method = n.Type == "method_definition" || n.Type == "method_signature" || n.Type == "abstract_method_signature"
	if s.methodAncestor != "" {
		for _, a := range ancestors {
			if a == "block" || a == "decorated_definition" {
				continue
			}
			fn.Method = a == s.methodAncestor
			break
		}
	}
	for _, ch := range params.Children {
		if ch.Type == "comment" {
			fn.Comments = true
		}
	}
	keyword := false
	for i, p := range params.NamedChildren() {
		prm := sigParam{Start: p.StartByte, End: p.EndByte, Text: p.Text, Keyword: keyword}
		switch p.Type {
		case "identifier": // Python
			prm.Name = p.Text
		case "typed_parameter", "typed_default_parameter", "default_parameter":
			nm := p.Child("name")
			if nm == nil { // typed_parameter: the identifier (or splat) is its first child
				for _, ch := range p.NamedChildren() {
					if ch.Field == "" {
						nm = &ch
						break
					}
				}
			}
			if nm != nil {
				prm.Name = nm.Text
				switch nm.Type {
				case "list_splat_pattern":
					prm.Name, prm.Variadic, keyword = strings.TrimPrefix(nm.Text, "*"), true, true
				case "dictionary_splat_pattern":
					prm.Name, prm.KwSplat = strings.TrimPrefix(nm.Text, "**"), true
				}
			}
			if t := p.Child("type"); t != nil {
				prm.Type = t.Text
			}
			if v := p.Child("value"); v != nil {
				prm.Default = v.Text
			}
		case "list_splat_pattern":
			prm.Name, prm.Variadic, keyword = strings.TrimPrefix(p.Text, "*"), true, true
		case "dictionary_splat_pattern":
			prm.Name, prm.KwSplat = strings.TrimPrefix(p.Text, "**"), true
		case "keyword_separator":
			keyword = true
			continue
		case "positional_separator":
			continue
		case "required_parameter", "optional_parameter": // TypeScript
			prm.Optional = p.Type == "optional_parameter"
			if pat := p.Child("pattern"); pat != nil {
				prm.Name = pat.Text
				if pat.Type == "rest_pattern" {
					prm.Name, prm.Variadic = strings.TrimPrefix(pat.Text, "..."), true
				} else if pat.Type != "identifier" {
					prm.Name = "" // a destructuring pattern: kept as written
				}
				if pat.Type == "this" || pat.Text == "this" {
					continue
				}
			}
			if t := p.Child("type"); t != nil {
				prm.Type = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(t.Text), ":"))
			}
			if v := p.Child("value"); v != nil {
				prm.Default = v.Text
			}
			for _, ch := range p.NamedChildren() {
				if ch.Type == "accessibility_modifier" || ch.Type == "override_modifier" {
					prm.Name = "" // a parameter property: its name is a member too
				}
			}
		default:
			prm.Name = ""
		}
		if i == 0 && fn.Method && slices.Contains(s.receivers, prm.Name) {
			fn.ListStart, fn.LeadComma = p.EndByte, true
			continue
		}
		fn.Params = append(fn.Params, prm)
	}
	if k := len(fn.Params); k > 0 {
		fn.Lead, fn.Trail = text[fn.ListStart:fn.Params[0].Start], text[fn.Params[k-1].End:fn.ListEnd]
		for i := 1; i < k; i++ {
			fn.Seps = append(fn.Seps, text[fn.Params[i-1].End:fn.Params[i].Start])
		}
	}
	if body == nil {
		return fn, nil
	}
	// The uses of each parameter: identifiers of its name in the body.
	brow, _ := m.Position(body.StartByte)
	erow, _ := m.Position(body.EndByte)
	matches, err := syntax.Query(ctx, s.c, src, s.useQuery, syntax.QueryOptions{StartRow: &brow, EndRow: &erow})
	if err != nil {
		return nil, err
	}
	skip := map[int]bool{}
	for _, m := range matches {
		for _, c := range m.Captures {
			if c.Name == "skip" {
				skip[c.Node.StartByte] = true
			}
		}
	}
	for _, m := range matches {
		for _, c := range m.Captures {
			if c.Node.StartByte < body.StartByte || c.Node.EndByte > body.EndByte || c.Name == "skip" {
				continue
			}
			fn.BodyNames[c.Node.Text] = true
			if skip[c.Node.StartByte] {
				continue
			}
			for i := range fn.Params {
				if fn.Params[i].Name == "" || fn.Params[i].Name != c.Node.Text {
					continue
				}
				if c.Name == "short" {
					fn.Params[i].Shorthand = append(fn.Params[i].Shorthand, c.Node.StartByte)
				} else if !slices.Contains(fn.Params[i].Uses, c.Node.StartByte) {
					fn.Params[i].Uses = append(fn.Params[i].Uses, c.Node.StartByte)
				}
			}
		}
	}
	return fn, nil
}

func (s tsSigSyntax) callAt(ctx context.Context, rel string, m *preview.Mapper, off int) (*sigCall, string, error) {
	src, err := s.source(rel, m.Text())
	if err != nil {
		return nil, "", err
	}
	g, _ := syntax.GrammarOf(src.Lang)
	row, col := m.Position(off)
	n, _, err := syntax.Enclosing(ctx, s.c, src, row, col, g.Calls, 8)
	if err != nil {
		return nil, "", err
	}
	if n == nil {
		return nil, s.notCalled(ctx, src, row, col), nil
	}
	fun := n.Child("function")
	if fun == nil {
		if n.Child("constructor") != nil {
			return nil, "a constructor call (new): change constructors by hand", nil
		}
		return nil, notCalled, nil
	}
	callee := fun
	switch fun.Type {
	case "attribute":
		callee = fun.Child("attribute")
	case "member_expression":
		callee = fun.Child("property")
	}
	if callee == nil || callee.StartByte != off {
		return nil, s.notCalled(ctx, src, row, col), nil
	}
	args := n.Child("arguments")
	if args == nil || (args.Type != "argument_list" && args.Type != "arguments") {
		return nil, "not an argument list (a tagged template or a generator argument)", nil
	}
	cl := &sigCall{ListStart: args.StartByte + 1, ListEnd: args.EndByte - 1}
	for _, ch := range args.Children {
		if ch.Type == "comment" {
			cl.Comments = true
		}
	}
	for _, a := range args.NamedChildren() {
		arg := sigArg{Text: a.Text, Start: a.StartByte, End: a.EndByte, Pure: s.pure(a)}
		switch a.Type {
		case "keyword_argument":
			if nm := a.Child("name"); nm != nil {
				arg.Name = nm.Text
			}
		case "list_splat", "dictionary_splat", "spread_element":
			arg.Spread = true
		}
		cl.Args = append(cl.Args, arg)
	}
	return cl, "", nil
}

// pureTypes are expressions without side effects of their own (their
// children are checked too).
var pureTypes = map[string]bool{
	// Python
	"identifier": true, "integer": true, "float": true, "string": true, "string_start": true, "string_content": true,
	"string_end": true, "escape_sequence": true, "true": true, "false": true, "none": true, "attribute": true,
	"subscript": true, "binary_operator": true, "unary_operator": true, "comparison_operator": true,
	"boolean_operator": true, "not_operator": true, "parenthesized_expression": true, "tuple": true, "list": true,
	"dictionary": true, "pair": true, "lambda": true, "lambda_parameters": true, "keyword_argument": true,
	"conditional_expression": true, "concatenated_string": true, "set": true,
	// TypeScript
	"number": true, "string_fragment": true, "template_string": true, "template_substitution": true, "null": true,
	"undefined": true, "member_expression": true, "property_identifier": true, "subscript_expression": true,
	"binary_expression": true, "unary_expression": true, "array": true, "object": true,
	"shorthand_property_identifier": true, "arrow_function": true, "function_expression": true, "as_expression": true,
	"non_null_expression": true, "ternary_expression": true, "regex": true, "regex_pattern": true, "this": true,
	"formal_parameters": true, "statement_block": true, "type_identifier": true, "predefined_type": true,
	"satisfies_expression": true, "property_name": true,
}

// pure: no call, assignment, await, yield, increment or delete inside
// (a function literal's body is not evaluated by passing it).
func (s tsSigSyntax) pure(n syntax.Node) bool {
	if !pureTypes[n.Type] {
		return false
	}
	if n.Type == "unary_expression" && strings.HasPrefix(n.Text, "delete") {
		return false
	}
	if n.Type == "lambda" || n.Type == "arrow_function" || n.Type == "function_expression" {
		return true
	}
	for _, c := range n.Children {
		if c.Named && c.Type != "comment" && !s.pure(c) {
			return false
		}
	}
	return true
}

// renderParams writes Python or TypeScript parameters: one that did not
// change as written; the list's own separators (one per line stays so).
func (s tsSigSyntax) renderParams(fn *sigFunc, params []renderedParam) string {
	var parts []string
	defaulted, star := false, false
	for _, p := range params {
		if p.Keyword && !star && s.keywordMarker != "" {
			parts = append(parts, s.keywordMarker)
		}
		if p.Variadic || p.Keyword {
			star = true
		}
		if p.Text != "" {
			parts = append(parts, p.Text)
			if p.Default != "" || p.Optional {
				defaulted = true
			}
			continue
		}
		var b strings.Builder
		switch {
		case p.KwSplat:
			b.WriteString("**")
		case p.Variadic:
			b.WriteString(s.variadicPrefix)
		}
		b.WriteString(p.Name)
		if p.Optional {
			b.WriteString("?")
		}
		if p.Type != "" {
			b.WriteString(": " + p.Type)
		}
		def := p.Default
		if p.Added && !(defaulted || star) {
			def = "" // the default is what call sites pass, not part of the declaration
		}
		if def != "" {
			if p.Type != "" || !s.tightDefaults {
				b.WriteString(" = " + def)
			} else {
				b.WriteString("=" + def)
			}
			defaulted = true
		}
		parts = append(parts, b.String())
	}
	if len(parts) == 0 {
		return ""
	}
	lead := fn.Lead
	if fn.LeadComma && !strings.Contains(lead, ",") {
		lead = ", " + lead
	}
	return joinParts(lead, fn.Seps, fn.Trail, parts)
}

// classOf returns the name and the base names (last dotted part) of the
// class enclosing off, "" outside a class.
func (s tsSigSyntax) classOf(ctx context.Context, rel string, m *preview.Mapper, off int) (string, []string, error) {
	src, err := s.source(rel, m.Text())
	if err != nil {
		return "", nil, err
	}
	row, col := m.Position(off)
	n, _, err := syntax.Enclosing(ctx, s.c, src, row, col, []string{"class_definition", "class_declaration", "abstract_class_declaration"}, 3)
	if err != nil || n == nil {
		return "", nil, err
	}
	name := n.Child("name")
	if name == nil {
		return "", nil, nil
	}
	var bases []string
	var walk func(syntax.Node)
	walk = func(b syntax.Node) {
		switch b.Type {
		case "identifier", "type_identifier", "attribute", "member_expression":
			t := b.Text
			if i := strings.LastIndex(t, "."); i >= 0 {
				t = t[i+1:]
			}
			bases = append(bases, t)
			return
		case "keyword_argument":
			return // metaclass=...
		}
		for _, c := range b.Children {
			walk(c)
		}
	}
	for _, c := range n.Children {
		if c.Field == "superclasses" || c.Type == "class_heritage" {
			walk(c)
		}
	}
	return name.Text, bases, nil
}

// importTypes are the nodes of an import or export of a name: references
// there are no call sites and need no change.
var importTypes = []string{"import_statement", "import_from_statement", "import_specifier", "export_specifier", "aliased_import", "future_import_statement"}

// notCalled is the reason a reference that is no call is left alone:
// importRef for an import or export.
func (s tsSigSyntax) notCalled(ctx context.Context, src syntax.Source, row, col int) string {
	n, _, err := syntax.Enclosing(ctx, s.c, src, row, col, importTypes, 0)
	if err == nil && n != nil {
		return importRef
	}
	return notCalled
}
