package lsp_test

// understand_symbol's query against real gopls on testdata/samples/goshapes
// (zcore is named like zap's zapcore): a qualified name resolves to the
// declaration it names, and an AMBIGUOUS answer suggests a query that does
// narrow it, never the one that failed.

import (
	"regexp"
	"testing"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/lsp"
)

func TestUnderstandQualifiedQueryGo(t *testing.T) {
	testenv.Require(t, "nvim", "gopls", "go")
	root := testenv.CopySample(t, "goshapes")
	_, client := testenv.Embedded(t, root)
	ctx := testenv.Context(t)

	resolves := func(t *testing.T, query, file string, line int, kind string) {
		t.Helper()
		var res lsp.UnderstandResult
		stEventually(ctx, t, "gopls resolves "+query, func() error {
			var err error
			res, err = client.Understand(ctx, lsp.UnderstandRequest{Query: query})
			return err
		})
		if res.Symbol.File != file || res.Symbol.Line != line || res.Symbol.Kind != kind {
			t.Fatalf("%s resolved to %+v, want %s:%d (%s)", query, res.Symbol, file, line, kind)
		}
	}
	t.Run("package-qualified names the interface, not the embedded fields", func(t *testing.T) {
		resolves(t, "zcore.Core", "zcore/core.go", 7, "interface")
		resolves(t, "zcore.Render", "zcore/core.go", 21, "interface")
	})
	t.Run("type-qualified names the member", func(t *testing.T) {
		resolves(t, "hooked.Core", "zcore/core.go", 12, "field")
		resolves(t, "JSON.Render", "zcore/core.go", 27, "method")
	})
	t.Run("AMBIGUOUS suggests a query that narrows it", func(t *testing.T) {
		_, err := client.Understand(ctx, lsp.UnderstandRequest{Query: "Core"})
		stAmbiguous(t, err, "zcore/core.go:7", "zcore/core.go:12", "zcore/core.go:16")
		rem := apierr.As(err).Remediation
		m := regexp.MustCompile(`a name that picks one of them \(e\.g\. "([^"]+)"\)`).FindStringSubmatch(rem)
		if m == nil {
			t.Fatalf("remediation %q suggests no narrower query", rem)
		}
		if m[1] == "Core" {
			t.Fatalf("remediation %q suggests the query that failed", rem)
		}
		// Following the advice works.
		if _, err := client.Understand(ctx, lsp.UnderstandRequest{Query: m[1]}); err != nil {
			t.Fatalf("the suggested query %q fails: %v", m[1], err)
		}
	})
}
