package refactor

// What tsserver's Move to file does not follow: a use of the moved
// declaration through a namespace that re-exports its module, in a file
// tsserver's edits leave alone. zod's classic/schemas.ts imports
// { util } from "../core/index.js", whose `export * as util from
// "./util.js"` makes util.installLazyMethods a use of util.ts's function:
// moved to versions.ts, tsserver rewrote the direct namespace import of
// util.js (mini/schemas.ts) but not this one, and tsc failed on it. Each
// such use (a qualified name whose definition, as tsserver resolves it
// before the move, is the moved declaration) is rewritten to the bare
// name, imported from the target with the importer's own specifier style
// (relative, with or without the .js of ESM TypeScript). A use that cannot
// be rewritten so (an expression, not a chain of namespace names; a file
// that already declares the name; a namespace reached through a package)
// refuses the move with PRECONDITION_FAILED naming it.

import (
	"context"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/lang"
	"github.com/nvbridge/nvbridge/lsp"
	"github.com/nvbridge/nvbridge/preview"
)

// nsSite is a qualified use: text[start:nameStart] is "ns." or "a.b.",
// head the first name of the chain.
type nsSite struct {
	start, nameStart int
	head             string
	line, char       int
}

func tsIdentByte(b byte) bool {
	return b == '_' || b == '$' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= 0x80
}

// qualifiedChain walks back from the "." before text[nameStart:] over a
// chain of names ("util.", "core.util."): where it starts and its first
// name; ok false when what precedes the dot is not such a chain (a call's
// result, an optional chain, an index).
func qualifiedChain(text string, nameStart int) (start int, head string, ok bool) {
	start = nameStart - 1 // the '.'
	for {
		j := start
		for j > 0 && tsIdentByte(text[j-1]) {
			j--
		}
		if j == start || text[j] >= '0' && text[j] <= '9' {
			return 0, "", false
		}
		head = text[j:start]
		start = j
		if start > 0 && text[start-1] == '.' {
			start--
			continue
		}
		break
	}
	if start > 0 && (tsIdentByte(text[start-1]) || strings.IndexByte(")]?", text[start-1]) >= 0) {
		return 0, "", false
	}
	return start, head, true
}

// tsSpecifier is the import specifier from file to target (both
// workspace-relative) in the style of like, a specifier the file already
// writes: "./x", "./x.js" for ESM TypeScript, "./x.ts".
func tsSpecifier(file, target, like string) string {
	rel, err := filepath.Rel(path.Dir(file), target)
	if err != nil {
		rel = target
	}
	rel = filepath.ToSlash(rel)
	if !strings.HasPrefix(rel, ".") {
		rel = "./" + rel
	}
	ext := path.Ext(target)
	base := strings.TrimSuffix(rel, ext)
	switch {
	case strings.HasSuffix(like, ".js") || strings.HasSuffix(like, ".mjs") || strings.HasSuffix(like, ".cjs") || strings.HasSuffix(like, ".jsx"):
		js := map[string]string{".ts": ".js", ".tsx": ".js", ".mts": ".mjs", ".cts": ".cjs"}[ext]
		if js == "" {
			js = ext
		}
		return base + js
	case strings.HasSuffix(like, ext):
		return rel
	}
	return base
}

