package refactor

// inline_function for Python and TypeScript/JavaScript, from the syntax
// (tree-sitter, package syntax): pyright has no inline refactoring and
// tsserver offers only "Inline variable". Only simple functions are
// inlined, the ones whose result is exactly one expression:
//
//	def area(w, h):            function area(w: number, h: number): number {
//	    """Doc."""                 return w * h;
//	    return w * h           }
//
// Each call becomes that expression with the parameters replaced by the
// arguments (parenthesized unless atomic). An argument that could have side
// effects (anything but a name or a literal), and any name passed before
// it, is first bound to a local on a line of its own before the statement
// holding the call, so it is evaluated once and in order; where that would
// move its evaluation across other code (the call sits in a condition, a
// lambda, a short-circuit or after another call in the statement) the call
// is left alone with the reason. A body that uses names of its own module
// is inlined only in that module. Methods, generators, splats, rest and
// destructured parameters, default values that are not literals: refused
// (UNSUPPORTED) or left alone, with the reason.

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/lang"
	"github.com/nvbridge/nvbridge/lsp"
	"github.com/nvbridge/nvbridge/preview"
	"github.com/nvbridge/nvbridge/syntax"
)

// syntaxRules are one language's node types as the syntax inliner reads
// them, and what differs in how its code is written.
type syntaxRules struct {
	// language is the language they are for (registerSyntaxInliner).
	language *lang.Language
	// docstrings: a body may start with a docstring (Python).
	docstrings bool
	// bracketLines: an expression keeps its line breaks only inside
	// brackets (Python), so a multi-line one is parenthesized.
	bracketLines bool
	// shortCircuit are the operators that may skip what follows them
	// (TypeScript's && || ?? ?.; Python's and/or are boolean_operator
	// nodes, in deferred).
	shortCircuit []string
	// pure argument types: evaluating them has no effect (names, literals).
	pure map[string]bool
	// atomic expression types: need no parentheses where they are put.
	atomic map[string]bool
	// safeParents: a call directly under one needs no parentheses around
	// the inlined expression.
	safeParents map[string]bool
	// hoistable statements and the blocks they may sit in.
	statements []string
	blocks     map[string]bool
	// unsafe ancestors between a call and its statement for binding locals
	// (conditional or deferred evaluation).
	deferred map[string]bool
	// forbidden in the inlined expression (scopes of their own).
	scoped   map[string]bool
	imports  []string
	builtins map[string]bool
	calls    string // query matching every call: @c
	idents   string // query: @id identifiers, @skip ones that are not variables
	local    func(name, value string) string
	// comprehensionVars is a query capturing @cb, the names a
	// comprehension binds ("" when comprehensions are refused).
	comprehensionVars string
	// statementBodies: a body of statements is inlined where the call is
	// a statement (Python).
	statementBodies bool
	// nullish is the nullish-coalescing operator ("??"), "" for none.
	nullish string
	// undefined is what an omitted optional parameter is ("undefined"
	// in TypeScript).
	undefined string
	// expressionBodies are body node types that are the function's value
	// itself (an arrow function's expression body).
	expressionBodies map[string]bool
	// public reports whether the function named name, declared at
	// declStart of its file's text, can be used from outside the
	// workspace's view (kept by remove_definition=auto).
	public func(text string, declStart int, name string) bool
	// interpolation is the node type of a string's interpolated
	// expression whose quoting is restricted (Python's f-string
	// replacement fields before 3.12); "" when none is.
	interpolation string
}

func set(words string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.Fields(words) {
		out[w] = true
	}
	return out
}

// simpleFunc is the function being inlined, read from its definition.
type simpleFunc struct {
	params []param
	expr   syntax.Node // the returned expression
	// uses are the parameters' occurrences in expr (byte ranges of the
	// definition's text), by parameter index.
	uses [][]syntax.Node
	// free are the other names expr uses.
	free  []string
	start int // the definition's byte range (for recursion)
	end   int
	// method: a static or private method; thisUses its expression's
	// uses of this (replaced by the call's receiver).
	method   bool
	private  bool
	thisUses []syntax.Node
	// compBound are the names the expression's comprehensions bind.
	compBound map[string]bool
	// stmts: the body is statements, inlined where a call is a whole
	// statement's value (inline_statements.go); expr is then unused.
	stmts *stmtBody
	// interps are the interpolations (Python's f-string replacement
	// fields) in expr, with the quote of the string around each.
	interps []fInterp
	// nullish are the `p ?? fallback` expressions whose left operand is
	// a parameter's use, by that use's offset.
	nullish map[int]nullishUse
}

// nullishUse is `p ?? fallback`: its bytes and the fallback's text.
type nullishUse struct {
	start, end int
	fallback   string
	// clean: the fallback uses no parameter.
	clean bool
}

// fInterp is one replacement field of an f-string: its bytes and the
// quote of the string holding it (`"`, `'`, `"""` or `”'`).
type fInterp struct {
	start, end int
	text       string
	quote      string
}

type param struct {
	name string
	def  string // default value (a literal), "" when none
	// hasDef: the parameter has a default.
	hasDef bool
}

