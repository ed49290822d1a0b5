package refactor

// inline_function for Python: the syntax inliner (inline_syntax.go) with
// the node types of Python's grammar (pyright has no inline refactoring).

import (
	"regexp"
	"strings"

	"github.com/nvbridge/nvbridge/lang"
)

func init() { registerSyntaxInliner(lang.Python, &pythonRules) }

var pythonRules = syntaxRules{
	docstrings: true,
	// A body of statements is inlined where the call is a statement.
	statementBodies: true,
	bracketLines:    true,
	pure:            set("identifier integer float true false none string"),
	atomic:          set("identifier integer float true false none string call attribute subscript parenthesized_expression list dictionary tuple set concatenated_string"),
	safeParents:     set("expression_statement assignment augmented_assignment return_statement argument_list parenthesized_expression keyword_argument list tuple set dictionary pair"),
	statements:      []string{"expression_statement", "return_statement"},
	blocks:          set("block module"),
	deferred:        set("conditional_expression boolean_operator lambda list_comprehension set_comprehension dictionary_comprehension generator_expression"),
	scoped:          set("lambda named_expression yield await"),
	// Comprehensions are inlined (their variables are their own; an
	// argument naming one is left alone).
	comprehensionVars: `(for_in_clause left: (identifier) @cb) (for_in_clause left: (pattern_list (identifier) @cb)) (for_in_clause left: (tuple_pattern (identifier) @cb))`,
	imports:           []string{"import_from_statement", "import_statement"},
	builtins: set(`abs all any ascii bin bool bytearray bytes callable chr complex dict dir divmod enumerate filter float
		format frozenset getattr hasattr hash hex id int isinstance issubclass iter len list map max min next object oct
		ord pow print range repr reversed round set setattr slice sorted str sum tuple type zip None True False
		ValueError TypeError KeyError IndexError RuntimeError Exception NotImplemented Ellipsis`),
	calls:  `(call) @c`,
	idents: `(identifier) @id (attribute attribute: (identifier) @skip) (keyword_argument name: (identifier) @skip)`,
	local:  func(name, value string) string { return name + " = " + value },
	// Public: no leading underscore, or listed in the module's __all__.
	public: func(text string, _ int, name string) bool {
		return !strings.HasPrefix(name, "_") || pyAllLists(text, name)
	},
	interpolation: "interpolation",
}

var pyAll = regexp.MustCompile(`(?s)__all__\s*(?:\+?=|:[^=]*=)\s*[\[(](.*?)[\])]`)

// pyAllLists reports whether a module's __all__ names name.
func pyAllLists(text, name string) bool {
	for _, m := range pyAll.FindAllStringSubmatch(text, -1) {
		for _, q := range []string{`"` + name + `"`, `'` + name + `'`} {
			if strings.Contains(m[1], q) {
				return true
			}
		}
	}
	return false
}
