package refactor

// Go's syntax for change_signature, from go/parser: function and method
// declarations, interface methods, call expressions, and which arguments
// are free of side effects.

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"strings"

	"github.com/nvbridge/nvbridge/lang"
	"github.com/nvbridge/nvbridge/lsp"
	"github.com/nvbridge/nvbridge/preview"
)

func init() {
	sigLanguages.register(lang.Go, func(*lsp.Client) sigSyntax { return goSigSyntax{} })
}

type goSigSyntax struct{}

// Go's parameters: an added one needs a type, none is optional, a call
// passing another count passes a multi-value call's results, and gopls
// rewrites some changes itself.
func (goSigSyntax) rules() sigRules {
	return sigRules{requireType: true, exactArity: true, serverRewrites: true}
}

func parseGo(text string) (*token.FileSet, *ast.File) {
	fset := token.NewFileSet()
	// Errors are tolerated: a file being edited still has most of its tree.
	f, _ := parser.ParseFile(fset, "x.go", text, parser.SkipObjectResolution|parser.ParseComments)
	return fset, f
}

func (goSigSyntax) funcAt(_ context.Context, _ string, m *preview.Mapper, off int) (*sigFunc, error) {
	text := m.Text()
	fset, file := parseGo(text)
	if file == nil {
		return nil, nil
	}
	at := func(p token.Pos) int { return fset.Position(p).Offset }
	covers := func(id *ast.Ident) bool {
		return id != nil && at(id.Pos()) <= off && off <= at(id.End())
	}
	var out *sigFunc
	ast.Inspect(file, func(n ast.Node) bool {
		if out != nil {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncDecl:
			if covers(n.Name) {
				out = goFunc(text, at, n.Name, n.Type, n.Body)
				out.Method = n.Recv != nil
				out.Comments = goComments(file, n.Type.Params.Opening, n.Type.Params.Closing)
				head := text[at(n.Pos()):at(n.Type.End())]
				out.Signature = oneLine(head)
				return false
			}
		case *ast.InterfaceType:
			for _, m := range n.Methods.List {
				ft, ok := m.Type.(*ast.FuncType)
				if !ok || len(m.Names) != 1 || !covers(m.Names[0]) {
					continue
				}
				out = goFunc(text, at, m.Names[0], ft, nil)
				out.Method = true
				out.Comments = goComments(file, ft.Params.Opening, ft.Params.Closing)
				out.Signature = oneLine(m.Names[0].Name + text[at(ft.Params.Pos()):at(ft.End())])
				return false
			}
		}
		return true
	})
	return out, nil
}

// goFunc describes a declaration: its flattened parameters and, for a body,
// the uses of each parameter (identifiers resolved by a scope walk).
func goFunc(text string, at func(token.Pos) int, name *ast.Ident, ft *ast.FuncType, body *ast.BlockStmt) *sigFunc {
	fn := &sigFunc{Name: name.Name, NameOff: at(name.Pos()), HasBody: body != nil, BodyNames: map[string]bool{}}
	fn.ListStart, fn.ListEnd = at(ft.Params.Opening)+1, at(ft.Params.Closing)
	list := text[fn.ListStart:fn.ListEnd]
	fn.Multiline = strings.Contains(strings.TrimSpace(list), "\n")
	if fn.Multiline {
		for _, l := range strings.Split(list, "\n")[1:] {
			if t := strings.TrimLeft(l, " \t"); t != "" {
				fn.Indent = l[:len(l)-len(t)]
				break
			}
		}
	}
	for g, fld := range ft.Params.List {
		typ := text[at(fld.Type.Pos()):at(fld.Type.End())]
		_, variadic := fld.Type.(*ast.Ellipsis)
		if len(fld.Names) == 0 {
			fn.Params = append(fn.Params, sigParam{Type: typ, Text: typ, Variadic: variadic, Group: g + 1,
				Start: at(fld.Type.Pos()), End: at(fld.Type.End())})
			continue
		}
		for _, id := range fld.Names {
			fn.Params = append(fn.Params, sigParam{Name: id.Name, Type: typ, Text: id.Name + " " + typ, Variadic: variadic, Group: g + 1,
				Start: at(id.Pos()), End: at(id.End())})
		}
	}
	if body == nil {
		return fn
	}
	ast.Inspect(body, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			fn.BodyNames[id.Name] = true
		}
		return true
	})
	for i := range fn.Params {
		if name := fn.Params[i].Name; name != "" && name != "_" {
			fn.Params[i].Uses = goUses(body, name, at)
		}
	}
	return fn
}

