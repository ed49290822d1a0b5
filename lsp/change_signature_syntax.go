package lsp

import (
	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/lang"
)

// signatureSyntax picks the syntax change_signature reads doc's language
// with.
func (c *Client) signatureSyntax(l *lang.Language, doc *Document) (sigSyntax, error) {
	if l != nil && l.Name == "go" {
		return goSigSyntax{}, nil
	}
	name := doc.Buffer.Filetype
	if l != nil {
		name = l.Name
	}
	return nil, apierr.Errorf(apierr.Unsupported, "change_signature reads Go, Python and TypeScript/JavaScript declarations and calls",
		"change_signature does not support %s files (%s)", name, doc.Rel)
}
