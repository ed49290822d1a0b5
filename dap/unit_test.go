package dap

import (
	"os"
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

// The adapters come from the registry (their launch configurations are
// tested in lang).
func TestAdapterLookups(t *testing.T) {
	if a := adapterFor("go"); a == nil || a.Language != "go" || a.Name != "dlv" || a.Transport != TCP {
		t.Errorf("go: %+v", a)
	}
	if a := adapterFor("python"); a == nil || a.Name != "debugpy" || a.Transport != Stdio {
		t.Errorf("python: %+v", a)
	}
	if adapterFor("cobol") != nil || adapterFor("typescript") != nil {
		t.Error("no adapter for an unknown language or one without a Debug entry")
	}
	if languageOf("/w/a.go", false) != "go" || languageOf("/w/a.py", false) != "python" || languageOf("/w/a.rb", false) != "" || languageOf("/w/a.ts", false) != "" {
		t.Error("languageOf a file")
	}
	dir := t.TempDir()
	if err := os.WriteFile(dir+"/README.md", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if languageOf(dir, true) != "" {
		t.Error("a folder without sources")
	}
	if err := os.WriteFile(dir+"/app.py", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if languageOf(dir, true) != "python" {
		t.Error("a folder with a .py file")
	}
	names := strings.Join(Languages(), " ")
	if names != "c fake go python rust" || languagesText(" and ") != "c, fake, go, python and rust" {
		t.Errorf("Languages() = %s, %s", names, languagesText(" and "))
	}
}
