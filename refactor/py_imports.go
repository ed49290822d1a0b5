package refactor

// Python import statements as a move edits them, in any form a project
// writes them: one-line, parenthesized over several lines, backslash
// continued, aliased, relative. A name leaves a from-import's list (the
// statement goes when it was the last); a new import joins the file's
// from-import of the same module, else lands in its isort section
// (future, standard library, third party, first party, local) at its
// sorted place, a parenthesized one-per-line list when the line would be
// longer than the project's line length. Relative imports are written
// where the file already imports its own package relatively.

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/nvbridge/nvbridge/lang"
	"github.com/nvbridge/nvbridge/preview"
)

// pyFromEntry is one name of a from-import list, its bytes in the text.
type pyFromEntry struct {
	name, alias string
	start, end  int
}

// pyFromStmt is a from-import statement: its whole lines [start, end)
// (end past the final newline when there is one), its module as written,
// its names.
type pyFromStmt struct {
	start, end int
	module     string
	paren      bool
	multiline  bool
	entries    []pyFromEntry
	// closeParen is the offset of the closing parenthesis (paren only).
	closeParen int
}

var pyFromHead = regexp.MustCompile(`^from\s+(\.*[\p{L}\p{N}_.]*)\s+import\b`)

// parsePyFrom reads the top-level from-import statement on line (0-based)
// of text.
func parsePyFrom(text string, line int) (pyFromStmt, bool) {
	lines := strings.Split(text, "\n")
	s, e, ok := importStatement(lines, line)
	if !ok && line < len(lines) && strings.HasSuffix(strings.TrimSpace(stripHash(lines[line])), "\\") {
		// A backslash-continued statement.
		s, e, ok = line, line, true
		for e+1 < len(lines) && strings.HasSuffix(strings.TrimSpace(stripHash(lines[e])), "\\") {
			e++
		}
	}
	if !ok {
		return pyFromStmt{}, false
	}
	m := preview.NewMapper(text)
	st := pyFromStmt{start: m.LineOffset(s), end: m.LineOffset(e + 1), multiline: s != e}
	if st.end > len(text) {
		st.end = len(text)
	}
	head := pyFromHead.FindStringSubmatchIndex(text[st.start:])
	if head == nil {
		return pyFromStmt{}, false
	}
	st.module = text[st.start+head[2] : st.start+head[3]]
	i := st.start + head[1]
	stop := st.end
	var cur []string
	curStart, curEnd := -1, -1
	flush := func() {
		switch {
		case len(cur) == 1:
			st.entries = append(st.entries, pyFromEntry{name: cur[0], start: curStart, end: curEnd})
		case len(cur) == 3 && cur[1] == "as":
			st.entries = append(st.entries, pyFromEntry{name: cur[0], alias: cur[2], start: curStart, end: curEnd})
		}
		cur, curStart = nil, -1
	}
	for i < stop {
		ch := text[i]
		switch {
		case ch == '#':
			for i < stop && text[i] != '\n' {
				i++
			}
			continue
		case ch == '(':
			st.paren = true
		case ch == ')':
			st.closeParen = i
			flush()
			i = stop
			continue
		case ch == ',':
			flush()
		case isWordByte(ch) || ch == '*':
			j := i
			for j < stop && (isWordByte(text[j]) || text[j] == '*') {
				j++
			}
			if curStart < 0 {
				curStart = i
			}
			cur = append(cur, text[i:j])
			curEnd = j
			i = j
			continue
		}
		i++
	}
	flush()
	if len(st.entries) == 0 {
		return pyFromStmt{}, false
	}
	return st, true
}

func stripHash(line string) string {
	if i := strings.Index(line, "#"); i >= 0 {
		return line[:i]
	}
	return line
}

