package lsp

// Shared pieces of the navigation features (definition, references, hover,
// symbols, completion, signature help, implementations): the methods worth
// naming when a server lacks one, limits, short texts, tool paths.
// Resolving a file+target is in locate.go, documents in document.go, reading
// source lines in lines.go.

import (
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"go.lsp.dev/protocol"

	"github.com/nvbridge/nvbridge/apierr"
)

// navigationMethods are the requests worth naming when a server lacks
// the one asked for, in the order they are listed.
var navigationMethods = []string{
	protocol.MethodTextDocumentDefinition,
	protocol.MethodTextDocumentDeclaration,
	protocol.MethodTextDocumentTypeDefinition,
	protocol.MethodTextDocumentImplementation,
	protocol.MethodTextDocumentReferences,
	protocol.MethodTextDocumentHover,
	protocol.MethodTextDocumentDocumentSymbol,
	protocol.MethodWorkspaceSymbol,
	protocol.MethodTextDocumentCompletion,
	protocol.MethodTextDocumentSignatureHelp,
	protocol.MethodTextDocumentPrepareCallHierarchy,
}

// positionMethods are the methods a position tool asks its document's
// servers about: its own (for picking the server) and the navigation ones
// (named when no server offers its own).
func positionMethods(method string) []string {
	if slices.Contains(navigationMethods, method) {
		return navigationMethods
	}
	return append(slices.Clip(navigationMethods), method)
}

// checkLimit validates a caller's bound on a list (the argument name, e.g.
// "max_results"): negative is INVALID_PARAMETER, 0 becomes def.
func checkLimit(n *int, name string, def int) error {
	if *n < 0 {
		return apierr.Errorf(apierr.InvalidParameter, "pass a positive "+name+" or omit it", "%s is %d", name, *n)
	}
	if *n == 0 {
		*n = def
	}
	return nil
}

// shorten returns s's first paragraph, cut to max characters on a word
// boundary when longer (for documentation in lists).
func shorten(s string, max int) string {
	s = strings.TrimSpace(s)
	if i := strings.Index(s, "\n\n"); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	runes := []rune(s)
	cut := string(runes[:max])
	if i := strings.LastIndexAny(cut, " \n\t"); i > max/2 {
		cut = cut[:i]
	}
	return strings.TrimSpace(cut) + "…"
}

// absPath turns a tool path (relative to the root, or absolute when
// outside it) back into an absolute path.
func (c *Client) absPath(file string) string {
	if filepath.IsAbs(file) {
		return file
	}
	return filepath.Join(c.Session.Root().Dir(), filepath.FromSlash(file))
}
