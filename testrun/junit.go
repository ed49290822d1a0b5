package testrun

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// junitReader reads a JUnit XML report (pytest --junitxml, vitest's junit
// reporter) once the runner ends; its stdout (pytest -v: "file::test
// PASSED") only reports progress.
type junitReader struct {
	root, report string
	seen         int
}

func newJUnitReader(root, report string) *junitReader {
	return &junitReader{root: root, report: report}
}

// pytestLine is pytest -v's line for a finished test.
var pytestLine = regexp.MustCompile(`^(\S+::\S+) (PASSED|FAILED|SKIPPED|ERROR|XFAIL|XPASS)`)

func (r *junitReader) line(s string, report func(outcome)) {
	// Progress only: the report gives the outcomes (with their messages).
	if m := pytestLine.FindStringSubmatch(s); m != nil {
		r.seen++
		report(outcome{test: m[1], status: "progress:" + strings.ToLower(m[2])})
	}
}

type junitSuites struct {
	Suites []junitSuite `xml:"testsuite"`
	// A report whose root is one testsuite.
	Cases []junitCase `xml:"testcase"`
}

type junitSuite struct {
	Name  string       `xml:"name,attr"`
	Cases []junitCase  `xml:"testcase"`
	Inner []junitSuite `xml:"testsuite"`
}

type junitCase struct {
	Class   string        `xml:"classname,attr"`
	Name    string        `xml:"name,attr"`
	File    string        `xml:"file,attr"`
	Line    string        `xml:"line,attr"`
	Failure *junitProblem `xml:"failure"`
	Error   *junitProblem `xml:"error"`
	Skipped *junitProblem `xml:"skipped"`
	Stdout  string        `xml:"system-out"`
	Stderr  string        `xml:"system-err"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

// pyLocation is a traceback's "path.py:12: in test_x" (pytest --tb=short)
// or a stack frame's "(path.ts:12:5)".
var tbLocation = regexp.MustCompile(`([^\s:()]+\.[cm]?[jt]sx?|[^\s:()]+\.py):(\d+)`)

func (r *junitReader) finish(stopped bool, report func(outcome)) error {
	if stopped {
		return nil
	}
	data, err := os.ReadFile(r.report)
	if err != nil {
		return err
	}
	var doc junitSuites
	if err := xml.Unmarshal(data, &doc); err != nil {
		return err
	}
	var walk func(suite string, cases []junitCase, inner []junitSuite)
	walk = func(suite string, cases []junitCase, inner []junitSuite) {
		for _, c := range cases {
			r.emit(suite, c, report)
		}
		for _, s := range inner {
			walk(s.Name, s.Cases, s.Inner)
		}
	}
	walk("", doc.Cases, doc.Suites)
	return nil
}

func (r *junitReader) emit(suite string, c junitCase, report func(outcome)) {
	o := outcome{test: c.Name, pkg: c.Class, status: "pass", quiet: r.seen > 0}
	if o.pkg == "" {
		o.pkg = suite
	}
	p := c.Failure
	if p == nil {
		p = c.Error
	}
	switch {
	case p != nil:
		o.status = "fail"
		o.message = strings.TrimSpace(p.Message)
		o.output = tail(strings.TrimSpace(p.Text+"\n"+c.Stdout+"\n"+c.Stderr), outputTail)
		o.file, o.line = r.where(c, p.Text)
		if o.message == "" {
			o.message = strings.Join(nonEmpty(strings.Split(p.Text, "\n"), 3), "\n")
		}
	case c.Skipped != nil:
		o.status = "skip"
	}
	report(o)
}

// where is the failure's place: the last traceback frame in the test's
// own file (the assertion), else the last frame in the workspace, else
// the test's declaration.
func (r *junitReader) where(c junitCase, text string) (string, int) {
	var file string
	var line int
	for _, m := range tbLocation.FindAllStringSubmatch(text, -1) {
		f := m[1]
		if filepath.IsAbs(f) {
			if rel, err := filepath.Rel(r.root, f); err == nil && !strings.HasPrefix(rel, "..") {
				f = filepath.ToSlash(rel)
			} else {
				continue
			}
		}
		n, _ := strconv.Atoi(m[2])
		if c.File != "" && f == c.File || file == "" || c.File == "" {
			file, line = f, n
		}
	}
	if file == "" && c.File != "" {
		file = c.File
		line, _ = strconv.Atoi(c.Line)
		if line > 0 {
			line++ // xunit1's line is 0-based
		}
	}
	return file, line
}
