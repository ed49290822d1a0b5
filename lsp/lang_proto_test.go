package lsp_test

// Protocol Buffers through the registry (lang/proto.go) against real buf
// (`buf lsp serve`) on a copy of testdata/samples/proto (a buf.yaml
// module): symbols, compile errors, definition and references across
// files, rename, UNSUPPORTED naming the server for call hierarchies.

import (
	"testing"

	"github.com/nvbridge/nvbridge/lsp"
)

func TestProtoLanguage(t *testing.T) {
	e := newLangEnv(t, "proto", "proto", "buf", "buf")
	const service, shapes = "proto/shapes/v1/service.proto", "proto/shapes/v1/shapes.proto"

	t.Run("symbols", func(t *testing.T) {
		e.symbols(t, service, "class shapes.v1.AreaRequest "+service+":7:8", "field shapes.v1.AreaRequest.rect "+service+":8:7",
			"class shapes.v1.AreaResponse "+service+":11:8", "field shapes.v1.AreaResponse.area "+service+":12:9",
			"interface shapes.v1.GeometryService "+service+":15:8", "method shapes.v1.GeometryService.Area "+service+":16:6")
	})
	t.Run("diagnostics", func(t *testing.T) {
		e.diagnostics(t, service)
		e.diagnostics(t, "proto/shapes/v1/broken.proto", "6 error buf-lsp: cannot find `Circle` in this scope\nhelp: the full name of this scope is `shapes.v1.Drawing`")
	})
	t.Run("definition in an imported file", func(t *testing.T) {
		e.definition(t, service, lsp.Target{Line: 8, Symbol: "Rect"}, shapes+":11:8")
	})
	t.Run("references", func(t *testing.T) {
		e.references(t, shapes, lsp.Target{Line: 6, Symbol: "Point"}, shapes+":6:8", shapes+":12:2", shapes+":13:2")
	})
	t.Run("rename across files", func(t *testing.T) {
		e.rename(t, shapes, lsp.Target{Line: 11, Symbol: "Rect"}, "Box", []string{service, shapes},
			"-  Rect rect = 1;", "+  Box rect = 1;", "-message Rect {", "+message Box {")
	})
	t.Run("call hierarchy is UNSUPPORTED", func(t *testing.T) {
		_, err := e.client.CallHierarchy(e.ctx, service, lsp.Target{Line: 16, Symbol: "Area"}, lsp.CallHierarchyOptions{Direction: "incoming"})
		e.unsupported(t, "get_call_hierarchy", "prepareCallHierarchy", err)
	})
}
