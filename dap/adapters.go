package dap

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// This file is the per-language knowledge of the dap package: which debug
// adapter serves a language, how to start and reach it, and how to launch a
// program or a test with it. It is one small table on purpose: it moves
// into the per-language registry (issue 9) once that exists.

// Transport is how nvbridge talks to an adapter.
type Transport string

const (
	// Stdio: DAP over the adapter's stdin/stdout.
	Stdio Transport = "stdio"
	// TCP: the adapter listens on a loopback port it prints on stdout
	// (matched by Adapter.AddrPattern); nvbridge connects to it.
	TCP Transport = "tcp"
)

// Adapter describes one language's debug adapter.
type Adapter struct {
	Language string
	// Name is the adapter's name in results ("dlv", "debugpy").
	Name string
	// Commands are the ways to start it, tried in order: the first whose
	// executable is found (on PATH, .deps/bin first under make) is used.
	Commands  [][]string
	Transport Transport
	// AddrPattern finds host:port in the adapter's stdout (TCP only).
	AddrPattern *regexp.Regexp
	// Extensions are the source files' extensions (".go").
	Extensions []string
	// Install is the remediation when no command is found.
	Install string
	// Launch builds the launch request's arguments.
	Launch func(LaunchSpec) map[string]any
	// EvaluateContext is the evaluate request's context for expressions.
	EvaluateContext string
	// ExceptionFilters are set with setExceptionBreakpoints at start, so
	// the program stops where an uncaught exception is raised (dlv stops
	// on a panic by itself).
	ExceptionFilters []string
}

// LaunchSpec is what a launch configuration is built from; paths are
// absolute and already confined to the workspace.
type LaunchSpec struct {
	// Program is the file or folder to run, or for a test the package
	// folder (Go) or the test file or folder (Python); may be empty for a
	// Python test (pytest collects from Cwd).
	Program    string
	ProgramDir bool
	// Test is a test name (go test -run, pytest -k); empty to run Program.
	Test        string
	Args        []string
	Env         map[string]string
	Cwd         string
	StopOnEntry bool
	// TempDir is the session's private folder (dlv's binary goes there).
	TempDir string
}

// adapters is the table: one entry per language.
var adapters = []*Adapter{
	{
		Language:        "go",
		Name:            "dlv",
		Commands:        [][]string{{"dlv", "dap", "--listen", "127.0.0.1:0"}},
		Transport:       TCP,
		AddrPattern:     regexp.MustCompile(`DAP server listening at: (\S+:\d+)`),
		Extensions:      []string{".go"},
		Install:         "install dlv (make deps installs it under .deps/bin; or go install github.com/go-delve/delve/cmd/dlv@v1.27.2) and make sure go is on PATH",
		EvaluateContext: "watch",
		Launch: func(l LaunchSpec) map[string]any {
			cfg := map[string]any{
				"request": "launch", "stopOnEntry": l.StopOnEntry,
				// dlv deletes the binary when the session ends; keep it out
				// of the workspace.
				"output": filepath.Join(l.TempDir, "__debug_bin"),
				// The program's stdout/stderr as output events, not dlv's own.
				"outputMode": "remote",
			}
			args := []string{}
			if l.Test != "" {
				cfg["mode"] = "test"
				cfg["program"] = dirOf(l.Program, l.ProgramDir)
				args = append(args, "-test.run", goTestPattern(l.Test))
			} else {
				cfg["mode"] = "debug"
				cfg["program"] = l.Program
			}
			cfg["args"] = append(args, l.Args...)
			if l.Cwd != "" {
				cfg["cwd"] = l.Cwd
			}
			if len(l.Env) > 0 {
				cfg["env"] = l.Env
			}
			return cfg
		},
	},
	{
		Language: "python",
		Name:     "debugpy",
		// debugpy-adapter is the wrapper make deps installs (Debian's
		// python3-debugpy unpacked into .deps/python, run by /usr/bin/python3).
		Commands:         [][]string{{"debugpy-adapter"}, {"/usr/bin/python3", "-m", "debugpy.adapter"}},
		Transport:        Stdio,
		Extensions:       []string{".py"},
		Install:          "install debugpy (make deps unpacks Debian's python3-debugpy under .deps/ and installs .deps/bin/debugpy-adapter; or apt-get install python3-debugpy)",
		EvaluateContext:  "watch",
		ExceptionFilters: []string{"uncaught"},
		Launch: func(l LaunchSpec) map[string]any {
			cfg := map[string]any{
				"request": "launch", "stopOnEntry": l.StopOnEntry,
				"console": "internalConsole", "redirectOutput": true, "justMyCode": true,
			}
			if l.Test != "" {
				cfg["module"] = "pytest"
				// No .pytest_cache written into the workspace.
				args := []string{"-q", "-p", "no:cacheprovider", "-k", l.Test}
				if l.Program != "" {
					args = append(args, l.Program)
				}
				cfg["args"] = append(args, l.Args...)
			} else {
				cfg["program"] = l.Program
				cfg["args"] = append([]string{}, l.Args...)
			}
			if l.Cwd != "" {
				cfg["cwd"] = l.Cwd
			}
			if len(l.Env) > 0 {
				cfg["env"] = l.Env
			}
			return cfg
		},
	},
}

// adapterFor returns the adapter of a language ("go", "python").
func adapterFor(language string) *Adapter {
	for _, a := range adapters {
		if a.Language == language {
			return a
		}
	}
	return nil
}

// Languages lists the languages with an adapter.
func Languages() []string {
	out := make([]string, len(adapters))
	for i, a := range adapters {
		out[i] = a.Language
	}
	return out
}

// languageOf guesses the language of a file (by extension) or a folder (by
// the source files in it).
func languageOf(path string, isDir bool) string {
	if !isDir {
		ext := filepath.Ext(path)
		for _, a := range adapters {
			for _, e := range a.Extensions {
				if e == ext {
					return a.Language
				}
			}
		}
		return ""
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return ""
	}
	for _, a := range adapters {
		for _, e := range entries {
			for _, ext := range a.Extensions {
				if !e.IsDir() && strings.HasSuffix(e.Name(), ext) {
					return a.Language
				}
			}
		}
	}
	return ""
}

func dirOf(path string, isDir bool) string {
	if isDir {
		return path
	}
	return filepath.Dir(path)
}

var goIdent = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// goTestPattern anchors a plain test name (TestX runs TestX, not TestXY);
// anything else (a regexp, TestX/sub) is passed as given.
func goTestPattern(name string) string {
	if goIdent.MatchString(name) {
		return "^" + name + "$"
	}
	return name
}
