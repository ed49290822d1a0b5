package lang

import (
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// pyrightInclude is pyright's include: pyrightconfig.json's, else
// pyproject.toml's [tool.pyright] include = [...] (a list of strings,
// on one line or several), globs cut at their first wildcard.
func pyrightInclude(root string) []string {
	var inc []string
	if data, err := os.ReadFile(filepath.Join(root, "pyrightconfig.json")); err == nil {
		var cfg struct {
			Include []string `json:"include"`
		}
		if json.Unmarshal(stripJSONComments(data), &cfg) != nil {
			return nil
		}
		inc = cfg.Include
	} else if data, err := os.ReadFile(filepath.Join(root, "pyproject.toml")); err == nil {
		inc = tomlStringList(string(data), "tool.pyright", "include")
	}
	var out []string
	for _, s := range inc {
		if i := strings.IndexAny(s, "*?["); i >= 0 {
			s = s[:i]
		}
		s = strings.TrimSuffix(path.Clean(filepath.ToSlash(strings.TrimSpace(s))), "/")
		if s == "" || s == "." {
			return nil // the whole root
		}
		if !strings.HasPrefix(s, "..") && !path.IsAbs(s) {
			out = append(out, s)
		}
	}
	return out
}

// tomlStringList reads key = ["a", "b"] in the [table] of a TOML text (the
// list may span lines; comments after # are dropped); nil when absent.
func tomlStringList(text, table, key string) []string {
	in := false
	var val strings.Builder
	collecting := false
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		if !collecting && strings.HasPrefix(t, "[") {
			in = t == "["+table+"]"
			continue
		}
		if !in {
			continue
		}
		if !collecting {
			k, v, ok := strings.Cut(t, "=")
			if !ok || strings.TrimSpace(k) != key {
				continue
			}
			t, collecting = strings.TrimSpace(v), true
		}
		if i := strings.Index(t, "#"); i >= 0 && strings.Count(t[:i], `"`)%2 == 0 {
			t = t[:i]
		}
		val.WriteString(t)
		if strings.Contains(t, "]") {
			break
		}
	}
	if !collecting {
		return nil
	}
	var out []string
	if json.Unmarshal([]byte(strings.Replace(strings.TrimSpace(val.String()), ",]", "]", 1)), &out) != nil {
		return nil
	}
	return out
}

// Checked reports whether the project's own type checker covers rel (a
// workspace-relative file of l): l.CheckedDirs (none: every file).
func Checked(l *Language, root, rel string) bool {
	if l == nil || l.CheckedDirs == nil {
		return true
	}
	dirs := l.CheckedDirs(root)
	if len(dirs) == 0 {
		return true
	}
	rel = filepath.ToSlash(rel)
	for _, d := range dirs {
		if rel == d || strings.HasPrefix(rel, d+"/") {
			return true
		}
	}
	return false
}