// registerSyntaxInliner registers the syntax inliner with rules as l's
// inline_function.
func registerSyntaxInliner(l *lang.Language, rules *syntaxRules) {
	rules.language = l
	inliners.register(l, func(ctx context.Context, c *lsp.Client, st *inlineState) error {
		return inlineSyntax(ctx, c, st, rules)
	})
}

func inlineSyntax(ctx context.Context, c *lsp.Client, st *inlineState, rules *syntaxRules) error {
	ts := lang.TreeSitterFor(st.defRel)
	st.plan.Method = "syntax (tree-sitter " + ts + "): the function's single return expression with the arguments substituted; arguments with side effects bound to locals first"
	fn, err := readSimpleFunc(ctx, c, st, ts, rules)
	if err != nil {
		return err
	}
	if fn.stmts != nil {
		st.plan.Method = "syntax (tree-sitter " + ts + "): the function's statements in place of the statement holding each call, re-indented, its locals renamed where the caller uses their names; arguments with side effects bound to locals first"
	}
	calls, err := st.classifiedCalls(func() error { return classifySyntax(ctx, c, st, rules, fn) })
	if err != nil {
		return err
	}
	err = st.inlineCalls(ctx, calls, "", func(s *site) (string, string, error) {
		return inlineCall(ctx, c, st, rules, fn, s)
	})
	if err != nil {
		return err
	}
	if len(st.plan.Replacements) == 0 {
		return nil
	}
	// Imports of the function in files where no use of it remains.
	if err := removeImports(ctx, c, st, rules); err != nil {
		return err
	}
	if why := st.keepReason(); why != "" {
		st.plan.DefinitionKept = why
		return nil
	}
	// Uses the server did not report (files outside its view that import
	// the definition's module, such as tests outside pyright's include)
	// keep it, whatever remove_definition says.
	root := c.Session.Root()
	importers := symbolReach{defRel: st.defRel}.importers(root, rules.language)
	if lb, n := findLeftBehind(root, rules.language, st.name, preview.Changeset{}, func(file, text string, changed bool) bool {
		_, seen := st.orig[file]
		return !seen && importers(file, text, changed)
	}); n > 0 {
		st.plan.DefinitionKept = fmt.Sprintf("still used where the server does not see it: %s:%d (%s)", lb[0].File, lb[0].Line, lb[0].Context)
		return nil
	}
	public := rules.public != nil && rules.public(st.scratch[st.defRel], fn.start, st.name)
	if fn.method {
		public = !fn.private // a static method is its class's API
	}
	if st.req.RemoveDefinition == "auto" && public {
		st.plan.DefinitionKept = "it is public (code outside the workspace's view may use it); pass remove_definition=always to remove it"
		return nil
	}
	if err := removeSyntaxDefinition(ctx, c, st, rules); err != nil {
		st.plan.DefinitionKept = "could not remove it: " + err.Error()
		return nil
	}
	st.plan.DefinitionRemoved = true
	return nil
}

// typePredicate matches a return type that is a type guard or assertion
// (x is T, asserts x).
var typePredicate = regexp.MustCompile(`^\s*:\s*(asserts\s+\w+|\w+\s+is\s)`)

func unsupported(name, why string) error {
	return apierr.Errorf(apierr.Unsupported,
		"functions (and constants holding arrow functions) whose body is one return expression are inlined from the syntax (pyright and tsserver have no inline function); inline this one by hand",
		"cannot inline %s: %s", name, why)
}

