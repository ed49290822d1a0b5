package lsp_test

// Rust through the registry (lang/rust.go) against real rust-analyzer on a
// copy of testdata/samples/rust (a rust-project.json project, no cargo):
// symbols, diagnostics of a broken crate, definition, references, rename,
// the call hierarchy (rust-analyzer lacks only type hierarchies, which
// nvbridge answers from its fallback).

import (
	"reflect"
	"testing"

	"github.com/nvbridge/nvbridge/lsp"
)

func TestRustLanguage(t *testing.T) {
	e := newLangEnv(t, "rust", "rust", "rust-analyzer", "rust-analyzer")

	t.Run("symbols", func(t *testing.T) {
		e.symbols(t, "src/geometry.rs", "struct Rect src/geometry.rs:1:11", "field width src/geometry.rs:2:8",
			"field height src/geometry.rs:3:8", "object impl Rect src/geometry.rs:6:5", "function new src/geometry.rs:7:11",
			"method area src/geometry.rs:11:11", "function total_area src/geometry.rs:16:7")
	})
	t.Run("diagnostics", func(t *testing.T) {
		e.diagnostics(t, "src/main.rs")
		e.diagnostics(t, "src/broken.rs", "9 error rust-analyzer: expected 1 argument, found 2")
	})
	t.Run("definition in another module", func(t *testing.T) {
		e.definition(t, "src/main.rs", lsp.Target{Line: 10, Symbol: "total_area"}, "src/geometry.rs:16:7")
	})
	t.Run("references", func(t *testing.T) {
		e.references(t, "src/geometry.rs", lsp.Target{Line: 11, Symbol: "area"}, "src/geometry.rs:11:11", "src/geometry.rs:17:6", "src/geometry.rs:17:17")
	})
	t.Run("rename across modules", func(t *testing.T) {
		e.rename(t, "src/geometry.rs", lsp.Target{Line: 16, Symbol: "total_area"}, "sum_areas", []string{"src/geometry.rs", "src/main.rs"},
			"-pub fn total_area(a: &Rect, b: &Rect) -> f64 {", "+pub fn sum_areas(a: &Rect, b: &Rect) -> f64 {",
			"-use geometry::{total_area, Rect};", "+use geometry::{sum_areas, Rect};",
			"-    let total = total_area(&wide, &tall);", "+    let total = sum_areas(&wide, &tall);")
	})
	t.Run("call hierarchy", func(t *testing.T) {
		r, err := e.client.CallHierarchy(e.ctx, "src/geometry.rs", lsp.Target{Line: 11, Symbol: "area"}, lsp.CallHierarchyOptions{Direction: "incoming", Depth: 2})
		if err != nil {
			t.Fatal(err)
		}
		if got := stCallNames(r.Incoming); !reflect.DeepEqual(got, []string{"total_area"}) {
			t.Fatalf("callers of area = %v", got)
		}
		if got := stCallNames(stFindCall(t, r.Incoming, "total_area").Callers); !reflect.DeepEqual(got, []string{"main"}) {
			t.Fatalf("callers of total_area = %v", got)
		}
		e.verified(t, "get_call_hierarchy")
	})
}
