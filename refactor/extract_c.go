package refactor

// extract_function for C, where clangd has no "Extract to function" (its
// tweak is C++ only): the selected whole statements of one function body
// become a static function placed just before that function, computed
// from the tree-sitter C tree (Neovim bundles the parser).
//
// Parameters are the enclosing function's parameters and locals declared
// before the selection that it uses (its own declarations' types, storage
// class left out), in declaration order. One the selection assigns (or
// takes the address of) and that is used after it, including in a loop
// around it or between a label and a later goto back to it, is passed by
// pointer, its uses inside rewritten to *p (&p to p, p.f to p->f). A local
// the selection declares at its top level and that is used after it is
// the return value (at most one). Macros of the file and of the project
// headers it includes are read (#define lines) so a macro that names a
// local of the function (Lua's Protect, RA) counts as a use of it.
//
// Refused, saying why: a range that is not whole statements of one block,
// return, goto and labels, break or continue leaving the selection, case
// labels, syntax errors in the selection, two values used after it, a
// local array declared in it used after it or one used with sizeof, a
// local passed by pointer that a macro also names, and a macro defined
// inside the function.

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/lang"
	"github.com/nvbridge/nvbridge/lsp"
	"github.com/nvbridge/nvbridge/nvim"
	"github.com/nvbridge/nvbridge/preview"
	"github.com/nvbridge/nvbridge/syntax"
)

func init() {
	// C files only: clangd extracts in C++ itself, and the C grammar does
	// not read C++.
	extractors.register(lang.C, extractPart{filetypes: []string{"c"}, extract: extractC})
}

// cExtractName names the new function when the caller gives no name.
const cExtractName = "extracted"

// cTreeDepth bounds the levels of the function's tree read from Neovim.
const cTreeDepth = 400

type cVar struct {
	name       string
	decl       *syntax.Node // the declaration or parameter_declaration
	declarator *syntax.Node // its declarator for this name, initializer left out
	ident      *syntax.Node
	array      bool
	static     bool
	refs       []*cRef
}

type cRef struct {
	node     *syntax.Node
	v        *cVar // nil: not a local of the function (a global, a function, a macro)
	parent   *syntax.Node
	anc      []*syntax.Node // its ancestors, outermost first (parent last)
	assigned bool           // assigned, incremented, or a member of it assigned
	addr     bool           // its address (or a member's) taken
	sizeOf   bool           // an operand of sizeof
}

type cExtract struct {
	rel, text string
	fn, body  *syntax.Node
	// The selection: stmts of block (comments included), from s to e.
	block *syntax.Node
	path  []*syntax.Node // body ... block
	stmts []*syntax.Node
	s, e  int
	// From the walk over the function.
	scopes  []map[string]*cVar
	vars    []*cVar
	refs    []*cRef
	stack   []*syntax.Node
	visible map[string]*cVar // the function's locals in scope at the selection
	// Macros defined inside the function: name to where ("line 12", "in
	// ljumptab.h, included at line 1190").
	innerMacros  map[string]string
	innerHeaders []cInclude     // headers included inside the function
	labels       map[string]int // label: byte offset
	gotos        []cGoto
	errors       []*syntax.Node
}

type cInclude struct {
	path string
	line int
}

type cGoto struct {
	label string
	at    int
}

func extractC(ctx context.Context, c *lsp.Client, doc *lsp.Document, span lsp.Span, name string) (ExtractPlan, error) {
	if name == "" {
		name = cExtractName
	}
	snaps, err := snapshotRels(ctx, c, []string{doc.Rel}, nvim.SnapshotOptions{})
	if err != nil {
		return ExtractPlan{}, err
	}
	old := snapshotDoc(snaps[0])
	m := old.Mapper()
	text := m.Text()
	// The name must be free in the file and the project headers it
	// includes (a static function would clash with their declarations).
	sources := projectHeaders(c, doc.Path, text)
	for _, f := range sources {
		for _, t := range lang.Identifiers(lang.C, f.text) {
			if f.text[t.Start:t.End] == name {
				line, _ := preview.NewMapper(f.text).CharPosition(t.Start)
				return ExtractPlan{}, apierr.Errorf(apierr.Conflict, "pick a name not used in the file or the headers it includes",
					"%q is already used in %s (line %d); naming the extracted function so could clash", name, f.rel, line)
			}
		}
	}
	s := m.LineOffset(span.Start.Line) + span.Start.Byte
	e := m.LineOffset(span.End.Line) + span.End.Byte
	for s < e && strings.ContainsRune(" \t\r\n", rune(text[s])) {
		s++
	}
	for e > s && strings.ContainsRune(" \t\r\n", rune(text[e-1])) {
		e--
	}
	where := span.Where(doc)
	src := syntax.Text("c", text)
	row, col := m.Position(s)
	fn, err := topFunction(ctx, c, src, row, col, s)
	if err != nil {
		return ExtractPlan{}, err
	}
	if fn == nil || fn.Child("body") == nil || e > fn.Child("body").EndByte {
		return ExtractPlan{}, refuse(where, "select whole statements inside one function body", "the range is not inside one function's body")
	}
	x := &cExtract{rel: doc.Rel, text: text, fn: fn, body: fn.Child("body"), s: s, e: e,
		innerMacros: map[string]string{}, labels: map[string]int{}}
	if err := x.selectStatements(where); err != nil {
		return ExtractPlan{}, err
	}
	x.walkFunction()
	macros := projectMacros(sources)
	for _, h := range x.innerHeaders {
		for _, p := range lang.C.Imports.Resolve(lang.NewScope(c.Session.Root().Dir()), doc.Path, lang.Import{Path: h.path}) {
			if !c.Session.Root().Contains(p) || c.Session.Root().Sensitive(p) {
				continue
			}
			if data, err := os.ReadFile(p); err == nil {
				for _, m := range cMacros(string(data)) {
					x.innerMacros[m.name] = fmt.Sprintf("in %s, included at line %d", h.path, h.line)
				}
			}
		}
	}
	out, err := x.plan(where, name, macros, c.Session.Root().Dir())
	if err != nil {
		return ExtractPlan{}, err
	}
	whole := preview.TextEdit{EndLine: len(old.Lines), NewText: out.text}
	edits, err := preview.Minimize(old, []preview.TextEdit{whole})
	if err != nil {
		return ExtractPlan{}, apierr.Errorf(apierr.OperationFailed, "report this", "build the edits of %s: %v", doc.Rel, err)
	}
	cs := preview.Changeset{Files: []preview.FileChange{{Kind: preview.OpEdit, Path: doc.Rel, Old: old, Edits: edits}}}
	return ExtractPlan{File: doc.Rel, Server: "nvbridge", Range: span.Location(doc),
		Action: "Extract to static function", Kind: "refactor.extract.function",
		ServerName: name, Name: name, Changeset: cs, Note: out.note}, nil
}