// readSimpleFunc reads the function at the definition and checks it is
// simple enough.
func readSimpleFunc(ctx context.Context, c *lsp.Client, st *inlineState, ts string, rules *syntaxRules) (*simpleFunc, error) {
	text := st.scratch[st.defRel]
	src := syntax.Text(ts, text)
	row, col := st.position(st.defRel, st.defOff)
	g, _ := syntax.GrammarOf(ts)
	fnNode, _, err := syntax.Enclosing(ctx, c.Session, src, row, col, g.Functions, 3)
	if err != nil {
		return nil, err
	}
	if fnNode == nil || fnNode.Child("name") == nil || fnNode.Child("name").StartByte != st.defOff {
		// A constant holding a function: const f = (a, b) => a * b (or a
		// function expression), the value read as the function.
		fnNode, err = constantFunction(ctx, c, src, row, col, st.defOff, rules)
		if err != nil {
			return nil, err
		}
		if fnNode == nil {
			return nil, unsupported(st.name, "it is not defined by a function definition or a constant holding an arrow function (a lambda or a class cannot be inlined from the syntax)")
		}
	}
	method, private := false, false
	if fnNode.Type == "method_definition" {
		// A method no subclass can override (static, private or #name):
		// its calls are inlined with this as the receiver.
		head := strings.TrimSpace(fnNode.Text[:max(0, fnNode.Child("name").StartByte-fnNode.StartByte)])
		mods := strings.Fields(head)
		if !slices.Contains(mods, "static") && !slices.Contains(mods, "private") && !strings.HasPrefix(fnNode.Child("name").Text, "#") {
			return nil, unsupported(st.name, "it is a method a subclass may override (only static, private and #private methods are inlined)")
		}
		if slices.Contains(mods, "get") || slices.Contains(mods, "set") || slices.Contains(mods, "async") || slices.Contains(mods, "*") {
			return nil, unsupported(st.name, "it is an accessor, async or a generator")
		}
		method = true
		private = slices.Contains(mods, "private") || strings.HasPrefix(fnNode.Child("name").Text, "#")
	}
	_, ancestors, err := syntax.Enclosing(ctx, c.Session, src, row, col, []string{fnNode.Type}, 0)
	if err != nil {
		return nil, err
	}
	for _, a := range ancestors {
		if !method && (a == "class_definition" || a == "class_body" || a == "class_declaration") {
			return nil, unsupported(st.name, "it is a method (self would need rewriting)")
		}
	}
	if len(ancestors) > 0 && ancestors[0] == "decorated_definition" {
		return nil, unsupported(st.name, "it is decorated (the decorator may change what a call does)")
	}
	if rt := fnNode.Child("return_type"); rt != nil && typePredicate.MatchString(rt.Text) {
		return nil, unsupported(st.name, "it is a type guard ("+strings.TrimSpace(strings.TrimPrefix(rt.Text, ":"))+"): the narrowing its callers rely on would be lost")
	}
	if strings.HasPrefix(fnNode.Text, "async") {
		return nil, unsupported(st.name, "it is async")
	}
	if fnNode.Type == "generator_function_declaration" {
		return nil, unsupported(st.name, "it is a generator")
	}
	fn := &simpleFunc{start: fnNode.StartByte, end: fnNode.EndByte, method: method, private: private}
	// Parameters.
	params := fnNode.Child("parameters")
	var paramNodes []syntax.Node
	switch {
	case params != nil:
		paramNodes = params.NamedChildren()
	case fnNode.Child("parameter") != nil:
		paramNodes = []syntax.Node{*fnNode.Child("parameter")} // x => ...
	default:
		return nil, unsupported(st.name, "it has no parameter list")
	}
	for _, p := range paramNodes {
		var pr param
		switch p.Type {
		case "identifier":
			pr.name = p.Text
		case "typed_parameter":
			for _, ch := range p.Children {
				if ch.Type == "identifier" && ch.Field == "" {
					pr.name = ch.Text
				} else if ch.Type == "list_splat_pattern" || ch.Type == "dictionary_splat_pattern" {
					return nil, unsupported(st.name, "it takes *args or **kwargs")
				}
			}
		case "default_parameter", "typed_default_parameter", "required_parameter", "optional_parameter":
			name := p.Child("name")
			if name == nil {
				name = p.Child("pattern")
			}
			if name == nil || name.Type != "identifier" {
				return nil, unsupported(st.name, "a parameter is not a plain name ("+p.Text+")")
			}
			pr.name = name.Text
			if v := p.Child("value"); v != nil {
				pr.hasDef = true
				if !rules.pure[v.Type] || v.Type == "identifier" {
					pr.def = "" // not a literal: a call relying on it is left alone
				} else {
					pr.def = v.Text
				}
			}
			if p.Type == "optional_parameter" && !pr.hasDef {
				// b?: T omitted at a call is undefined.
				pr.hasDef, pr.def = true, rules.undefined
			}
		case "keyword_separator", "positional_separator", "comment":
			continue
		default:
			return nil, unsupported(st.name, fmt.Sprintf("parameter %q (%s) is not a plain name", p.Text, p.Type))
		}
		if pr.name == "" {
			return nil, unsupported(st.name, "a parameter is not a plain name ("+p.Text+")")
		}
		fn.params = append(fn.params, pr)
	}
	// The body: one return statement (after a docstring), or an arrow
	// function's expression.
	body := fnNode.Child("body")
	if body == nil {
		return nil, unsupported(st.name, "it has no body")
	}
	if rules.expressionBodies[body.Type] || fnNode.Type == "arrow_function" && body.Type != "statement_block" {
		return readExprBody(ctx, c, src, st, rules, fn, *body)
	}
	stmts := body.NamedChildren()
	if len(stmts) > 1 && rules.docstrings && stmts[0].Type == "expression_statement" {
		if t := strings.TrimLeft(stmts[0].Text, "rRbBuU"); strings.HasPrefix(t, `"`) || strings.HasPrefix(t, "'") {
			stmts = stmts[1:] // the docstring
		}
	}
	if (len(stmts) != 1 || stmts[0].Type != "return_statement") && rules.statementBodies {
		return readStatementBody(ctx, c, src, st, rules, fn, stmts)
	}
	if len(stmts) != 1 || stmts[0].Type != "return_statement" {
		return nil, unsupported(st.name, "its body is not a single return statement")
	}
	// The returned expression with its children.
	ret, _, err := syntax.Enclosing(ctx, c.Session, src, stmts[0].StartRow, stmts[0].StartCol, []string{"return_statement"}, 1)
	if err != nil {
		return nil, err
	}
	exprs := ret.NamedChildren()
	if len(exprs) != 1 {
		return nil, unsupported(st.name, "it returns nothing or several values")
	}
	fn.expr = exprs[0]
	return readExprBody(ctx, c, src, st, rules, fn, fn.expr)
}

