package refactor

// inline_function for Go: gopls's refactor.inline.call on a scratch copy of
// the module (see inline_function.go for why), call site by call site.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/lang"
	"github.com/nvbridge/nvbridge/lsp"
	"github.com/nvbridge/nvbridge/nvim"
	"github.com/nvbridge/nvbridge/preview"
)

// maxScratchFiles bounds the module copied for the Go inliner.
const maxScratchFiles = 20000

func init() { inliners.register(lang.Go, inlineGo) }

func inlineGo(ctx context.Context, c *lsp.Client, st *inlineState) error {
	st.plan.Method = "gopls refactor.inline.call, one call site per step, on a scratch copy of the module (gopls command line)"
	calls, err := st.classifiedCalls(st.classifyGo)
	if err != nil {
		return err
	}
	root := c.Session.Root()
	defAbs, err := root.Resolve(st.defRel)
	if err != nil {
		return err
	}
	modRoot := goModRoot(filepath.Dir(defAbs), root.Dir())
	if modRoot == "" {
		return apierr.Errorf(apierr.PreconditionFailed, "inline in a Go module (a go.mod in the workspace)",
			"no go.mod above %s inside the workspace", st.defRel)
	}
	gopls, err := goplsCommand()
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "nvbridge-inline-")
	if err != nil {
		return apierr.Errorf(apierr.OperationFailed, "check the temporary folder ($TMPDIR)", "scratch folder: %v", err)
	}
	defer os.RemoveAll(tmp)
	scratchRoot := filepath.Join(tmp, "m")
	goFiles, err := copyModule(modRoot, scratchRoot)
	if err != nil {
		return err
	}
	// The current texts of the module's Go files (unsaved buffers too).
	var rels []string
	for _, f := range goFiles {
		rels = append(rels, root.Rel(filepath.Join(modRoot, f)))
	}
	if err := st.load(ctx, c, rels); err != nil {
		return err
	}
	inModule := func(rel string) bool {
		abs := filepath.Join(root.Dir(), rel)
		return strings.HasPrefix(abs, modRoot+string(filepath.Separator))
	}
	inScratch := func(rel string) string {
		r, _ := filepath.Rel(modRoot, filepath.Join(root.Dir(), rel))
		return filepath.Join(scratchRoot, r)
	}
	for rel, text := range st.scratch {
		if !inModule(rel) {
			continue
		}
		if err := os.WriteFile(inScratch(rel), []byte(text), 0o644); err != nil {
			return apierr.Errorf(apierr.OperationFailed, "check the temporary folder", "write the scratch copy: %v", err)
		}
	}
	wasFormatted := map[string]bool{}
	// One gopls on the scratch copy for every call site (the module loaded
	// once); the command line, one gopls per site, when it cannot start.
	var session *goplsSession
	if len(calls) > 1 {
		session, err = startGoplsSession(ctx, gopls, scratchRoot)
		if err != nil {
			session = nil
		} else {
			defer session.close()
			st.plan.Method = "gopls refactor.inline.call, one call site per step, on a scratch copy of the module (one gopls session for every site)"
		}
	}
	relOf := func(path string) string {
		r, _ := filepath.Rel(scratchRoot, path)
		return root.Rel(filepath.Join(modRoot, r))
	}
	err = st.inlineCalls(ctx, calls, " (gopls)", func(s *site) (string, string, error) {
		if !inModule(s.rel) {
			return "", "outside the function's module", nil
		}
		if _, seen := wasFormatted[s.rel]; !seen {
			out, err := format.Source([]byte(st.scratch[s.rel]))
			wasFormatted[s.rel] = err == nil && string(out) == st.scratch[s.rel]
		}
		path := inScratch(s.rel)
		if session != nil {
			texts, why, err := session.inlineAt(ctx, path, st.scratch[s.rel], s.off, func(p string) (string, error) {
				if t, ok := st.scratch[relOf(p)]; ok {
					return t, nil
				}
				data, err := os.ReadFile(p)
				return string(data), err
			})
			if err != nil {
				if ctx.Err() != nil {
					return "", "", apierr.Errorf(apierr.Timeout, "retry with a call_site, or a longer --timeout", "inlining %s was cancelled: %v", st.name, ctx.Err())
				}
				return "", "", apierr.Errorf(apierr.OperationFailed, "retry; report it if it persists", "the scratch gopls failed: %v", err)
			}
			if why != "" {
				return "", why, nil
			}
			text, ok := texts[path]
			if !ok {
				return "", "gopls's edit does not change the call's file", nil
			}
			for p, t := range texts {
				if err := os.WriteFile(p, []byte(t), 0o644); err != nil {
					return "", "", apierr.Errorf(apierr.OperationFailed, "check the temporary folder", "write the scratch copy: %v", err)
				}
				if p != path {
					rel := relOf(p)
					if _, seen := wasFormatted[rel]; !seen {
						out, err := format.Source([]byte(st.scratch[rel]))
						wasFormatted[rel] = err == nil && string(out) == st.scratch[rel]
					}
					st.update(rel, t)
				}
			}
			return text, "", nil
		}
		_, stderr, err := runGopls(ctx, gopls, scratchRoot, "codeaction", "-kind=refactor.inline.call", "-exec", "-write", fmt.Sprintf("%s:#%d", path, s.off))
		if err != nil {
			if ctx.Err() != nil {
				return "", "", apierr.Errorf(apierr.Timeout, "retry with a call_site, or a longer --timeout", "inlining %s was cancelled: %v", st.name, ctx.Err())
			}
			return "", "gopls cannot inline this call: " + goplsReason(stderr, err), nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return "", "", apierr.Errorf(apierr.OperationFailed, "check the temporary folder", "read the scratch copy: %v", err)
		}
		if string(data) == st.scratch[s.rel] {
			return "", "gopls offered no change for this call", nil
		}
		return string(data), "", nil
	})
	if err != nil {
		return err
	}
	if len(st.plan.Replacements) > 0 {
		if why := st.keepReason(); why != "" {
			st.plan.DefinitionKept = why
		} else if why, err := goInterfaceUse(ctx, c, st); err != nil {
			return err
		} else if why != "" {
			st.plan.DefinitionKept = why
		} else if err := st.removeGoDefinition(ctx, gopls, scratchRoot, inScratch(st.defRel)); err != nil {
			st.plan.DefinitionKept = "could not remove it: " + err.Error()
		} else {
			st.plan.DefinitionRemoved = true
		}
	}
	// gofmt what the inliner inserted (its text is not always formatted:
	// import order, indentation of inserted lines): the whole file when it
	// was gofmt-clean before, else only the lines the inlining changed.
	for rel, clean := range wasFormatted {
		out, err := format.Source([]byte(st.scratch[rel]))
		if err != nil || string(out) == st.scratch[rel] {
			continue
		}
		if clean {
			st.scratch[rel] = string(out)
		} else {
			st.scratch[rel] = formatInside(snapshotText(st.orig[rel]), st.scratch[rel], string(out))
		}
	}
	return nil
}

