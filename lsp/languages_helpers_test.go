package lsp_test

// Helpers of the per-language tests (lsp/lang_*_test.go): one embedded
// Neovim on a copy of a sample per test, subtests asking nvbridge what the
// language's server answers, each recording what it verified in the
// language matrix (testenv.Verified) once its checks passed.

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/lsp"
	"github.com/nvbridge/nvbridge/preview"
	"github.com/nvbridge/nvbridge/refactor"
)

type langEnv struct {
	client   *lsp.Client
	ctx      context.Context
	root     string
	language string
	server   string
	version  string
}

// newLangEnv starts an embedded Neovim on a copy of testdata/samples/SAMPLE
// whose server for language is server (the commands must be installed).
// The server's version is read once the first file is open (ready).
func newLangEnv(t *testing.T, sample, language, server string, commands ...string) *langEnv {
	t.Helper()
	testenv.Require(t, append([]string{"nvim"}, commands...)...)
	root := testenv.CopySample(t, sample)
	_, client := testenv.Embedded(t, root)
	return &langEnv{client: client, ctx: testenv.Context(t), root: root, language: language, server: server}
}

// serverVersion is the server's version (asked once, after an answer).
func (e *langEnv) serverVersion(t *testing.T) string {
	t.Helper()
	if e.version == "" {
		e.version = testenv.ServerVersion(t, e.ctx, e.client, e.server)
	}
	return e.version
}

func (e *langEnv) verified(t *testing.T, tools ...string) {
	t.Helper()
	testenv.Verified(t, e.language, e.server, e.serverVersion(t), tools...)
}

// symbols checks a file's symbols ("kind name file:line:column", in the
// server's order) and that they came from the server.
func (e *langEnv) symbols(t *testing.T, file string, want ...string) {
	t.Helper()
	s, err := e.client.Symbols(e.ctx, lsp.SymbolsQuery{File: file})
	if err != nil {
		t.Fatal(err)
	}
	if got := symbolWheres(s.Symbols); !reflect.DeepEqual(got, want) {
		t.Fatalf("symbols of %s = %q, want %q", file, got, want)
	}
	if !reflect.DeepEqual(s.Servers, []string{e.server}) {
		t.Fatalf("symbols of %s came from %v, want %s", file, s.Servers, e.server)
	}
	e.verified(t, "get_symbols")
}

// diagnostics checks a file's complete diagnostics, each rendered as
// "LINE SEVERITY SOURCE: MESSAGE" (want sorted by line).
func (e *langEnv) diagnostics(t *testing.T, file string, want ...string) {
	t.Helper()
	r, err := e.client.DiagnosticsFor(e.ctx, lsp.DiagnosticsQuery{File: file})
	if err != nil {
		t.Fatal(err)
	}
	if r.DiagnosticsComplete == nil || !*r.DiagnosticsComplete {
		t.Fatalf("diagnostics of %s are not complete: %+v", file, r)
	}
	got := []string{}
	for _, d := range r.Diagnostics {
		if d.File != file {
			t.Fatalf("diagnostic of %s names %s: %+v", file, d.File, d)
		}
		got = append(got, fmt.Sprintf("%d %s %s: %s", d.Line, d.Severity, d.Source, d.Message))
	}
	sort.SliceStable(got, func(i, j int) bool { return lineOfDiag(got[i]) < lineOfDiag(got[j]) })
	if want == nil {
		want = []string{}
	}
	if !reflect.DeepEqual(got, want) || r.Total != len(want) {
		t.Fatalf("diagnostics of %s = %q (total %d), want %q", file, got, r.Total, want)
	}
	e.verified(t, "get_diagnostics")
}

func lineOfDiag(s string) int {
	var n int
	fmt.Sscanf(s, "%d", &n)
	return n
}

// definition checks where a target's definition is ("file:line:column").
func (e *langEnv) definition(t *testing.T, file string, target lsp.Target, want ...string) {
	t.Helper()
	r, err := e.client.Definition(e.ctx, file, target)
	if err != nil {
		t.Fatal(err)
	}
	if got := locWheres(r.Locations); !reflect.DeepEqual(got, want) {
		t.Fatalf("definition of %+v in %s = %v, want %v", target, file, got, want)
	}
	e.verified(t, "find_definition")
}

// references checks a target's references, its declaration included.
func (e *langEnv) references(t *testing.T, file string, target lsp.Target, want ...string) {
	t.Helper()
	r, err := e.client.References(e.ctx, file, target, lsp.ReferencesOptions{IncludeDeclaration: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := refWheres(r); !reflect.DeepEqual(got, want) || r.Server != e.server {
		t.Fatalf("references of %+v in %s = %v (from %s), want %v", target, file, got, r.Server, want)
	}
	e.verified(t, "find_references")
}

// rename checks a rename's plan: the files it changes and its diff's
// changed lines ("-old" / "+new", in diff order).
func (e *langEnv) rename(t *testing.T, file string, target lsp.Target, newName string, files []string, lines ...string) {
	t.Helper()
	plan, err := refactor.Rename(e.ctx, e.client, refactor.RenameRequest{File: file, Target: target, NewName: newName})
	if err != nil {
		t.Fatal(err)
	}
	if plan.Server != e.server || !reflect.DeepEqual(plan.Files, files) {
		t.Fatalf("rename plan: server %s, files %v, want %s %v", plan.Server, plan.Files, e.server, files)
	}
	diff, err := preview.UnifiedDiff(plan.Changeset)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range strings.Split(diff, "\n") {
		if (strings.HasPrefix(l, "+") || strings.HasPrefix(l, "-")) && !strings.HasPrefix(l, "+++") && !strings.HasPrefix(l, "---") {
			got = append(got, l)
		}
	}
	if !reflect.DeepEqual(got, lines) {
		t.Fatalf("rename diff lines = %q, want %q\n%s", got, lines, diff)
	}
	e.verified(t, "rename_symbol")
}

// unsupported checks that a tool's error is UNSUPPORTED naming the server
// and the method it lacks.
func (e *langEnv) unsupported(t *testing.T, tool, method string, err error) {
	t.Helper()
	ae := apierr.As(err)
	if err == nil || ae.Code != apierr.Unsupported || !strings.Contains(ae.Message, e.server) || !strings.Contains(ae.Message, method) || ae.Remediation == "" {
		t.Fatalf("%s: %v, want UNSUPPORTED naming %s and %s with a remediation", tool, err, e.server, method)
	}
	testenv.VerifiedUnsupported(t, e.language, e.server, e.serverVersion(t), tool)
}

// verifiedBy records tools verified by a test that is not a langEnv's
// (the first languages' tests).
func verifiedBy(t *testing.T, ctx context.Context, client *lsp.Client, language, server string, tools ...string) {
	t.Helper()
	testenv.Verified(t, language, server, testenv.ServerVersion(t, ctx, client, server), tools...)
}

// verifiedUnsupportedBy is verifiedBy for a checked UNSUPPORTED.
func verifiedUnsupportedBy(t *testing.T, ctx context.Context, client *lsp.Client, language, server string, tools ...string) {
	t.Helper()
	testenv.VerifiedUnsupported(t, language, server, testenv.ServerVersion(t, ctx, client, server), tools...)
}
