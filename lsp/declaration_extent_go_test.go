package lsp_test

// Where a definition's source ends, against real gopls on
// testdata/samples/goshapes (laid out like zap's nopCore): neither the next
// one-line method nor the enclosing interface's closing brace is part of a
// declaration.

import (
	"reflect"
	"testing"

	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/lsp"
)

func TestDeclarationExtentGo(t *testing.T) {
	testenv.Require(t, "nvim", "gopls", "go")
	root := testenv.CopySample(t, "goshapes")
	_, client := testenv.Embedded(t, root)
	ctx := testenv.Context(t)

	t.Run("implementations stop before the next method", func(t *testing.T) {
		r, err := client.Implementations(ctx, "shapes.go", lsp.Target{Line: 9, Symbol: "Write"})
		if err != nil {
			t.Fatal(err)
		}
		got := map[int]string{}
		for _, l := range r.Locations {
			got[l.Line] = l.Declaration
		}
		want := map[int]string{
			15: "func (nopSink) Write(p []byte) error { return nil }",
			20: "func (f *fileSink) Write(p []byte) error {\n\tf.n += len(p)\n\treturn nil\n}",
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("declarations = %#v, want %#v", got, want)
		}
	})

	t.Run("an interface method without the interface's closing brace", func(t *testing.T) {
		r, err := client.Definition(ctx, "shapes.go", lsp.Target{Line: 27, Symbol: "Sync"})
		if err != nil {
			t.Fatal(err)
		}
		if r.Count != 1 || r.Locations[0].Line != 10 || r.Locations[0].Declaration != "\tSync() error" {
			t.Fatalf("definition = %+v", r.Locations)
		}
	})
}
