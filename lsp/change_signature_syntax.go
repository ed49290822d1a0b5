package lsp

import (
	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/lang"
)

// signatureSyntax picks the syntax change_signature reads doc's language
// with: go/parser for Go, tree-sitter (package syntax) for Python and
// TypeScript/JavaScript.
func (c *Client) signatureSyntax(l *lang.Language, doc *Document) (sigSyntax, error) {
	switch {
	case l != nil && l.Name == "go":
		return goSigSyntax{}, nil
	case l != nil && l.Name == "python":
		return tsSigSyntax{c: c.Session, python: true}, nil
	case l != nil && l.Name == "typescript":
		return tsSigSyntax{c: c.Session}, nil
	}
	name := doc.Buffer.Filetype
	if l != nil {
		name = l.Name
	}
	return nil, apierr.Errorf(apierr.Unsupported, "change_signature reads Go, Python and TypeScript/JavaScript declarations and calls",
		"change_signature does not support %s files (%s)", name, doc.Rel)
}
