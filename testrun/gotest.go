package testrun

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// goEvent is one line of go test -json (test2json).
type goEvent struct {
	Action     string
	Package    string
	Test       string
	Output     string
	ImportPath string // build-output: "pkg [pkg.test]"
}

// goReader reads go test -json: a test's outcome when its pass, fail or
// skip event arrives, its output kept for a failure; a package that fails
// without a failing test (a build error) is a failure of its own.
type goReader struct {
	root, module string
	tests        map[string]*outcome // by package + test
	pkgOut       map[string]*strings.Builder
	pkgFailed    map[string]bool
	build        map[string]*strings.Builder // build output by package
}

func newGoReader(root string) *goReader {
	r := &goReader{root: root, tests: map[string]*outcome{}, pkgOut: map[string]*strings.Builder{}, pkgFailed: map[string]bool{}, build: map[string]*strings.Builder{}}
	if data, err := os.ReadFile(filepath.Join(root, "go.mod")); err == nil {
		for _, l := range strings.Split(string(data), "\n") {
			if f := strings.Fields(l); len(f) >= 2 && f[0] == "module" {
				r.module = strings.Trim(f[1], `"`)
				break
			}
		}
	}
	return r
}

// goLocation finds "file.go:12:" in a test's output: t.Errorf's prefix or
// testify's "Error Trace:" line; a _test.go file first.
var goLocation = regexp.MustCompile(`([^\s:]+\.go):(\d+)(?::\d+)?(?::\s*(.*))?`)

func (r *goReader) line(s string, report func(outcome)) {
	var e goEvent
	if json.Unmarshal([]byte(s), &e) != nil {
		return // go's own messages (build output) arrive as events too; anything else is ignored
	}
	if e.Action == "build-output" || e.Action == "build-fail" {
		f := strings.Fields(e.ImportPath)
		if len(f) == 0 {
			return
		}
		b := r.build[f[0]]
		if b == nil {
			b = &strings.Builder{}
			r.build[f[0]] = b
		}
		if b.Len() < 64<<10 && !strings.HasPrefix(e.Output, "# ") {
			b.WriteString(e.Output)
		}
		return
	}
	if e.Test == "" {
		b := r.pkgOut[e.Package]
		if b == nil {
			b = &strings.Builder{}
			r.pkgOut[e.Package] = b
		}
		if e.Action == "output" && b.Len() < 64<<10 {
			b.WriteString(e.Output)
		}
		if e.Action == "fail" {
			r.pkgFailed[e.Package] = true
		}
		return
	}
	key := e.Package + "\x00" + e.Test
	o := r.tests[key]
	if o == nil {
		o = &outcome{test: e.Test, pkg: e.Package}
		r.tests[key] = o
	}
	switch e.Action {
	case "output":
		if !strings.HasPrefix(e.Output, "=== ") {
			o.output += e.Output
			if len(o.output) > 16<<10 {
				o.output = o.output[len(o.output)-16<<10:]
			}
		}
	case "pass", "skip":
		o.status = e.Action
		report(*o)
		o.output = ""
	case "fail":
		o.status = "fail"
		r.locate(o)
		o.output = tail(o.output, outputTail)
		report(*o)
	}
}

// locate sets a failing test's file, line and message from its output.
func (r *goReader) locate(o *outcome) {
	lines := strings.Split(o.output, "\n")
	var msg []string
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "--- FAIL") {
			continue
		}
		if o.file == "" {
			for _, m := range goLocation.FindAllStringSubmatch(t, -1) {
				if !strings.HasSuffix(m[1], "_test.go") && o.file != "" {
					continue
				}
				o.file = r.path(o.pkg, m[1])
				o.line, _ = strconv.Atoi(m[2])
				if strings.HasSuffix(m[1], "_test.go") {
					break
				}
			}
			if o.file != "" {
				// t.Errorf: "file_test.go:12: message"; testify: the
				// lines after the trace.
				if m := goLocation.FindStringSubmatch(t); m != nil && strings.TrimSpace(m[3]) != "" {
					msg = append(msg, strings.TrimSpace(m[3]))
				}
				msg = append(msg, nonEmpty(lines[i+1:], 6)...)
				break
			}
		}
	}
	if len(msg) == 0 {
		msg = nonEmpty(lines, 6)
	}
	// testify: from its "Error:" line on (the trace is File and Line).
	for i, m := range msg {
		if strings.HasPrefix(m, "Error:") {
			msg = msg[i:]
			break
		}
	}
	for i, m := range msg {
		if len(m) > 240 {
			msg[i] = m[:240] + "…"
		}
	}
	o.message = strings.Join(msg, "\n")
}

func nonEmpty(lines []string, n int) []string {
	var out []string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "--- FAIL") || strings.HasPrefix(t, "=== ") {
			continue
		}
		out = append(out, t)
		if len(out) == n {
			break
		}
	}
	return out
}

// path makes a file name of a test's output a workspace path: go test
// prints a base name, relative to the package's folder.
func (r *goReader) path(pkg, name string) string {
	if filepath.IsAbs(name) {
		return name
	}
	name = strings.TrimPrefix(name, "./")
	dir := ""
	if r.module != "" && (pkg == r.module || strings.HasPrefix(pkg, r.module+"/")) {
		dir = strings.TrimPrefix(strings.TrimPrefix(pkg, r.module), "/")
	}
	return filepath.ToSlash(filepath.Join(dir, name))
}

func (r *goReader) finish(stopped bool, report func(outcome)) error {
	for _, o := range sortedOutcomes(r.tests) {
		if o.status == "" {
			o.unfinished = stopped
			if stopped {
				report(*o)
			}
		}
	}
	for pkg, failed := range r.pkgFailed {
		if !failed {
			continue
		}
		anyFailed := false
		for _, o := range r.tests {
			if o.pkg == pkg && o.status == "fail" {
				anyFailed = true
			}
		}
		if !anyFailed && !stopped {
			text := ""
			if b := r.build[pkg]; b != nil {
				text = b.String()
			}
			if b := r.pkgOut[pkg]; b != nil {
				text += b.String()
			}
			o := outcome{test: "(package " + pkg + ")", pkg: pkg, status: "fail", output: text}
			r.locate(&o)
			o.output = tail(o.output, outputTail)
			report(o)
		}
	}
	return nil
}
