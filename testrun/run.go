package testrun

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/internal/progress"
	"github.com/nvbridge/nvbridge/internal/safego"
	"github.com/nvbridge/nvbridge/internal/tailbuf"
	"github.com/nvbridge/nvbridge/lang"
	"github.com/nvbridge/nvbridge/lsp"
)

// Bounds.
const (
	// DefaultTimeout bounds a run_tests call's runs.
	DefaultTimeout = 2 * time.Minute
	// outputTail is how much of a failing test's output is kept.
	outputTail = 2048
	// maxFailures bounds the failures reported in full.
	maxFailures = 50
)

// Failure is one failed test.
type Failure struct {
	Test string `json:"test"`
	// Package is the Go package or the test's class/module.
	Package string `json:"package,omitempty"`
	// File and Line are where it failed (the assertion), as the runner
	// reported it, relative to the root when inside it.
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Message string `json:"message"`
	// Output is the end of the test's output.
	Output string `json:"output"`
}

// Run is one runner's command.
type Run struct {
	Language string   `json:"language"`
	Runner   string   `json:"runner"`
	Command  []string `json:"command"`
	ExitCode int      `json:"exit_code"`
	// Stderr is the end of its error output when it failed without a
	// test failing (a build error).
	Stderr string `json:"stderr,omitempty"`
}

// Result answers run_tests.
type Result struct {
	Selection Selection `json:"selection"`
	Runs      []Run     `json:"runs"`
	Passed    int       `json:"passed"`
	Failed    int       `json:"failed"`
	Skipped   int       `json:"skipped"`
	Failures  []Failure `json:"failures"`
	// PassedTests names the tests that passed (bounded).
	PassedTests []string `json:"passed_tests"`
	// Complete is false when the time bound stopped a run: Unfinished
	// names the tests that had started and not finished.
	Complete   bool     `json:"complete"`
	Unfinished []string `json:"unfinished,omitempty"`
	DurationMs int64    `json:"duration_ms"`
}

// outcome is what a reader reports of one test.
type outcome struct {
	test, pkg  string
	status     string // "pass", "fail", "skip"
	file       string
	line       int
	message    string
	output     string
	unfinished bool
	// quiet: already reported as progress (a report file's outcomes).
	quiet bool
}

// reader turns a runner's output into outcomes.
type reader interface {
	// line reads a line of stdout, reporting the outcomes it completes.
	line(s string, report func(outcome))
	// finish reports what is left: tests that never finished (stopped),
	// and, for a report file, every outcome.
	finish(stopped bool, report func(outcome)) error
}

