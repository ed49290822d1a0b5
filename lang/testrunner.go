package lang

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
)

// TestRunner describes how a language's tests are run (run_tests): data
// and pure functions; package testrun runs it and reads its output.
type TestRunner struct {
	// Name is the runner's name in results ("go test", "pytest").
	Name string
	// Commands are the ways to start it, tried in order: the first whose
	// executable is found is used. Detect, when set, replaces them for a
	// project (a TypeScript project's configured runner).
	Commands [][]string
	// Detect returns the project's runner under root (its command and
	// name), ok false when the project configures none; the reason then
	// says what was looked for.
	Detect func(root string) (cmd []string, name string, ok bool, reason string)
	// Install is the remediation when no command is found.
	Install string
	// Args builds the arguments after the command for one run.
	Args func(TestRunSpec) []string
	// Output names the reader of the runner's output: "go-test-json" (go
	// test -json on stdout) or "junit" (a JUnit XML report written to
	// TestRunSpec.Report; stdout read for progress).
	Output string
	// ByPackage: a run names packages (folders: Go); otherwise test files.
	ByPackage bool
	// IsTest reports whether a function or method named name (in a test
	// file) is a test the runner runs by name.
	IsTest func(name string) bool
}

// TestRunSpec is one run: what to run, relative to the workspace root
// (the runner's working directory).
type TestRunSpec struct {
	// Targets are package folders ("./zapcore", "."; ByPackage) or test
	// files.
	Targets []string
	// Names, when set, restrict the run to these tests.
	Names []string
	// Report is the file a "junit" runner writes its report to.
	Report string
}

// goTestArgs runs go test -json on the packages, -run anchoring the names.
func goTestArgs(s TestRunSpec) []string {
	args := []string{"test", "-json", "-count=1"}
	if len(s.Names) > 0 {
		args = append(args, "-run", "^("+strings.Join(s.Names, "|")+")$")
	}
	return append(args, s.Targets...)
}

// pytestArgs runs pytest verbosely (a line per test, for progress) with a
// JUnit report, no cache written into the workspace; -k selects names.
func pytestArgs(s TestRunSpec) []string {
	args := []string{"-v", "-p", "no:cacheprovider", "-o", "junit_family=xunit1", "--junitxml=" + s.Report, "--tb=short"}
	if len(s.Names) > 0 {
		args = append(args, "-k", strings.Join(s.Names, " or "))
	}
	return append(args, s.Targets...)
}

// vitestArgs runs vitest once with its JUnit reporter (and the default
// one on stdout); -t selects names.
func vitestArgs(s TestRunSpec) []string {
	args := []string{"run", "--reporter=default", "--reporter=junit", "--outputFile.junit=" + s.Report}
	if len(s.Names) > 0 {
		args = append(args, "-t", strings.Join(s.Names, "|"))
	}
	return append(args, s.Targets...)
}

// detectJSRunner finds the runner a JavaScript or TypeScript project
// configures: vitest in package.json's dependencies or test script, run
// from the project's node_modules.
func detectJSRunner(root string) ([]string, string, bool, string) {
	data, err := os.ReadFile(filepath.Join(root, "package.json"))
	if err != nil {
		return nil, "", false, "no package.json at the workspace root"
	}
	var pkg struct {
		Scripts         map[string]string `json:"scripts"`
		Dependencies    map[string]string `json:"dependencies"`
		DevDependencies map[string]string `json:"devDependencies"`
	}
	if err := json.Unmarshal(data, &pkg); err != nil {
		return nil, "", false, "package.json does not parse: " + err.Error()
	}
	_, dep := pkg.DevDependencies["vitest"]
	if _, ok := pkg.Dependencies["vitest"]; ok {
		dep = true
	}
	if dep || strings.Contains(pkg.Scripts["test"], "vitest") {
		bin := filepath.Join(root, "node_modules", ".bin", "vitest")
		if _, err := os.Stat(bin); err != nil {
			return nil, "", false, "the project uses vitest but node_modules/.bin/vitest is not installed (npm install)"
		}
		return []string{bin}, "vitest", true, ""
	}
	reason := "package.json configures no test runner nvbridge runs (vitest)"
	if t := pkg.Scripts["test"]; t != "" {
		reason += "; its test script is " + t
	}
	return nil, "", false, reason
}
