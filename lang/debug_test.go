package lang

import (
	"strings"
	"testing"
)

func TestGoTestPattern(t *testing.T) {
	for in, want := range map[string]string{
		"TestRestock":     "^TestRestock$",
		"TestA/sub":       "TestA/sub",
		"Test(A|B)":       "Test(A|B)",
		"_TestUnderscore": "^_TestUnderscore$",
	} {
		if got := goTestPattern(in); got != want {
			t.Errorf("goTestPattern(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLaunchConfigurations(t *testing.T) {
	goDbg, pyDbg := ByName("go").Debug, ByName("python").Debug
	goCfg := goDbg.Launch(LaunchSpec{Program: "/w/pkg", ProgramDir: true, Test: "TestX", Args: []string{"-test.v"}, TempDir: "/tmp/s"})
	if goCfg["mode"] != "test" || goCfg["program"] != "/w/pkg" || strings.Join(goCfg["args"].([]string), " ") != "-test.run ^TestX$ -test.v" ||
		goCfg["output"] != "/tmp/s/__debug_bin" || goCfg["outputMode"] != "remote" {
		t.Errorf("go test: %v", goCfg)
	}
	// A test named with a file runs the file's package.
	goCfg = goDbg.Launch(LaunchSpec{Program: "/w/pkg/a_test.go", Test: "TestA/sub"})
	if goCfg["program"] != "/w/pkg" || strings.Join(goCfg["args"].([]string), " ") != "-test.run TestA/sub" {
		t.Errorf("go test of a file: %v", goCfg)
	}
	goCfg = goDbg.Launch(LaunchSpec{Program: "/w/main.go", Args: []string{"a"}, Cwd: "/w", Env: map[string]string{"K": "V"}, StopOnEntry: true})
	if goCfg["mode"] != "debug" || goCfg["program"] != "/w/main.go" || goCfg["cwd"] != "/w" || goCfg["stopOnEntry"] != true || goCfg["env"] == nil {
		t.Errorf("go program: %v", goCfg)
	}
	py := pyDbg.Launch(LaunchSpec{Program: "/w/t.py", Test: "restock"})
	if py["module"] != "pytest" || strings.Join(py["args"].([]string), " ") != "-q -p no:cacheprovider -k restock /w/t.py" || py["program"] != nil {
		t.Errorf("python test: %v", py)
	}
	py = pyDbg.Launch(LaunchSpec{Test: "restock", Cwd: "/w"})
	if strings.Join(py["args"].([]string), " ") != "-q -p no:cacheprovider -k restock" || py["cwd"] != "/w" {
		t.Errorf("python test collected from cwd: %v", py)
	}
	py = pyDbg.Launch(LaunchSpec{Program: "/w/app.py", Args: []string{"x"}})
	if py["program"] != "/w/app.py" || py["console"] != "internalConsole" || py["module"] != nil {
		t.Errorf("python program: %v", py)
	}
}

// Every adapter is complete; C and Rust share lldb-dap.
func TestDebugAdapters(t *testing.T) {
	var names []string
	for _, l := range Debuggable() {
		names = append(names, l.Name)
		d := l.Debug
		if d.Name == "" || len(d.Commands) == 0 || d.Install == "" || d.Launch == nil || d.EvaluateContext == "" {
			t.Errorf("%s: incomplete adapter %+v", l.Name, d)
		}
		switch d.Transport {
		case DebugTCP:
			if d.AddrPattern == nil {
				t.Errorf("%s: a TCP adapter needs AddrPattern", l.Name)
			}
		case DebugStdio:
		default:
			t.Errorf("%s: transport %q", l.Name, d.Transport)
		}
	}
	if strings.Join(names, " ") != "c go python rust" {
		t.Errorf("Debuggable() = %v", names)
	}
	if m := ByName("go").Debug.AddrPattern.FindStringSubmatch("DAP server listening at: 127.0.0.1:40123\n"); m == nil || m[1] != "127.0.0.1:40123" {
		t.Errorf("dlv address: %v", m)
	}
	if !ByName("python").Debug.TestFromCwd || ByName("go").Debug.TestFromCwd {
		t.Error("pytest collects from the working directory; go test needs a package")
	}
	if DirOf("/w/a.go", false) != "/w" || DirOf("/w/pkg", true) != "/w/pkg" {
		t.Error("DirOf")
	}
}
