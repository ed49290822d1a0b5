package refactor

// change_signature for Python: declarations and calls from tree-sitter
// (change_signature_treesitter.go), with Python's parameters: defaults make
// a parameter optional, arguments after a skipped one go by keyword,
// self and cls are not passed, * marks keyword-only parameters.

import (
	"github.com/nvbridge/nvbridge/lang"
	"github.com/nvbridge/nvbridge/lsp"
)

func init() {
	sigLanguages.register(lang.Python, func(c *lsp.Client) sigSyntax { return tsSigSyntax{c: c.Session, treeSitterSig: &pythonSig} })
}

var pythonSig = treeSitterSig{
	sigRules: sigRules{defaultIsOptional: true},
	// Attribute and keyword argument names are no uses of a parameter.
	useQuery: `
(attribute attribute: (identifier) @skip)
(keyword_argument name: (identifier) @skip)
(identifier) @id
`,
	receivers:      []string{"self", "cls"},
	methodAncestor: "class_definition",
	keywordMarker:  "*",
	variadicPrefix: "*",
	tightDefaults:  true,
}