// topFunction is the top-level function definition holding byte offset b
// (at row, col), with its whole tree; nil when none. Not the innermost one:
// a macro that opens a block ("vmcase(OP_MOVE) {" in Lua's VM) reads as a
// K&R function definition inside the real one.
func topFunction(ctx context.Context, c *lsp.Client, src syntax.Source, row, col, b int) (*syntax.Node, error) {
	n, _, err := syntax.Enclosing(ctx, c.Session, src, row, col, []string{"translation_unit"}, 1)
	if err != nil || n == nil {
		return nil, err
	}
	for {
		var in *syntax.Node
		for i := range n.Children {
			if ch := &n.Children[i]; ch.StartByte <= b && b < ch.EndByte {
				in = ch
			}
		}
		switch {
		case in == nil:
			return nil, nil
		case in.Type == "function_definition":
			fn, _, err := syntax.Enclosing(ctx, c.Session, src, in.StartRow, in.StartCol, []string{"function_definition"}, cTreeDepth)
			return fn, err
		case strings.HasPrefix(in.Type, "preproc_if") || in.Type == "preproc_else" || in.Type == "preproc_elif" || in.Type == "linkage_specification" || in.Type == "declaration_list":
			if n, _, err = syntax.Enclosing(ctx, c.Session, src, in.StartRow, in.StartCol, []string{in.Type}, 1); err != nil || n == nil {
				return nil, err
			}
		default:
			return nil, nil
		}
	}
}

func refuse(where, remedy, format string, args ...any) error {
	return apierr.Errorf(apierr.PreconditionFailed, remedy, "cannot extract a function at %s: "+format, append([]any{where}, args...)...)
}

const wholeStatements = "select whole statements of one block (with their semicolons and braces)"

// selectStatements finds the block whose statements the range covers:
// down from the body, through the one child that holds the whole range,
// to the node whose overlapping children all lie inside it.
func (x *cExtract) selectStatements(where string) error {
	n := x.body
	x.path = []*syntax.Node{n}
	for {
		var over []*syntax.Node
		for i := range n.Children {
			ch := &n.Children[i]
			if ch.Named && ch.EndByte > x.s && ch.StartByte < x.e {
				over = append(over, ch)
			}
		}
		if len(over) == 0 {
			return refuse(where, wholeStatements, "no statement in the range")
		}
		if len(over) == 1 && (over[0].StartByte < x.s || over[0].EndByte > x.e) {
			if over[0].StartByte <= x.s && x.e <= over[0].EndByte {
				n = over[0]
				x.path = append(x.path, n)
				continue
			}
		}
		for _, o := range over {
			if o.StartByte < x.s || o.EndByte > x.e {
				return refuse(where, wholeStatements, "the range cuts the %s at line %d", strings.ReplaceAll(o.Type, "_", " "), o.StartRow+1)
			}
		}
		if n.Type != "compound_statement" && n.Type != "case_statement" {
			return refuse(where, wholeStatements, "the range is part of a %s (line %d), not whole statements", strings.ReplaceAll(n.Type, "_", " "), n.StartRow+1)
		}
		for _, o := range over {
			switch {
			case o.Field == "value":
				return refuse(where, wholeStatements+", without case labels", "the range includes the case label at line %d", o.StartRow+1)
			case o.Type == "case_statement":
				return refuse(where, "select the statements of one case, or the whole switch", "the range includes the case label at line %d", o.StartRow+1)
			}
		}
		x.block, x.stmts = n, over
		x.s, x.e = over[0].StartByte, over[len(over)-1].EndByte
		return nil
	}
}

// --- the walk: declarations, references, labels, macros inside ----------

func (x *cExtract) walkFunction() {
	x.scopes = []map[string]*cVar{{}}
	if fd := functionDeclarator(x.fn.Child("declarator")); fd != nil {
		if params := fd.Child("parameters"); params != nil {
			for i := range params.Children {
				p := &params.Children[i]
				if p.Type == "parameter_declaration" {
					if d := p.Child("declarator"); d != nil {
						x.declare(p, d)
					}
				}
			}
		}
	}
	x.stack = []*syntax.Node{x.fn}
	x.walk(x.body)
}

