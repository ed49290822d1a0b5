package refactor

// move_symbol for TypeScript/JavaScript: tsserver's own "Move to file"
// refactoring, asked through typescript-language-server's
// typescript.tsserverRequest command with the target file as its
// interactive argument (the code action itself would need a file picker,
// and its command creates the target on disk before any preview). tsserver
// moves the statement with its comments, adds the imports the moved code
// needs in the target, and rewrites every importer; its edits become one
// changeset, the target's creation included.

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/lang"
	"github.com/nvbridge/nvbridge/lsp"
	"github.com/nvbridge/nvbridge/preview"
)

// tsserver's answer to getEditsForRefactor (1-based lines and offsets in
// UTF-16 code units).
type tsRefactorEdits struct {
	Success bool   `json:"success"`
	Message string `json:"message"`
	Body    *struct {
		Edits []struct {
			FileName    string `json:"fileName"`
			IsNewFile   bool   `json:"isNewFile"`
			TextChanges []struct {
				Start   tsLocation `json:"start"`
				End     tsLocation `json:"end"`
				NewText string     `json:"newText"`
			} `json:"textChanges"`
		} `json:"edits"`
		NotApplicableReason string `json:"notApplicableReason"`
	} `json:"body"`
}

type tsLocation struct {
	Line   int `json:"line"`
	Offset int `json:"offset"`
}

// lsp is l as an LSP position in doc (a new file's edits start at 0:0);
// an offset past its line's end continues on the next line (its line
// break two units in a CRLF file, as tsserver counts them).
func (l tsLocation) lsp(doc preview.Document) protocol.Position {
	line, char := max(l.Line-1, 0), max(l.Offset-1, 0)
	brk := max(len(doc.EOL), 1)
	for line < len(doc.Lines) {
		n := preview.ByteToUnits(doc.Lines[line], len(doc.Lines[line]), preview.UTF16)
		if char <= n {
			break
		}
		char -= n + brk
		line++
	}
	return protocol.Position{Line: uint32(line), Character: uint32(char)}
}

const tsserverRequest = "typescript.tsserverRequest"

func init() { movers.register(lang.TypeScript, moveTS) }