// removeEntry is the byte edit taking entry k out of st's list (the whole
// statement when it is the only one), keeping the statement's layout.
func (st pyFromStmt) removeEntry(text string, k int) preview.ByteEdit {
	if len(st.entries) == 1 {
		return preview.ByteEdit{Start: st.start, End: st.end}
	}
	e := st.entries[k]
	m := preview.NewMapper(text)
	ls, le := m.LineAround(e.start)
	// Alone on its line (a one-per-line parenthesized list): the line goes.
	if st.paren && strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(stripHash(text[ls:e.start]+text[e.end:le])), ",")) == "" &&
		!strings.Contains(text[ls:e.start], "(") && !strings.Contains(text[e.end:le], ")") {
		return preview.ByteEdit{Start: ls, End: le}
	}
	if !st.paren && st.multiline {
		// Backslash continuations: the statement on one line again.
		var keep []pyFromEntry
		for i, x := range st.entries {
			if i != k {
				keep = append(keep, x)
			}
		}
		nl := ""
		if strings.HasSuffix(text[st.start:st.end], "\n") {
			nl = "\n"
		}
		return preview.ByteEdit{Start: st.start, End: st.end, Text: "from " + st.module + " import " + joinEntries(keep) + nl}
	}
	// Shares its line: the entry with the comma after it, else before it.
	j := e.end
	for j < len(text) && (text[j] == ' ' || text[j] == '\t') {
		j++
	}
	if j < len(text) && text[j] == ',' {
		j++
		for j < len(text) && text[j] == ' ' {
			j++
		}
		if j < len(text) && text[j] != '\n' && text[j] != ')' && text[j] != '#' {
			return preview.ByteEdit{Start: e.start, End: j}
		}
		if k == len(st.entries)-1 || text[j] == ')' {
			// "a, b,)" or a trailing comma: drop the comma with the entry.
			return preview.ByteEdit{Start: e.start, End: j}
		}
	}
	i := e.start
	for i > 0 && (text[i-1] == ' ' || text[i-1] == '\t') {
		i--
	}
	if i > 0 && text[i-1] == ',' {
		return preview.ByteEdit{Start: i - 1, End: e.end}
	}
	return preview.ByteEdit{Start: e.start, End: j}
}

func joinEntries(es []pyFromEntry) string {
	var parts []string
	for _, e := range es {
		parts = append(parts, entryText(e.name, e.alias))
	}
	return strings.Join(parts, ", ")
}

func entryText(name, alias string) string {
	if alias != "" && alias != name {
		return name + " as " + alias
	}
	return name
}

// pyAdd is an import to add: from module import name [as alias], or
// import module when name is empty.
type pyAdd struct {
	module, name, alias string
}

func (a pyAdd) line() string {
	if a.name == "" {
		if a.alias != "" {
			return "import " + a.module + " as " + a.alias
		}
		return "import " + a.module
	}
	return "from " + a.module + " import " + entryText(a.name, a.alias)
}

// pyStyle is how a project writes its imports.
type pyStyle struct {
	// lineLength: black's, ruff's or isort's configured length, else 79.
	lineLength int
	// firstParty: top-level packages of the project (isort's FIRSTPARTY).
	firstParty map[string]bool
}

var (
	pyLineLength = regexp.MustCompile(`(?m)^\s*line[-_]length\s*=\s*(\d+)`)
	pyBlackTable = regexp.MustCompile(`(?m)^\[tool\.(black|ruff|isort)[\].]`)
)

