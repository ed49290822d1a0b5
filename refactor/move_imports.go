package refactor

// Organizing the imports a move touched in TypeScript/JavaScript and
// Python files: an import of the source or target module whose names are
// no longer used is removed (a name left only in the import, after the
// move rewrote its uses). Uses are counted as whole words anywhere outside
// the import statement, comments and strings included, so an import is
// never removed while something may still use it; one that is only
// mentioned in a comment stays.

import (
	"regexp"
	"strings"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/lang"
	"github.com/nvbridge/nvbridge/preview"
)

// dropUnusedModuleImports removes from text the imports for which
// candidate is true and whose names text no longer uses.
func dropUnusedModuleImports(l *lang.Language, text string, candidate func(lang.Import) bool) string {
	if l == nil || l.Imports.Parse == nil {
		return text
	}
	for changed := true; changed; {
		changed = false
		lines := strings.Split(text, "\n")
		for _, imp := range l.Imports.Parse(text) {
			if !candidate(imp) {
				continue
			}
			start, end, ok := importStatement(lines, imp.Line)
			if !ok {
				continue
			}
			stmt := strings.Join(lines[start:end+1], "\n")
			rest := withoutImports(l, lines)
			used := func(name string) bool {
				return regexp.MustCompile(`(^|[^\w$.])` + regexp.QuoteMeta(name) + `($|[^\w$])`).MatchString(rest)
			}
			var keep []string
			drop := false
			switch {
			case len(imp.Names) > 0:
				if strings.Contains(stmt, " as ") || start != end {
					continue // aliases and multi-line lists are left alone
				}
				for _, n := range imp.Names {
					if used(strings.TrimPrefix(n, "type ")) {
						keep = append(keep, n)
					}
				}
				if len(keep) == len(imp.Names) {
					continue
				}
				if len(keep) == 0 && !hasDefaultImport(stmt) {
					drop = true
					break
				}
				if len(keep) == 0 {
					continue
				}
				nw, ok := rewriteNames(stmt, imp.Names, keep)
				if !ok {
					continue
				}
				lines[start] = nw
				text, changed = strings.Join(lines, "\n"), true
			case imp.Alias != "":
				drop = start == end && !used(imp.Alias) && !strings.Contains(stmt, ",")
			case strings.HasPrefix(strings.TrimSpace(stmt), "import ") && !strings.ContainsAny(stmt, "\"'`,"):
				// Python's import a.b: the first component is the name.
				drop = start == end && !used(imp.Path)
			}
			if drop {
				lines = append(lines[:start], lines[end+1:]...)
				text, changed = strings.Join(lines, "\n"), true
			}
			if changed {
				break
			}
		}
	}
	return text
}

// withoutImports is the text of lines without their import statements
// (where uses of imported names are counted).
func withoutImports(l *lang.Language, lines []string) string {
	drop := map[int]bool{}
	for _, imp := range l.Imports.Parse(strings.Join(lines, "\n")) {
		if s, e, ok := importStatement(lines, imp.Line); ok {
			for i := s; i <= e; i++ {
				drop[i] = true
			}
		}
	}
	var b strings.Builder
	for i, line := range lines {
		if !drop[i] {
			b.WriteString(line)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// importStatement finds the lines of the import statement holding line.
func importStatement(lines []string, line int) (start, end int, ok bool) {
	if line < 0 || line >= len(lines) {
		return 0, 0, false
	}
	for start = line; start >= 0; start-- {
		t := strings.TrimSpace(lines[start])
		if strings.HasPrefix(t, "import ") || strings.HasPrefix(t, "import{") || strings.HasPrefix(t, "from ") {
			break
		}
		if start < line-50 {
			return 0, 0, false
		}
	}
	if start < 0 {
		return 0, 0, false
	}
	end = line
	if strings.Contains(lines[start], "(") && !strings.Contains(lines[start], ")") {
		for end = start; end < len(lines) && !strings.Contains(lines[end], ")"); end++ {
		}
		if end == len(lines) {
			return 0, 0, false
		}
	}
	if strings.HasSuffix(strings.TrimSpace(lines[end]), "\\") {
		return 0, 0, false
	}
	return start, end, true
}

func hasDefaultImport(stmt string) bool {
	t := strings.TrimSpace(stmt)
	if !strings.HasPrefix(t, "import ") {
		return false // Python's from x import ...
	}
	head := strings.TrimSpace(strings.TrimPrefix(t, "import "))
	head = strings.TrimSpace(strings.TrimPrefix(head, "type "))
	return !strings.HasPrefix(head, "{")
}

// rewriteNames rewrites the name list of a one-line import statement to
// keep (in their order).
func rewriteNames(stmt string, names, keep []string) (string, bool) {
	if i, j := strings.Index(stmt, "{"), strings.Index(stmt, "}"); i >= 0 && j > i {
		return stmt[:i] + "{ " + strings.Join(keep, ", ") + " }" + stmt[j+1:], true
	}
	if i := strings.Index(stmt, " import "); i >= 0 && strings.HasPrefix(strings.TrimSpace(stmt), "from ") {
		comment := ""
		if k := strings.Index(stmt, "#"); k > i {
			comment = "  " + stmt[k:]
		}
		return stmt[:i] + " import " + strings.Join(keep, ", ") + comment, true
	}
	return "", false
}

// withTexts rebuilds cs's edits so each file in texts gets that text.
func withTexts(cs preview.Changeset, texts map[string]string) (preview.Changeset, error) {
	for i, fc := range cs.Files {
		p := fc.Path
		if fc.NewPath != "" {
			p = fc.NewPath
		}
		t, ok := texts[p]
		if !ok || fc.Kind == preview.OpDelete {
			continue
		}
		if fc.Kind == preview.OpCreate {
			cs.Files[i].Edits = []preview.TextEdit{{NewText: t}}
			continue
		}
		whole := preview.TextEdit{EndLine: len(fc.Old.Lines), NewText: t}
		edits, err := preview.Minimize(fc.Old, []preview.TextEdit{whole})
		if err != nil {
			return cs, apierr.Errorf(apierr.OperationFailed, "report this", "rebuild the edits of %s: %v", p, err)
		}
		cs.Files[i].Edits = edits
	}
	return cs, nil
}
