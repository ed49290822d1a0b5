package lang

// lldb-dap, LLVM's debug adapter (Debian bookworm's lldb-19, which make
// deps unpacks into .deps/lldb), debugs the native programs of C, C++ and
// Rust: the program is the executable the user built with debug
// information (cc -g, rustc -g, cargo build), not a source file, so a
// session names its language.

// lldbDebug is the adapter of every language whose programs lldb debugs.
var lldbDebug = &DebugAdapter{
	Name: "lldb-dap",
	// lldb-dap-19 and lldb-vscode are its names in Debian's and older
	// LLVM packages.
	Commands:  [][]string{{"lldb-dap"}, {"lldb-dap-19"}, {"lldb-vscode"}},
	Transport: DebugStdio,
	Install:   "install lldb-dap (make deps unpacks Debian's lldb-19 under .deps/ and installs .deps/bin/lldb-dap; or apt-get install lldb-19)",
	// lldb's own commands are not expressions: "variables" evaluates an
	// expression in the frame's language.
	EvaluateContext: "watch",
	// C and C++ have no exceptions lldb-dap filters by default; Rust's
	// panics stop where they are raised (rust_panic).
	Launch: lldbLaunch,
}

// lldbLaunch is lldb-dap's launch configuration: the executable with its
// arguments, environment and working directory. Tests are not launched by
// name (a test binary is a program like any other).
func lldbLaunch(l LaunchSpec) map[string]any {
	cfg := map[string]any{
		"request": "launch", "program": l.Program, "args": append([]string{}, l.Args...),
		"stopOnEntry": l.StopOnEntry,
	}
	if l.Cwd != "" {
		cfg["cwd"] = l.Cwd
	}
	if len(l.Env) > 0 {
		// lldb-dap 19 takes the environment as "NAME=value" strings.
		var env []string
		for k, v := range l.Env {
			env = append(env, k+"="+v)
		}
		cfg["env"] = env
	}
	return cfg
}