// formatInside applies to inlined the changes formatting made (formatted)
// that lie within the lines the inlining changed (orig to inlined), give
// or take one line, and no other.
func formatInside(orig, inlined, formatted string) string {
	doc := preview.ParseDocument(inlined)
	edits := func(text string) []preview.TextEdit {
		whole := preview.TextEdit{EndLine: len(doc.Lines), NewText: text}
		out, err := preview.Minimize(doc, []preview.TextEdit{whole})
		if err != nil {
			return nil
		}
		return out
	}
	changed := edits(orig) // ranges of inlined that differ from orig
	var keep []preview.TextEdit
	for _, f := range edits(formatted) {
		for _, c := range changed {
			if f.StartLine >= c.StartLine-1 && f.EndLine <= c.EndLine+1 {
				keep = append(keep, f)
				break
			}
		}
	}
	if len(keep) == 0 {
		return inlined
	}
	out, err := preview.Apply(doc, keep)
	if err != nil {
		return inlined
	}
	return out.Mapper().Text()
}

// classifyGo tells calls from other uses, with go/parser.
func (st *inlineState) classifyGo() error {
	fset := token.NewFileSet()
	parsed := map[string]*ast.File{}
	for _, s := range st.sites {
		f, ok := parsed[s.rel]
		if !ok {
			var err error
			f, err = parser.ParseFile(fset, s.rel, st.scratch[s.rel], parser.SkipObjectResolution)
			if err != nil {
				f = nil
			}
			parsed[s.rel] = f
		}
		if f == nil {
			s.kind, s.reason = siteOther, "the file does not parse"
			continue
		}
		kind, inSelf := goUse(fset, f, s.off, st.defRel == s.rel, st.defOff)
		switch {
		case kind == "call" && inSelf:
			s.kind, s.reason = siteCall, reasonRecursion
		case kind == "call":
			s.kind = siteCall
		case kind == "import":
			s.kind, s.reason = siteOther, "not a call"
		default:
			s.kind, s.reason = siteOther, "used as a value (not called)"
		}
	}
	return nil
}

