package refactor

// organize_imports: the server's organize imports (a code action or a command), with the imports removed and added.
// Each feature computes a preview.Changeset and changes nothing; the caller
// previews or applies it through edit.Engine.

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/lang"
	"github.com/nvbridge/nvbridge/lsp"
	"github.com/nvbridge/nvbridge/preview"
)

// --- organize_imports -------------------------------------------------------

// ImportsPlan is organize_imports' computed change.
type ImportsPlan struct {
	File      string
	Server    string
	Via       string // the action or command that produced the edit
	Changeset preview.Changeset
	// Changed is false when the imports were already organized.
	Changed bool
	Removed []string
	Added   []string
	Note    string
}

// OrganizeImports computes the server's organize-imports edit for file.
//
// gopls: the source.organizeImports action, which arrives with its edit.
// typescript-language-server: its source.organizeImports.ts action only
// sorts; when it also offers source.removeUnusedImports.ts (whose edit
// overlaps the first, both computed against the same text, so the two
// cannot be stacked in one changeset) nvbridge asks for the single edit
// doing both: the server command _typescript.organizeImports in its default
// mode (remove unused, sort, combine), captured. pyright: the command its
// server spec names (lang: OrganizeImportsCommands), captured.
func OrganizeImports(ctx context.Context, c *lsp.Client, file string) (ImportsPlan, error) {
	doc, err := c.Open(ctx, file)
	if err != nil {
		return ImportsPlan{}, err
	}
	servers := doc.ServersFor(protocol.MethodTextDocumentCodeAction)
	if len(servers) == 0 {
		_, err := doc.ServerFor(protocol.MethodTextDocumentCodeAction)
		return ImportsPlan{}, err
	}
	var reasons []string
	for _, server := range servers {
		plan, ok, why, err := organizeWith(ctx, c, doc, server)
		if err != nil {
			return ImportsPlan{}, err
		}
		if ok {
			return plan, nil
		}
		reasons = append(reasons, why)
	}
	return ImportsPlan{}, apierr.Errorf(apierr.Unsupported,
		"organize the imports by hand (edit_buffer), or use a language server that offers source.organizeImports",
		"no attached server organizes imports in %s: %s", doc.Rel, strings.Join(reasons, "; "))
}

func organizeWith(ctx context.Context, c *lsp.Client, doc *lsp.Document, server lsp.Server) (ImportsPlan, bool, string, error) {
	caps, err := capabilitiesOf(ctx, c, server)
	if err != nil {
		return ImportsPlan{}, false, "", err
	}
	plan := ImportsPlan{File: doc.Rel, Server: server.Name}
	finish := func(cs preview.Changeset) (ImportsPlan, bool, string, error) {
		plan.Changeset = cs
		_, n := changesetStats(cs)
		if n == 0 {
			plan.Note = "the imports are already organized"
			return plan, true, "", nil
		}
		diff, err := preview.UnifiedDiff(cs)
		if err != nil {
			return ImportsPlan{}, false, "", err
		}
		plan.Removed, plan.Added = importChanges(doc.Language(), diff)
		plan.Changed = strings.Contains(diff, "@@")
		if !plan.Changed {
			plan.Note = "the imports are already organized"
		}
		return plan, true, "", nil
	}
	const tsOrganize = "_typescript.organizeImports"
	if caps.declaresKind("source.removeUnusedImports.ts") && caps.hasCommand(tsOrganize) {
		args, _ := json.Marshal([]any{doc.Path})
		cs, _, err := runCaptured(ctx, c, doc, server, lsp.Command{Command: tsOrganize, Arguments: args})
		if err != nil {
			return ImportsPlan{}, false, "", err
		}
		plan.Via = "command " + tsOrganize + " (remove unused, sort and combine: what source.organizeImports.ts and source.removeUnusedImports.ts do together)"
		return finish(cs)
	}
	zero := lsp.Point{Line: 0, Byte: 0}
	actions, _, err := c.CodeActions(ctx, lsp.ActionRequest{Doc: doc, Span: lsp.Span{Start: zero, End: zero}, Only: []string{"source.organizeImports"}, Server: &server})
	if err != nil {
		return ImportsPlan{}, false, "", err
	}
	for i := range actions {
		a := &actions[i]
		if !lsp.KindMatches(a.Kind, "source.organizeImports") || a.Disabled != "" || a.NotRunnable != "" {
			continue
		}
		cs, _, err := ActionChangeset(ctx, c, doc, a)
		if err != nil {
			return ImportsPlan{}, false, "", err
		}
		plan.Via = fmt.Sprintf("code action %q (%s)", a.Title, a.Kind)
		return finish(cs)
	}
	// A server whose organize imports is a command (pyright): its spec's.
	if cmd, ok := lang.OrganizeImportsCommand(server.Name); ok {
		args, _ := json.Marshal([]any{doc.URI})
		cs, _, err := runCaptured(ctx, c, doc, server, lsp.Command{Command: cmd, Arguments: args})
		if err != nil {
			return ImportsPlan{}, false, "", err
		}
		plan.Via = "command " + cmd
		return finish(cs)
	}
	if caps.declaresKind("source.organizeImports") {
		// Declared, but nothing offered for this file: nothing to do.
		plan.Via = "code action source.organizeImports"
		return finish(preview.Changeset{})
	}
	return ImportsPlan{}, false, fmt.Sprintf("%s offers no source.organizeImports action (%s)", server.Name, caps.kindsText()), nil
}

// importChanges reads a unified diff for import lines that were removed
// and added, net of lines only moved or regrouped (so sorting reports
// nothing, and merging `import "a"` into an import block neither).
func importChanges(l *lang.Language, diff string) (removed, added []string) {
	minus := map[string]int{}
	plus := map[string]int{}
	var minusOrder, plusOrder []string
	inBlock := false // inside a Go import ( ... ) block, on the new or old side
	for _, line := range strings.Split(diff, "\n") {
		if strings.HasPrefix(line, "---") || strings.HasPrefix(line, "+++") || line == "" {
			continue
		}
		op, text := line[0], strings.TrimSpace(line[1:])
		if op != '-' && op != '+' && op != ' ' {
			continue
		}
		key, ok := lang.ImportKey(l, text, &inBlock)
		if !ok || op == ' ' {
			continue
		}
		if op == '-' {
			if minus[key] == 0 {
				minusOrder = append(minusOrder, key)
			}
			minus[key]++
		} else {
			if plus[key] == 0 {
				plusOrder = append(plusOrder, key)
			}
			plus[key]++
		}
	}
	for _, k := range minusOrder {
		if minus[k] > plus[k] {
			removed = append(removed, k)
		}
	}
	for _, k := range plusOrder {
		if plus[k] > minus[k] {
			added = append(added, k)
		}
	}
	return removed, added
}
