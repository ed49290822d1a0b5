package nvim_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/lsp"
)

// insertAtTop writes n comment lines before the first line of a file on
// disk, as an agent's shell would.
func insertAtTop(t *testing.T, path string, n int) {
	t.Helper()
	old, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	head := strings.Repeat("// inserted on disk\n", n)
	if err := os.WriteFile(path, append([]byte(head), old...), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestReconcileWithDisk: before a request, an unmodified buffer whose file
// changed on disk is reloaded and gopls sees the new text; a buffer with
// unsaved changes whose file also changed is a CONFLICT that keeps the
// unsaved text.
func TestReconcileWithDisk(t *testing.T) {
	testenv.Require(t, "nvim", "gopls", "go")
	root := testenv.CopySample(t, "go")
	s, client := testenv.Embedded(t, root)
	ctx := testenv.Context(t)

	definition := func(t *testing.T, file string, line int, symbol string) lsp.SourceLocation {
		t.Helper()
		res, err := client.Definition(ctx, file, lsp.Target{Line: line, Symbol: symbol})
		if err != nil {
			t.Fatalf("definition of %s at %s:%d: %v", symbol, file, line, err)
		}
		if len(res.Locations) != 1 {
			t.Fatalf("definition of %s: %+v", symbol, res)
		}
		return res.Locations[0]
	}

	t.Run("unmodified buffer reloaded, also when another file is asked", func(t *testing.T) {
		// Load both files into buffers first (landmarks: Process defined at
		// orders/orders.go:33 col 5, called at main.go:27).
		if got := definition(t, "main.go", 27, "Process"); got.File != "orders/orders.go" || got.Line != 33 {
			t.Fatalf("before: %s:%d", got.File, got.Line)
		}
		if _, err := client.Info(ctx, "orders/orders.go", false); err != nil {
			t.Fatal(err)
		}
		insertAtTop(t, filepath.Join(root, "orders/orders.go"), 3)
		// The request is on main.go; the loaded orders.go buffer is stale
		// and must be reloaded before gopls answers.
		if got := definition(t, "main.go", 27, "Process"); got.File != "orders/orders.go" || got.Line != 36 || got.Column != 5 {
			t.Fatalf("after inserting 3 lines: %s:%d:%d, want orders/orders.go:36:5", got.File, got.Line, got.Column)
		}
		// And on the changed file itself: (*Total).Add is called at line
		// 39+3 and defined at 45+3.
		insertAtTop(t, filepath.Join(root, "orders/orders.go"), 2)
		info, err := client.Info(ctx, "orders/orders.go", true)
		if err != nil {
			t.Fatal(err)
		}
		if !info.ReloadedFromDisk || info.IsModified || !strings.HasPrefix(*info.Content, "// inserted on disk\n") {
			t.Fatalf("info after a disk change: reloaded=%v modified=%v", info.ReloadedFromDisk, info.IsModified)
		}
		insertAtTop(t, filepath.Join(root, "orders/orders.go"), 1)
		if got := definition(t, "orders/orders.go", 39+6, "Add"); got.Line != 45+6 {
			t.Fatalf("Add defined at line %d, want %d", got.Line, 45+6)
		}
	})

	t.Run("a buffer passed over as unchanged is reloaded once its file changes", func(t *testing.T) {
		// Two requests elsewhere: the first finds orders.go in agreement
		// with its file, the second passes it over on that ground.
		for range 2 {
			if got := definition(t, "main.go", 27, "Process"); got.Line != 33+6 {
				t.Fatalf("Process defined at line %d, want %d", got.Line, 33+6)
			}
		}
		insertAtTop(t, filepath.Join(root, "orders/orders.go"), 1)
		if got := definition(t, "main.go", 27, "Process"); got.Line != 33+7 {
			t.Fatalf("after one more line on disk: Process defined at line %d, want %d", got.Line, 33+7)
		}
	})

	t.Run("unsaved changes without a disk change", func(t *testing.T) {
		doc, err := client.Open(ctx, "payment/card.go")
		if err != nil {
			t.Fatal(err)
		}
		setLines(t, s, doc.Path, 0, 0, "// unsaved line")
		info, err := client.Info(ctx, "payment/card.go", true)
		if err != nil {
			t.Fatalf("a modified buffer whose file did not change: %v", err)
		}
		if !info.IsModified || !strings.HasPrefix(*info.Content, "// unsaved line\n") {
			t.Fatalf("modified=%v content=%.40q", info.IsModified, *info.Content)
		}
	})

	t.Run("unsaved changes and a disk change conflict", func(t *testing.T) {
		path := filepath.Join(root, "payment/card.go")
		insertAtTop(t, path, 1)
		for _, call := range []struct {
			name string
			run  func() error
		}{
			{"get_buffer_info", func() error { _, err := client.Info(ctx, "payment/card.go", false); return err }},
			{"read_file", func() error { _, err := client.ReadLines(ctx, "payment/card.go", 1, 3); return err }},
			{"find_definition", func() error {
				_, err := client.Definition(ctx, "payment/card.go", lsp.Target{Line: 5, Symbol: "Card"})
				return err
			}},
		} {
			err := call.run()
			if apierr.CodeOf(err) != apierr.Conflict {
				t.Fatalf("%s: %v, want CONFLICT", call.name, err)
			}
			if !strings.Contains(err.Error(), "card.go") {
				t.Errorf("%s: the conflict does not name the file: %v", call.name, err)
			}
		}
		// The buffer keeps the user's unsaved text.
		lines := bufferLines(t, s, path)
		if lines[0] != "// unsaved line" {
			t.Fatalf("first buffer line = %q, want the unsaved change", lines[0])
		}
		// Requests on other files still run.
		if got := definition(t, "main.go", 27, "Process"); got.File != "orders/orders.go" {
			t.Fatalf("definition from main.go during another file's conflict: %+v", got)
		}
		// Discarding the unsaved changes (:edit! in Neovim) ends the conflict.
		discard(t, s, path)
		info, err := client.Info(ctx, "payment/card.go", true)
		if err != nil {
			t.Fatalf("after discarding: %v", err)
		}
		if info.IsModified || !strings.HasPrefix(*info.Content, "// inserted on disk\n") {
			t.Fatalf("after discarding: modified=%v content=%.40q", info.IsModified, *info.Content)
		}
	})
}
