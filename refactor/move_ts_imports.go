package refactor

// The imports tsserver's Move to file adds to the target, in the style of
// a TypeScript project that marks types (zod: import { type ZodError,
// ZodRealError }; import type { X } when all are types): tsserver writes
// them in the order it met the names and never marks a type. Each import
// statement of a relative module that the move added to the target has
// its names sorted (as biome and eslint's sort-imports order them: by
// code point, a type marker aside) and the names its module declares as a
// type or an interface marked: import type when all are.

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/nvbridge/nvbridge/lang"
)

// tsNamedImport is one single-line named import statement.
var tsNamedImport = regexp.MustCompile(`(?m)^import\s+(type\s+)?\{([^}\n]*)\}\s*from\s*(['"])([^'"\n]+)['"];?[ \t]*\r?$`)

// tsTypeDecl matches a top-level type or interface declaration of name
// (%s: the name, quoted).
const tsTypeDecl = `(?m)^(?:export\s+)?(?:declare\s+)?(?:type|interface)\s+%s\b`

// tsValueDecl matches a top-level value declaration of name.
const tsValueDecl = `(?m)^(?:export\s+)?(?:declare\s+)?(?:default\s+)?(?:async\s+)?(?:const|let|var|function\*?|class|abstract\s+class|enum|namespace)\s+%s\b`

func declares(text, pattern, name string) bool {
	return regexp.MustCompile(strings.Replace(pattern, "%s", regexp.QuoteMeta(name), 1)).MatchString(text)
}

// styleAddedImports rewrites the named imports of relative modules that
// target's text gained (lines absent from before), reading each module's
// text from after (when the move changed it) or the disk.
func styleAddedImports(targetAbs, before, target string, after map[string]string, rel func(abs string) string) string {
	old := map[string]bool{}
	for _, l := range strings.Split(before, "\n") {
		old[strings.TrimRight(l, "\r")] = true
	}
	return tsNamedImport.ReplaceAllStringFunc(target, func(stmt string) string {
		line := strings.TrimRight(stmt, "\r")
		if old[line] {
			return stmt
		}
		m := tsNamedImport.FindStringSubmatch(line)
		spec := m[4]
		if !strings.HasPrefix(spec, ".") {
			return stmt
		}
		var module string
		if found := lang.Existing(tsModuleCandidates(filepath.Dir(targetAbs), spec)); len(found) > 0 {
			if t, ok := after[rel(found[0])]; ok {
				module = t
			} else if data, err := os.ReadFile(found[0]); err == nil {
				module = string(data)
			}
		}
		type entry struct{ name, text string }
		var entries []entry
		types := 0
		for _, part := range strings.Split(m[2], ",") {
			f := strings.Fields(part)
			if len(f) == 0 {
				continue
			}
			isType := f[0] == "type" && len(f) > 1
			if isType {
				f = f[1:]
			}
			if !isType && module != "" && declares(module, tsTypeDecl, f[0]) && !declares(module, tsValueDecl, f[0]) {
				isType = true // a type alone (not merged with a value of its name)
			}
			if isType || m[1] != "" {
				types++
			}
			text := strings.Join(f, " ")
			if isType {
				text = "type " + text
			}
			entries = append(entries, entry{f[0], text})
		}
		if len(entries) == 0 {
			return stmt
		}
		sort.SliceStable(entries, func(i, j int) bool { return entries[i].name < entries[j].name })
		kw := "import"
		var names []string
		for _, e := range entries {
			t := e.text
			if types == len(entries) {
				t = strings.TrimPrefix(t, "type ")
			}
			names = append(names, t)
		}
		if types == len(entries) {
			kw = "import type"
		}
		out := kw + " { " + strings.Join(names, ", ") + " } from " + m[3] + spec + m[3] + ";"
		if strings.HasSuffix(stmt, "\r") {
			out += "\r"
		}
		return out
	})
}

// tsModuleCandidates is lang's resolution of a relative specifier.
func tsModuleCandidates(dir, spec string) []string {
	return lang.TypeScriptCandidates(dir, spec)
}