// readExprBody reads the returned expression expr of fn: the parameters'
// uses, the other names it uses; scopes of its own are refused.
func readExprBody(ctx context.Context, c *lsp.Client, src syntax.Source, st *inlineState, rules *syntaxRules, fn *simpleFunc, expr syntax.Node) (*simpleFunc, error) {
	fn.expr = expr
	// Its identifiers; scopes of their own are refused.
	start, end := fn.expr.StartRow, fn.expr.EndRow
	query := rules.idents + " " + scopedQuery(rules)
	if rules.interpolation != "" {
		query += " (string (" + rules.interpolation + ") @interp) @fstring"
	}
	if rules.comprehensionVars != "" {
		query += " " + rules.comprehensionVars
	}
	if rules.nullish != "" {
		query += ` (binary_expression left: (identifier) @nl operator: "` + rules.nullish + `" right: (_) @nr) @nb`
	}
	matches, err := syntax.Query(ctx, c.Session, src, query, syntax.QueryOptions{StartRow: &start, EndRow: &end})
	if err != nil {
		return nil, err
	}
	skip := map[int]bool{}
	var ids []syntax.Node
	for _, m := range matches {
		if nb, nl, nr := m.Get("nb"), m.Get("nl"), m.Get("nr"); nb != nil && nl != nil && nr != nil {
			if nb.StartByte >= fn.expr.StartByte && nb.EndByte <= fn.expr.EndByte {
				if fn.nullish == nil {
					fn.nullish = map[int]nullishUse{}
				}
				clean := true
				for _, p := range fn.params {
					clean = clean && !containsWord(nr.Text, p.name)
				}
				fn.nullish[nl.StartByte] = nullishUse{start: nb.StartByte, end: nb.EndByte, fallback: nr.Text, clean: clean}
			}
			continue
		}
		if cb := m.Get("cb"); cb != nil {
			if cb.StartByte >= fn.expr.StartByte && cb.EndByte <= fn.expr.EndByte {
				if fn.compBound == nil {
					fn.compBound = map[string]bool{}
				}
				fn.compBound[cb.Text] = true
			}
		}
		if in, str := m.Get("interp"), m.Get("fstring"); in != nil && str != nil {
			if in.StartByte >= fn.expr.StartByte && in.EndByte <= fn.expr.EndByte {
				fn.interps = append(fn.interps, fInterp{start: in.StartByte, end: in.EndByte, text: in.Text, quote: stringQuote(str.Text)})
			}
			continue
		}
		for _, cp := range m.Captures {
			n := cp.Node
			if n.StartByte < fn.expr.StartByte || n.EndByte > fn.expr.EndByte {
				continue
			}
			switch cp.Name {
			case "skip":
				skip[n.StartByte] = true
			case "short":
				return nil, unsupported(st.name, "its result uses the shorthand property {"+n.Text+"}")
			case "scoped":
				if n.Type == "this" && fn.method {
					fn.thisUses = append(fn.thisUses, n)
					continue
				}
				return nil, unsupported(st.name, "its result has a scope of its own or suspends ("+n.Type+")")
			case "id":
				ids = append(ids, n)
			}
		}
	}
	fn.uses = make([][]syntax.Node, len(fn.params))
	free := map[string]bool{}
	for _, id := range ids {
		if skip[id.StartByte] {
			continue
		}
		found := false
		for i, p := range fn.params {
			if id.Text == p.name {
				fn.uses[i] = append(fn.uses[i], id)
				found = true
			}
		}
		if !found && !rules.builtins[id.Text] && !free[id.Text] && !fn.compBound[id.Text] {
			free[id.Text] = true
			fn.free = append(fn.free, id.Text)
		}
	}
	return fn, nil
}

func scopedQuery(rules *syntaxRules) string {
	var b strings.Builder
	var types []string
	for t := range rules.scoped {
		types = append(types, t)
	}
	sort.Strings(types)
	for _, t := range types {
		if t == "await" || t == "yield" {
			continue // anonymous keywords in the Python grammar
		}
		fmt.Fprintf(&b, " (%s) @scoped", t)
	}
	return b.String()
}

// classifySyntax tells calls from other uses: a call when the name is the
// called expression (or its last attribute: module.f), an import when it
// sits in an import statement, else a use as a value.
func classifySyntax(ctx context.Context, c *lsp.Client, st *inlineState, rules *syntaxRules, fn *simpleFunc) error {
	for _, s := range st.sites {
		ts := lang.TreeSitterFor(s.rel)
		if lang.ForFile(s.rel) != rules.language {
			s.kind, s.reason = siteOther, "in a file of another language"
			continue
		}
		text := st.scratch[s.rel]
		src := syntax.Text(ts, text)
		row, col := st.position(s.rel, s.off)
		call, err := syntax.EnclosingCall(ctx, c.Session, src, row, col)
		if err != nil {
			return err
		}
		if call != nil && calleeAt(call, s.off) {
			s.kind = siteCall
			if s.rel == st.defRel && s.off >= fn.start && s.off < fn.end {
				s.reason = reasonRecursion
			}
			continue
		}
		imp, _, err := syntax.Enclosing(ctx, c.Session, src, row, col, rules.imports, 0)
		if err != nil {
			return err
		}
		if imp != nil {
			s.kind, s.importStmt = siteOther, true
			continue
		}
		s.kind, s.reason = siteOther, "used as a value (not called)"
	}
	return nil
}

