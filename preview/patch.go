package preview

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// FilePatch is one file of a parsed unified diff. Paths have their a/ and b/
// prefixes removed. For a new or deleted file both paths name the file (the
// /dev/null side is recorded by IsNew or IsDelete).
type FilePatch struct {
	OldPath, NewPath          string
	IsNew, IsDelete, IsRename bool
	Hunks                     []Hunk
}

// Hunk is one @@ section. Starts are 1-based; when a count is 0 its start is
// the line before the (empty) range, as diff prints it.
type Hunk struct {
	OldStart, OldCount, NewStart, NewCount int
	Lines                                  []HunkLine
}

func (h Hunk) header() string {
	return fmt.Sprintf("@@ -%d,%d +%d,%d @@", h.OldStart, h.OldCount, h.NewStart, h.NewCount)
}

// HunkLine is one line of a hunk, without its op and its "\n". Text keeps a
// "\r" that preceded the "\n" (a CRLF file's diff carries one per line).
type HunkLine struct {
	Op        byte // ' ', '-' or '+'
	Text      string
	NoNewline bool // followed by "\ No newline at end of file"
}

// ParsePatch parses a multi-file unified diff as written by git diff,
// diff -u (-r) or UnifiedDiff. Text outside file sections (a commit message,
// "Only in" lines) is skipped, as patch does; within a hunk the counts in the
// header must match the lines exactly. Errors name the patch line (1-based).
// Binary patches and copies are rejected. An a/ prefix is removed from old
// paths and a b/ prefix from new ones.
func ParsePatch(text string) ([]FilePatch, error) {
	lines := strings.Split(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1] // the text's final "\n"
	}
	p := &patchParser{lines: lines}
	var files []FilePatch
	for p.i < len(p.lines) {
		line := p.lines[p.i]
		var (
			fp  FilePatch
			err error
		)
		switch {
		case strings.HasPrefix(line, "diff --git "):
			fp, err = p.gitFile()
		case p.atFileHeader():
			fp, err = p.plainFile()
		case strings.HasPrefix(line, "@@ "):
			return nil, p.errorf("hunk without a ---/+++ file header")
		default:
			p.i++ // not part of any file
			continue
		}
		if err != nil {
			return nil, err
		}
		files = append(files, fp)
	}
	return files, nil
}

// PatchSyntaxError is a ParsePatch error at a line of the patch.
type PatchSyntaxError struct {
	Line int // 1-based
	Msg  string
}

func (e *PatchSyntaxError) Error() string {
	return fmt.Sprintf("patch line %d: %s", e.Line, e.Msg)
}

type patchParser struct {
	lines []string
	i     int // current line, 0-based
}

func (p *patchParser) errorf(format string, args ...any) error {
	return &PatchSyntaxError{p.i + 1, fmt.Sprintf(format, args...)}
}

func (p *patchParser) atFileHeader() bool {
	return p.i+1 < len(p.lines) && strings.HasPrefix(p.lines[p.i], "--- ") && strings.HasPrefix(p.lines[p.i+1], "+++ ")
}

// gitFile parses a "diff --git" section.
func (p *patchParser) gitFile() (FilePatch, error) {
	var fp FilePatch
	oldName, newName, _ := splitGitNames(strings.TrimSuffix(p.lines[p.i][len("diff --git "):], "\r"))
	p.i++
	var renameFrom, renameTo string
header:
	for ; p.i < len(p.lines); p.i++ {
		line := strings.TrimSuffix(p.lines[p.i], "\r")
		var err error
		switch {
		case strings.HasPrefix(line, "new file mode "):
			fp.IsNew = true
		case strings.HasPrefix(line, "deleted file mode "):
			fp.IsDelete = true
		case strings.HasPrefix(line, "rename from "):
			fp.IsRename = true
			renameFrom, err = unquoteName(line[len("rename from "):])
		case strings.HasPrefix(line, "rename to "):
			fp.IsRename = true
			renameTo, err = unquoteName(line[len("rename to "):])
		case strings.HasPrefix(line, "copy from "), strings.HasPrefix(line, "copy to "):
			return fp, p.errorf("copies are not supported")
		case strings.HasPrefix(line, "Binary files "), line == "GIT binary patch":
			return fp, p.errorf("binary patches are not supported")
		case strings.HasPrefix(line, "old mode "), strings.HasPrefix(line, "new mode "),
			strings.HasPrefix(line, "similarity index "), strings.HasPrefix(line, "dissimilarity index "),
			strings.HasPrefix(line, "index "):
		default:
			break header
		}
		if err != nil {
			return fp, p.errorf("%v", err)
		}
	}
	if renameFrom != "" {
		oldName = renameFrom
	}
	if renameTo != "" {
		newName = renameTo
	}
	fp.OldPath, fp.NewPath = oldName, newName
	if p.atFileHeader() {
		if err := p.fileNames(&fp); err != nil {
			return fp, err
		}
	}
	if fp.OldPath == "" || fp.NewPath == "" {
		return fp, p.errorf("cannot tell the file name from the diff --git line")
	}
	return fp, p.hunks(&fp)
}

