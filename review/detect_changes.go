// Package review answers what a working tree changed against a git
// revision (detect_changes): the changed symbols (the diff's ranges
// against the files' document symbols), what reaches them (prepare_change's
// impact: callers, files, packages, tests), the files importing the changed
// files, and the diagnostics the change introduced (the check's copy shown
// the revision's texts, then the working tree's).
package review

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/diagdelta"
	"github.com/nvbridge/nvbridge/lang"
	"github.com/nvbridge/nvbridge/lsp"
	"github.com/nvbridge/nvbridge/preview"
)

// Bounds.
const (
	// MaxSymbols bounds the changed symbols whose impact is computed.
	MaxSymbols = 20
	// MaxFiles bounds the changed files read.
	MaxFiles    = 200
	impactDepth = 2
)

// Request names the revision to compare the working tree with.
type Request struct {
	// Revision is a git revision (default HEAD).
	Revision string
	// Diagnostics: also check which diagnostics the change introduced
	// (on the check's copy; costs a diagnosis of the changed files).
	Diagnostics bool
}

// ChangedFile is one file the working tree changed.
type ChangedFile struct {
	File string `json:"file"`
	// Status is "modified", "added" or "deleted".
	Status string `json:"status"`
	// Lines are the changed line ranges of the working tree's text
	// ("12-18"; a deletion between lines: "12").
	Lines []string `json:"lines"`
	// Importers are the workspace files importing it (its package).
	Importers []string `json:"importers"`
}

// Caller is a function calling a changed symbol.
type Caller struct {
	Name  string `json:"name"`
	File  string `json:"file"`
	Line  int    `json:"line"`
	Depth int    `json:"depth"`
}