func (x *cExtract) walk(n *syntax.Node) {
	if n == x.stmts[0] {
		x.visible = map[string]*cVar{}
		for _, sc := range x.scopes {
			for k, v := range sc {
				x.visible[k] = v
			}
		}
	}
	switch n.Type {
	case "comment", "type_definition", "string_literal", "char_literal", "system_lib_string":
		return
	case "ERROR":
		x.errors = append(x.errors, n)
	case "identifier":
		x.reference(n)
		return
	case "declaration":
		x.stack = append(x.stack, n)
		for i := range n.Children {
			ch := &n.Children[i]
			if ch.Field != "declarator" {
				continue
			}
			d := ch
			if ch.Type == "init_declarator" {
				d = ch.Child("declarator")
				if v := ch.Child("value"); v != nil {
					x.stack = append(x.stack, ch)
					x.walk(v)
					x.stack = x.stack[:len(x.stack)-1]
				}
			}
			if d != nil {
				x.declare(n, d)
			}
		}
		x.stack = x.stack[:len(x.stack)-1]
		return
	case "preproc_def", "preproc_function_def":
		if nm := n.Child("name"); nm != nil {
			x.innerMacros[nm.Text] = fmt.Sprintf("line %d", n.StartRow+1)
		}
		return
	case "preproc_include":
		if p := n.Child("path"); p != nil {
			x.innerHeaders = append(x.innerHeaders, cInclude{path: strings.Trim(p.Text, `"<>`), line: n.StartRow + 1})
		}
		return
	case "labeled_statement":
		if l := n.Child("label"); l != nil {
			x.labels[l.Text] = n.StartByte
		}
	case "goto_statement":
		if l := n.Child("label"); l != nil {
			x.gotos = append(x.gotos, cGoto{label: l.Text, at: n.StartByte})
		}
		return
	}
	scoped := n.Type == "compound_statement" || n.Type == "for_statement"
	if scoped {
		x.scopes = append(x.scopes, map[string]*cVar{})
	}
	x.stack = append(x.stack, n)
	for i := range n.Children {
		x.walk(&n.Children[i])
	}
	x.stack = x.stack[:len(x.stack)-1]
	if scoped {
		x.scopes = x.scopes[:len(x.scopes)-1]
	}
}

// declare adds the variable declarator d of decl to the innermost scope
// (a local function prototype declares no variable).
func (x *cExtract) declare(decl, d *syntax.Node) {
	ident, wrapper := declaredIdent(d)
	if ident == nil || wrapper == "function_declarator" {
		return
	}
	v := &cVar{name: ident.Text, decl: decl, declarator: d, ident: ident, array: wrapper == "array_declarator"}
	for i := range decl.Children {
		if ch := decl.Children[i]; ch.Type == "storage_class_specifier" && ch.Text == "static" {
			v.static = true
		}
	}
	x.scopes[len(x.scopes)-1][v.name] = v
	x.vars = append(x.vars, v)
}

// declaredIdent is the identifier a declarator declares and the type of
// the declarator right around it (parentheses skipped): array_declarator
// for an array, function_declarator for a function, "" for a plain one.
func declaredIdent(d *syntax.Node) (*syntax.Node, string) {
	wrapper := ""
	for d != nil {
		switch d.Type {
		case "identifier":
			return d, wrapper
		case "parenthesized_declarator":
			named := d.NamedChildren()
			if len(named) == 0 {
				return nil, ""
			}
			d = &named[0]
			continue
		case "pointer_declarator", "array_declarator", "function_declarator", "attributed_declarator":
			wrapper = d.Type
		case "init_declarator":
		default:
			return nil, ""
		}
		d = d.Child("declarator")
	}
	return nil, ""
}

// functionDeclarator is the function_declarator of a function definition's
// declarator (under the pointers of a function returning one).
func functionDeclarator(d *syntax.Node) *syntax.Node {
	for d != nil {
		if d.Type == "function_declarator" {
			return d
		}
		d = d.Child("declarator")
	}
	return nil
}

func (x *cExtract) reference(n *syntax.Node) {
	var v *cVar
	for i := len(x.scopes) - 1; i >= 0 && v == nil; i-- {
		v = x.scopes[i][n.Text]
	}
	r := &cRef{node: n, v: v, parent: x.stack[len(x.stack)-1], anc: slices.Clone(x.stack)}
	// Up through parentheses and member accesses: what is done to the
	// value (a member's assignment changes a struct variable).
	child := n
	member := false
	for i := len(x.stack) - 1; i >= 0; i-- {
		p := x.stack[i]
		switch {
		case p.Type == "parenthesized_expression":
			child = p
			continue
		case p.Type == "field_expression" && child.Field == "argument" && operatorOf(p) == ".":
			child, member = p, true
			continue
		case p.Type == "subscript_expression" && child.Field == "argument" && member:
			child = p
			continue
		case p.Type == "assignment_expression" && child.Field == "left", p.Type == "update_expression":
			r.assigned = true
		case p.Type == "pointer_expression" && operatorOf(p) == "&":
			r.addr = true
		case p.Type == "sizeof_expression":
			r.sizeOf = true
		}
		break
	}
	x.refs = append(x.refs, r)
	if v != nil {
		v.refs = append(v.refs, r)
	}
}