func moveTS(ctx context.Context, c *lsp.Client, doc *lsp.Document, pt lsp.Point, target string) (MovePlan, error) {
	server, err := doc.ServerFor(protocol.MethodWorkspaceExecuteCommand)
	if err != nil {
		return MovePlan{}, err
	}
	caps, err := capabilitiesOf(ctx, c, server)
	if err != nil {
		return MovePlan{}, err
	}
	if !caps.hasCommand(tsserverRequest) {
		return MovePlan{}, apierr.Errorf(apierr.Unsupported, "use typescript-language-server (make deps installs it)",
			"%s has no %s command, through which nvbridge asks tsserver to move code", server.Name, tsserverRequest)
	}
	top, err := topLevelAt(ctx, c, doc, pt)
	if err != nil {
		return MovePlan{}, err
	}
	name := top.Name
	root := c.Session.Root()
	tgtAbs := filepath.Join(root.Dir(), filepath.FromSlash(target))
	sel := top.Range.Start
	if top.Selection != nil {
		sel = top.Selection.Start
	}
	lines, err := c.Session.Lines(ctx, doc.Buffer.Bufnr, int(sel.Line), int(sel.Line)+1)
	if err != nil || len(lines) != 1 {
		return MovePlan{}, apierr.Errorf(apierr.Conflict, "retry", "%s changed while reading it", doc.Rel)
	}
	b, _ := preview.UnitsToByte(lines[0], int(sel.Character), top.Enc)
	at := lsp.Point{Line: int(sel.Line), Byte: b, Char: preview.UnitsToChar(lines[0], int(sel.Character), top.Enc), Text: lines[0]}
	refs, _, err := moveReferences(ctx, c, doc.Rel, at.Line+1, at.Char)
	if err != nil {
		return MovePlan{}, err
	}
	pos := at.In(preview.UTF16)
	args := map[string]any{
		"file":      doc.Path,
		"startLine": pos.Line + 1, "startOffset": pos.Character + 1,
		"endLine": pos.Line + 1, "endOffset": pos.Character + 1,
		"refactor": "Move to file", "action": "Move to file",
		"interactiveRefactorArguments": map[string]any{"targetFile": tgtAbs},
	}
	params := map[string]any{"command": tsserverRequest, "arguments": []any{"getEditsForRefactor", args}}
	var raw json.RawMessage
	if err := c.Request(ctx, doc, server, protocol.MethodWorkspaceExecuteCommand, params, &raw); err != nil {
		if e := apierr.As(err); e.Code == apierr.OperationFailed {
			return MovePlan{}, apierr.Errorf(apierr.PreconditionFailed, moveHint,
				"tsserver cannot move the code at %s:%d:%d to %s: %s", doc.Rel, pt.Line+1, pt.Char, target, e.Message)
		}
		return MovePlan{}, err
	}
	var ans tsRefactorEdits
	if err := json.Unmarshal(raw, &ans); err != nil || ans.Body == nil {
		why := ans.Message
		if why == "" {
			why = "no edits"
		}
		return MovePlan{}, apierr.Errorf(apierr.PreconditionFailed, moveHint,
			"tsserver offers no move of %s:%d:%d (%q): %s", doc.Rel, pt.Line+1, pt.Char, strings.TrimSpace(pt.Text), why)
	}
	if ans.Body.NotApplicableReason != "" || len(ans.Body.Edits) == 0 {
		return MovePlan{}, apierr.Errorf(apierr.PreconditionFailed, moveHint,
			"tsserver cannot move %s:%d:%d: %s", doc.Rel, pt.Line+1, pt.Char, ans.Body.NotApplicableReason)
	}
	// tsserver's own copy of a document it has open answers an end-of-file
	// position as one past the last line's end (its line map has no entry
	// after the final newline): positions are normalised against the
	// text, counting a line break as tsserver does (CRLF: two units).
	var rels []string
	for _, e := range ans.Body.Edits {
		if root.Contains(e.FileName) {
			rels = append(rels, root.Rel(e.FileName))
		}
	}
	texts, err := readFiles(ctx, c, rels)
	if err != nil {
		return MovePlan{}, err
	}
	// As a WorkspaceEdit: a creation for a new file, then every file's edits.
	var changes []any
	created := false
	for _, e := range ans.Body.Edits {
		u := uri.File(e.FileName)
		if e.IsNewFile || (filepath.Clean(e.FileName) == tgtAbs && !regularFile(tgtAbs)) {
			changes = append(changes, map[string]any{"kind": "create", "uri": u})
			created = created || filepath.Clean(e.FileName) == tgtAbs
		}
		var edits []map[string]any
		for _, tc := range e.TextChanges {
			edits = append(edits, map[string]any{"range": protocol.Range{
				Start: tc.Start.lsp(texts.docs[root.Rel(e.FileName)]), End: tc.End.lsp(texts.docs[root.Rel(e.FileName)]),
			}, "newText": tc.NewText})
		}
		changes = append(changes, map[string]any{"textDocument": map[string]any{"uri": u, "version": nil}, "edits": edits})
	}
	we, _ := json.Marshal(map[string]any{"documentChanges": changes})
	cs, err := workspaceChangeset(ctx, c, preview.UTF16, we)
	if err != nil {
		return MovePlan{}, err
	}
	before, after, err := changesetTexts(cs)
	if err != nil {
		return MovePlan{}, err
	}
	l := lang.ForFile(doc.Path)
	cs, after, err = organizeMoved(c, cs, l, after, doc.Path, tgtAbs)
	if err != nil {
		return MovePlan{}, err
	}
	if t, ok := after[target]; ok {
		// The source lines tsserver's edits delete: the moved code.
		srcDoc := texts.docs[doc.Rel]
		deleted := make([]bool, len(strings.Split(before[doc.Rel], "\n")))
		for _, e := range ans.Body.Edits {
			if !root.Contains(e.FileName) || root.Rel(e.FileName) != doc.Rel {
				continue
			}
			for _, tc := range e.TextChanges {
				s, end := tc.Start.lsp(srcDoc), tc.End.lsp(srcDoc)
				for j := int(s.Line); j < len(deleted) && (j < int(end.Line) || j == int(end.Line) && end.Character > 0); j++ {
					deleted[j] = true
				}
			}
		}
		if kept := keepMovedLayout(before[doc.Rel], deleted, t, created); kept != t {
			after[target] = kept
			if cs, err = withTexts(cs, map[string]string{target: kept}); err != nil {
				return MovePlan{}, err
			}
		}
	}
	// Uses through a namespace that re-exports the source (zod's
	// util.installLazyMethods through core/index.ts's export * as util).
	decl := strings.TrimSpace(lineAt(before[doc.Rel], int(sel.Line)))
	for _, kw := range []string{"export ", "declare "} {
		decl = strings.TrimPrefix(decl, kw)
	}
	typeOnly := strings.HasPrefix(decl, "interface ") || strings.HasPrefix(decl, "type ")
	cs, _, err = followNamespaceUses(ctx, c, l, cs, before, after, doc.Rel, target, name, int(sel.Line), typeOnly)
	if err != nil {
		return MovePlan{}, err
	}
	if t, ok := after[target]; ok {
		if st := styleAddedImports(tgtAbs, before[target], t, after, root.Rel); st != t {
			after[target] = st
			if cs, err = withTexts(cs, map[string]string{target: st}); err != nil {
				return MovePlan{}, err
			}
		}
	}
	n := 0 // the files followNamespaceUses rewrote count here too
	for _, r := range refs {
		if _, changed := after[r.File]; changed && r.File != doc.Rel && r.File != target {
			n++
		}
	}
	plan := MovePlan{Changeset: cs, Server: server.Name, How: "tsserver Move to file", Symbol: name, Moved: []string{name},
		From: doc.Rel, To: target, Created: created, References: n,
		ImportUpdates: importUpdates(l, before, after)}
	plan.Files, _ = changesetStats(cs)
	return plan, nil
}