// plainFile parses a section that starts at ---/+++ (diff -u).
func (p *patchParser) plainFile() (FilePatch, error) {
	var fp FilePatch
	if err := p.fileNames(&fp); err != nil {
		return fp, err
	}
	return fp, p.hunks(&fp)
}

// fileNames reads the ---/+++ pair.
func (p *patchParser) fileNames(fp *FilePatch) error {
	oldName, err := headerName(p.lines[p.i][4:])
	if err != nil {
		return p.errorf("%v", err)
	}
	p.i++
	newName, err := headerName(p.lines[p.i][4:])
	if err != nil {
		return p.errorf("%v", err)
	}
	p.i++
	switch {
	case oldName == "/dev/null" && newName == "/dev/null":
		return &PatchSyntaxError{p.i, "both sides are /dev/null"}
	case oldName == "/dev/null":
		fp.IsNew = true
		oldName = strings.TrimPrefix(newName, "b/")
	case newName == "/dev/null":
		fp.IsDelete = true
		newName = strings.TrimPrefix(oldName, "a/")
	}
	fp.OldPath = strings.TrimPrefix(oldName, "a/")
	fp.NewPath = strings.TrimPrefix(newName, "b/")
	return nil
}

// headerName extracts the name from what follows "--- " or "+++ ": a quoted
// name, or everything up to a tab (diff -u puts a timestamp after it).
func headerName(s string) (string, error) {
	s = strings.TrimSuffix(s, "\r")
	if strings.HasPrefix(s, `"`) {
		name, _, err := unquotePrefix(s)
		return name, err
	}
	if i := strings.IndexByte(s, '\t'); i >= 0 {
		s = s[:i]
	}
	if s == "" {
		return "", errors.New("missing file name")
	}
	return s, nil
}

// hunks reads the hunks of one file.
func (p *patchParser) hunks(fp *FilePatch) error {
	for p.i < len(p.lines) && strings.HasPrefix(p.lines[p.i], "@@ ") {
		h, err := p.hunk()
		if err != nil {
			return err
		}
		fp.Hunks = append(fp.Hunks, h)
		// A line that looks like hunk content right after a complete hunk
		// means the header's counts are wrong; say so rather than drop it.
		if p.i < len(p.lines) && !p.atFileHeader() {
			if l := p.lines[p.i]; l != "" && l != "-- " && strings.ContainsRune(" +-", rune(l[0])) {
				return p.errorf("line %q follows hunk %d (%s) but is not counted by its header", l, len(fp.Hunks), h.header())
			}
		}
	}
	return nil
}

