package lsp

import (
	"strings"
	"testing"
)

func TestDeclarationExtent(t *testing.T) {
	cases := []struct {
		name  string
		lines string // the block read from the declaration's line on
		want  int
	}{
		{"one-line methods side by side (zap's nopCore)",
			"func (nopCore) Check(_ Entry, ce *CheckedEntry) *CheckedEntry { return ce }\nfunc (nopCore) Write(Entry, []Field) error                    { return nil }\nfunc (nopCore) Sync() error                                   { return nil }", 1},
		{"interface method before the next one's comment",
			"\tCheck(Entry, *CheckedEntry) *CheckedEntry\n\t// Write serializes the Entry\n\tWrite(Entry, []Field) error", 1},
		{"last interface method before the closing brace",
			"\tSync() error\n}", 1},
		{"function body up to its closing brace",
			"func (f *fileSink) Write(p []byte) error {\n\tf.n += len(p)\n\treturn nil\n}\nfunc (f *fileSink) Sync() error { return nil }", 4},
		{"wrapped Go signature",
			"func long(\n\ta int,\n\tb string,\n) error {\n\treturn nil\n}\nvar after = 1", 6},
		{"struct type",
			"type Card struct {\n\tNumber string\n}\n// next", 3},
		{"const block",
			"const (\n\tA = 1\n\tB = 2\n)\nvar c = 3", 4},
		{"Python function to its dedent",
			"def process(order: Order) -> Total:\n    total = 0\n    return total\ndef other():", 3},
		{"wrapped Python signature",
			"def f(\n    a,\n    b,\n) -> int:\n    return a\nx = 1", 5},
		{"TypeScript method in a class",
			"  process(o: Order): Total {\n    return total(o);\n  }\n  other(): void {}", 3},
		{"a field among fields",
			"\tName string\n\tAge  int", 1},
		{"continued expression",
			"var total = a +\n\tb\nvar next = 2", 2},
		{"first line only", "x := 1", 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			lines := strings.Split(c.lines, "\n")
			if got := declarationExtent(lines); got != c.want {
				t.Fatalf("declarationExtent = %d, want %d: %q", got, c.want, lines[:min(c.want, len(lines))])
			}
		})
	}
	if got := declarationExtent(nil); got != 0 {
		t.Fatalf("declarationExtent(nil) = %d", got)
	}
}