// calleeAt reports whether the call's function is the name at off (f, or
// m.f).
func calleeAt(call *syntax.Node, off int) bool {
	f := call.Child("function")
	if f == nil {
		f = call.Child("constructor")
	}
	if f == nil {
		return false
	}
	switch {
	case f.StartByte == off && (f.Type == "identifier"):
		return true
	case f.Type == "attribute" || f.Type == "member_expression":
		last := f.Child("attribute")
		if last == nil {
			last = f.Child("property")
		}
		return last != nil && last.StartByte == off
	}
	return false
}

// inlineCall computes the text of s's file with the call at s inlined, or
// why it is left alone.
func inlineCall(ctx context.Context, c *lsp.Client, st *inlineState, rules *syntaxRules, fn *simpleFunc, s *site) (string, string, error) {
	ts := lang.TreeSitterFor(s.rel)
	text := st.scratch[s.rel]
	src := syntax.Text(ts, text)
	row, col := st.position(s.rel, s.off)
	call, ancestors, err := syntax.Enclosing(ctx, c.Session, src, row, col, grammarCalls(ts), 3)
	if err != nil {
		return "", "", err
	}
	if call == nil || !calleeAt(call, s.off) {
		return "", "the call was not found again after the earlier steps", nil
	}
	if s.rel != st.defRel && len(fn.free) > 0 {
		return "", fmt.Sprintf("the body uses %s from its own module, which this file may not have", strings.Join(fn.free, ", ")), nil
	}
	receiver := ""
	f := call.Child("function")
	member := f != nil && (f.Type == "attribute" || f.Type == "member_expression")
	switch {
	case fn.method && !member:
		return "", "a method called without a receiver", nil
	case fn.method:
		obj := f.Child("object")
		if obj == nil || obj.Type != "this" && obj.Type != "identifier" {
			return "", "called on " + f.Text + ", whose receiver is not a name", nil
		}
		receiver = obj.Text
	case member && s.rel == st.defRel:
		return "", "called through an object or module (" + f.Text + ")", nil
	}
	// Arguments to parameters.
	argsNode := call.Child("arguments")
	if argsNode == nil {
		return "", "the call has no argument list (a tagged template or a generator argument)", nil
	}
	if argsNode.Type == "generator_expression" {
		return "", "the argument is a generator expression", nil
	}
	args := make([]*syntax.Node, len(fn.params))
	pos := 0
	for _, a := range argsNode.NamedChildren() {
		a := a
		switch a.Type {
		case "list_splat", "dictionary_splat", "spread_element", "parenthesized_list_splat":
			return "", "an argument is unpacked (" + a.Text + ")", nil
		case "keyword_argument":
			name, value := a.Child("name"), a.Child("value")
			found := false
			for i, p := range fn.params {
				if name != nil && p.name == name.Text && value != nil {
					args[i], found = value, true
				}
			}
			if !found {
				return "", "keyword argument " + a.Text + " matches no parameter", nil
			}
		default:
			if pos >= len(fn.params) {
				return "", "more arguments than parameters", nil
			}
			args[pos] = &a
			pos++
		}
	}
	if fn.stmts != nil {
		return inlineStatementCall(ctx, c, st, rules, fn, text, src, call, args)
	}
	// Which arguments are bound to locals: the impure ones, and the names
	// passed before the last impure one (their values could change).
	lastImpure := -1
	for i, a := range args {
		if a != nil && (!rules.pure[a.Type] && !sideEffectFree(a.Text) || isFString(a)) {
			lastImpure = i
		}
	}
	literal := func(a *syntax.Node) bool {
		return rules.pure[a.Type] && a.Type != "identifier" && a.Type != "this" && !isFString(a)
	}
	values := make([]string, len(fn.params))
	var bindings []string
	var taken map[string]bool
	for i, p := range fn.params {
		a := args[i]
		switch {
		case a == nil && p.hasDef && p.def != "":
			values[i] = p.def
			continue
		case a == nil && p.hasDef:
			return "", "parameter " + p.name + " is omitted and its default is not a literal", nil
		case a == nil:
			return "", "no argument for parameter " + p.name, nil
		}
		bind := i <= lastImpure && !literal(a)
		if !bind {
			values[i] = a.Text
			if !rules.atomic[a.Type] {
				values[i] = "(" + a.Text + ")"
			}
			continue
		}
		if taken == nil {
			if taken, err = namesIn(ctx, c, src, rules); err != nil {
				return "", "", err
			}
		}
		local := p.name
		for n := 1; taken[local]; n++ {
			local = fmt.Sprintf("%s_%d", p.name, n)
		}
		taken[local] = true
		st.bind(p.name, local)
		values[i] = local
		bindings = append(bindings, rules.local(local, a.Text))
	}
	for i, v := range values {
		for name := range fn.compBound {
			if containsWord(v, name) {
				return "", fmt.Sprintf("the argument for %s uses %s, which a comprehension of the body binds", fn.params[i].name, name), nil
			}
		}
	}
	// Free names of the body must not be shadowed where it lands.
	if len(fn.free) > 0 {
		if why, err := shadowed(ctx, c, src, rules, call, fn.free); err != nil || why != "" {
			return "", why, err
		}
	}
	// The expression with the arguments in place.
	defText := st.scratch[st.defRel]
	var b strings.Builder
	var repls []exprRepl
	for _, u := range fn.thisUses {
		repls = append(repls, exprRepl{u.StartByte, u.EndByte, receiver})
	}
	minor := pythonMinor(c, rules)
	for i := range fn.params {
		for _, u := range fn.uses[i] {
			r := exprRepl{u.StartByte, u.EndByte, values[i]}
			// p ?? fallback with p known: the fallback, or the value (the
			// compiler rejects `undefined ?? 1` and `3 ?? 1`).
			if nu, ok := fn.nullish[u.StartByte]; ok && nu.clean {
				known := ""
				switch v := strings.Trim(values[i], "()"); {
				case v == "undefined" || v == "null":
					known = nu.fallback
				case args[i] != nil && literal(args[i]) || args[i] == nil && fn.params[i].def != "":
					known = v
				}
				if known != "" {
					start, end := nu.start, nu.end
					// (p ?? 1) becomes 1, not ((1)).
					if start > 0 && end < len(defText) && defText[start-1] == '(' && defText[end] == ')' && start-1 >= fn.expr.StartByte && end+1 <= fn.expr.EndByte {
						start, end = start-1, end+1
					}
					if !atomicText(known) {
						known = "(" + known + ")"
					}
					r = exprRepl{start, end, known}
				}
			}
			if fi := interpAround(fn.interps, u); fi != nil {
				var why string
				r, why = intoInterpolation(*fi, u, fn.params[i].name, values[i], minor)
				if why != "" {
					return "", why, nil
				}
			}
			repls = append(repls, r)
		}
	}
	sort.Slice(repls, func(i, j int) bool { return repls[i].start < repls[j].start })
	for i := 1; i < len(repls); i++ {
		if repls[i].start < repls[i-1].end {
			return "", "a parameter is used twice in one f-string replacement field", nil
		}
	}
	last := fn.expr.StartByte
	exprText := defText[fn.expr.StartByte:fn.expr.EndByte]
	if exprText != fn.expr.Text {
		return "", "the definition changed during the inlining", nil
	}
	for _, r := range repls {
		b.WriteString(defText[last:r.start])
		b.WriteString(r.text)
		last = r.end
	}
	b.WriteString(defText[last:fn.expr.EndByte])
	expr := b.String()
	parent := ""
	if len(ancestors) > 0 {
		parent = ancestors[0]
	}
	if !rules.atomic[fn.expr.Type] && !rules.safeParents[parent] {
		expr = "(" + expr + ")"
	}
	if strings.Contains(expr, "\n") {
		// A multi-line expression keeps its lines; parenthesize so the
		// line breaks stay inside brackets.
		if rules.bracketLines && !strings.HasPrefix(expr, "(") {
			expr = "(" + expr + ")"
		}
	}
	newText := text[:call.StartByte] + expr + text[call.EndByte:]
	if len(bindings) == 0 {
		return newText, "", nil
	}
	// Bindings go before the statement holding the call.
	stmt, stmtAnc, err := syntax.Enclosing(ctx, c.Session, src, call.StartRow, call.StartCol, rules.statements, 0)
	if err != nil {
		return "", "", err
	}
	if stmt == nil || len(stmtAnc) == 0 || !rules.blocks[stmtAnc[0]] {
		return "", "an argument has side effects and the call is not inside a plain statement where it could be bound to a local first", nil
	}
	for _, a := range ancestors {
		if a == stmt.Type {
			break
		}
		if rules.deferred[a] {
			return "", "an argument has side effects and the call is evaluated conditionally or later (" + a + "): binding it first would change when it runs", nil
		}
	}
	between := text[stmt.StartByte:call.StartByte]
	for _, op := range rules.shortCircuit {
		if strings.Contains(between, op) {
			return "", "an argument has side effects and the call is evaluated conditionally (short-circuit): binding it first would change when it runs", nil
		}
	}
	startRow, endRow := stmt.StartRow, call.StartRow
	others, err := syntax.Query(ctx, c.Session, src, rules.calls, syntax.QueryOptions{StartRow: &startRow, EndRow: &endRow})
	if err != nil {
		return "", "", err
	}
	for _, m := range others {
		for _, cp := range m.Captures {
			n := cp.Node
			if n.StartByte >= stmt.StartByte && n.EndByte <= call.StartByte {
				return "", "an argument has side effects and another call (" + n.Text + ") runs before it in the statement: binding it first would change the order", nil
			}
		}
	}
	lineStart, _ := preview.NewMapper(text).LineAround(stmt.StartByte)
	indent := text[lineStart:stmt.StartByte]
	if strings.TrimSpace(indent) != "" {
		return "", "an argument has side effects and the statement shares its line with other code", nil
	}
	var pre strings.Builder
	for _, bnd := range bindings {
		pre.WriteString(indent + bnd + "\n")
	}
	newText = newText[:lineStart] + pre.String() + newText[lineStart:]
	return newText, "", nil
}

