package lang

// The language matrix: for each language, its server and which tools a test
// verified through nvbridge on its sample (README, get_status, `nvbridge
// version`). matrix.json is generated from the tests' results (`make
// matrix`), never written by hand: every test that verifies a tool records
// it (internal/testenv: Verified), a full test run of a package fails when
// a cell of that package was not verified again, and a test fails when its
// cell is missing or its server's version moved.

import (
	_ "embed"
	"encoding/json"
	"sort"
	"strings"
)

//go:embed matrix.json
var matrixJSON []byte

// Results of a matrix cell.
const (
	// MatrixVerified: a test checked the tool's real answer.
	MatrixVerified = "verified"
	// MatrixUnsupported: a test checked that the tool answers UNSUPPORTED
	// naming the server (it lacks the method).
	MatrixUnsupported = "unsupported"
)

// MatrixRow is one language's line of the matrix.
type MatrixRow struct {
	// Language is the row's key: a registry name, or a file kind a
	// registry language covers ("javascript" of typescript, "cpp" of c).
	Language string `json:"language"`
	Display  string `json:"display"`
	// Server is the language server the tools were verified with, and
	// Version its version as the tests saw it.
	Server  string `json:"server"`
	Version string `json:"version,omitempty"`
	// Tools maps an MCP tool to its cell.
	Tools map[string]MatrixCell `json:"tools"`
	// Debugger is the debug adapter start_debug_session was verified with.
	Debugger        string `json:"debugger,omitempty"`
	DebuggerVersion string `json:"debugger_version,omitempty"`
}

// MatrixCell is what a test verified of one tool, and which test.
type MatrixCell struct {
	Result string `json:"result"`
	// Test is "PACKAGE TestName/subtest".
	Test string `json:"test"`
}

// Matrix returns the committed language matrix (matrix.json), sorted by
// language.
func Matrix() []MatrixRow {
	var rows []MatrixRow
	if err := json.Unmarshal(matrixJSON, &rows); err != nil {
		panic("lang: matrix.json: " + err.Error()) // embedded: caught by any test run
	}
	return rows
}

// Summary is the row in one line: "Bash: bash-language-server 5.8.1
// verified get_symbols, ...; unsupported get_call_hierarchy; debugging
// lldb-dap 19".
func (r MatrixRow) Summary() string {
	var verified, unsupported []string
	for tool, cell := range r.Tools {
		switch {
		case tool == "start_debug_session":
		case cell.Result == MatrixUnsupported:
			unsupported = append(unsupported, tool)
		default:
			verified = append(verified, tool)
		}
	}
	sort.Strings(verified)
	sort.Strings(unsupported)
	s := r.Display + ": " + r.Server + " " + r.Version + " verified " + strings.Join(verified, ", ")
	if len(unsupported) > 0 {
		s += "; unsupported (checked) " + strings.Join(unsupported, ", ")
	}
	if r.Debugger != "" {
		s += "; debugging " + r.Debugger + " " + r.DebuggerVersion
	}
	return s
}
