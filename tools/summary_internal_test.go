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