// ChangedSymbol is a symbol whose declaration the diff touches.
type ChangedSymbol struct {
	Name   string `json:"name"`
	Kind   string `json:"kind"`
	File   string `json:"file"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
	// Container is the enclosing symbol (a method's type).
	Container string   `json:"container,omitempty"`
	Callers   []Caller `json:"callers"`
	// Files and Packages reached through references and callers.
	Files    []string `json:"files"`
	Packages []string `json:"packages"`
	Tests    []string `json:"tests"`
	Risk     string   `json:"risk,omitempty"`
	// Error says why its impact could not be read.
	Error string `json:"error,omitempty"`
}

// Result answers detect_changes.
type Result struct {
	Revision string          `json:"revision"`
	Commit   string          `json:"commit"`
	Files    []ChangedFile   `json:"files"`
	Symbols  []ChangedSymbol `json:"symbols"`
	// Tests are the test files to run: those reaching a changed symbol
	// and the changed test files.
	Tests []string `json:"tests"`
	// Diagnostics is the delta of the revision's texts to the working
	// tree's (errors and warnings introduced and resolved).
	Diagnostics *diagdelta.Delta `json:"diagnostics_delta,omitempty"`
	Truncated   bool             `json:"truncated"`
	Notes       []string         `json:"notes,omitempty"`
}

// hunk is a changed range of the new text: lines start..start+count-1
// (count 0: a deletion after line start).
type hunk struct{ start, count int }

// changedLines are the line ranges of after that differ from before
// (preview.Minimize's edits, in after's lines).
func changedLines(before, after string) []hunk {
	old := preview.ParseDocument(before)
	whole := preview.TextEdit{EndLine: len(old.Lines), NewText: after}
	if !old.FinalNewline && len(old.Lines) > 0 {
		whole.EndLine, whole.EndCol = len(old.Lines)-1, len(old.Lines[len(old.Lines)-1])
	}
	edits, err := preview.Minimize(old, []preview.TextEdit{whole})
	if err != nil {
		return nil
	}
	var out []hunk
	delta := 0
	for _, e := range edits {
		start := e.StartLine + delta // 0-based, in after
		nl := strings.Count(e.NewText, "\n")
		span := e.EndLine - e.StartLine
		wholeLines := e.StartCol == 0 && e.EndCol == 0
		switch {
		case wholeLines && e.NewText == "":
			out = append(out, hunk{start, 0}) // lines removed after line start (1-based)
		case wholeLines && strings.HasSuffix(e.NewText, "\n"):
			out = append(out, hunk{start + 1, nl})
		default:
			out = append(out, hunk{start + 1, nl + 1})
		}
		delta += nl - span
	}
	return out
}

// Changes answers detect_changes.
func Changes(ctx context.Context, c *lsp.Client, v *lsp.Verifier, req Request) (Result, error) {
	root := c.Session.Root()
	rev := req.Revision
	if rev == "" {
		rev = "HEAD"
	}
	if strings.HasPrefix(rev, "-") || strings.ContainsAny(rev, " \t\n") {
		return Result{}, apierr.Errorf(apierr.InvalidParameter, "pass a revision: HEAD, a branch, a tag or a commit", "bad revision %q", rev)
	}
	commit, err := git(ctx, root.Dir(), "rev-parse", "--verify", "--quiet", rev+"^{commit}")
	if err != nil {
		return Result{}, apierr.Errorf(apierr.InvalidParameter, "pass a revision of the workspace's git repository (git log shows them)",
			"%s is not a commit of %s: %v", rev, root.Dir(), err)
	}
	top, err := git(ctx, root.Dir(), "rev-parse", "--show-toplevel")
	if err != nil {
		return Result{}, err
	}
	top = strings.TrimSpace(top)
	out := Result{Revision: rev, Commit: strings.TrimSpace(commit), Files: []ChangedFile{}, Symbols: []ChangedSymbol{}, Tests: []string{}}
	// The files that differ: git's (the disk against the revision, and
	// untracked files), and the buffers with unsaved changes (an agent's
	// applied changesets), by path relative to the repository's top.
	status := map[string]string{}
	var order []string
	add := func(p, st string) {
		if _, ok := status[p]; !ok {
			order = append(order, p)
		}
		status[p] = st
	}
	names, err := git(ctx, root.Dir(), "diff", "--no-renames", "--name-status", rev, "--", ".")
	if err != nil {
		return Result{}, err
	}
	for _, l := range strings.Split(names, "\n") {
		if f := strings.SplitN(l, "\t", 2); len(f) == 2 {
			st := map[string]string{"A": "added", "D": "deleted"}[f[0]]
			if st == "" {
				st = "modified"
			}
			add(f[1], st)
		}
	}
	untracked, err := git(ctx, root.Dir(), "ls-files", "--others", "--exclude-standard", "--full-name", "--", ".")
	if err != nil {
		return Result{}, err
	}
	for _, f := range strings.Split(strings.TrimSpace(untracked), "\n") {
		if f != "" {
			add(f, "added")
		}
	}
	var open []struct {
		File     string `json:"file"`
		Modified bool   `json:"modified"`
	}
	var raw string
	if err := c.Session.OpenFiles(ctx, &raw, root.Dir()); err == nil {
		_ = json.Unmarshal([]byte(raw), &open)
	}
	for _, o := range open {
		if rel, err := filepath.Rel(top, o.File); err == nil && o.Modified && !strings.HasPrefix(rel, "..") {
			if _, ok := status[filepath.ToSlash(rel)]; !ok {
				add(filepath.ToSlash(rel), "modified")
			}
		}
	}
	sort.Strings(order)
	tests := map[string]bool{}
	var checks []diagdelta.CheckFile
	for _, gitPath := range order {
		if len(out.Files) >= MaxFiles {
			out.Truncated = true
			out.Notes = append(out.Notes, fmt.Sprintf("only the first %d changed files were read", MaxFiles))
			break
		}
		abs := filepath.Join(top, filepath.FromSlash(gitPath))
		if !root.Contains(abs) || root.Sensitive(abs) {
			continue
		}
		rel := root.Rel(abs)
		cf := ChangedFile{File: rel, Status: status[gitPath], Lines: []string{}, Importers: []string{}}
		var before, after string
		if cf.Status != "added" {
			if before, err = git(ctx, root.Dir(), "show", rev+":"+gitPath); err != nil {
				out.Notes = append(out.Notes, fmt.Sprintf("%s: not in %s: %s", rel, rev, apierr.As(err).Message))
				continue
			}
		}
		if cf.Status != "deleted" {
			info, err := c.Info(ctx, rel, true)
			if err != nil || info.Content == nil {
				out.Notes = append(out.Notes, fmt.Sprintf("%s: not read", rel))
				continue
			}
			after = *info.Content
		}
		hunks := changedLines(before, after)
		if cf.Status == "modified" && len(hunks) == 0 {
			continue // a buffer saved back to the revision's text
		}
		for _, h := range hunks {
			switch {
			case h.count == 0:
				cf.Lines = append(cf.Lines, strconv.Itoa(h.start))
			case h.count == 1:
				cf.Lines = append(cf.Lines, strconv.Itoa(h.start))
			default:
				cf.Lines = append(cf.Lines, fmt.Sprintf("%d-%d", h.start, h.start+h.count-1))
			}
		}
		if lang.IsTestFile(rel) && cf.Status != "deleted" {
			tests[rel] = true
		}
		if cf.Status == "deleted" || lang.ForFile(rel) == nil {
			out.Files = append(out.Files, cf)
			continue
		}
		if deps, err := c.Dependencies(ctx, rel); err == nil {
			for _, im := range deps.Importers {
				cf.Importers = appendUnique(cf.Importers, im.File)
			}
		}
		out.Files = append(out.Files, cf)
		syms, err := changedSymbols(ctx, c, rel, hunks, cf.Status == "added")
		if err != nil {
			out.Notes = append(out.Notes, fmt.Sprintf("%s: symbols not read: %s", rel, apierr.As(err).Message))
			continue
		}
		for _, s := range syms {
			if len(out.Symbols) >= MaxSymbols {
				out.Truncated = true
				break
			}
			out.Symbols = append(out.Symbols, s)
		}
		if req.Diagnostics && cf.Status == "modified" {
			checks = append(checks, diagdelta.CheckFile{Path: abs, Op: "edit", Before: before, After: after})
		}
	}
	if len(out.Symbols) == MaxSymbols {
		out.Notes = append(out.Notes, fmt.Sprintf("the impact of the first %d changed symbols only", MaxSymbols))
	}
	for i := range out.Symbols {
		s := &out.Symbols[i]
		col := s.Column
		imp, err := c.Impact(ctx, lsp.ImpactRequest{File: s.File, Target: lsp.Target{Line: s.Line, Column: &col}, Depth: impactDepth})
		if err != nil {
			s.Error = apierr.As(err).Message
			continue
		}
		for _, cl := range append(imp.DirectCallers, imp.TransitiveCallers...) {
			s.Callers = append(s.Callers, Caller{Name: cl.Name, File: cl.File, Line: cl.Line, Depth: cl.Depth})
		}
		s.Files, s.Packages, s.Risk = imp.Files, imp.Packages, imp.Risk
		for _, t := range imp.Tests {
			s.Tests = append(s.Tests, t.File)
			tests[t.File] = true
		}
		if s.Callers == nil {
			s.Callers = []Caller{}
		}
		if s.Tests == nil {
			s.Tests = []string{}
		}
		out.Truncated = out.Truncated || imp.Truncated
	}
	out.Tests = keys(tests)
	if len(checks) > 0 && v != nil {
		ds, err := v.CheckSteps(ctx, [][]diagdelta.CheckFile{checks}, false)
		if err != nil {
			out.Notes = append(out.Notes, "diagnostics not compared: "+apierr.As(err).Message)
		} else {
			d := ds[0]
			d.Mode = "changes"
			d.Verdict = strings.Replace(d.Verdict, "check (nothing applied): ", "since "+rev+": ", 1)
			out.Diagnostics = d
		}
	}
	return out, nil
}

// changedSymbols are the innermost symbols of file whose declaration
// intersects the hunks (every top-level one of an added file).
func changedSymbols(ctx context.Context, c *lsp.Client, file string, hunks []hunk, added bool) ([]ChangedSymbol, error) {
	r, err := c.Symbols(ctx, lsp.SymbolsQuery{File: file})
	if err != nil {
		return nil, err
	}
	touches := func(s lsp.Symbol) bool {
		if added {
			return true
		}
		end := max(s.EndLine, s.Line)
		for _, h := range hunks {
			lo, hi := h.start, h.start+h.count-1
			if h.count == 0 {
				lo, hi = h.start, h.start+1 // a deletion between h.start and the next line
			}
			if lo <= end && hi >= s.Line {
				return true
			}
		}
		return false
	}
	var hit []lsp.Symbol
	for _, s := range r.Symbols {
		if kindOfInterest(s.Kind) && touches(s) {
			hit = append(hit, s)
		}
	}
	// Keep the innermost: drop a symbol when another hit lies inside it.
	var out []ChangedSymbol
	for i, s := range hit {
		inner := false
		for j, o := range hit {
			if i != j && o.Line >= s.Line && max(o.EndLine, o.Line) <= max(s.EndLine, s.Line) && (o.Line != s.Line || o.EndLine != s.EndLine) {
				inner = true
				break
			}
		}
		if inner || (added && s.Container != "") {
			continue
		}
		out = append(out, ChangedSymbol{Name: s.Name, Kind: s.Kind, File: file, Line: s.Line, Column: s.Column, Container: s.Container, Callers: []Caller{}, Files: []string{}, Packages: []string{}, Tests: []string{}})
	}
	return out, nil
}

func kindOfInterest(kind string) bool {
	switch kind {
	case "function", "method", "constructor", "class", "struct", "interface", "enum", "constant", "variable", "field", "property", "type parameter", "module":
		return kind != "type parameter" && kind != "module"
	}
	return false
}

func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		if _, lookErr := exec.LookPath("git"); lookErr != nil {
			return "", apierr.New(apierr.PreconditionFailed, "install git", "git is not installed")
		}
		return "", apierr.Errorf(apierr.PreconditionFailed, "detect_changes needs the workspace to be in a git repository", "git %s: %s", args[0], msg)
	}
	return stdout.String(), nil
}

func appendUnique(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