func isFString(n *syntax.Node) bool {
	if n.Type != "string" && n.Type != "template_string" {
		return false
	}
	t := strings.ToLower(n.Text)
	return strings.HasPrefix(t, "f") || strings.HasPrefix(t, "rf") || strings.HasPrefix(t, "fr") || strings.Contains(n.Text, "${")
}

// namesIn returns every identifier of a text.
func namesIn(ctx context.Context, c *lsp.Client, src syntax.Source, rules *syntaxRules) (map[string]bool, error) {
	ids, err := syntax.Captures(ctx, c.Session, src, `(identifier) @id`, "id", 0)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, id := range ids {
		out[id.Text] = true
	}
	return out, nil
}

// shadowed says why the body's free names would mean something else at
// the call: the function around the call uses the same name.
func shadowed(ctx context.Context, c *lsp.Client, src syntax.Source, rules *syntaxRules, call *syntax.Node, free []string) (string, error) {
	fn, err := syntax.EnclosingFunction(ctx, c.Session, src, call.StartRow, call.StartCol)
	if err != nil || fn == nil {
		return "", err
	}
	start, end := fn.StartRow, fn.EndRow
	ids, err := syntax.Query(ctx, c.Session, src, `(identifier) @id`, syntax.QueryOptions{StartRow: &start, EndRow: &end})
	if err != nil {
		return "", err
	}
	for _, m := range ids {
		for _, cp := range m.Captures {
			for _, f := range free {
				if cp.Node.Text == f && cp.Node.StartByte >= fn.StartByte && cp.Node.EndByte <= fn.EndByte {
					// A use of the same global is fine; a local binding is
					// not: be conservative and let the caller check.
					if fnAssigns(fn.Text, f) {
						return fmt.Sprintf("the body uses %s, which the calling function also defines", f), nil
					}
				}
			}
		}
	}
	return "", nil
}