// pyProjectStyle reads the project's line length (ruff.toml's or
// .ruff.toml's line-length, else pyproject.toml's [tool.black],
// [tool.ruff] or [tool.isort] one; black's and ruff's 88 when one of them
// is configured without it; else PEP 8's 79) and its first-party packages
// (the folders with an __init__.py in the import roots, and tops given).
func pyProjectStyle(root string, tops ...string) pyStyle {
	st := pyStyle{lineLength: 79, firstParty: map[string]bool{}}
	for _, name := range []string{"ruff.toml", ".ruff.toml", "pyproject.toml"} {
		data, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			continue
		}
		if m := pyLineLength.FindSubmatch(data); m != nil {
			st.lineLength, _ = strconv.Atoi(string(m[1]))
			break
		}
		if name != "pyproject.toml" || pyBlackTable.Match(data) {
			st.lineLength = 88 // ruff's and black's default
			break
		}
	}
	for _, base := range []string{root, filepath.Join(root, "src")} {
		entries, _ := os.ReadDir(base)
		for _, e := range entries {
			if _, err := os.Stat(filepath.Join(base, e.Name(), "__init__.py")); e.IsDir() && err == nil {
				st.firstParty[e.Name()] = true
			}
		}
	}
	for _, t := range tops {
		if t != "" {
			st.firstParty[strings.Split(t, ".")[0]] = true
		}
	}
	return st
}

// section is isort's section of a module: 0 __future__, 1 standard
// library, 2 third party, 3 first party, 4 local (relative).
func (s pyStyle) section(module string) int {
	top := strings.Split(module, ".")[0]
	switch {
	case module == "__future__":
		return 0
	case strings.HasPrefix(module, "."):
		return 4
	case s.firstParty[top]:
		return 3
	case lang.PythonStdlib(top):
		return 1
	}
	return 2
}

// pyTopImport is a top-level import statement of a file: its lines
// [first, last], its module, whether it is a from-import.
type pyTopImport struct {
	first, last int
	module      string
	from        bool
}

// pyTopImports lists a file's top-level (column 0) import statements.
func pyTopImports(text string) []pyTopImport {
	lines := strings.Split(text, "\n")
	var out []pyTopImport
	for _, imp := range lang.Python.Imports.Parse(text) {
		l := lines[imp.Line]
		if !strings.HasPrefix(l, "import ") && !strings.HasPrefix(l, "from ") {
			continue
		}
		s, e, ok := importStatement(lines, imp.Line)
		if !ok {
			s, e = imp.Line, imp.Line
			for e+1 < len(lines) && strings.HasSuffix(strings.TrimSpace(lines[e]), "\\") {
				e++
			}
		}
		if len(out) > 0 && out[len(out)-1].first == s {
			continue // import a, b: one statement
		}
		out = append(out, pyTopImport{first: s, last: e, module: imp.Path, from: strings.HasPrefix(l, "from ")})
	}
	return out
}

// pyAddImports adds each import to text in the project's style, skipping
// those already there.
func pyAddImports(text string, adds []pyAdd, style pyStyle) string {
	for _, a := range adds {
		text = pyAddImport(text, a, style)
	}
	return text
}

func pyAddImport(text string, a pyAdd, style pyStyle) string {
	tops := pyTopImports(text)
	lines := strings.Split(text, "\n")
	// Already there?
	for _, imp := range lang.Python.Imports.Parse(text) {
		if imp.Path != a.module {
			continue
		}
		if a.name == "" && len(imp.Names) == 0 && imp.Alias == a.alias {
			return text
		}
		if st, ok := parsePyFrom(text, imp.Line); ok && a.name != "" {
			for _, e := range st.entries {
				if e.name == a.name && (e.alias == a.alias || e.alias == "" && a.alias == a.name) {
					return text
				}
			}
		}
	}
	// Join the module's from-import.
	if a.name != "" {
		for _, t := range tops {
			if !t.from || t.module != a.module {
				continue
			}
			st, ok := parsePyFrom(text, t.first)
			if !ok || st.entries[0].name == "*" {
				continue
			}
			return joinPyFrom(text, st, a, style)
		}
	}
	// A new statement in its section, at its sorted place.
	newKey := pyImportKey(a.name != "", a.module)
	sec := style.section(a.module)
	type group struct {
		first, last, sec int
		members          []pyTopImport
	}
	var groups []group
	for _, t := range tops {
		if n := len(groups); n > 0 && t.first == groups[n-1].last+1 {
			groups[n-1].last = t.last
			groups[n-1].members = append(groups[n-1].members, t)
			continue
		}
		groups = append(groups, group{first: t.first, last: t.last, sec: style.section(t.module), members: []pyTopImport{t}})
	}
	stmt := a.line()
	insertAt := func(line int, block []string) string {
		out := append([]string{}, lines[:line]...)
		out = append(out, block...)
		return strings.Join(append(out, lines[line:]...), "\n")
	}
	for _, g := range groups {
		if g.sec != sec {
			continue
		}
		for _, m := range g.members {
			if pyImportKey(m.from, m.module) > newKey {
				return insertAt(m.first, []string{stmt})
			}
		}
		return insertAt(g.last+1, []string{stmt})
	}
	// No group of its section: a new one between the others.
	for _, g := range groups {
		if g.sec > sec {
			return insertAt(g.first, []string{stmt, ""})
		}
	}
	if len(groups) > 0 {
		return insertAt(groups[len(groups)-1].last+1, []string{"", stmt})
	}
	return insertPyImports(text, []string{stmt})
}

