// Package testrun runs a workspace's tests with each language's runner
// (lang.TestRunner): the tests of a file, of a symbol (the test files and
// test functions that reach it, prepare_change's impact) or those affected
// by changed files (their packages and importers), bounded in time, with
// progress per test and each failure's file, line, message and output.
package testrun

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/lang"
	"github.com/nvbridge/nvbridge/lsp"
)

// Request says which tests to run: those of File (a test file: its tests;
// another file: its package's, or the test files importing it), of the
// symbol at File:Target when Symbol is set, or those affected by Changed
// (files whose packages and importers' tests run).
type Request struct {
	File    string
	Target  lsp.Target
	Symbol  bool
	Changed []string
}

// selection is what to run, per language.
type selection struct {
	lang    *lang.Language
	targets map[string]bool
	names   map[string]bool
	// all: some target runs whole (no name filter possible for all).
	all bool
}

// Selection describes the tests chosen and why.
type Selection struct {
	// Why says how they were chosen.
	Why string `json:"why"`
	// TestFiles are the test files involved (symbol mode) or the test
	// targets.
	Targets []string `json:"targets"`
	// Names are the tests run by name (empty: every test of the targets).
	Names []string `json:"names,omitempty"`
}

type selector struct {
	c    *lsp.Client
	sels map[string]*selection
	why  string
}

func (s *selector) add(l *lang.Language, target string, names ...string) {
	if l == nil || l.Tests == nil {
		return
	}
	sel := s.sels[l.Name]
	if sel == nil {
		sel = &selection{lang: l, targets: map[string]bool{}, names: map[string]bool{}}
		s.sels[l.Name] = sel
	}
	sel.targets[target] = true
	if len(names) == 0 {
		sel.all = true
	}
	for _, n := range names {
		sel.names[n] = true
	}
}

// target is what a runner runs for a workspace file: its package folder
// ("./dir", ByPackage) or the file.
func target(l *lang.Language, rel string) string {
	if l.Tests.ByPackage {
		d := path.Dir(rel)
		if d == "." {
			return "."
		}
		return "./" + d
	}
	return rel
}

func (s *selector) choose(ctx context.Context, req Request) error {
	switch {
	case len(req.Changed) > 0:
		s.why = "the tests of the changed files' packages and of their importers"
		for _, f := range req.Changed {
			s.affected(ctx, f)
		}
	case req.Symbol:
		imp, err := s.c.Impact(ctx, lsp.ImpactRequest{File: req.File, Target: req.Target})
		if err != nil {
			return err
		}
		s.why = fmt.Sprintf("the tests reaching %s (its test callers to depth %d and the test files referencing it)", imp.Symbol.Name, imp.Depth)
		for _, tf := range imp.Tests {
			l := lang.ForFile(tf.File)
			if l == nil || l.Tests == nil {
				continue
			}
			var names []string
			for _, cl := range tf.Callers {
				if l.Tests.IsTest != nil && l.Tests.IsTest(cl) {
					names = append(names, cl)
				}
			}
			if len(names) == 0 && (tf.References == 0 || l.Tests.ByPackage) {
				continue // only helpers reach it, or a package's every test would run
			}
			s.add(l, target(l, tf.File), names...)
		}
		if lang.IsTestFile(imp.Symbol.File) {
			if l := lang.ForFile(imp.Symbol.File); l != nil && l.Tests != nil && l.Tests.IsTest != nil && l.Tests.IsTest(imp.Symbol.Name) {
				s.add(l, target(l, imp.Symbol.File), imp.Symbol.Name)
			}
		}
	default:
		l := lang.ForFile(req.File)
		if l == nil || l.Tests == nil {
			return unsupported(req.File)
		}
		if lang.IsTestFile(req.File) {
			s.why = "the tests of " + req.File
			if !l.Tests.ByPackage {
				s.add(l, req.File)
				return nil
			}
			names, err := s.testsOf(ctx, l, req.File)
			if err != nil {
				return err
			}
			s.add(l, target(l, req.File), names...)
			return nil
		}
		s.why = "the tests of " + req.File + "'s package and of the test files importing it"
		s.affected(ctx, req.File)
	}
	return nil
}

// affected adds the tests a change of file reaches: its package's (or
// itself, a test file) and those of its importers.
func (s *selector) affected(ctx context.Context, file string) {
	l := lang.ForFile(file)
	if l == nil || l.Tests == nil {
		return
	}
	if l.Tests.ByPackage || lang.IsTestFile(file) {
		s.add(l, target(l, file))
	}
	deps, err := s.c.Dependencies(ctx, file)
	if err != nil {
		return
	}
	for _, im := range deps.Importers {
		il := lang.ForFile(im.File)
		if il == nil || il.Tests == nil {
			continue
		}
		if il.Tests.ByPackage || lang.IsTestFile(im.File) {
			s.add(il, target(il, im.File))
		}
	}
}

// testsOf lists the tests a test file declares (document symbols).
func (s *selector) testsOf(ctx context.Context, l *lang.Language, file string) ([]string, error) {
	r, err := s.c.Symbols(ctx, lsp.SymbolsQuery{File: file})
	if err != nil {
		return nil, err
	}
	var names []string
	for _, sym := range r.Symbols {
		if sym.Container == "" && (sym.Kind == "function" || sym.Kind == "method") && l.Tests.IsTest(sym.Name) {
			names = append(names, sym.Name)
		}
	}
	if len(names) == 0 {
		return nil, apierr.Errorf(apierr.ResourceNotFound, "name a file that declares tests", "%s declares no test", file)
	}
	return names, nil
}

func unsupported(file string) error {
	var names []string
	for _, l := range lang.All() {
		if l.Tests != nil {
			names = append(names, l.Name)
		}
	}
	sort.Strings(names)
	return apierr.Errorf(apierr.Unsupported, "run_tests runs the tests of "+strings.Join(names, ", ")+" files",
		"no test runner for %s", file)
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
