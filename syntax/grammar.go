package syntax

import (
	"context"
	"slices"

	"github.com/nvbridge/nvbridge/apierr"
)

// Grammar names the node types of one tree-sitter grammar that the
// refactorings ask about.
type Grammar struct {
	// Calls are call nodes; each has the fields "function" (or
	// "constructor") and "arguments".
	Calls []string
	// Declarations declare a function, method, class, type or variable.
	Declarations []string
	// Wrappers wrap a declaration with what belongs to it (decorators,
	// export): a declaration whose parent is one is reported as that parent.
	Wrappers []string
	// Functions are function definitions (with "name", "parameters",
	// "body"), Returns return statements.
	Functions []string
	Returns   []string
}

var pythonGrammar = Grammar{
	Calls:        []string{"call"},
	Declarations: []string{"function_definition", "class_definition"},
	Wrappers:     []string{"decorated_definition"},
	Functions:    []string{"function_definition"},
	Returns:      []string{"return_statement"},
}

var typescriptGrammar = Grammar{
	Calls: []string{"call_expression", "new_expression"},
	Declarations: []string{"function_declaration", "generator_function_declaration", "class_declaration",
		"abstract_class_declaration", "interface_declaration", "type_alias_declaration", "enum_declaration",
		"lexical_declaration", "variable_declaration", "method_definition", "method_signature",
		"abstract_method_signature", "public_field_definition", "function_signature", "module", "internal_module"},
	Wrappers:  []string{"export_statement"},
	Functions: []string{"function_declaration", "method_definition", "function_expression", "arrow_function", "generator_function_declaration"},
	Returns:   []string{"return_statement"},
}

var grammars = map[string]Grammar{
	"python":     pythonGrammar,
	"typescript": typescriptGrammar,
	"tsx":        typescriptGrammar,
}

// GrammarOf returns the node types of a tree-sitter language; ok is false
// for a language the refactorings do not know.
func GrammarOf(ts string) (Grammar, bool) {
	g, ok := grammars[ts]
	return g, ok
}

func grammarFor(src Source) (Grammar, error) {
	g, ok := grammars[src.Lang]
	if !ok {
		return Grammar{}, apierr.Errorf(apierr.Unsupported, "the syntax helpers know python, typescript and tsx",
			"no call and declaration syntax known for tree-sitter language %q", src.Lang)
	}
	return g, nil
}

// EnclosingCall returns the innermost call enclosing (row, col), with two
// levels of children (its function and arguments, and each argument); nil
// when the position is in no call.
func EnclosingCall(ctx context.Context, c Caller, src Source, row, col int) (*Node, error) {
	g, err := grammarFor(src)
	if err != nil {
		return nil, err
	}
	n, _, err := Enclosing(ctx, c, src, row, col, g.Calls, 2)
	return n, err
}

// EnclosingDeclaration returns the innermost declaration enclosing (row,
// col), including its wrapper (decorators, export) when it has one, with
// one level of children; nil when the position is in no declaration.
func EnclosingDeclaration(ctx context.Context, c Caller, src Source, row, col int) (*Node, error) {
	g, err := grammarFor(src)
	if err != nil {
		return nil, err
	}
	n, ancestors, err := Enclosing(ctx, c, src, row, col, g.Declarations, 1)
	if err != nil || n == nil {
		return n, err
	}
	if len(ancestors) > 0 && slices.Contains(g.Wrappers, ancestors[0]) {
		return wrapperOf(ctx, c, src, n, g)
	}
	return n, nil
}

func wrapperOf(ctx context.Context, c Caller, src Source, n *Node, g Grammar) (*Node, error) {
	w, _, err := Enclosing(ctx, c, src, n.StartRow, n.StartCol, g.Wrappers, 1)
	if err != nil || w == nil {
		return n, err
	}
	return w, nil
}

// EnclosingFunction returns the innermost function definition enclosing
// (row, col) with two levels of children (name, parameters and each
// parameter, body and its statements); nil when none.
func EnclosingFunction(ctx context.Context, c Caller, src Source, row, col int) (*Node, error) {
	g, err := grammarFor(src)
	if err != nil {
		return nil, err
	}
	n, _, err := Enclosing(ctx, c, src, row, col, g.Functions, 2)
	return n, err
}