// pyImportKey orders statements within a section as isort does by
// default: plain imports before from-imports, then by module.
func pyImportKey(from bool, module string) string {
	k := "0"
	if from {
		k = "1"
	}
	return k + strings.ToLower(module)
}

// joinPyFrom adds a's name to the from-import st.
func joinPyFrom(text string, st pyFromStmt, a pyAdd, style pyStyle) string {
	entry := entryText(a.name, a.alias)
	entries := append([]pyFromEntry{}, st.entries...)
	sorted := sort.SliceIsSorted(entries, func(i, j int) bool { return pyNameLess(entries[i].name, entries[j].name) })
	at := len(entries)
	if sorted {
		at = sort.Search(len(entries), func(i int) bool { return pyNameLess(a.name, entries[i].name) })
	}
	if st.paren && st.multiline {
		// One entry per line: a line of its own, indented like the others.
		m := preview.NewMapper(text)
		ref := entries[min(at, len(entries)-1)]
		ls, _ := m.LineAround(ref.start)
		indent := text[ls:ref.start]
		if strings.TrimSpace(indent) == "" {
			if at < len(entries) {
				return text[:ls] + indent + entry + ",\n" + text[ls:]
			}
			last := entries[len(entries)-1]
			_, le := m.LineAround(last.end)
			if !strings.Contains(stripHash(text[last.end:le]), ",") {
				// The last entry gets its comma.
				text = text[:last.end] + "," + text[last.end:]
				le++
			}
			return text[:le] + indent + entry + ",\n" + text[le:]
		}
	}
	// Rewrite the statement with the name in its place.
	var names []string
	for i, e := range entries {
		if i == at {
			names = append(names, entry)
		}
		names = append(names, entryText(e.name, e.alias))
	}
	if at == len(entries) {
		names = append(names, entry)
	}
	stmtText := text[st.start:st.end]
	nl := ""
	if strings.HasSuffix(stmtText, "\n") {
		nl = "\n"
	}
	comment := ""
	if !st.multiline {
		if i := strings.Index(stmtText, "#"); i >= 0 {
			comment = "  " + strings.TrimRight(stmtText[i:], "\n")
		}
	}
	one := "from " + st.module + " import " + strings.Join(names, ", ")
	if len(one)+len(comment) <= style.lineLength && !(st.paren && st.multiline) {
		return text[:st.start] + one + comment + nl + text[st.end:]
	}
	// Too long: black's parenthesized form, one name per line.
	var b strings.Builder
	b.WriteString("from " + st.module + " import (" + comment + "\n")
	for _, n := range names {
		b.WriteString("    " + n + ",\n")
	}
	b.WriteString(")" + nl)
	return text[:st.start] + b.String() + text[st.end:]
}

