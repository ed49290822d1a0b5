package refactor

import (
	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/lang"
	"github.com/nvbridge/nvbridge/lsp"
)

// sigLanguages are the languages' parts of change_signature: the syntax
// their declarations and calls are read with and how their parameters
// behave (change_signature_go.go: go/parser; change_signature_python.go
// and change_signature_typescript.go: tree-sitter).
var sigLanguages = byLanguage[func(c *lsp.Client) sigSyntax]{}

// signatureSyntax is the part of change_signature for doc's language.
func signatureSyntax(c *lsp.Client, l *lang.Language, doc *lsp.Document) (sigSyntax, error) {
	if part := sigLanguages[l]; part != nil {
		return part(c), nil
	}
	name := doc.Buffer.Filetype
	if l != nil {
		name = l.Name
	}
	return nil, apierr.Errorf(apierr.Unsupported, "change_signature reads "+sigLanguages.languages()+" declarations and calls",
		"change_signature does not support %s files (%s)", name, doc.Rel)
}
