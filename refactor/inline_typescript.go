package refactor

// inline_function for TypeScript and JavaScript: the syntax inliner
// (inline_syntax.go) with the node types of the TypeScript and TSX grammars
// (tsserver offers only "Inline variable").

import (
	"regexp"
	"strings"

	"github.com/nvbridge/nvbridge/lang"
)

func init() { registerSyntaxInliner(lang.TypeScript, &typescriptRules) }

var typescriptRules = syntaxRules{
	shortCircuit: []string{"&&", "||", "??", "?."},
	pure:         set("identifier number string true false null undefined this"),
	atomic:       set("identifier number string true false null undefined this call_expression member_expression subscript_expression parenthesized_expression array object template_string non_null_expression"),
	safeParents:  set("expression_statement variable_declarator return_statement arguments parenthesized_expression array pair assignment_expression augmented_assignment_expression template_substitution"),
	statements:   []string{"expression_statement", "return_statement", "lexical_declaration", "variable_declaration"},
	blocks:       set("statement_block program"),
	deferred:     set("ternary_expression arrow_function function_expression"),
	scoped:       set("arrow_function function_expression class yield_expression await_expression this"),
	imports:      []string{"import_statement"},
	builtins: set(`Math JSON Number String Boolean Array Object Date Promise console undefined NaN Infinity parseInt
		parseFloat isNaN isFinite Symbol BigInt Map Set Error`),
	calls:  `(call_expression) @c (new_expression) @c`,
	idents: `(identifier) @id (shorthand_property_identifier) @short`,
	local:  func(name, value string) string { return "const " + name + " = " + value + ";" },
	// An omitted b?: T is undefined.
	undefined: "undefined",
	nullish:   "??",
	// Public: exported from its module (export function f, export { f }).
	public: func(text string, declStart int, name string) bool {
		lineStart := strings.LastIndex(text[:declStart], "\n") + 1
		if strings.HasPrefix(strings.TrimSpace(text[lineStart:]), "export ") {
			return true
		}
		return regexp.MustCompile(`export\s*\{[^}]*\b` + regexp.QuoteMeta(name) + `\b`).MatchString(text)
	},
}