// goUse says how the identifier at off is used ("call" or "value") and
// whether it is inside the declaration whose name is at defOff.
func goUse(fset *token.FileSet, f *ast.File, off int, sameFile bool, defOff int) (kind string, inSelf bool) {
	var stack []ast.Node
	kind = "value"
	ast.Inspect(f, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return false
		}
		if off < fset.Position(n.Pos()).Offset || off >= fset.Position(n.End()).Offset {
			return false
		}
		stack = append(stack, n)
		id, ok := n.(*ast.Ident)
		if !ok || fset.Position(id.Pos()).Offset != off {
			return true
		}
		// The callee expression: the identifier, or X.Name.
		i := len(stack) - 1
		var callee ast.Expr = id
		if i > 0 {
			if sel, ok := stack[i-1].(*ast.SelectorExpr); ok && sel.Sel == id {
				callee = sel
				i--
			}
		}
		for i > 0 {
			if p, ok := stack[i-1].(*ast.ParenExpr); ok {
				callee = p
				i--
				continue
			}
			break
		}
		if i > 0 {
			if call, ok := stack[i-1].(*ast.CallExpr); ok && call.Fun == callee {
				kind = "call"
			}
		}
		for _, a := range stack {
			if fd, ok := a.(*ast.FuncDecl); ok && sameFile && fset.Position(fd.Name.Pos()).Offset == defOff {
				inSelf = true
			}
		}
		return false
	})
	return kind, inSelf
}

// goInterfaceUse says why a method must stay (an interface in the
// workspace declares it, so some value may be used through it), "" for a
// function or a method no interface needs.
func goInterfaceUse(ctx context.Context, c *lsp.Client, st *inlineState) (string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, st.defRel, st.scratch[st.defRel], parser.SkipObjectResolution)
	if err != nil || st.defOff < 0 {
		return "the definition's file no longer parses after inlining", nil
	}
	fd := goFuncAt(fset, f, st.defOff)
	if fd == nil {
		return "the definition was not found after inlining", nil
	}
	if fd.Recv == nil {
		return "", nil
	}
	col := st.def.Column
	impls, err := c.Implementations(ctx, st.def.File, lsp.Target{Line: st.def.Line, Column: &col})
	if err != nil {
		if e := apierr.As(err); e.Code == apierr.Unsupported {
			return "a method may be needed by an interface, and the server cannot tell (no implementation search)", nil
		}
		return "", err
	}
	for _, l := range impls.Locations {
		return fmt.Sprintf("the method is declared by an interface (%s:%d): values may still call it through it", l.File, l.Line), nil
	}
	return "", nil
}

func goFuncAt(fset *token.FileSet, f *ast.File, nameOff int) *ast.FuncDecl {
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fset.Position(fd.Name.Pos()).Offset == nameOff {
			return fd
		}
	}
	return nil
}

