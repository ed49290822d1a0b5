package lsp_test

// get_diagnostics's domain function on the *broken samples, whose
// deliberate errors testdata/samples/README.md lists exactly. One Neovim
// per language.

import (
	"reflect"
	"testing"

	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/lsp"
)

func diagLines(ds []lsp.Diagnostic) []string {
	out := []string{}
	for _, d := range ds {
		out = append(out, where(d.File, d.Line, d.Column)+" "+d.Severity+" "+d.Code+" "+d.Message)
	}
	return out
}

func TestDiagnosticsBroken(t *testing.T) {
	tests := []struct {
		sample, server, file string
		want                 []string
	}{
		{"gobroken", "gopls", "broken.go", []string{
			`broken.go:6:17 error IncompatibleAssign cannot use "three" (untyped string constant) as int value in variable declaration`,
			`broken.go:7:1 error UnusedVar declared and not used: unused`,
		}},
		{"pybroken", "pyright-langserver", "broken.py", []string{
			// pyright indents its addendum with two no-break spaces.
			"broken.py:5:17 error reportAssignmentType Type \"Literal['three']\" is not assignable to declared type \"int\"\n\u00a0\u00a0\"Literal['three']\" is not assignable to \"int\"",
			`broken.py:6:19 error reportUndefinedVariable "missing_total" is not defined`,
		}},
		{"tsbroken", "typescript-language-server", "src/broken.ts", []string{
			`src/broken.ts:3:8 error 2322 Type 'string' is not assignable to type 'number'.`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.sample, func(t *testing.T) {
			testenv.Require(t, "nvim", tt.server)
			s, client := testenv.Embedded(t, testenv.CopySample(t, tt.sample))
			testenv.TraceLSP(t, s) // logged if the test fails
			ctx := testenv.Context(t)

			// Nothing open yet: the workspace scope has nothing, and says
			// no server runs.
			r, err := client.DiagnosticsFor(ctx, lsp.DiagnosticsQuery{})
			if err != nil {
				t.Fatal(err)
			}
			if r.Total != 0 || len(r.Servers) != 0 {
				t.Fatalf("before opening anything: %+v", r)
			}

			r, err = client.DiagnosticsFor(ctx, lsp.DiagnosticsQuery{File: tt.file, MinSeverity: "warning"})
			if err != nil {
				t.Fatal(err)
			}
			if got := diagLines(r.Diagnostics); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("diagnostics =\n%q\nwant\n%q", got, tt.want)
			}
			if r.DiagnosticsComplete == nil || !*r.DiagnosticsComplete || r.Counts["error"] != len(tt.want) || r.Files != 1 {
				t.Fatalf("report = %+v", r)
			}

			// The workspace scope now holds the same, without waiting.
			r, err = client.DiagnosticsFor(ctx, lsp.DiagnosticsQuery{MinSeverity: "ERROR"})
			if err != nil {
				t.Fatal(err)
			}
			if got := diagLines(r.Diagnostics); !reflect.DeepEqual(got, tt.want) || r.Scope != "workspace" || len(r.Servers) != 1 {
				t.Fatalf("workspace diagnostics = %q (servers %v)", got, r.Servers)
			}
		})
	}
}