func operatorOf(n *syntax.Node) string {
	if op := n.Child("operator"); op != nil {
		return op.Text
	}
	return ""
}

// --- the plan --------------------------------------------------------------

type cParam struct {
	v       *cVar
	pointer bool
	// implicit: used only through a macro that names it; macro: a macro
	// of the selection names it.
	implicit, macro string
	// local: the selection assigns it before any use and it is not used
	// after: declared in the new function, not passed.
	local bool
}

type cOutcome struct {
	text, note string
}

func (x *cExtract) inSelection(b int) bool { return x.s <= b && b < x.e }

func (x *cExtract) plan(where, name string, macros map[string]cMacroDef, root string) (cOutcome, error) {
	// What the selection must not hold.
	for _, en := range x.errors {
		if x.inSelection(en.StartByte) {
			return cOutcome{}, refuse(where, "fix the syntax, or select other lines", "tree-sitter cannot parse the code at line %d (%q)", en.StartRow+1, clip(en.Text))
		}
	}
	for _, st := range x.stmts {
		if err := x.checkJumps(where, st, nil); err != nil {
			return cOutcome{}, err
		}
	}
	// The uses: the function's locals from before, macros, and values
	// declared inside used after.
	params := map[*cVar]*cParam{}
	var inner []*cVar // declared by the selection's own statements, used after it
	free := map[string]bool{}
	for _, r := range x.refs {
		if !x.inSelection(r.node.StartByte) {
			continue
		}
		if r.v == nil {
			free[r.node.Text] = true
			continue
		}
		if x.inSelection(r.v.ident.StartByte) {
			continue
		}
		if r.v.array && r.sizeOf {
			return cOutcome{}, refuse(where, "select other lines, or use the array's length in a variable", "sizeof %s (line %d): the array %s would be a pointer in the new function", r.v.name, r.node.StartRow+1, r.v.name)
		}
		if r.v.array && r.addr && r.parent.Type == "pointer_expression" {
			return cOutcome{}, refuse(where, "select other lines", "&%s (line %d): the address of the array %s", r.v.name, r.node.StartRow+1, r.v.name)
		}
		p := params[r.v]
		if p == nil {
			p = &cParam{v: r.v}
			params[r.v] = p
		}
		if (r.assigned || r.addr) && !r.v.array {
			p.pointer = p.pointer || r.addr || x.liveAfter(r.v)
		}
	}
	for _, v := range x.vars {
		if !x.inSelection(v.ident.StartByte) || !x.topLevel(v.decl) {
			continue
		}
		for _, r := range v.refs {
			if r.node.StartByte >= x.e {
				inner = append(inner, v)
				break
			}
		}
	}
	if len(inner) > 1 {
		var names []string
		for _, v := range inner {
			names = append(names, v.name)
		}
		return cOutcome{}, refuse(where, "select fewer statements, or declare all but one of them before the selection", "%s are declared in the selection and used after it; a C function returns one value", strings.Join(names, ", "))
	}
	var ret *cVar
	if len(inner) == 1 {
		ret = inner[0]
		if ret.array || ret.static {
			return cOutcome{}, refuse(where, "declare it before the selection", "%s is declared in the selection (an %s) and used after it", ret.name, map[bool]string{true: "array", false: "static variable"}[ret.array])
		}
	}
	// Macros that name the function's locals.
	used := map[string]bool{}
	for _, nm := range sortedKeys(free) {
		if at, ok := x.innerMacros[nm]; ok {
			return cOutcome{}, refuse(where, "select other lines, or move the #define before the function", "the macro %s is defined inside %s (%s): the new function, placed before it, would see another definition or none", nm, x.fnName(), at)
		}
		if _, ok := macros[nm]; !ok {
			continue
		}
		if jump := macroJump(nm, macros, map[string]bool{}); jump != "" {
			return cOutcome{}, refuse(where, "select the lines without it", "the macro %s expands to %s, which would leave the new function instead", nm, jump)
		}
		for local, via := range macroLocals(nm, macros, used) {
			v := x.visible[local]
			if v == nil || x.inSelection(v.ident.StartByte) {
				continue
			}
			p := params[v]
			if p == nil {
				p = &cParam{v: v, implicit: nm}
				params[v] = p
			}
			p.macro = nm
			if via.assigns && x.liveAfter(v) || p.pointer {
				through := ""
				if via.macro != nm {
					through = " (through " + via.macro + ")"
				}
				return cOutcome{}, refuse(where, "select other lines, or pass the value explicitly",
					"the macro %s names the local %s of %s%s, which would have to be passed by pointer: the macro's body would still name it as a value", nm, v.name, x.fnName(), through)
			}
		}
	}
	var list, outs []*cParam
	for _, p := range params {
		list = append(list, p)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].v.ident.StartByte < list[j].v.ident.StartByte })
	// Assigned before any use: a local of the new function, or its
	// return value when used after (one such, and no other value
	// returned).
	for _, p := range list {
		if p.macro != "" || p.v.array || !x.assignedFirst(p.v) {
			continue
		}
		if x.liveAfter(p.v) {
			outs = append(outs, p)
		} else {
			p.local, p.pointer = true, false
		}
	}
	var out *cParam
	if ret == nil && len(outs) == 1 {
		out = outs[0]
		out.pointer = false
	}
	return x.write(name, list, ret, out, root)
}