// followNamespaceUses rewrites the uses of the moved name (declared on
// line declLine, 0-based, of src) through a namespace in the files the
// move left untouched, and imports it from target there (before and after
// gain those files' texts). It returns the
// changeset with those files added and how many uses it rewrote.
func followNamespaceUses(ctx context.Context, c *lsp.Client, l *lang.Language, cs preview.Changeset, before, after map[string]string,
	src, target, name string, declLine int, typeOnly bool) (preview.Changeset, int, error) {
	root := c.Session.Root()
	var cands []string
	for _, f := range languageFiles(root, l) {
		if _, changed := after[f]; changed || f == src || f == target {
			continue
		}
		abs := filepath.Join(root.Dir(), filepath.FromSlash(f))
		if root.Sensitive(abs) {
			continue
		}
		data, err := os.ReadFile(abs)
		if err != nil || !strings.Contains(string(data), "."+name) {
			continue
		}
		cands = append(cands, f)
	}
	if len(cands) == 0 {
		return cs, 0, nil
	}
	files, err := readFiles(ctx, c, cands)
	if err != nil {
		return cs, 0, err
	}
	n := 0
	sort.Strings(cands)
	for _, f := range cands {
		text, ok := files.texts[f]
		if !ok {
			continue
		}
		m := preview.NewMapper(text)
		var sites []nsSite
		bare := false
		for _, sp := range lang.Identifiers(l, text) {
			if text[sp.Start:sp.End] != name {
				continue
			}
			if sp.Start == 0 || text[sp.Start-1] != '.' {
				bare = true
				continue
			}
			line, char := m.CharPosition(sp.Start)
			col := char
			defs, err := c.Definition(ctx, f, lsp.Target{Line: line, Column: &col})
			if err != nil {
				if ctx.Err() != nil {
					return cs, 0, err
				}
				continue
			}
			if len(defs.Locations) == 0 || defs.Locations[0].File != src || defs.Locations[0].Line != declLine+1 {
				continue
			}
			start, head, ok := qualifiedChain(text, sp.Start)
			if !ok {
				ls, le := m.LineAround(sp.Start)
				return cs, 0, apierr.Errorf(apierr.PreconditionFailed, "move it by hand, or change that use to a named import of "+name+" first",
					"tsserver's move of %s does not update %s:%d (%q), a use of %s through an expression, not a namespace: nothing was changed",
					name, f, line, strings.TrimSpace(text[ls:le]), name)
			}
			sites = append(sites, nsSite{start: start, nameStart: sp.Start, head: head, line: line, char: char})
		}
		if len(sites) == 0 {
			continue
		}
		if bare {
			return cs, 0, apierr.Errorf(apierr.PreconditionFailed, "rename the other "+name+" in "+f+" first, or move it by hand",
				"tsserver's move of %s does not update %s:%d (%s.%s): nvbridge would import %s there, but %s already names something else in that file: nothing was changed",
				name, f, sites[0].line, sites[0].head, name, name, name)
		}
		// The specifier style of the import the first chain's head comes from.
		like, quote := "", `"`
		for _, imp := range l.Imports.Parse(text) {
			if imp.Alias == sites[0].head || containsName(imp.Names, sites[0].head) {
				like = imp.Path
				if q := lineAt(text, imp.Line); imp.Col > 0 && imp.Col <= len(q) && q[imp.Col-1] == '\'' {
					quote = "'"
				}
			}
		}
		if like != "" && !strings.HasPrefix(like, ".") {
			return cs, 0, apierr.Errorf(apierr.PreconditionFailed, "move it by hand",
				"tsserver's move of %s does not update %s:%d (%s.%s), whose namespace comes from the package %q, not a relative import: nothing was changed",
				name, f, sites[0].line, sites[0].head, name, like)
		}
		var edits []preview.ByteEdit
		for _, s := range sites {
			edits = append(edits, preview.ByteEdit{Start: s.start, End: s.nameStart, Text: ""})
		}
		kw := "import"
		if typeOnly {
			kw = "import type"
		}
		stmt := kw + " { " + name + " } from " + quote + tsSpecifier(f, target, like) + quote + ";"
		at, prefix, suffix := importInsertAt(l, text)
		edits = append(edits, preview.ByteEdit{Start: at, End: at, Text: prefix + stmt + suffix})
		sort.Slice(edits, func(i, j int) bool { return edits[i].Start < edits[j].Start })
		nt, err := preview.ApplyByteEdits(text, edits)
		if err != nil {
			return cs, 0, apierr.Errorf(apierr.OperationFailed, "report this", "%s: %v", f, err)
		}
		old := files.docs[f]
		tes, err := preview.Minimize(old, []preview.TextEdit{{EndLine: len(old.Lines), NewText: nt}})
		if err != nil {
			return cs, 0, apierr.Errorf(apierr.OperationFailed, "report this", "rebuild the edits of %s: %v", f, err)
		}
		cs.Files = append(cs.Files, preview.FileChange{Kind: preview.OpEdit, Path: f, Old: old, Edits: tes})
		before[f], after[f] = text, nt
		n += len(sites)
	}
	return cs, n, nil
}

func containsName(names []string, n string) bool {
	for _, x := range names {
		f := strings.Fields(x)
		if len(f) > 0 && f[len(f)-1] == n {
			return true
		}
	}
	return false
}

// importInsertAt is where a new import line goes in text: after the line
// that ends the last import statement, or at the top.
func importInsertAt(l *lang.Language, text string) (at int, prefix, suffix string) {
	eol := "\n"
	if strings.Contains(text, "\r\n") {
		eol = "\r\n"
	}
	last := -1
	for _, imp := range l.Imports.Parse(text) {
		ln := lineAt(text, imp.Line)
		if imp.Line > last && !strings.Contains(ln, "export") && !strings.Contains(ln, "import(") && !strings.Contains(ln, "require(") &&
			(strings.HasPrefix(strings.TrimSpace(ln), "import") || strings.Contains(ln, "from")) {
			last = imp.Line
		}
	}
	if last < 0 {
		return 0, "", eol
	}
	off := 0
	for i := 0; i <= last; i++ {
		nl := strings.IndexByte(text[off:], '\n')
		if nl < 0 {
			return len(text), eol, ""
		}
		off += nl + 1
	}
	return off, "", eol
}

func lineAt(text string, line int) string {
	for i := 0; i < line; i++ {
		nl := strings.IndexByte(text, '\n')
		if nl < 0 {
			return ""
		}
		text = text[nl+1:]
	}
	if nl := strings.IndexByte(text, '\n'); nl >= 0 {
		return text[:nl]
	}
	return text
}
