package lsp

// Shared pieces of the navigation features (definition, references, hover,
// symbols, completion, signature help, implementations): resolving a
// file+target to a document, a capable server and a point; explaining a
// missing capability; reading a few source lines.

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"go.lsp.dev/protocol"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/lang"
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

// position is a document, the server that will answer about it and the
// point a tool named in it.
type position struct {
	doc    *Document
	server Server
	point  Point
	// unanalysed says why the answer may be partial: the wait for the
	// server's first analysis of the file was cut short ("" when not).
	unanalysed string
}

// params returns the LSP position parameters for p in its server's encoding.
func (p position) params() protocol.TextDocumentPositionParams {
	return protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: p.doc.URI},
		Position:     p.point.In(p.server.OffsetEncoding),
	}
}

// symbol is the identifier at the point ("" when the point is not on one).
func (p position) symbol() string { return identifierAt(p.point.Text, p.point.Byte) }

// where renders the point for messages: file:line:column (1-based line,
// 0-based column, as tools speak).
func (p position) where() string {
	return fmt.Sprintf("%s:%d:%d", p.doc.Rel, p.point.Line+1, p.point.Char)
}

// resolve opens file, picks the server for method (the capability is
// checked before anything is sent) and locates the target. unsupportedHint
// is the remediation given when no attached server offers method.
func (c *Client) resolve(ctx context.Context, file string, t Target, method, unsupportedHint string) (position, error) {
	doc, err := c.Open(ctx, file)
	if err != nil {
		return position{}, err
	}
	server, err := serverFor(doc, method, unsupportedHint)
	if err != nil {
		return position{}, err
	}
	pt, err := c.Locate(ctx, doc, t)
	if err != nil {
		return position{}, err
	}
	ready, err := c.awaitAnalysis(ctx, doc.Buffer.Bufnr, server)
	if err != nil {
		return position{}, err
	}
	pos := position{doc: doc, server: server, point: pt}
	if !ready {
		pos.unanalysed = fmt.Sprintf("%s had not finished analysing %s when asked (no diagnostics published within the wait): the answer may be partial; retry",
			server.Name, doc.Rel)
	}
	return pos, nil
}

// awaitAnalysis waits, once per buffer and server, until the server has
// published diagnostics for the buffer's current text (bounded by
// DiagnosticWait), and reports whether it did. Servers answer requests made
// while they are still loading the project with partial or empty results
// and no error: typescript-language-server's first references right after
// opening a file find only that file's, its first signature help nothing;
// pyright's workspace/symbol is empty for ~2 s. A server's first publish
// for a buffer means it has analysed that file (and loaded its project).
// The wait happens once: a server that never publishes for a file costs the
// bound only the first time. A server that answers from the opened text and
// waits for its own workspace load (lang.ServerSpec.AnswersAfterOpen:
// gopls) is not waited for.
func (c *Client) awaitAnalysis(ctx context.Context, bufnr int, server Server) (bool, error) {
	if lang.AnswersAfterOpen(server.Name) {
		return true, nil
	}
	key := analysisKey{bufnr, server.ID}
	c.analysedMu.Lock()
	done := c.analysed[key]
	c.analysedMu.Unlock()
	if done {
		return true, nil
	}
	raw, err := c.Session.Async(ctx, "wait_diagnostics", bufnr, []int{server.ID}, int(c.waitBound(ctx)/time.Millisecond))
	if err != nil {
		return false, err
	}
	c.analysedMu.Lock()
	if c.analysed == nil {
		c.analysed = map[analysisKey]bool{}
	}
	c.analysed[key] = true
	c.analysedMu.Unlock()
	return string(raw) == "true", nil
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

// serverFor is Document.ServerFor with a feature-specific remediation.
func serverFor(doc *Document, method, hint string) (Server, error) {
	s, err := doc.ServerFor(method)
	if err != nil && hint != "" && len(doc.Servers) > 0 {
		e := *apierr.As(err)
		e.Remediation = hint
		return Server{}, &e
	}
	return s, err
}

// identifierAt returns the identifier touching byte offset b of line (b
// inside it, at its start or just past its end), "" when there is none.
func identifierAt(line string, b int) string {
	if b < 0 || b > len(line) {
		return ""
	}
	start := identStart(line, b)
	end := b
	for end < len(line) {
		r, size := utf8.DecodeRuneInString(line[end:])
		if !isIdent(r) {
			break
		}
		end += size
	}
	return line[start:end]
}

// identStart returns the byte where the identifier containing byte b
// starts (b itself when b is not in one).
func identStart(line string, b int) int {
	if b > len(line) {
		b = len(line)
	}
	for b > 0 {
		r, size := utf8.DecodeLastRuneInString(line[:b])
		if !isIdent(r) {
			break
		}
		b -= size
	}
	return b
}

// sourceBlocks reads, for each location, up to n lines starting at its line
// (from the buffer when loaded, else the disk). A block stops early at a
// blank line after its first line. Keys are the locations' indexes.
func (c *Client) sourceBlocks(ctx context.Context, paths []string, lines []int, n int) (map[int]string, error) {
	wanted := map[string][]int{}
	for i, p := range paths {
		for l := lines[i]; l < lines[i]+n; l++ {
			wanted[p] = append(wanted[p], l)
		}
	}
	for p := range wanted {
		sort.Ints(wanted[p])
		wanted[p] = dedupInts(wanted[p])
	}
	texts, err := c.Lines(ctx, wanted)
	if err != nil {
		return nil, err
	}
	out := make(map[int]string, len(paths))
	for i, p := range paths {
		var block []string
		for l := lines[i]; l < lines[i]+n; l++ {
			text, ok := texts[p][l]
			if !ok || (l > lines[i] && strings.TrimSpace(text) == "") {
				break
			}
			block = append(block, text)
		}
		out[i] = strings.Join(block, "\n")
	}
	return out, nil
}

func dedupInts(s []int) []int {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
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