// fnAssigns reports whether a function's text binds name (a parameter, an
// assignment, a for target): a conservative textual check.
func fnAssigns(text, name string) bool {
	for _, pat := range []string{name + " =", name + "=", name + ",", name + ")", "for " + name, "let " + name, "const " + name, "var " + name, "as " + name} {
		idx := strings.Index(text, pat)
		for idx >= 0 {
			if idx == 0 || !isIdentByte(text[idx-1]) {
				if !strings.HasPrefix(pat, name+" =") || !strings.HasPrefix(text[idx+len(pat):], "=") {
					return true
				}
			}
			next := strings.Index(text[idx+1:], pat)
			if next < 0 {
				break
			}
			idx += next + 1
		}
	}
	return false
}

func isIdentByte(b byte) bool {
	return b == '_' || b == '$' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= 0x80
}

// removeSyntaxDefinition deletes the function (with its decorators or
// export) and the imports of it that remain.
func removeSyntaxDefinition(ctx context.Context, c *lsp.Client, st *inlineState, rules *syntaxRules) error {
	ts := lang.TreeSitterFor(st.defRel)
	text := st.scratch[st.defRel]
	if st.defOff < 0 {
		return fmt.Errorf("the definition moved during the inlining")
	}
	row, col := st.position(st.defRel, st.defOff)
	decl, err := syntax.EnclosingDeclaration(ctx, c.Session, syntax.Text(ts, text), row, col)
	if err != nil {
		return err
	}
	if decl == nil {
		return fmt.Errorf("the definition was not found after the inlining")
	}
	st.update(st.defRel, removeLines(text, decl.StartByte, decl.EndByte))
	return nil
}

// removeImports removes the function from the imports of the files where
// no other use of it remains.
func removeImports(ctx context.Context, c *lsp.Client, st *inlineState, rules *syntaxRules) error {
	used := map[string]bool{}
	for _, s := range st.sites {
		if !s.importStmt && !s.replaced {
			used[s.rel] = true
		}
	}
	for _, s := range st.sites {
		if !s.importStmt || s.lost || used[s.rel] {
			continue
		}
		s.replaced = true
		t := st.scratch[s.rel]
		src := syntax.Text(lang.TreeSitterFor(s.rel), t)
		r, cl := st.position(s.rel, s.off)
		imp, _, err := syntax.Enclosing(ctx, c.Session, src, r, cl, rules.imports, 4)
		if err != nil {
			return err
		}
		if imp == nil {
			continue
		}
		names := importedNames(imp)
		var mine *syntax.Node
		for i := range names {
			if names[i].StartByte <= s.off && s.off < names[i].EndByte {
				mine = &names[i]
			}
		}
		if mine == nil {
			return fmt.Errorf("cannot read the import at %s:%d", s.rel, s.line)
		}
		if len(names) == 1 && !importNodeHasDefault(imp) {
			st.update(s.rel, removeLines(t, imp.StartByte, imp.EndByte))
			continue
		}
		start, end := mine.StartByte, mine.EndByte
		if rest := t[end:]; strings.HasPrefix(strings.TrimLeft(rest, " "), ",") {
			end += strings.Index(rest, ",") + 1
			for end < len(t) && t[end] == ' ' {
				end++
			}
		} else if before := strings.TrimRight(t[:start], " "); strings.HasSuffix(before, ",") {
			start = len(before) - 1
		}
		st.update(s.rel, t[:start]+t[end:])
	}
	return nil
}