// assignedFirst reports whether the selection's first use of v assigns it
// with "=" in a statement that runs first among its uses: a selected
// expression statement, or the initializer of a selected for loop, whose
// right side does not read v (its address never taken).
func (x *cExtract) assignedFirst(v *cVar) bool {
	var first *cRef
	for _, r := range v.refs {
		if x.inSelection(r.node.StartByte) {
			if r.addr {
				return false
			}
			if first == nil {
				first = r
			}
		}
	}
	if first == nil || first.parent.Type != "assignment_expression" || first.node.Field != "left" || operatorOf(first.parent) != "=" || len(first.anc) < 2 {
		return false
	}
	asg, stmt := first.parent, first.anc[len(first.anc)-2]
	switch {
	case stmt.Type == "expression_statement" && x.topLevel(stmt):
	case stmt.Type == "for_statement" && asg.Field == "initializer" && x.topLevel(stmt):
	default:
		return false
	}
	right := asg.Child("right")
	for _, r := range v.refs {
		if right != nil && right.StartByte <= r.node.StartByte && r.node.EndByte <= right.EndByte {
			return false
		}
	}
	return true
}

// checkJumps refuses return, goto, labels, case labels outside a switch of
// the selection, and break or continue whose loop or switch is outside it.
func (x *cExtract) checkJumps(where string, n *syntax.Node, within []string) error {
	line := n.StartRow + 1
	switch n.Type {
	case "return_statement":
		return refuse(where, "select the statements before the return, or restructure the function", "the selection returns from %s (line %d)", x.fnName(), line)
	case "goto_statement", "labeled_statement":
		return refuse(where, "select lines without goto and labels", "the selection has a %s at line %d", map[bool]string{true: "goto", false: "label"}[n.Type == "goto_statement"], line)
	case "break_statement":
		if !slices.ContainsFunc(within, func(t string) bool { return t != "" }) {
			return refuse(where, "select the whole loop or switch", "the break at line %d leaves the selection", line)
		}
	case "continue_statement":
		if !slices.Contains(within, "loop") {
			return refuse(where, "select the whole loop", "the continue at line %d leaves the selection", line)
		}
	case "case_statement":
		if !slices.Contains(within, "switch") {
			return refuse(where, "select the whole switch", "the case label at line %d belongs to a switch outside the selection", line)
		}
	case "for_statement", "while_statement", "do_statement":
		within = append(within, "loop")
	case "switch_statement":
		within = append(within, "switch")
	}
	for i := range n.Children {
		if err := x.checkJumps(where, &n.Children[i], within); err != nil {
			return err
		}
	}
	return nil
}

// topLevel reports whether decl is one of the selected statements (its
// names visible after the selection).
func (x *cExtract) topLevel(decl *syntax.Node) bool {
	return slices.Contains(x.stmts, decl)
}

// liveAfter reports whether v, declared before the selection, is used
// after it: later in the function, or elsewhere in a loop around it (or
// between a label and a goto back to it) that v outlives.
func (x *cExtract) liveAfter(v *cVar) bool {
	var spans [][2]int
	for _, p := range x.path {
		if (p.Type == "for_statement" || p.Type == "while_statement" || p.Type == "do_statement") && p.StartByte > v.ident.StartByte {
			spans = append(spans, [2]int{p.StartByte, p.EndByte})
		}
	}
	for _, g := range x.gotos {
		if at, ok := x.labels[g.label]; ok && at < x.s && g.at >= x.e && at > v.ident.StartByte {
			spans = append(spans, [2]int{at, g.at})
		}
	}
	for _, r := range v.refs {
		b := r.node.StartByte
		if x.inSelection(b) || b == v.ident.StartByte {
			continue
		}
		if b >= x.e {
			return true
		}
		for _, sp := range spans {
			if sp[0] <= b && b < sp[1] {
				return true
			}
		}
	}
	return false
}

func (x *cExtract) fnName() string {
	if fd := functionDeclarator(x.fn.Child("declarator")); fd != nil {
		if id, _ := declaredIdent(fd.Child("declarator")); id != nil {
			return id.Text
		}
	}
	return "the function"
}

// --- writing ----------------------------------------------------------------

// typePrefix is a declaration's type as a parameter or return type needs
// it: its specifiers and qualifiers without the storage class.
func typePrefix(decl *syntax.Node) string {
	var parts []string
	for _, ch := range decl.Children {
		if ch.Field == "declarator" {
			break
		}
		if ch.Type == "storage_class_specifier" || ch.Type == "comment" {
			continue
		}
		parts = append(parts, ch.Text)
	}
	return strings.Join(parts, " ")
}

// declaratorWith is v's declarator with its name replaced by repl.
func declaratorWith(v *cVar, repl string) string {
	d := v.declarator
	return d.Text[:v.ident.StartByte-d.StartByte] + repl + d.Text[v.ident.EndByte-d.StartByte:]
}

