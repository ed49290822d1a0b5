package refactor

// change_signature for TypeScript and JavaScript: declarations and calls
// from tree-sitter (change_signature_treesitter.go), with TypeScript's
// parameters: an added one without a type takes its default literal's, an
// omitted optional argument is passed as undefined before others, a
// function may be a variable's value.

import (
	"github.com/nvbridge/nvbridge/lang"
	"github.com/nvbridge/nvbridge/lsp"
)

func init() {
	sigLanguages.register(lang.TypeScript, func(c *lsp.Client) sigSyntax { return tsSigSyntax{c: c.Session, treeSitterSig: &typescriptSig} })
}

var typescriptSig = treeSitterSig{
	sigRules: sigRules{inferType: literalType, omitted: "undefined"},
	// Shorthand properties ({name}) are uses, renamed as name: new.
	useQuery: `
(identifier) @id
(shorthand_property_identifier) @short
`,
	boundFunctions: true,
	variadicPrefix: "...",
}
