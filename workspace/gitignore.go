package workspace

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// ignoreRule is one line of a .gitignore file, compiled.
type ignoreRule struct {
	re      *regexp.Regexp
	negate  bool // "!pattern" re-includes
	dirOnly bool // "pattern/" matches folders only
	// base is the folder (slash-separated, relative to the root, "" for
	// the root) whose .gitignore holds the rule: patterns match paths
	// relative to it.
	base string
}

// ignoreRules are the rules in force in one folder: its parents' and its
// own, in order (the last rule that matches decides, as in git).
type ignoreRules []ignoreRule

// readGitignore appends the rules of dir's .gitignore (base is dir
// relative to the root) to parent, returning parent itself when dir has
// none; rec (when not nil) records the file's stamp (not its absence
// when dirStamped: the folder's stamp, taken before, covers its creation).
func readGitignore(parent ignoreRules, dir, base string, rec *stampRecord, dirStamped bool) ignoreRules {
	p := filepath.Join(dir, ".gitignore")
	rec.add(p, dirStamped)
	f, err := os.Open(p)
	if err != nil {
		return parent
	}
	defer f.Close()
	rules := append(ignoreRules(nil), parent...)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if r, ok := compileIgnore(sc.Text(), base); ok {
			rules = append(rules, r)
		}
	}
	return rules
}

// compileIgnore compiles one .gitignore line (gitignore(5)): comments and
// blank lines are skipped; "!" negates; a trailing "/" matches folders
// only; a pattern with a "/" elsewhere is anchored to its .gitignore's
// folder, one without matches a name at any depth; "*" and "?" stop at
// "/", "**" spans folders.
func compileIgnore(line, base string) (ignoreRule, bool) {
	line = strings.TrimRight(line, " \t\r")
	if line == "" || strings.HasPrefix(line, "#") {
		return ignoreRule{}, false
	}
	r := ignoreRule{base: base}
	if strings.HasPrefix(line, "!") {
		r.negate, line = true, line[1:]
	} else if strings.HasPrefix(line, `\`) {
		line = line[1:] // "\#name", "\!name"
	}
	if strings.HasSuffix(line, "/") {
		r.dirOnly, line = true, strings.TrimRight(line, "/")
	}
	if line == "" {
		return ignoreRule{}, false
	}
	anchored := strings.Contains(line, "/")
	line = strings.TrimPrefix(line, "/")
	var b strings.Builder
	b.WriteString("^")
	if !anchored {
		b.WriteString("(?:.*/)?")
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case strings.HasPrefix(line[i:], "**/"):
			b.WriteString("(?:.*/)?")
			i += 2
		case strings.HasPrefix(line[i:], "/**") && i+3 == len(line):
			b.WriteString("/.*")
			i += 2
		case strings.HasPrefix(line[i:], "**"):
			b.WriteString(".*")
			i++
		case c == '*':
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
		case c == '[':
			end := strings.IndexByte(line[i+1:], ']')
			if end < 0 {
				b.WriteString(`\[`)
				continue
			}
			class := line[i+1 : i+1+end]
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			b.WriteString("[" + strings.ReplaceAll(class, `\`, `\\`) + "]")
			i += end + 1
		case c == '\\' && i+1 < len(line):
			i++
			b.WriteString(regexp.QuoteMeta(line[i : i+1]))
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	if err != nil {
		return ignoreRule{}, false
	}
	r.re = re
	return r, true
}

// ignored reports whether rel (slash-separated, relative to the root) is
// ignored; isDir says whether it is a folder. A file inside an ignored
// folder is never reached: the walk does not enter ignored folders, as git
// does not re-include below one.
func (rules ignoreRules) ignored(rel string, isDir bool) bool {
	ignored := false
	for _, r := range rules {
		if r.dirOnly && !isDir {
			continue
		}
		p := rel
		if r.base != "" {
			if !strings.HasPrefix(rel, r.base+"/") {
				continue
			}
			p = rel[len(r.base)+1:]
		}
		if r.re.MatchString(p) {
			ignored = !r.negate
		}
	}
	return ignored
}
