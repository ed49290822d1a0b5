package lang

// A project's own style for new code: the indentation its formatter is
// configured with (.editorconfig, biome.json, .prettierrc, package.json's
// prettier key), else the one its source files show. Refactorings pass it
// to the servers (FormattingOptions) and indent what they write with it.

import (
	"bufio"
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// Indent is one indentation level: Width spaces, or a tab.
type Indent struct {
	Width int  `json:"width"`
	Tabs  bool `json:"tabs"`
	// From says where it was read (".editorconfig", "biome.json",
	// ".prettierrc", "inferred from src/x.ts", ...).
	From string `json:"from"`
}

// Unit is the text of one level.
func (i Indent) Unit() string {
	if i.Tabs {
		return "\t"
	}
	return strings.Repeat(" ", max(i.Width, 1))
}

// ProjectIndent is the indentation the project at root uses for l's files
// (ok false when nothing says).
func ProjectIndent(root string, l *Language) (Indent, bool) {
	if l == nil {
		return Indent{}, false
	}
	if in, ok := editorconfigIndent(root, l); ok {
		return in, true
	}
	for _, f := range []func(string) (Indent, bool){biomeIndent, prettierIndent} {
		if in, ok := f(root); ok && l.JSFormatters {
			return in, true
		}
	}
	if l.ClangFormat {
		if in, ok := clangFormatIndent(root); ok {
			return in, true
		}
	}
	return inferIndent(root, l)
}

// clangFormatStyles are the indentation widths of clang-format's
// predefined styles (BasedOnStyle); none of them indents with tabs.
var clangFormatStyles = map[string]int{"llvm": 2, "google": 2, "chromium": 2, "mozilla": 2, "webkit": 4, "microsoft": 4, "gnu": 2}

// clangFormatIndent reads root/.clang-format (or _clang-format): the
// IndentWidth and UseTab of its C/C++ section (a document with no
// Language, or Language: Cpp), else its BasedOnStyle's width.
func clangFormatIndent(root string) (Indent, bool) {
	for _, name := range []string{".clang-format", "_clang-format"} {
		data, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			continue
		}
		for _, doc := range strings.Split(string(data), "\n---") {
			keys := map[string]string{}
			for _, line := range strings.Split(doc, "\n") {
				if line == "" || line[0] == ' ' || line[0] == '\t' || line[0] == '#' {
					continue
				}
				if k, v, ok := strings.Cut(line, ":"); ok {
					v, _, _ = strings.Cut(v, "#")
					keys[strings.TrimSpace(k)] = strings.Trim(strings.TrimSpace(v), `"'`)
				}
			}
			if lang, ok := keys["Language"]; ok && lang != "Cpp" {
				continue
			}
			in := Indent{From: name}
			if w, err := strconv.Atoi(keys["IndentWidth"]); err == nil && w > 0 {
				in.Width = w
			} else if w, ok := clangFormatStyles[strings.ToLower(keys["BasedOnStyle"])]; ok {
				in.Width = w
			} else {
				in.Width = 2 // LLVM's, clang-format's fallback style
			}
			switch keys["UseTab"] {
			case "Always", "ForIndentation", "ForContinuationAndIndentation", "AlignWithSpaces", "true":
				in.Tabs = true
			}
			return in, true
		}
	}
	return Indent{}, false
}

var ecSection = regexp.MustCompile(`^\s*\[(.*)\]\s*$`)

// editorconfigIndent reads root/.editorconfig's sections that match a
// file of l (later sections win, as EditorConfig says).
func editorconfigIndent(root string, l *Language) (Indent, bool) {
	f, err := os.Open(filepath.Join(root, ".editorconfig"))
	if err != nil || len(l.Extensions) == 0 {
		return Indent{}, false
	}
	defer f.Close()
	sample := "x" + l.Extensions[0]
	var in Indent
	style, size, matched := "", "", false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, ";") {
			continue
		}
		if m := ecSection.FindStringSubmatch(line); m != nil {
			matched = ecMatches(m[1], sample)
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || !matched {
			continue
		}
		switch strings.ToLower(strings.TrimSpace(k)) {
		case "indent_style":
			style = strings.ToLower(strings.TrimSpace(v))
		case "indent_size":
			size = strings.TrimSpace(v)
		}
	}
	if style == "" && size == "" {
		return Indent{}, false
	}
	in.From = ".editorconfig"
	in.Tabs = style == "tab"
	in.Width, _ = strconv.Atoi(size)
	if in.Width == 0 {
		in.Width = 4
	}
	return in, true
}

// ecMatches reports whether an EditorConfig section pattern ("*",
// "*.{ts,tsx}", "*.py") matches a file name.
func ecMatches(pattern, name string) bool {
	if i := strings.Index(pattern, "{"); i >= 0 {
		if j := strings.Index(pattern[i:], "}"); j > 0 {
			for _, alt := range strings.Split(pattern[i+1:i+j], ",") {
				if ecMatches(pattern[:i]+alt+pattern[i+j+1:], name) {
					return true
				}
			}
			return false
		}
	}
	ok, _ := path.Match(strings.TrimPrefix(pattern, "**/"), name)
	return ok
}

