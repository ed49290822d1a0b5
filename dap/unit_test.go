package dap

import (
	"strings"
	"testing"

	godap "github.com/google/go-dap"
)

func TestOutputLogKeepsTheNewestWithinItsBound(t *testing.T) {
	o := outputLog{max: 10}
	o.add("stdout", "abcdef")
	o.add("stdout", "ghi")
	o.add("stderr", "jklm")
	got, dropped := o.take()
	var b strings.Builder
	for _, c := range got {
		b.WriteString(c.Category + ":" + c.Text + " ")
	}
	if b.String() != "stdout:defghi stderr:jklm " || dropped != 3 {
		t.Fatalf("got %q dropped %d", b.String(), dropped)
	}
	if again, d := o.take(); len(again) != 0 || d != 0 {
		t.Fatalf("a second take returned %v, %d", again, d)
	}
	o.add("", "x")
	if got, _ := o.take(); got[0].Category != "console" {
		t.Fatalf("empty category: %+v", got)
	}
}

func TestParseStat(t *testing.T) {
	// comm may hold spaces and parentheses.
	line := "4242 (we ird) (x)) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 100"
	st, ok := parseStat(4242, []byte(line))
	if !ok || st.ppid != 1 || st.pgrp != 4242 || st.start != 987654 || st.zombie {
		t.Fatalf("%+v %v", st, ok)
	}
	if st, ok := parseStat(1, []byte("1 (z) Z 0 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5 0 0")); !ok || !st.zombie {
		t.Fatalf("zombie: %+v %v", st, ok)
	}
	if _, ok := parseStat(1, []byte("garbage")); ok {
		t.Fatal("garbage parsed")
	}
}

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

func TestErrorText(t *testing.T) {
	e := &godap.ErrorResponse{Response: godap.Response{Command: "evaluate", Message: "generic"}}
	if got := errorText(e); got != "generic" {
		t.Fatalf("got %q", got)
	}
	e.Body.Error = &godap.ErrorMessage{Format: "could not find symbol {name} in {where}", Variables: map[string]string{"name": "x", "where": "main"}}
	if got := errorText(e); got != "could not find symbol x in main" {
		t.Fatalf("got %q", got)
	}
}

func TestLaunchConfigurations(t *testing.T) {
	goCfg := adapterFor("go").Launch(LaunchSpec{Program: "/w/pkg", ProgramDir: true, Test: "TestX", Args: []string{"-test.v"}, TempDir: "/tmp/s"})
	if goCfg["mode"] != "test" || goCfg["program"] != "/w/pkg" || strings.Join(goCfg["args"].([]string), " ") != "-test.run ^TestX$ -test.v" ||
		goCfg["output"] != "/tmp/s/__debug_bin" || goCfg["outputMode"] != "remote" {
		t.Errorf("go test: %v", goCfg)
	}
	goCfg = adapterFor("go").Launch(LaunchSpec{Program: "/w/main.go", Args: []string{"a"}, Cwd: "/w", Env: map[string]string{"K": "V"}, StopOnEntry: true})
	if goCfg["mode"] != "debug" || goCfg["program"] != "/w/main.go" || goCfg["cwd"] != "/w" || goCfg["stopOnEntry"] != true || goCfg["env"] == nil {
		t.Errorf("go program: %v", goCfg)
	}
	py := adapterFor("python").Launch(LaunchSpec{Program: "/w/t.py", Test: "restock"})
	if py["module"] != "pytest" || strings.Join(py["args"].([]string), " ") != "-q -p no:cacheprovider -k restock /w/t.py" || py["program"] != nil {
		t.Errorf("python test: %v", py)
	}
	py = adapterFor("python").Launch(LaunchSpec{Program: "/w/app.py", Args: []string{"x"}})
	if py["program"] != "/w/app.py" || py["console"] != "internalConsole" || py["module"] != nil {
		t.Errorf("python program: %v", py)
	}
	if adapterFor("cobol") != nil || languageOf("/w/a.go", false) != "go" || languageOf("/w/a.py", false) != "python" || languageOf("/w/a.rb", false) != "" {
		t.Error("language table")
	}
}