func (p *patchParser) hunk() (Hunk, error) {
	var h Hunk
	if err := parseHunkHeader(strings.TrimSuffix(p.lines[p.i], "\r"), &h); err != nil {
		return h, p.errorf("%v", err)
	}
	headerLine := p.i + 1
	p.i++
	oldSeen, newSeen := 0, 0
	short := func() error {
		return &PatchSyntaxError{headerLine, fmt.Sprintf("hunk %s ends after %d old and %d new lines, at patch line %d",
			h.header(), oldSeen, newSeen, p.i+1)}
	}
	for oldSeen < h.OldCount || newSeen < h.NewCount || p.i < len(p.lines) && strings.HasPrefix(p.lines[p.i], `\`) {
		if p.i >= len(p.lines) {
			return h, short()
		}
		line := p.lines[p.i]
		op := byte(' ')
		text := line
		if line != "" && line != "\r" { // a blank line is an empty context line whose space was lost
			op, text = line[0], line[1:]
		}
		switch op {
		case '\\':
			if len(h.Lines) == 0 {
				return h, p.errorf(`"\ No newline at end of file" before any line of the hunk`)
			}
			h.Lines[len(h.Lines)-1].NoNewline = true
			p.i++
			continue
		case ' ':
			oldSeen++
			newSeen++
		case '-':
			oldSeen++
		case '+':
			newSeen++
		default:
			return h, short()
		}
		if oldSeen > h.OldCount || newSeen > h.NewCount {
			return h, p.errorf("line %q is beyond hunk %s's count of %d old and %d new lines", line, h.header(), h.OldCount, h.NewCount)
		}
		h.Lines = append(h.Lines, HunkLine{Op: op, Text: text})
		p.i++
	}
	return h, nil
}

// parseHunkHeader parses "@@ -l[,n] +l[,n] @@[ section]".
func parseHunkHeader(line string, h *Hunk) error {
	rest, ok := strings.CutPrefix(line, "@@ -")
	var oldR, newR string
	if ok {
		oldR, rest, ok = strings.Cut(rest, " +")
	}
	if ok {
		newR, rest, ok = strings.Cut(rest, " @@")
	}
	if ok && rest != "" && rest[0] != ' ' {
		ok = false
	}
	var err error
	if ok {
		h.OldStart, h.OldCount, err = parseRange(oldR)
	}
	if ok && err == nil {
		h.NewStart, h.NewCount, err = parseRange(newR)
	}
	if !ok || err != nil {
		return fmt.Errorf("malformed hunk header %q (want @@ -start,count +start,count @@)", line)
	}
	return nil
}

func parseRange(s string) (start, count int, err error) {
	startS, countS, hasCount := strings.Cut(s, ",")
	if start, err = strconv.Atoi(startS); err != nil || start < 0 {
		return 0, 0, errors.New("bad start")
	}
	count = 1
	if hasCount {
		if count, err = strconv.Atoi(countS); err != nil || count < 0 {
			return 0, 0, errors.New("bad count")
		}
	}
	return start, count, nil
}

// splitGitNames splits the names of a "diff --git" line, removing a/ and
// b/. Unquoted names containing spaces are ambiguous; like git, it trusts
// the split where both names are equal, which is all it is needed for (a
// new or deleted empty file or a mode change has no ---/+++ lines).
func splitGitNames(s string) (oldName, newName string, err error) {
	if strings.HasPrefix(s, `"`) {
		oldName, rest, err := unquotePrefix(s)
		if err != nil || !strings.HasPrefix(rest, " ") {
			return "", "", errors.New("bad quoted name")
		}
		newName, err := unquoteName(rest[1:])
		return strings.TrimPrefix(oldName, "a/"), strings.TrimPrefix(newName, "b/"), err
	}
	if n := len(s); n%2 == 1 {
		a, b := s[:n/2], s[n/2+1:]
		if s[n/2] == ' ' && strings.HasPrefix(a, "a/") && strings.HasPrefix(b, "b/") && a[2:] == b[2:] {
			return a[2:], b[2:], nil
		}
	}
	if i := strings.Index(s, ` "`); i >= 0 { // unquoted old, quoted new
		newName, err := unquoteName(s[i+1:])
		return strings.TrimPrefix(s[:i], "a/"), strings.TrimPrefix(newName, "b/"), err
	}
	if i := strings.Index(s, " b/"); i >= 0 {
		return strings.TrimPrefix(s[:i], "a/"), s[i+3:], nil
	}
	return "", "", errors.New("cannot split names")
}

// unquoteName returns s unquoted if git quoted it, else as is.
func unquoteName(s string) (string, error) {
	if !strings.HasPrefix(s, `"`) {
		return s, nil
	}
	name, rest, err := unquotePrefix(s)
	if err == nil && rest != "" {
		err = fmt.Errorf("text after quoted name %q", s)
	}
	return name, err
}

// unquotePrefix decodes the C-style quoted string s starts with and returns
// what follows it.
func unquotePrefix(s string) (name, rest string, err error) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			return b.String(), s[i+1:], nil
		case c != '\\':
			b.WriteByte(c)
		case i+1 >= len(s):
			return "", "", fmt.Errorf("unterminated quoted name %q", s)
		default:
			i++
			switch e := s[i]; e {
			case 'a':
				b.WriteByte('\a')
			case 'b':
				b.WriteByte('\b')
			case 't':
				b.WriteByte('\t')
			case 'n':
				b.WriteByte('\n')
			case 'v':
				b.WriteByte('\v')
			case 'f':
				b.WriteByte('\f')
			case 'r':
				b.WriteByte('\r')
			case '"', '\\':
				b.WriteByte(e)
			case '0', '1', '2', '3':
				if i+2 >= len(s) {
					return "", "", fmt.Errorf("bad octal escape in %q", s)
				}
				v, perr := strconv.ParseUint(s[i:i+3], 8, 8)
				if perr != nil {
					return "", "", fmt.Errorf("bad octal escape in %q", s)
				}
				b.WriteByte(byte(v))
				i += 2
			default:
				return "", "", fmt.Errorf("bad escape \\%c in %q", e, s)
			}
		}
	}
	return "", "", fmt.Errorf("unterminated quoted name %q", s)
}