// biomeIndent reads biome.json(c)'s formatter settings.
func biomeIndent(root string) (Indent, bool) {
	for _, name := range []string{"biome.json", "biome.jsonc"} {
		data, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			continue
		}
		var cfg struct {
			Formatter struct {
				IndentStyle string `json:"indentStyle"`
				IndentWidth int    `json:"indentWidth"`
			} `json:"formatter"`
			JavaScript struct {
				Formatter struct {
					IndentStyle string `json:"indentStyle"`
					IndentWidth int    `json:"indentWidth"`
				} `json:"formatter"`
			} `json:"javascript"`
		}
		if json.Unmarshal(stripJSONComments(data), &cfg) != nil {
			continue
		}
		style, width := cfg.Formatter.IndentStyle, cfg.Formatter.IndentWidth
		if js := cfg.JavaScript.Formatter; js.IndentStyle != "" || js.IndentWidth != 0 {
			if js.IndentStyle != "" {
				style = js.IndentStyle
			}
			if js.IndentWidth != 0 {
				width = js.IndentWidth
			}
		}
		// biome's defaults: tabs, width 2.
		if width == 0 {
			width = 2
		}
		return Indent{Width: width, Tabs: style != "space", From: name}, true
	}
	return Indent{}, false
}

// prettierIndent reads .prettierrc(.json) or package.json's prettier key
// (prettier's defaults: 2 spaces).
func prettierIndent(root string) (Indent, bool) {
	type opts struct {
		TabWidth int  `json:"tabWidth"`
		UseTabs  bool `json:"useTabs"`
	}
	read := func(data []byte, from string) (Indent, bool) {
		var o opts
		if json.Unmarshal(data, &o) != nil {
			return Indent{}, false
		}
		if o.TabWidth == 0 {
			o.TabWidth = 2
		}
		return Indent{Width: o.TabWidth, Tabs: o.UseTabs, From: from}, true
	}
	for _, name := range []string{".prettierrc", ".prettierrc.json"} {
		if data, err := os.ReadFile(filepath.Join(root, name)); err == nil {
			if in, ok := read(data, name); ok {
				return in, true
			}
		}
	}
	if data, err := os.ReadFile(filepath.Join(root, "package.json")); err == nil {
		var pkg struct {
			Prettier json.RawMessage `json:"prettier"`
		}
		if json.Unmarshal(data, &pkg) == nil && len(pkg.Prettier) > 0 && pkg.Prettier[0] == '{' {
			return read(pkg.Prettier, "package.json prettier")
		}
	}
	return Indent{}, false
}

func stripJSONComments(data []byte) []byte {
	var out []byte
	inStr := false
	for i := 0; i < len(data); i++ {
		c := data[i]
		if inStr {
			out = append(out, c)
			if c == '\\' && i+1 < len(data) {
				i++
				out = append(out, data[i])
			} else if c == '"' {
				inStr = false
			}
			continue
		}
		if c == '"' {
			inStr = true
		}
		if c == '/' && i+1 < len(data) && data[i+1] == '/' {
			for i < len(data) && data[i] != '\n' {
				i++
			}
			continue
		}
		out = append(out, c)
	}
	return out
}

// inferIndent reads the indentation the project's files of l show: the
// most common step between a line and the deeper one after it, over up
// to 30 files.
func inferIndent(root string, l *Language) (Indent, bool) {
	steps := map[int]int{}
	tabs, files := 0, 0
	var first string
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || files >= 30 {
			return filepath.SkipDir
		}
		if d.IsDir() {
			if p != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || l.SkipDir(d.Name())) {
				return filepath.SkipDir
			}
			return nil
		}
		if ForFile(p) != l {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		files++
		if first == "" {
			first, _ = filepath.Rel(root, p)
		}
		prev := 0
		for _, line := range strings.Split(string(data), "\n") {
			if strings.TrimSpace(line) == "" {
				continue
			}
			ws := len(line) - len(strings.TrimLeft(line, " \t"))
			if strings.HasPrefix(line, "\t") {
				tabs++
				continue
			}
			if ws > prev && ws-prev <= 8 {
				steps[ws-prev]++
			}
			prev = ws
		}
		return nil
	})
	best, n := 0, 0
	for w, c := range steps {
		if c > n || c == n && w < best {
			best, n = w, c
		}
	}
	if tabs > n {
		return Indent{Tabs: true, Width: 4, From: "inferred from " + filepath.ToSlash(first)}, true
	}
	if best == 0 {
		return Indent{}, false
	}
	return Indent{Width: best, From: "inferred from " + filepath.ToSlash(first)}, true
}
