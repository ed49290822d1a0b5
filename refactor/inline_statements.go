package refactor

// Inlining a function whose body is statements (Python): where the call is
// a whole statement's value (`f(a)`, `x = f(a)`, `return f(a)`), the body's
// statements take the statement's place, re-indented, with the parameters
// replaced by the arguments (an argument with side effects, or a parameter
// the body assigns to, bound to a local first, in the arguments' order),
// the body's own names renamed where the caller already uses them, and its
// final return expression put where the call was. A body with an early
// return (a return that is not its last statement), a yield, an await, a
// global or nonlocal statement, or a nested def or class is refused with
// the reason; a call anywhere else (inside an expression) is left alone.

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/nvbridge/nvbridge/lsp"
	"github.com/nvbridge/nvbridge/preview"
	"github.com/nvbridge/nvbridge/syntax"
)

// stmtBody is a statement body as the inliner reads it.
type stmtBody struct {
	// start, end: the bytes of the statements emitted at the call (the
	// docstring and the final return left out).
	start, end int
	// indent is the body's indentation.
	indent string
	// ret is the final return's expression (nil: none, the value None).
	ret *syntax.Node
	// ids are the body's identifiers that are names of the scope (not
	// attributes or keyword names), in order.
	ids []syntax.Node
	// locals are the names the body binds (assignments, for targets,
	// with and except aliases, comprehension variables).
	locals map[string]bool
	// earlyReturn: a return that is not the body's last statement; the
	// body then replaces only a returned call (return f(a)), with its
	// returns as they are.
	earlyReturn bool
	// whole is the end of the body with its final return; endsInReturn
	// whether its last statement is one.
	whole        int
	endsInReturn bool
}

const pyStmtQuery = `
(return_statement) @ret
(yield) @bad
(await) @bad
(global_statement) @bad
(nonlocal_statement) @bad
(function_definition) @bad
(class_definition) @bad
(assignment left: (identifier) @bound)
(assignment left: (pattern_list (identifier) @bound))
(assignment left: (tuple_pattern (identifier) @bound))
(augmented_assignment left: (identifier) @bound)
(for_statement left: (identifier) @bound)
(for_statement left: (pattern_list (identifier) @bound))
(for_in_clause left: (identifier) @bound)
(for_in_clause left: (pattern_list (identifier) @bound))
(as_pattern_target (identifier) @bound)
(named_expression name: (identifier) @bound)
`

// readStatementBody reads a body of statements (after its docstring) for
// inlining at statement calls.
func readStatementBody(ctx context.Context, c *lsp.Client, src syntax.Source, st *inlineState, rules *syntaxRules, fn *simpleFunc, stmts []syntax.Node) (*simpleFunc, error) {
	if len(stmts) == 0 {
		return nil, unsupported(st.name, "its body is empty")
	}
	text := st.scratch[st.defRel]
	b := &stmtBody{locals: map[string]bool{}}
	last := stmts[len(stmts)-1]
	first := stmts[0]
	m := preview.NewMapper(text)
	ls, _ := m.LineAround(first.StartByte)
	b.indent = text[ls:first.StartByte]
	b.start, b.end, b.whole = ls, last.EndByte, last.EndByte
	b.endsInReturn = last.Type == "return_statement"
	if last.Type == "return_statement" {
		b.end = last.StartByte
		ret, _, err := syntax.Enclosing(ctx, c.Session, src, last.StartRow, last.StartCol, []string{"return_statement"}, 1)
		if err != nil {
			return nil, err
		}
		if ch := ret.NamedChildren(); len(ch) == 1 {
			b.ret = &ch[0]
		} else if len(ch) > 1 {
			return nil, unsupported(st.name, "its return has several values")
		}
	}
	startRow, endRow := first.StartRow, last.EndRow
	matches, err := syntax.Query(ctx, c.Session, src, pyStmtQuery+" "+rules.idents, syntax.QueryOptions{StartRow: &startRow, EndRow: &endRow})
	if err != nil {
		return nil, err
	}
	skip := map[int]bool{}
	inBody := func(n syntax.Node) bool { return n.StartByte >= first.StartByte && n.EndByte <= last.EndByte }
	for _, mt := range matches {
		for _, cp := range mt.Captures {
			n := cp.Node
			if !inBody(n) {
				continue
			}
			switch cp.Name {
			case "ret":
				if n.StartByte != last.StartByte || last.Type != "return_statement" {
					b.earlyReturn = true
				}
			case "bad":
				return nil, unsupported(st.name, "its body has a "+n.Type+" (line "+fmt.Sprint(n.StartRow+1)+")")
			case "bound":
				b.locals[n.Text] = true
			case "skip":
				skip[n.StartByte] = true
			}
		}
	}
	for _, mt := range matches {
		if id := mt.Get("id"); id != nil && inBody(*id) && !skip[id.StartByte] {
			b.ids = append(b.ids, *id)
		}
	}
	sort.Slice(b.ids, func(i, j int) bool { return b.ids[i].StartByte < b.ids[j].StartByte })
	// Free names: neither parameters nor the body's own.
	params := map[string]bool{}
	for _, p := range fn.params {
		params[p.name] = true
	}
	seen := map[string]bool{}
	for _, id := range b.ids {
		if !params[id.Text] && !b.locals[id.Text] && !rules.builtins[id.Text] && !seen[id.Text] {
			seen[id.Text] = true
			fn.free = append(fn.free, id.Text)
		}
	}
	fn.stmts = b
	return fn, nil
}

