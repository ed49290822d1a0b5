package tools

import (
	"testing"

	"github.com/nvbridge/nvbridge/lsp"
)

// TestSummarizeLocations: the text of a definition-like answer: none found
// (with and without a note that it may be incomplete), a location in the
// workspace with a declaration of several lines (blank ones dropped), one
// outside it, one known by its URI only, and a symbol without a name.
func TestSummarizeLocations(t *testing.T) {
	loc := func(file, uri string, line, col int, outside bool, decl string) lsp.SourceLocation {
		return lsp.SourceLocation{Location: lsp.Location{File: file, URI: uri, Line: line, Column: col, OutsideWorkspace: outside}, Declaration: decl}
	}
	cases := []struct {
		r    lsp.LocationsResult
		want string
	}{
		{lsp.LocationsResult{Symbol: "Sugar", From: "logger.go:131:19", Server: "gopls"},
			"no definition(s) found for Sugar at logger.go:131:19 (gopls)"},
		{lsp.LocationsResult{From: "a.py:3:0", Server: "pyright", Incomplete: "pyright was still analysing a.py"},
			"no definition(s) found for the symbol at a.py:3:0 (pyright); incomplete: pyright was still analysing a.py"},
		{lsp.LocationsResult{Symbol: "Sugar", From: "logger.go:131:19", Server: "gopls", Count: 3, Incomplete: "x", Locations: []lsp.SourceLocation{
			loc("logger.go", "", 131, 18, false, "func (log *Logger) Sugar() *SugaredLogger {\n\n\tcore := log.clone()\n"),
			loc("/usr/lib/go/src/fmt/print.go", "", 1000000, 0, true, "func Println(a ...any) (n int, err error) {"),
			loc("", "jdt://contents/x.class", 7, 12, false, ""),
		}}, "3 definition(s) of Sugar at logger.go:131:19 (gopls): (incomplete: x)" +
			"\nlogger.go:131:18\n    func (log *Logger) Sugar() *SugaredLogger {\n    \tcore := log.clone()" +
			"\n/usr/lib/go/src/fmt/print.go:1000000:0 (outside the workspace)\n    func Println(a ...any) (n int, err error) {" +
			"\njdt://contents/x.class:7:12"},
	}
	for _, c := range cases {
		if got := summarizeLocations(c.r, "definition(s)"); got != c.want {
			t.Errorf("got\n%q\nwant\n%q", got, c.want)
		}
	}
}

// TestReferencesSummary: the text of find_references's answer: the counts,
// the declaration excluded, a truncated page, an incomplete answer, files
// by path and by URI with their references' lines.
func TestReferencesSummary(t *testing.T) {
	refs := lsp.ReferencesResult{Symbol: "Sugar", From: "logger.go:131:19", Server: "gopls", IncludeDeclaration: true,
		Total: 3, Returned: 3, FileCount: 2, Files: []lsp.FileReferences{
			{File: "logger.go", Count: 2, References: []lsp.Reference{
				{Line: 131, Column: 18, Context: "func (log *Logger) Sugar() *SugaredLogger {"},
				{Line: 400, Column: 0, Context: "\tx := log.Sugar() // é"},
			}},
			{URI: "untitled:Untitled-1", Count: 1, References: []lsp.Reference{{Line: 1, Column: 4}}},
		}}
	cut := refs
	cut.Symbol, cut.IncludeDeclaration, cut.Truncated, cut.Returned, cut.Total, cut.Incomplete = "", false, true, 1, 1234, "gopls was still analysing logger.go"
	cut.Files = refs.Files[:1:1]
	none := lsp.ReferencesResult{Symbol: "x", From: "a.go:1:0", Server: "gopls", IncludeDeclaration: true, Files: []lsp.FileReferences{}}
	for _, c := range []struct {
		r    lsp.ReferencesResult
		want string
	}{
		{refs, "3 reference(s) to Sugar in 2 file(s) (from logger.go:131:19, gopls)" +
			"\nlogger.go (2)\n  131:18  func (log *Logger) Sugar() *SugaredLogger {\n  400:0  \tx := log.Sugar() // é" +
			"\nuntitled:Untitled-1 (1)\n  1:4  "},
		{cut, "1234 reference(s) to the symbol in 2 file(s) (from logger.go:131:19, gopls, declaration excluded); showing the first 1; incomplete: gopls was still analysing logger.go" +
			"\nlogger.go (2)\n  131:18  func (log *Logger) Sugar() *SugaredLogger {\n  400:0  \tx := log.Sugar() // é"},
		{none, "0 reference(s) to x in 0 file(s) (from a.go:1:0, gopls)"},
	} {
		if got := (referencesResult{c.r}).Summary(); got != c.want {
			t.Errorf("got\n%q\nwant\n%q", got, c.want)
		}
	}
}