// organizeMoved drops, in every file a move changed, the imports of the
// source or target module left unused.
func organizeMoved(c *lsp.Client, cs preview.Changeset, l *lang.Language, after map[string]string, srcAbs, tgtAbs string) (preview.Changeset, map[string]string, error) {
	if l == nil || l.Imports.Resolve == nil {
		return cs, after, nil
	}
	root := c.Session.Root()
	scope := lang.NewScope(root.Dir())
	changed := map[string]string{}
	for f, text := range after {
		abs := filepath.Join(root.Dir(), filepath.FromSlash(f))
		nt := dropUnusedModuleImports(l, text, func(imp lang.Import) bool {
			for _, r := range l.Imports.Resolve(scope, abs, imp) {
				if r == srcAbs || r == tgtAbs {
					return true
				}
			}
			return false
		})
		if nt != text {
			changed[f], after[f] = nt, nt
		}
	}
	if len(changed) == 0 {
		return cs, after, nil
	}
	cs, err := withTexts(cs, changed)
	return cs, after, err
}

// changesetTexts returns each file's text before and after cs (flat, "\n"
// breaks), by workspace path (a creation has no text before).
func changesetTexts(cs preview.Changeset) (before, after map[string]string, err error) {
	before, after = map[string]string{}, map[string]string{}
	for _, fc := range cs.Files {
		if fc.Kind == preview.OpDelete {
			continue
		}
		nd, err := preview.Apply(fc.Old, fc.Edits)
		if err != nil {
			return nil, nil, apierr.Errorf(apierr.OperationFailed, "report this", "%s: %v", fc.Path, err)
		}
		p := fc.Path
		if fc.NewPath != "" {
			p = fc.NewPath
		}
		if fc.Kind != preview.OpCreate {
			before[p] = fc.Old.Mapper().Text()
		}
		after[p] = nd.Mapper().Text()
	}
	return before, after, nil
}

// keepMovedLayout puts back the moved code as the source wrote it.
// tsserver's Move to file prints the declaration anew: a file it creates
// starts with an empty line (zod's quotelessJson), a doc comment is set
// apart from its declaration by an empty line, an empty body becomes
// "{ }", and code appended to an existing file follows its last line with
// no empty line between. Each run of target lines that equals, but for
// whitespace and empty lines, a run of the source's lines the move
// deleted (deleted: by line; three non-empty lines at least) is replaced by those source
// lines, with an empty line above it where it follows a top-level line.
func keepMovedLayout(src string, deleted []bool, target string, created bool) string {
	if created {
		target = strings.TrimLeft(target, "\r\n")
	}
	norm := func(l string) string { return strings.Join(strings.Fields(l), "") }
	srcLines, tgt := strings.Split(src, "\n"), strings.Split(target, "\n")
	if len(deleted) < len(srcLines) {
		deleted = append(deleted, make([]bool, len(srcLines)-len(deleted))...)
	}
	// match walks target lines from i and source lines from j while their
	// non-empty lines are equal but for whitespace: the ends and how many
	// non-empty lines matched.
	match := func(i, j int) (int, int, int) {
		n, ti, sj := 0, i, j
		for {
			a, b := ti, sj
			for a < len(tgt) && strings.TrimSpace(tgt[a]) == "" {
				a++
			}
			for b < len(srcLines) && strings.TrimSpace(srcLines[b]) == "" {
				b++
			}
			if a >= len(tgt) || b >= len(srcLines) || !deleted[b] || norm(tgt[a]) != norm(srcLines[b]) {
				return ti, sj, n
			}
			ti, sj, n = a+1, b+1, n+1
		}
	}
	var out []string
	for i := 0; i < len(tgt); {
		best, bestT, bestJ, bestS := 0, 0, 0, 0
		if strings.TrimSpace(tgt[i]) != "" {
			for j := range srcLines {
				if !deleted[j] || norm(srcLines[j]) != norm(tgt[i]) {
					continue
				}
				if te, se, n := match(i, j); n > best {
					best, bestT, bestJ, bestS = n, te, j, se
				}
			}
		}
		if best < 3 {
			out = append(out, tgt[i])
			i++
			continue
		}
		run := srcLines[bestJ:bestS]
		if len(out) > 0 {
			if prev := out[len(out)-1]; strings.TrimSpace(prev) != "" && strings.TrimLeft(prev, " \t") == prev {
				out = append(out, "")
			}
		}
		out = append(out, run...)
		i = bestT
	}
	return strings.Join(out, "\n")
}

func regularFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}
