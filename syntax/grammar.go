package syntax

import (
	"context"
	"slices"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/lang"
)

// GrammarOf returns the node types of a tree-sitter language (from the
// language registry: lang.Language.Grammar); ok is false for a language
// the refactorings do not know.
func GrammarOf(ts string) (lang.Grammar, bool) {
	if l := lang.ForTreeSitter(ts); l != nil && l.Grammar != nil {
		return *l.Grammar, true
	}
	return lang.Grammar{}, false
}

func grammarFor(src Source) (lang.Grammar, error) {
	g, ok := GrammarOf(src.Lang)
	if !ok {
		return lang.Grammar{}, apierr.Errorf(apierr.Unsupported, "the syntax helpers know the tree-sitter languages whose grammar the registry describes (lang.Language.Grammar)",
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

func wrapperOf(ctx context.Context, c Caller, src Source, n *Node, g lang.Grammar) (*Node, error) {
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