// removeGoDefinition deletes the function (with its doc comment) from the
// scratch text, then lets gopls drop the imports only it used.
func (st *inlineState) removeGoDefinition(ctx context.Context, gopls, dir, path string) error {
	text := st.scratch[st.defRel]
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, st.defRel, text, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil || st.defOff < 0 {
		return errors.New("the file does not parse after inlining")
	}
	fd := goFuncAt(fset, f, st.defOff)
	if fd == nil {
		return errors.New("the definition was not found after inlining")
	}
	start := fset.Position(fd.Pos()).Offset
	if fd.Doc != nil {
		start = fset.Position(fd.Doc.Pos()).Offset
	}
	start, end := preview.NewMapper(text).WholeLines(start, fset.Position(fd.End()).Offset)
	// One blank line between what was before and after.
	if strings.HasSuffix(text[:start], "\n\n") && strings.HasPrefix(text[end:], "\n") {
		end++
	}
	newText := text[:start] + text[end:]
	if err := os.WriteFile(path, []byte(newText), 0o644); err != nil {
		return err
	}
	if _, stderr, err := runGopls(ctx, gopls, dir, "imports", "-w", path); err != nil {
		return fmt.Errorf("gopls imports: %s", goplsReason(stderr, err))
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	st.update(st.defRel, string(data))
	return nil
}

// goModRoot is the folder of the go.mod nearest to dir, not above root.
func goModRoot(dir, root string) string {
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		if dir == root || !strings.HasPrefix(dir, root) {
			return ""
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// copyModule copies the module at src to dst (regular files; no VCS or
// dependency folders, no nested modules) and lists its Go files relative
// to src.
func copyModule(src, dst string) ([]string, error) {
	var goFiles []string
	n := 0
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			if rel != "." {
				name := d.Name()
				if name == ".git" || name == "node_modules" || name == ".deps" || strings.HasPrefix(name, ".") {
					return filepath.SkipDir
				}
				if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
					return filepath.SkipDir // another module
				}
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if n++; n > maxScratchFiles {
			return apierr.Errorf(apierr.PreconditionFailed, "inline one call_site at a time in a smaller module",
				"the module at %s has more than %d files; nvbridge copies it to inline on a scratch copy", src, maxScratchFiles)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.HasSuffix(p, ".go") {
			goFiles = append(goFiles, rel)
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		var e *apierr.Error
		if errors.As(err, &e) {
			return nil, err
		}
		return nil, apierr.Errorf(apierr.OperationFailed, "check the temporary folder ($TMPDIR)", "copy the module to a scratch folder: %v", err)
	}
	return goFiles, nil
}

// goplsCommand is the gopls the language registry starts for Go.
func goplsCommand() (string, error) {
	name := "gopls"
	if servers := lang.Go.Servers; len(servers) > 0 && len(servers[0].Cmd) > 0 {
		name = servers[0].Cmd[0]
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return "", apierr.Errorf(apierr.PreconditionFailed, "install gopls (make deps installs it under .deps/bin) and put it on PATH",
			"inline_function runs %s on a scratch copy and cannot find it: %v", name, err)
	}
	return p, nil
}

// runGopls runs the gopls command line in dir, in a process group of its
// own that ends with the context.
func runGopls(ctx context.Context, gopls, dir string, args ...string) (stdout, stderr string, err error) {
	cmd := exec.CommandContext(ctx, gopls, args...)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		nvim.EndProcessGroup(cmd.Process.Pid, time.Second)
		return nil
	}
	cmd.WaitDelay = 5 * time.Second
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	return out.String(), errOut.String(), err
}

// goplsReason is gopls's complaint without its prefix.
func goplsReason(stderr string, err error) string {
	s := strings.TrimSpace(stderr)
	if s == "" {
		return err.Error()
	}
	lines := strings.Split(s, "\n")
	last := strings.TrimSpace(lines[len(lines)-1])
	last = strings.TrimPrefix(last, "gopls: ")
	return last
}