// goUses finds the identifiers in body that refer to the parameter name:
// a walk that stops at declarations shadowing it (a := in a block, a
// function literal's parameter, a range or type switch variable).
func goUses(body *ast.BlockStmt, name string, at func(token.Pos) int) []int {
	var uses []int
	var walk func(n ast.Node, shadowedFrom token.Pos)
	declares := func(idents []*ast.Ident) bool {
		for _, id := range idents {
			if id.Name == name {
				return true
			}
		}
		return false
	}
	walk = func(root ast.Node, _ token.Pos) {
		ast.Inspect(root, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				walk(n.X, 0)
				return false // x.name is a field, not the parameter
			case *ast.CompositeLit:
				if _, isMap := n.Type.(*ast.MapType); isMap {
					return true // a map literal's keys are expressions
				}
				if n.Type != nil {
					walk(n.Type, 0)
				}
				for _, el := range n.Elts {
					if kv, ok := el.(*ast.KeyValueExpr); ok {
						if _, ok := kv.Key.(*ast.Ident); ok {
							// A struct literal's field name (or, in a literal
							// whose type is not written, a map key: without
							// types the field reading is taken).
							walk(kv.Value, 0)
							continue
						}
					}
					walk(el, 0)
				}
				return false
			case *ast.FuncLit:
				for _, f := range n.Type.Params.List {
					if declares(f.Names) {
						return false
					}
				}
			case *ast.BlockStmt:
				// A block that declares the name shadows it from there on.
				for i, st := range n.List {
					if shadows(st, declares) {
						for _, before := range n.List[:i] {
							walk(before, 0)
						}
						// The declaring statement's right-hand side still sees the parameter.
						if as, ok := st.(*ast.AssignStmt); ok {
							for _, r := range as.Rhs {
								walk(r, 0)
							}
						}
						return false
					}
				}
			case *ast.Ident:
				if n.Name == name {
					uses = append(uses, at(n.Pos()))
				}
			}
			return true
		})
	}
	walk(body, 0)
	return uses
}

// shadows says whether a statement declares the name in its block.
func shadows(st ast.Stmt, declares func([]*ast.Ident) bool) bool {
	switch st := st.(type) {
	case *ast.AssignStmt:
		if st.Tok != token.DEFINE {
			return false
		}
		var ids []*ast.Ident
		for _, l := range st.Lhs {
			if id, ok := l.(*ast.Ident); ok {
				ids = append(ids, id)
			}
		}
		return declares(ids)
	case *ast.DeclStmt:
		if g, ok := st.Decl.(*ast.GenDecl); ok {
			for _, s := range g.Specs {
				if v, ok := s.(*ast.ValueSpec); ok && declares(v.Names) {
					return true
				}
			}
		}
	}
	return false
}