// write builds the new text: the function before the enclosing one, the
// call in place of the statements. ret is a local the selection declares
// and returns (the call declares it), out one declared before that the
// selection assigns first and returns (the call assigns it).
func (x *cExtract) write(name string, params []*cParam, ret *cVar, out *cParam, root string) (cOutcome, error) {
	unit := "\t"
	if in, ok := lang.ProjectIndent(root, lang.C); ok {
		unit = in.Unit()
	}
	// The body: the selected text, by-pointer uses rewritten, re-indented.
	var edits []preview.ByteEdit
	for _, p := range params {
		if !p.pointer {
			continue
		}
		for _, r := range p.v.refs {
			if x.inSelection(r.node.StartByte) {
				edits = append(edits, x.derefEdit(r))
			}
		}
	}
	sort.Slice(edits, func(i, j int) bool { return edits[i].Start < edits[j].Start })
	body, err := preview.ApplyByteEdits(x.text[x.s:x.e], edits)
	if err != nil {
		return cOutcome{}, apierr.Errorf(apierr.OperationFailed, "report this", "rewrite the extracted statements: %v", err)
	}
	lineStart := strings.LastIndexByte(x.text[:x.s], '\n') + 1
	base := x.text[lineStart:x.s]
	if strings.TrimSpace(base) != "" {
		base = base[:len(base)-len(strings.TrimLeft(base, " \t"))]
	}
	// Declarations first (the locals it assigns first), then the body.
	var lines []string
	for _, p := range params {
		if p.local || p == out {
			lines = append(lines, unit+typePrefix(p.v.decl)+" "+strings.TrimSpace(p.v.declarator.Text)+";")
		}
	}
	for i, l := range strings.Split(body, "\n") {
		if i > 0 {
			l = strings.TrimPrefix(l, base)
		}
		switch {
		case strings.TrimSpace(l) == "":
			l = ""
		case strings.HasPrefix(l, "#") && (i > 0 || lineStart == x.s):
			// A directive at column 0 stays there.
		default:
			l = unit + l
		}
		lines = append(lines, l)
	}
	rv := ret
	if out != nil {
		rv = out.v
	}
	if rv != nil {
		lines = append(lines, unit+"return "+rv.name+";")
	}
	// The head, in the enclosing function's style.
	var ps, args []string
	for _, p := range params {
		if p.local || p == out {
			continue
		}
		decl, arg := p.v.declarator.Text, p.v.name
		if p.pointer {
			decl, arg = declaratorWith(p.v, "*"+p.v.name), "&"+p.v.name
		}
		ps = append(ps, typePrefix(p.v.decl)+" "+strings.TrimSpace(decl))
		args = append(args, arg)
	}
	if len(ps) == 0 {
		ps = []string{"void"}
	}
	space := ""
	if fd := functionDeclarator(x.fn.Child("declarator")); fd != nil {
		if d, p := fd.Child("declarator"), fd.Child("parameters"); d != nil && p != nil && p.StartByte > d.EndByte {
			space = " "
		}
	}
	const paramsAt = "\x00" // where the parameter list goes, once its column is known
	callee := name + space + "(" + paramsAt + ")"
	callSpace := ""
	if call := firstOfType(x.body, "call_expression"); call != nil {
		if f, a := call.Child("function"), call.Child("arguments"); f != nil && a != nil && a.StartByte > f.EndByte {
			callSpace = " "
		}
	}
	retType, head := "void", ""
	if rv != nil {
		retType = typePrefix(rv.decl)
		callee = strings.TrimSpace(declaratorWith(rv, callee))
		if strings.HasPrefix(callee, "*") {
			// "int *name(...)": the pointer goes with the name.
			retType += " "
		}
	}
	sep := " "
	if id, _ := declaredIdent(functionDeclarator(x.fn.Child("declarator"))); id != nil && id.StartRow > x.fn.StartRow {
		sep = "\n" // the return type on a line of its own
	}
	switch {
	case strings.HasSuffix(retType, " ") && sep == " ":
		head = "static " + retType + callee
	case strings.HasSuffix(retType, " "):
		// "static char *" on its line, the name at column 0.
		stars := callee[:len(callee)-len(strings.TrimLeft(callee, "* "))]
		head = "static " + retType + strings.TrimSpace(stars) + sep + callee[len(stars):]
	default:
		head = "static " + retType + sep + callee
	}
	col := strings.Index(head, paramsAt) - (strings.LastIndexByte(head[:strings.Index(head, paramsAt)], '\n') + 1)
	head = strings.Replace(head, paramsAt, wrapList(ps, col, ""), 1)
	if x.body.StartRow > x.fn.Child("declarator").EndRow {
		head += "\n{\n"
	} else {
		head += " {\n"
	}
	at := x.insertionPoint()
	// As many blank lines after it as the file has before.
	blank := 0
	for b := at - 1; b > 0 && x.text[b] == '\n' && x.text[b-1] == '\n'; b-- {
		blank++
	}
	gap := strings.Repeat("\n", min(max(blank, 1), 2))
	fnText := head + strings.Join(lines, "\n") + "\n}\n" + gap
	call := ""
	switch {
	case ret != nil:
		call = typePrefix(ret.decl) + " " + strings.TrimSpace(ret.declarator.Text) + " = "
	case out != nil:
		call = out.v.name + " = "
	}
	call += name + callSpace + "("
	call += wrapList(args, len(base)+len(call), base) + ");"
	// A local that moved into the new function whole leaves its
	// declaration behind unused: it goes too.
	var moved []preview.ByteEdit
	for _, p := range params {
		if p.local && !x.usedOutside(p.v) && !p.v.static {
			if cut, ok := x.declarationCut(p.v); ok && cut.Start >= at {
				moved = append(moved, cut)
			}
		}
	}
	sort.Slice(moved, func(i, j int) bool { return moved[i].Start < moved[j].Start })
	before, err := preview.ApplyByteEdits(x.text[at:x.s], shifted(moved, -at))
	if err != nil {
		return cOutcome{}, apierr.Errorf(apierr.OperationFailed, "report this", "remove the moved declarations: %v", err)
	}
	text := x.text[:at] + fnText + before + call + x.text[x.e:]
	return cOutcome{text: text, note: x.note(name, params, rv)}, nil
}

