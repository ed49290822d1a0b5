package dap

// Running a program is approved like a change: start_debug_session shows
// the user what it would run (the program and its arguments, the test, the
// working directory, the environment added, the debug adapter and the
// launch request sent to it) through StartRequest.Confirm before anything
// starts.

import (
	"encoding/json"
	"os/exec"
	"sort"
	"strings"

	"github.com/nvbridge/nvbridge/workspace"
)

// Run is what a debug session would run, for the user's approval.
type Run struct {
	// CommandLine is the program and its arguments, shell-quoted, the way
	// the user would type them (paths relative to the workspace root).
	CommandLine string
	// Text is every detail, one per line, CommandLine first.
	Text string
}

// describeRun renders what starting adapter a with spec runs.
func describeRun(root workspace.Root, a *Adapter, spec LaunchSpec) Run {
	rel := func(p string) string {
		if p == "" {
			return "."
		}
		return root.Rel(p)
	}
	words := []string{}
	if spec.Program != "" {
		p := rel(spec.Program)
		if !strings.HasPrefix(p, "/") && !strings.HasPrefix(p, ".") {
			p = "./" + p
		}
		words = append(words, p)
	}
	words = append(words, spec.Args...)
	line := shellJoin(words)
	var b strings.Builder
	b.WriteString("$ " + line + "\n")
	if spec.Test != "" {
		b.WriteString("test: " + spec.Test + " (only this test runs)\n")
	}
	b.WriteString("language: " + a.Language + ", debugged by " + a.Name + "\n")
	b.WriteString("working directory: " + rel(spec.Cwd) + "\n")
	if len(spec.Env) > 0 {
		keys := make([]string, 0, len(spec.Env))
		for k := range spec.Env {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			b.WriteString("environment: " + shellQuote(k+"="+spec.Env[k]) + "\n")
		}
	}
	for _, c := range a.Commands {
		if _, err := exec.LookPath(c[0]); err == nil {
			b.WriteString("debug adapter: " + shellJoin(c) + "\n")
			break
		}
	}
	if cfg, err := json.Marshal(a.Launch(spec)); err == nil {
		b.WriteString("launch request: " + string(cfg) + "\n")
	}
	return Run{CommandLine: line, Text: b.String()}
}

// shellJoin quotes words for a POSIX shell.
func shellJoin(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = shellQuote(w)
	}
	return strings.Join(q, " ")
}

func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