func (goSigSyntax) callAt(_ context.Context, _ string, m *preview.Mapper, off int) (*sigCall, string, error) {
	text := m.Text()
	fset, file := parseGo(text)
	if file == nil {
		return nil, "the file does not parse", nil
	}
	at := func(p token.Pos) int { return fset.Position(p).Offset }
	var out *sigCall
	ast.Inspect(file, func(n ast.Node) bool {
		if out != nil {
			return false
		}
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		fun := call.Fun
		for {
			switch f := fun.(type) {
			case *ast.ParenExpr:
				fun = f.X
				continue
			case *ast.IndexExpr:
				fun = f.X
				continue
			case *ast.IndexListExpr:
				fun = f.X
				continue
			}
			break
		}
		var id *ast.Ident
		switch f := fun.(type) {
		case *ast.Ident:
			id = f
		case *ast.SelectorExpr:
			id = f.Sel
		}
		if id == nil || at(id.Pos()) != off {
			return true
		}
		out = &sigCall{ListStart: at(call.Lparen) + 1, ListEnd: at(call.Rparen), Comments: goComments(file, call.Lparen, call.Rparen)}
		for i, a := range call.Args {
			arg := sigArg{Text: text[at(a.Pos()):at(a.End())], Start: at(a.Pos()), End: at(a.End()), Pure: goPure(a)}
			if call.Ellipsis.IsValid() && i == len(call.Args)-1 {
				arg.Spread = true
			}
			out.Args = append(out.Args, arg)
		}
		return false
	})
	if out == nil {
		return nil, notCalled, nil
	}
	return out, "", nil
}

// goPure says whether evaluating e can have no side effect (conservative:
// any call but len and cap, a receive, counts as one).
func goPure(e ast.Expr) bool {
	switch e := e.(type) {
	case nil:
		return true
	case *ast.Ident, *ast.BasicLit, *ast.FuncLit:
		return true
	case *ast.ParenExpr:
		return goPure(e.X)
	case *ast.SelectorExpr:
		return goPure(e.X)
	case *ast.StarExpr:
		return goPure(e.X)
	case *ast.UnaryExpr:
		return e.Op != token.ARROW && goPure(e.X)
	case *ast.BinaryExpr:
		return goPure(e.X) && goPure(e.Y)
	case *ast.IndexExpr:
		return goPure(e.X) && goPure(e.Index)
	case *ast.SliceExpr:
		return goPure(e.X) && goPure(e.Low) && goPure(e.High) && goPure(e.Max)
	case *ast.TypeAssertExpr:
		return goPure(e.X)
	case *ast.KeyValueExpr:
		return goPure(e.Key) && goPure(e.Value)
	case *ast.CompositeLit:
		for _, el := range e.Elts {
			if !goPure(el) {
				return false
			}
		}
		return true
	case *ast.CallExpr:
		if id, ok := e.Fun.(*ast.Ident); ok && (id.Name == "len" || id.Name == "cap") {
			for _, a := range e.Args {
				if !goPure(a) {
					return false
				}
			}
			return true
		}
	}
	return false
}

// renderParams writes Go parameters, keeping neighbours that shared a
// type (a, b int) together, and a list that was one per line so.
func (goSigSyntax) renderParams(fn *sigFunc, params []renderedParam) string {
	unnamed := len(fn.Params) > 0
	for _, prm := range fn.Params {
		if prm.Name != "" {
			unnamed = false
		}
	}
	var parts []string
	for i := 0; i < len(params); i++ {
		prm := params[i]
		if unnamed {
			parts = append(parts, prm.Type)
			continue
		}
		names := []string{prm.Name}
		if !fn.Multiline {
			for i+1 < len(params) && prm.Group != 0 && params[i+1].Group == prm.Group && params[i+1].Type == prm.Type {
				i++
				names = append(names, params[i].Name)
			}
		}
		parts = append(parts, strings.Join(names, ", ")+" "+prm.Type)
	}
	if fn.Multiline && len(parts) > 0 {
		return "\n" + fn.Indent + strings.Join(parts, ",\n"+fn.Indent) + ",\n"
	}
	return strings.Join(parts, ", ")
}

// goComments says whether a comment lies between two positions.
func goComments(f *ast.File, from, to token.Pos) bool {
	for _, g := range f.Comments {
		if g.Pos() > from && g.End() <= to {
			return true
		}
	}
	return false
}