func shifted(edits []preview.ByteEdit, by int) []preview.ByteEdit {
	out := make([]preview.ByteEdit, len(edits))
	for i, e := range edits {
		out[i] = preview.ByteEdit{Start: e.Start + by, End: e.End + by, Text: e.Text}
	}
	return out
}

// usedOutside reports whether v is named outside the selection (its own
// declaration aside).
func (x *cExtract) usedOutside(v *cVar) bool {
	for _, r := range v.refs {
		if !x.inSelection(r.node.StartByte) {
			return true
		}
	}
	return false
}

// declarationCut is the edit removing v's declarator from its declaration
// ("int i;" whole, with its line and a comment ending it; ", i" from "int
// n, i;"), ok false for one with an initializer or a parameter.
func (x *cExtract) declarationCut(v *cVar) (preview.ByteEdit, bool) {
	d := v.decl
	if d.Type != "declaration" {
		return preview.ByteEdit{}, false
	}
	var decls []*syntax.Node
	for i := range d.Children {
		if d.Children[i].Field == "declarator" {
			decls = append(decls, &d.Children[i])
		}
	}
	k := slices.Index(decls, v.declarator)
	if k < 0 {
		return preview.ByteEdit{}, false
	}
	if len(decls) > 1 {
		if k == 0 {
			return preview.ByteEdit{Start: decls[0].StartByte, End: decls[1].StartByte}, true
		}
		return preview.ByteEdit{Start: decls[k-1].EndByte, End: decls[k].EndByte}, true
	}
	start := strings.LastIndexByte(x.text[:d.StartByte], '\n') + 1
	if strings.TrimSpace(x.text[start:d.StartByte]) != "" {
		return preview.ByteEdit{Start: d.StartByte, End: d.EndByte}, true
	}
	end := d.EndByte
	nl := strings.IndexByte(x.text[end:], '\n')
	if nl < 0 {
		return preview.ByteEdit{Start: start, End: len(x.text)}, true
	}
	rest := strings.TrimSpace(x.text[end : end+nl])
	if rest == "" || strings.HasPrefix(rest, "//") || strings.HasPrefix(rest, "/*") && strings.HasSuffix(rest, "*/") && strings.Count(rest, "*/") == 1 {
		return preview.ByteEdit{Start: start, End: end + nl + 1}, true
	}
	return preview.ByteEdit{Start: d.StartByte, End: d.EndByte}, true
}

// derefEdit rewrites a use of a by-pointer parameter: &p to p, p.f to
// p->f, (*p) where a postfix operator follows, *p elsewhere.
func (x *cExtract) derefEdit(r *cRef) preview.ByteEdit {
	n, p := r.node, r.parent
	start, end := n.StartByte-x.s, n.EndByte-x.s
	switch {
	case p.Type == "pointer_expression" && operatorOf(p) == "&" && n.Field == "argument":
		return preview.ByteEdit{Start: p.StartByte - x.s, End: end, Text: n.Text}
	case p.Type == "field_expression" && n.Field == "argument" && operatorOf(p) == ".":
		op := p.Child("operator")
		return preview.ByteEdit{Start: start, End: op.EndByte - x.s, Text: n.Text + "->"}
	case p.Type == "update_expression" || p.Type == "subscript_expression" && n.Field == "argument" ||
		p.Type == "call_expression" && n.Field == "function" || p.Type == "field_expression" && n.Field == "argument":
		return preview.ByteEdit{Start: start, End: end, Text: "(*" + n.Text + ")"}
	}
	if b := n.StartByte; b > 0 && (x.text[b-1] == '/' || x.text[b-1] == '*') {
		return preview.ByteEdit{Start: start, End: end, Text: "(*" + n.Text + ")"} // not "/*"
	}
	return preview.ByteEdit{Start: start, End: end, Text: "*" + n.Text}
}

// insertionPoint is the start of the enclosing function's line, or of the
// comment right above it.
func (x *cExtract) insertionPoint() int {
	at := strings.LastIndexByte(x.text[:x.fn.StartByte], '\n') + 1
	for at > 0 {
		prevStart := strings.LastIndexByte(x.text[:at-1], '\n') + 1
		l := strings.TrimSpace(x.text[prevStart : at-1])
		if !strings.HasPrefix(l, "/*") && !strings.HasPrefix(l, "*") && !strings.HasPrefix(l, "//") {
			break
		}
		at = prevStart
	}
	return at
}

func (x *cExtract) note(name string, params []*cParam, ret *cVar) string {
	var parts, locals []string
	for _, p := range params {
		s := p.v.name
		switch {
		case p.v == ret:
			continue
		case p.local:
			locals = append(locals, s)
			continue
		case p.pointer:
			s += " by pointer (assigned or its address taken, and used after)"
		case p.implicit != "":
			s += " (named by the macro " + p.implicit + ")"
		}
		parts = append(parts, s)
	}
	note := "static " + name + " before " + x.fnName() + "; parameters: "
	if len(parts) == 0 {
		note += "none"
	} else {
		note += strings.Join(parts, ", ")
	}
	if len(locals) > 0 {
		note += "; declared in it (assigned first, not used after): " + strings.Join(locals, ", ")
	}
	if ret != nil {
		note += "; returns " + ret.name
	}
	return note + " (clangd offers no extract function in C: computed from the tree-sitter tree)"
}