// Tests chooses the tests of req and runs them, bounded by timeout.
func Tests(ctx context.Context, c *lsp.Client, req Request, timeout time.Duration) (Result, error) {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	root := c.Session.Root()
	for i, f := range req.Changed {
		abs, err := root.Resolve(f)
		if err != nil {
			return Result{}, err
		}
		req.Changed[i] = root.Rel(abs)
	}
	if req.File != "" {
		abs, err := root.Resolve(req.File)
		if err != nil {
			return Result{}, err
		}
		req.File = root.Rel(abs)
	}
	s := &selector{c: c, sels: map[string]*selection{}}
	if err := s.choose(ctx, req); err != nil {
		return Result{}, err
	}
	out := Result{Runs: []Run{}, Failures: []Failure{}, PassedTests: []string{}, Complete: true}
	out.Selection.Why = s.why
	if len(s.sels) == 0 {
		out.Selection.Targets = []string{}
		return out, apierr.Errorf(apierr.ResourceNotFound, "name a test file, or a function its tests call (directly or through up to 3 callers)",
			"no test reaches it: %s found none", s.why)
	}
	if req.Confirm != nil {
		lines := []string{}
		for _, name := range keys(mapOf(s.sels)) {
			sel := s.sels[name]
			cmd, _, err := command(root.Dir(), sel.lang)
			if err != nil {
				return Result{}, err
			}
			spec := sel.spec()
			if sel.lang.Tests.Output == "junit" {
				spec.Report = "REPORT.xml" // a temporary file, made at the run
			}
			lines = append(lines, strings.Join(shown(append(cmd, sel.lang.Tests.Args(spec)...)), " "))
		}
		if err := req.Confirm(ctx, lines); err != nil {
			return Result{}, err
		}
	}
	start := time.Now()
	deadline, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	done := 0
	order := keys(mapOf(s.sels))
	for i, name := range order {
		sel := s.sels[name]
		spec := sel.spec()
		out.Selection.Targets = append(out.Selection.Targets, spec.Targets...)
		out.Selection.Names = append(out.Selection.Names, spec.Names...)
		named := 0 // outcomes naming a test: none, and the bound is hit, the whole selection is unfinished
		run, err := runOne(deadline, root.Dir(), sel.lang, spec, func(o outcome) {
			if o.test != "" {
				named++
			}
			if p, ok := strings.CutPrefix(o.status, "progress:"); ok {
				done++
				progress.Report(ctx, float64(done), 0, o.test+" "+p)
				return
			}
			switch o.status {
			case "pass":
				out.Passed++
				if len(out.PassedTests) < 200 {
					out.PassedTests = append(out.PassedTests, o.test)
				}
			case "skip":
				out.Skipped++
			case "fail":
				out.Failed++
				if len(out.Failures) < maxFailures {
					f := Failure{Test: o.test, Package: o.pkg, File: o.file, Line: o.line, Message: o.message, Output: o.output}
					if filepath.IsAbs(f.File) && root.Contains(f.File) {
						f.File = root.Rel(f.File)
					}
					out.Failures = append(out.Failures, f)
				}
			}
			if o.unfinished {
				out.Complete = false
				out.Unfinished = append(out.Unfinished, o.test)
				return
			}
			if !o.quiet {
				done++
				progress.Report(ctx, float64(done), 0, fmt.Sprintf("%s %s", o.test, o.status))
			}
		})
		if err != nil {
			return Result{}, err
		}
		out.Runs = append(out.Runs, run)
		if deadline.Err() != nil {
			// The bound stopped this runner (before it named a test, maybe
			// before its build ended) and the ones after it never ran:
			// what they were to run did not finish.
			out.Complete = false
			if named == 0 {
				out.Unfinished = append(out.Unfinished, selected(spec)...)
			}
			for _, rest := range order[i+1:] {
				out.Unfinished = append(out.Unfinished, selected(s.sels[rest].spec())...)
			}
			break
		}
	}
	out.DurationMs = time.Since(start).Milliseconds()
	if err := apierr.FromContext(ctx, "run_tests", "retry; the runs were stopped"); err != nil && !out.Complete {
		return out, err // the caller's cancellation or deadline, not the bound
	}
	if !out.Complete {
		return out, apierr.Errorf(apierr.Timeout, "run fewer tests (a symbol or a file), or pass a larger timeout_ms",
			"the tests did not finish within %s: %d passed, %d failed, %d skipped; unfinished: %s",
			timeout, out.Passed, out.Failed, out.Skipped, strings.Join(orNone(out.Unfinished), ", ")).WithDetails(out)
	}
	return out, nil
}

// selected names what spec runs: its tests, else its targets' tests.
func selected(spec lang.TestRunSpec) []string {
	if len(spec.Names) > 0 {
		return spec.Names
	}
	all := make([]string, len(spec.Targets))
	for i, t := range spec.Targets {
		all[i] = "every test of " + t
	}
	return all
}

// spec is what the runner is asked to run for sel.
func (sel *selection) spec() lang.TestRunSpec {
	spec := lang.TestRunSpec{Targets: keys(sel.targets)}
	if !sel.all {
		spec.Names = keys(sel.names)
	}
	return spec
}

func orNone(s []string) []string {
	if len(s) == 0 {
		return []string{"(the runner was stopped before it named them)"}
	}
	return s
}

func mapOf(m map[string]*selection) map[string]bool {
	out := map[string]bool{}
	for k := range m {
		out[k] = true
	}
	return out
}