// inlineStatementCall inlines the call (its arguments mapped to the
// parameters) when it is a whole statement's value.
func inlineStatementCall(ctx context.Context, c *lsp.Client, st *inlineState, rules *syntaxRules, fn *simpleFunc, text string, src syntax.Source, call *syntax.Node, args []*syntax.Node) (string, string, error) {
	b := fn.stmts
	stmt, anc, err := syntax.Enclosing(ctx, c.Session, src, call.StartRow, call.StartCol, []string{"expression_statement", "return_statement"}, 2)
	if err != nil {
		return "", "", err
	}
	if stmt == nil || len(anc) == 0 || !rules.blocks[anc[0]] {
		return "", "its body is statements, and the call is not a statement of a block", nil
	}
	// What the statement does with the value: nothing, assign it, return it.
	var head string
	switch {
	case stmt.Type == "return_statement" && strings.TrimSpace(strings.TrimPrefix(stmt.Text, "return")) == call.Text:
		head = "return "
	case stmt.Type == "expression_statement" && stmt.Text == call.Text:
		head = ""
	case stmt.Type == "expression_statement":
		eq := strings.Index(stmt.Text, "=")
		if eq <= 0 || strings.TrimSpace(stmt.Text[eq+1:]) != call.Text || strings.ContainsAny(stmt.Text[:eq], "=<>!+-*/%&|^@:(") {
			return "", "its body is statements, and the call is inside an expression (only a call that is a statement, an assignment's value or a return's is inlined)", nil
		}
		head = strings.TrimRight(stmt.Text[:eq], " ") + " = "
	default:
		return "", "its body is statements, and the call is inside an expression", nil
	}
	if b.earlyReturn && head != "return " {
		return "", "its body returns early, which only a returned call (return f(...)) keeps as it is", nil
	}
	m := preview.NewMapper(text)
	lineStart, lineEnd := m.WholeLines(stmt.StartByte, stmt.EndByte)
	indent := text[lineStart:stmt.StartByte]
	if strings.TrimSpace(indent) != "" || strings.TrimSpace(stripHash(text[stmt.EndByte:lineEnd])) != "" {
		return "", "the statement shares its line with other code", nil
	}
	// Names the caller uses: the body's own names and bound parameters
	// must not take them.
	scopeStart, scopeEnd := 0, len(text)
	if enc, err := syntax.EnclosingFunction(ctx, c.Session, src, call.StartRow, call.StartCol); err != nil {
		return "", "", err
	} else if enc != nil {
		scopeStart, scopeEnd = enc.StartByte, enc.EndByte
	}
	taken := map[string]bool{}
	ids, err := syntax.Captures(ctx, c.Session, src, `(identifier) @id`, "id", 0)
	if err != nil {
		return "", "", err
	}
	for _, id := range ids {
		if id.StartByte >= scopeStart && id.EndByte <= scopeEnd {
			taken[id.Text] = true
		}
	}
	fresh := func(name string) string {
		n := name
		for i := 1; taken[n] || fn.usesName(n) && n != name; i++ {
			n = fmt.Sprintf("%s_%d", name, i)
		}
		taken[n] = true
		return n
	}
	if len(fn.free) > 0 {
		if why, err := shadowed(ctx, c, src, rules, call, fn.free); err != nil || why != "" {
			return "", why, err
		}
	}
	// Parameters: substituted when the argument is a name or a literal the
	// body never assigns to, else bound to a local first (in order).
	rename := map[string]string{}
	var bindings []string
	for i, p := range fn.params {
		a := args[i]
		value := ""
		switch {
		case a == nil && p.hasDef && p.def != "":
			value = p.def
		case a == nil && p.hasDef:
			return "", "parameter " + p.name + " is omitted and its default is not a literal", nil
		case a == nil:
			return "", "no argument for parameter " + p.name, nil
		default:
			value = a.Text
		}
		simple := a == nil || rules.pure[a.Type] && !isFString(a)
		if simple && !b.locals[p.name] && !(a != nil && a.Type == "identifier" && b.locals[a.Text]) {
			rename[p.name] = value
			continue
		}
		local := fresh(p.name)
		st.bind(p.name, local)
		rename[p.name] = local
		bindings = append(bindings, local+" = "+value)
	}
	for name := range b.locals {
		if _, isParam := rename[name]; isParam {
			continue
		}
		if taken[name] {
			rename[name] = fresh(name)
		} else {
			taken[name] = true
		}
		if r, ok := rename[name]; ok {
			st.bind(name, r)
		} else {
			st.bind(name, name)
		}
	}
	// The body with its names replaced, re-indented.
	defText := st.scratch[st.defRel]
	rewrite := func(start, end int) string {
		var sb strings.Builder
		last := start
		for _, id := range b.ids {
			if id.StartByte < start || id.EndByte > end {
				continue
			}
			if r, ok := rename[id.Text]; ok && r != id.Text {
				sb.WriteString(defText[last:id.StartByte])
				sb.WriteString(r)
				last = id.EndByte
			}
		}
		sb.WriteString(defText[last:end])
		return sb.String()
	}
	var out strings.Builder
	for _, bnd := range bindings {
		out.WriteString(indent + bnd + "\n")
	}
	bodyEnd := b.end
	if b.earlyReturn {
		bodyEnd = b.whole // its returns are the caller's
	}
	if body := rewrite(b.start, bodyEnd); strings.TrimSpace(body) != "" {
		for _, line := range strings.SplitAfter(strings.TrimRight(body, " \t\n")+"\n", "\n") {
			if line == "" {
				continue
			}
			switch {
			case strings.TrimSpace(line) == "":
				out.WriteString("\n")
			case strings.HasPrefix(line, b.indent):
				out.WriteString(indent + strings.TrimPrefix(line, b.indent))
			default:
				out.WriteString(line) // a continuation inside brackets or a string
			}
		}
	}
	switch {
	case b.earlyReturn:
		// The body's own returns end the caller; falling off its end
		// returns None.
		if !b.endsInReturn {
			out.WriteString(indent + "return None\n")
		}
	case b.ret != nil:
		ret := rewrite(b.ret.StartByte, b.ret.EndByte)
		if head == "" && sideEffectFree(ret) {
			break // its value was not used
		}
		out.WriteString(indent + head + ret + "\n")
	case head == "return ":
		out.WriteString(indent + "return None\n")
	case head != "":
		out.WriteString(indent + head + "None\n")
	}
	newText := text[:lineStart] + out.String() + text[lineEnd:]
	if !strings.HasSuffix(text[lineStart:lineEnd], "\n") {
		newText = strings.TrimSuffix(newText, "\n")
	}
	return newText, "", nil
}

// usesName reports whether the function's body uses name (so a fresh name
// must avoid it).
func (fn *simpleFunc) usesName(name string) bool {
	if fn.stmts == nil {
		return false
	}
	for _, id := range fn.stmts.ids {
		if id.Text == name {
			return true
		}
	}
	return false
}