// pyNameLess is isort's default order of imported names
// (force_sort_within_sections off, order_by_type): CONSTANTS, Classes,
// then functions, each alphabetical.
func pyNameLess(a, b string) bool {
	rank := func(s string) int {
		switch {
		case len(s) > 1 && strings.ToUpper(s) == s:
			return 0
		case s != "" && s[0] >= 'A' && s[0] <= 'Z':
			return 1
		}
		return 2
	}
	if ra, rb := rank(a), rank(b); ra != rb {
		return ra < rb
	}
	return strings.ToLower(a) < strings.ToLower(b)
}

// pyPackageOf is the package a module's relative imports start from: the
// module itself for a package's __init__.py, else its parent.
func pyPackageOf(mod string, isInit bool) string {
	if isInit {
		return mod
	}
	if i := strings.LastIndex(mod, "."); i >= 0 {
		return mod[:i]
	}
	return ""
}

// pyAbsolute turns an import's module as written in a file of package pkg
// (relative or not) into its absolute name.
func pyAbsolute(pkg, written string) string {
	dots := len(written) - len(strings.TrimLeft(written, "."))
	if dots == 0 {
		return written
	}
	parts := []string{}
	if pkg != "" {
		parts = strings.Split(pkg, ".")
	}
	parts = parts[:max(len(parts)-(dots-1), 0)]
	if rest := written[dots:]; rest != "" {
		parts = append(parts, rest)
	}
	return strings.Join(parts, ".")
}

// pyRelative writes module mod relative to package pkg ("" when they do
// not share a top-level package).
func pyRelative(pkg, mod string) string {
	if pkg == "" {
		return ""
	}
	p, m := strings.Split(pkg, "."), strings.Split(mod, ".")
	if p[0] != m[0] {
		return ""
	}
	common := 0
	for common < len(p) && common < len(m) && p[common] == m[common] {
		common++
	}
	return strings.Repeat(".", len(p)-common+1) + strings.Join(m[common:], ".")
}

// usesRelativeImports reports whether a file imports anything relatively.
func usesRelativeImports(text string) bool {
	for _, imp := range lang.Python.Imports.Parse(text) {
		if strings.HasPrefix(imp.Path, ".") {
			return true
		}
	}
	return false
}

// pyDropUnused removes from text the names of the imports for which
// candidate is true that text no longer uses (counted as whole words
// outside import statements, comments and strings included, so a name
// that may still be used stays), in any form of import statement.
func pyDropUnused(l *lang.Language, text string, candidate func(lang.Import) bool) string {
	for changed := true; changed; {
		changed = false
		lines := strings.Split(text, "\n")
		rest := withoutImports(l, lines)
		used := func(name string) bool {
			return regexp.MustCompile(`(^|[^\w.])` + regexp.QuoteMeta(name) + `($|[^\w])`).MatchString(rest)
		}
		for _, imp := range l.Imports.Parse(text) {
			if !candidate(imp) {
				continue
			}
			if len(imp.Names) == 0 {
				if s, e, ok := importStatement(lines, imp.Line); ok && s == e {
					stmt := strings.TrimSpace(lines[s])
					bound := strings.Split(imp.Path, ".")[0]
					if imp.Alias != "" {
						bound = imp.Alias
					}
					if strings.HasPrefix(stmt, "import ") && !strings.Contains(stmt, ",") && !used(bound) {
						text, changed = strings.Join(append(lines[:s:s], lines[e+1:]...), "\n"), true
					}
				}
			} else if st, ok := parsePyFrom(text, imp.Line); ok {
				for k := len(st.entries) - 1; k >= 0; k-- {
					e := st.entries[k]
					if e.name == "*" || used(entryName(pyAdd{name: e.name, alias: e.alias})) {
						continue
					}
					t, err := preview.ApplyByteEdits(text, []preview.ByteEdit{st.removeEntry(text, k)})
					if err == nil {
						text, changed = t, true
					}
					break
				}
			}
			if changed {
				break
			}
		}
	}
	return text
}
