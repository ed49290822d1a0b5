package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/nvbridge/nvbridge/lsp"
)

type getSignatureHelpArgs struct {
	File   string `json:"file" jsonschema:"path of the file, relative to the workspace root"`
	Line   int    `json:"line" jsonschema:"1-based line number"`
	Column int    `json:"column" jsonschema:"0-based column in characters, inside a call's parentheses (e.g. right after the opening parenthesis)"`
}

type signatureHelpResult struct{ lsp.SignatureHelpResult }

func (r signatureHelpResult) Summary() string {
	if !r.Found {
		return fmt.Sprintf("no signature help at %s (%s); the position must be inside a call's parentheses", r.From, r.Server)
	}
	if r.Withheld != "" {
		return "signatures withheld: " + r.Withheld
	}
	var b strings.Builder
	for i, s := range r.Signatures {
		if i > 0 {
			b.WriteString("\n")
		}
		marker := "  "
		if i == r.ActiveSignature {
			marker = "> "
		}
		b.WriteString(marker + s.Label)
		if i == r.ActiveSignature && r.ActiveParameter != nil {
			fmt.Fprintf(&b, "\n  active parameter %d: %s", *r.ActiveParameter, s.Parameters[*r.ActiveParameter].Label)
		}
		if s.Documentation != "" {
			fmt.Fprintf(&b, "\n  %s", strings.ReplaceAll(strings.TrimSpace(s.Documentation), "\n", "\n  "))
		}
	}
	return b.String()
}

func getSignatureHelpTool(env *Env) Tool {
	return newTool("get_signature_help", "Signature help",
		"Get the signature(s) of the call whose arguments contain a position (textDocument/signatureHelp): each signature's label, documentation and parameter labels, and which signature and parameter are active there. found is false when the position is not inside a call. The signatures of a callee declared in a sensitive file are withheld (sensitive: true; withheld says where and why).",
		readOnly,
		func(ctx context.Context, in getSignatureHelpArgs) (signatureHelpResult, error) {
			col := in.Column
			r, err := env.LSP.SignatureHelp(ctx, in.File, lsp.Target{Line: in.Line, Column: &col})
			return signatureHelpResult{r}, err
		})
}