// command finds the runner's command for the project at root.
func command(root string, l *lang.Language) ([]string, string, error) {
	r := l.Tests
	if r.Detect != nil {
		cmd, name, ok, why := r.Detect(root)
		if !ok {
			return nil, "", apierr.Errorf(apierr.Unsupported, r.Install, "no %s test runner configured: %s", l.Name, why)
		}
		return cmd, name, nil
	}
	for _, c := range r.Commands {
		if p, err := exec.LookPath(c[0]); err == nil {
			return append([]string{p}, c[1:]...), r.Name, nil
		}
	}
	return nil, "", apierr.Errorf(apierr.PreconditionFailed, r.Install, "%s is not installed (looked for %s)", r.Name, r.Commands[0][0])
}

// shown is argv as an answer or an approval shows it: the program by its
// name, not the path PATH resolved it to.
func shown(argv []string) []string {
	return append([]string{filepath.Base(argv[0])}, argv[1:]...)
}

// runOne runs one runner and reads its output.
func runOne(ctx context.Context, root string, l *lang.Language, spec lang.TestRunSpec, report func(outcome)) (Run, error) {
	cmd, name, err := command(root, l)
	if err != nil {
		return Run{}, err
	}
	var rd reader
	switch l.Tests.Output {
	case "go-test-json":
		rd = newGoReader(root)
	case "junit":
		tmp, err := os.MkdirTemp("", "nvbridge-tests-")
		if err != nil {
			return Run{}, apierr.Errorf(apierr.OperationFailed, "check the temporary folder", "cannot make a report folder: %v", err)
		}
		defer os.RemoveAll(tmp)
		spec.Report = filepath.Join(tmp, "report.xml")
		rd = newJUnitReader(root, spec.Report)
	default:
		return Run{}, apierr.Errorf(apierr.OperationFailed, "report this", "unknown test output %q", l.Tests.Output)
	}
	argv := append(cmd, l.Tests.Args(spec)...)
	run := Run{Language: l.Name, Runner: name, Command: shown(argv)}
	c := exec.Command(argv[0], argv[1:]...)
	c.Dir = root
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdout, err := c.StdoutPipe()
	if err != nil {
		return Run{}, err
	}
	stderr := tailbuf.New(4096)
	c.Stderr = stderr
	if err := c.Start(); err != nil {
		return Run{}, apierr.Errorf(apierr.OperationFailed, l.Tests.Install, "cannot start %s: %v", name, err)
	}
	// Stop the whole process group when the bound is hit (go test's
	// test binaries, pytest's workers).
	stopped := make(chan struct{})
	finished := make(chan struct{})
	safego.Go("run_tests: stop on the bound", func() {
		select {
		case <-ctx.Done():
			_ = syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
			close(stopped)
		case <-finished:
		}
	}, nil)
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		rd.line(sc.Text(), report)
	}
	_, _ = io.Copy(io.Discard, stdout)
	werr := c.Wait()
	close(finished)
	wasStopped := false
	select {
	case <-stopped:
		wasStopped = true
	default:
	}
	var ee *exec.ExitError
	if errors.As(werr, &ee) {
		run.ExitCode = ee.ExitCode()
	}
	if err := rd.finish(wasStopped, report); err != nil && !wasStopped {
		run.Stderr = stderr.String()
		return run, apierr.Errorf(apierr.OperationFailed, "read the runner's error output (details.stderr)",
			"%s failed (exit %d): %v; %s", name, run.ExitCode, err, lastLines(stderr.String(), 5)).WithDetails(map[string]any{"stderr": stderr.String()})
	}
	if run.ExitCode != 0 {
		run.Stderr = stderr.String()
	}
	return run, nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// tail keeps the end of s.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

func sortedOutcomes(m map[string]*outcome) []*outcome {
	out := make([]*outcome, 0, len(m))
	for _, o := range m {
		out = append(out, o)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].test < out[j].test })
	return out
}