// cLineWidth is where a new function's head or call wraps its list.
const cLineWidth = 80

// wrapList joins items with ", ", wrapping before an item that would pass
// cLineWidth, the next line aligned under the first item (at column col,
// indent the start of that column's whitespace: the call's tabs kept).
func wrapList(items []string, col int, indent string) string {
	var b strings.Builder
	width := col
	pad := indent + strings.Repeat(" ", max(col-len(indent), 0))
	for i, it := range items {
		if i > 0 {
			if width+2+len(it) > cLineWidth-2 {
				b.WriteString(",\n" + pad)
				width = col
			} else {
				b.WriteString(", ")
				width += 2
			}
		}
		b.WriteString(it)
		width += len(it)
	}
	return b.String()
}

// firstOfType is the first node of type typ in n's tree, nil when none.
func firstOfType(n *syntax.Node, typ string) *syntax.Node {
	if n.Type == typ {
		return n
	}
	for i := range n.Children {
		if f := firstOfType(&n.Children[i], typ); f != nil {
			return f
		}
	}
	return nil
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// --- macros -------------------------------------------------------------------

// cMacroDef is a macro of the file or of a project header it includes.
type cMacroDef struct {
	cMacro
	body, file string
}

// cSource is a file's text, by workspace path.
type cSource struct{ rel, abs, text string }

// projectHeaders reads the project headers path includes ("..." includes
// resolved as lang.C does, transitively, inside the workspace), text
// first.
func projectHeaders(c *lsp.Client, path, text string) []cSource {
	root := c.Session.Root()
	scope := lang.NewScope(root.Dir())
	seen := map[string]bool{path: true}
	out := []cSource{{rel: root.Rel(path), abs: path, text: text}}
	for i := 0; i < len(out); i++ {
		for _, imp := range lang.C.Imports.Parse(out[i].text) {
			if imp.System {
				continue
			}
			for _, p := range lang.C.Imports.Resolve(scope, out[i].abs, imp) {
				if seen[p] || !root.Contains(p) || root.Sensitive(p) {
					continue
				}
				seen[p] = true
				if data, err := os.ReadFile(p); err == nil {
					out = append(out, cSource{rel: root.Rel(p), abs: p, text: string(data)})
				}
			}
		}
	}
	return out
}

// projectMacros is the #defines of sources: name to definition, the
// first one found kept.
func projectMacros(sources []cSource) map[string]cMacroDef {
	out := map[string]cMacroDef{}
	for _, f := range sources {
		for _, m := range cMacros(f.text) {
			if _, dup := out[m.name]; !dup {
				out[m.name] = cMacroDef{cMacro: m, body: f.text[m.bodyStart:m.bodyEnd], file: f.rel}
			}
		}
	}
	return out
}

var cJumpWord = regexp.MustCompile(`\b(return|goto|break|continue)\b`)

// macroJump is the jump (return, goto, break, continue) macro nm's body
// holds, directly or through the macros it uses, as "break (vmbreak)";
// "" when none.
func macroJump(nm string, macros map[string]cMacroDef, seen map[string]bool) string {
	mac, ok := macros[nm]
	if !ok || seen[nm] {
		return ""
	}
	seen[nm] = true
	if m := cJumpWord.FindString(mac.body); m != "" {
		return m + " (" + nm + ", " + mac.file + ")"
	}
	for _, t := range lang.Identifiers(lang.C, mac.body) {
		if j := macroJump(mac.body[t.Start:t.End], macros, seen); j != "" {
			return j
		}
	}
	return ""
}

type macroUse struct {
	macro   string // the macro whose body names it
	assigns bool
}

var cAssignAfter = regexp.MustCompile(`^\s*(=[^=]|[-+*/%&|^]=|<<=|>>=|\+\+|--)`)
var cAssignBefore = regexp.MustCompile(`(\+\+|--|[^&]&)\s*$`)

// macroLocals lists the names macro nm's body (and the macros it uses,
// transitively) names that are not its parameters, with the macro that
// names each and whether it assigns it.
func macroLocals(nm string, macros map[string]cMacroDef, seen map[string]bool) map[string]macroUse {
	out := map[string]macroUse{}
	var visit func(string)
	visit = func(name string) {
		mac, ok := macros[name]
		if !ok || seen[name] {
			return
		}
		seen[name] = true
		for _, t := range lang.Identifiers(lang.C, mac.body) {
			w := mac.body[t.Start:t.End]
			if before := strings.TrimRight(mac.body[:t.Start], " \t"); mac.params[w] || strings.HasSuffix(before, ".") || strings.HasSuffix(before, "->") {
				continue // a parameter, or a member's name
			}
			if _, isMacro := macros[w]; isMacro {
				visit(w)
				continue
			}
			u := out[w]
			if u.macro == "" {
				u.macro = name
			}
			if cAssignAfter.MatchString(mac.body[t.End:]) || cAssignBefore.MatchString(" "+mac.body[:t.Start]) {
				u.assigns, u.macro = true, name
			}
			out[w] = u
		}
	}
	visit(nm)
	return out
}