// importedNames lists the imported names of an import statement (Python:
// its name fields; TypeScript: its import specifiers).
func importedNames(imp *syntax.Node) []syntax.Node {
	var out []syntax.Node
	var walk func(n syntax.Node)
	walk = func(n syntax.Node) {
		switch {
		case n.Type == "import_specifier":
			out = append(out, n)
			return
		case n.Field == "name" && (n.Type == "dotted_name" || n.Type == "aliased_import"):
			out = append(out, n)
			return
		}
		for _, ch := range n.Children {
			walk(ch)
		}
	}
	for _, ch := range imp.Children {
		walk(ch)
	}
	return out
}

func importNodeHasDefault(imp *syntax.Node) bool {
	for _, ch := range imp.Children {
		if ch.Type == "import_clause" {
			for _, cc := range ch.Children {
				if cc.Type == "identifier" || cc.Type == "namespace_import" {
					return true
				}
			}
		}
	}
	return false
}

// removeLines removes the whole lines of [start, end) with the comment
// lines right above them, and then one blank line too many (Python keeps two between top-level definitions).
func removeLines(text string, start, end int) string {
	m := preview.NewMapper(text)
	start, end = m.WholeLines(start, end)
	// The comment lines right above it (its doc comment) go with it; a
	// comment block that starts the file (a header) stays.
	c := start
	for c > 0 {
		prev, _ := m.LineAround(c - 1)
		if t := strings.TrimSpace(text[prev:c]); !(strings.HasPrefix(t, "//") || strings.HasPrefix(t, "#") ||
			strings.HasPrefix(t, "/*") || strings.HasPrefix(t, "*")) {
			break
		}
		c = prev
	}
	if c > 0 {
		start = c
	}
	// Blank lines after it, as many as were before it (at most 2).
	before := 0
	for i := start; i > 0 && before < 2 && strings.HasSuffix(text[:i], "\n\n"); i-- {
		before++
	}
	for n := 0; n < before && strings.HasPrefix(text[end:], "\n"); n++ {
		end++
	}
	if end == len(text) {
		// The last definition: no blank lines left at the end.
		for start > 1 && strings.HasSuffix(text[:start], "\n\n") {
			start--
		}
	}
	return text[:start] + text[end:]
}

func grammarCalls(ts string) []string {
	g, _ := syntax.GrammarOf(ts)
	return g.Calls
}

// constantFunction is the function a constant at defOff holds (const f =
// (a) => a * 2; const g = function (a) { return a; }), nil when the name
// at defOff is not such a constant.
func constantFunction(ctx context.Context, c *lsp.Client, src syntax.Source, row, col, defOff int, rules *syntaxRules) (*syntax.Node, error) {
	decl, _, err := syntax.Enclosing(ctx, c.Session, src, row, col, []string{"variable_declarator"}, 2)
	if err != nil || decl == nil {
		return nil, err
	}
	name, value := decl.Child("name"), decl.Child("value")
	if name == nil || name.StartByte != defOff || value == nil || (value.Type != "arrow_function" && value.Type != "function_expression" && value.Type != "function") {
		return nil, nil
	}
	vr, vc := value.StartRow, value.StartCol
	fn, _, err := syntax.Enclosing(ctx, c.Session, src, vr, vc, []string{value.Type}, 3)
	if err != nil || fn == nil || fn.StartByte != value.StartByte {
		return nil, err
	}
	return fn, nil
}

// sideEffectFree reports whether an expression's text can have no effect
// when evaluated: names, literals and operators only (no call, no
// assignment, no increment, no await, yield, new or delete; no string or
// template whose text could hide one).
func sideEffectFree(text string) bool {
	if strings.ContainsAny(text, "(\"'`[{") || strings.Contains(text, "++") || strings.Contains(text, "--") {
		return false
	}
	for i := 0; i < len(text); i++ {
		if text[i] != '=' {
			continue
		}
		prev, next := byte(0), byte(0)
		if i > 0 {
			prev = text[i-1]
		}
		if i+1 < len(text) {
			next = text[i+1]
		}
		if next != '=' && prev != '=' && prev != '!' && prev != '<' && prev != '>' {
			return false // an assignment
		}
	}
	for _, w := range []string{"await", "yield", "new", "delete", "lambda", "not in"} {
		if containsWord(text, w) && w != "not in" {
			return false
		}
	}
	return true
}

func containsWord(text, w string) bool {
	for i := strings.Index(text, w); i >= 0; {
		before := i == 0 || !isIdentByte(text[i-1])
		after := i+len(w) >= len(text) || !isIdentByte(text[i+len(w)])
		if before && after {
			return true
		}
		j := strings.Index(text[i+1:], w)
		if j < 0 {
			break
		}
		i += j + 1
	}
	return false
}

// atomicText: a name, a number or a member chain needs no parentheses.
func atomicText(t string) bool {
	if t == "" {
		return false
	}
	for i := 0; i < len(t); i++ {
		if !isIdentByte(t[i]) && t[i] != '.' {
			return false
		}
	}
	return true
}
