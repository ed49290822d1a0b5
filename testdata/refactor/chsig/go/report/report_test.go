package report

import (
	"testing"

	"example.com/chsig/store"
)

func TestRun(t *testing.T) {
	l := &store.Log{}
	got, err := Run(l)
	if err != nil || got != 340 {
		t.Fatalf("Run = %d, %v; want 340", got, err)
	}
	if len(l.Lines) != 2 || l.Lines[0] != "a=300" {
		t.Fatalf("lines %v", l.Lines)
	}
	m := &store.Mem{}
	if err := Direct(m); err != nil || m.M["direct"] != 1 {
		t.Fatalf("Direct: %v %v", err, m.M)
	}
}
