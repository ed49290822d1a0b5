package nvim_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/lsp"
)

// TestReconcileWatchedFiles: a loaded buffer that agreed with its file is
// passed over by the requests on other files without a stat while the
// kernel tells of no change (lua/nvbridge/watch.lua); every way a file can
// change on disk is told, and the next request elsewhere answers from the
// new text. Each step checks first that the buffer was passed over on the
// kernel's word (covered), so the step tests that word and not a stat.
func TestReconcileWatchedFiles(t *testing.T) {
	testenv.Require(t, "nvim", "gopls", "go")
	root := testenv.CopySample(t, "go")
	// A package three directories down, for a move of the directory above
	// its directory (deep/nest/inner/inner.go: Answer at line 4, asked for
	// at deep/use.go:6). No file of deep/ or nest/ is covered: only the
	// watches above inner.go's directory see nest/ move.
	for name, text := range map[string]string{
		"deep/nest/inner/inner.go": "package inner\n\n// Answer is asked for by nest.\nfunc Answer() int { return 42 }\n",
		"deep/use.go":              "package deep\n\nimport \"example.com/shop/deep/nest/inner\"\n\n// Asked calls inner.Answer.\nvar Asked = inner.Answer()\n",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, client := testenv.Embedded(t, root)
	ctx := testenv.Context(t)
	dir := filepath.Join(root, "orders")
	orders := filepath.Join(dir, "orders.go")
	// Process is defined at orders/orders.go:33 and called at main.go:27;
	// every step inserts lines above it.
	want := 33
	// definitionAt asks the definition of symbol at file:line, which must
	// be at wantFile:wantLine.
	definitionAt := func(t *testing.T, file string, line int, symbol, wantFile string, wantLine int) {
		t.Helper()
		res, err := client.Definition(ctx, file, lsp.Target{Line: line, Symbol: symbol})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Locations) != 1 || res.Locations[0].File != wantFile || res.Locations[0].Line != wantLine {
			t.Fatalf("definition of %s: %+v, want %s:%d", symbol, res.Locations, wantFile, wantLine)
		}
	}
	definition := func(t *testing.T) {
		t.Helper()
		definitionAt(t, "main.go", 27, "Process", "orders/orders.go", want)
	}
	covered := func(t *testing.T, path string) bool {
		t.Helper()
		var ok bool
		if err := s.ExecLua(ctx, "return require('nvbridge.watch').covered((...))", &ok, path); err != nil {
			t.Fatal(err)
		}
		return ok
	}
	// The text of orders.go with n comment lines at the top.
	withLines := func(t *testing.T, n int) []byte {
		t.Helper()
		old, err := os.ReadFile(orders)
		if err != nil {
			t.Fatal(err)
		}
		return append([]byte(strings.Repeat("// inserted on disk\n", n)), old...)
	}

	if _, err := client.Info(ctx, "orders/orders.go", false); err != nil {
		t.Fatal(err)
	}
	definition(t) // orders.go found in agreement with its file: covered
	steps := []struct {
		name   string
		lines  int
		change func(t *testing.T, lines int)
	}{
		{"written in place", 1, func(t *testing.T, n int) { insertAtTop(t, orders, n) }},
		{"the same size and times", 1, func(t *testing.T, n int) {
			// A comment line becomes two, the file keeps its size, and
			// its modification time is set back: only its change time
			// (which no stat was asked for) and the kernel's event tell.
			st, err := os.Stat(orders)
			if err != nil {
				t.Fatal(err)
			}
			old, err := os.ReadFile(orders)
			if err != nil {
				t.Fatal(err)
			}
			comment := "// ErrEmpty is returned for orders without lines."
			if !strings.Contains(string(old), comment) {
				t.Fatalf("orders.go has no line %q", comment)
			}
			text := strings.Replace(string(old), comment, "//\n"+comment[:len(comment)-3], 1)
			if err := os.WriteFile(orders, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(orders, st.ModTime(), st.ModTime()); err != nil {
				t.Fatal(err)
			}
		}},
		{"a new file renamed over it", 2, func(t *testing.T, n int) {
			tmp := orders + ".new"
			if err := os.WriteFile(tmp, withLines(t, n), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(tmp, orders); err != nil {
				t.Fatal(err)
			}
		}},
		{"written through a hard link in another directory", 1, func(t *testing.T, n int) {
			link := filepath.Join(t.TempDir(), "link.go")
			if err := os.Link(orders, link); err != nil {
				t.Fatal(err)
			}
			text := withLines(t, n)
			f, err := os.OpenFile(link, os.O_WRONLY|os.O_TRUNC, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.Write(text); err != nil {
				t.Fatal(err)
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
		}},
		{"its directory moved away and another put in its place", 3, func(t *testing.T, n int) {
			text := withLines(t, n)
			away := filepath.Join(t.TempDir(), "orders")
			if err := os.Rename(dir, away); err != nil {
				t.Fatal(err)
			}
			if err := os.CopyFS(dir, os.DirFS(away)); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(orders, text, 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"after the kernel's queue of events overflowed", 1, func(t *testing.T, n int) {
			// A file renamed back and forth in orders/ is two events a
			// rename (moved from, moved to), more than the queue holds
			// (/proc/sys/fs/inotify/max_queued_events, 16384 by default);
			// the change to orders.go comes after: its own event is lost.
			limit := 16384
			if b, err := os.ReadFile("/proc/sys/fs/inotify/max_queued_events"); err == nil {
				fmt.Sscan(string(b), &limit)
			}
			a, b := filepath.Join(dir, "fill-a.txt"), filepath.Join(dir, "fill-b.txt")
			if err := os.WriteFile(a, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			for range limit/4 + 100 {
				for _, p := range [][2]string{{a, b}, {b, a}} {
					if err := os.Rename(p[0], p[1]); err != nil {
						t.Fatal(err)
					}
				}
			}
			if err := os.Remove(a); err != nil {
				t.Fatal(err)
			}
			insertAtTop(t, orders, n)
		}},
	}
	for _, step := range steps {
		t.Run(step.name, func(t *testing.T) {
			// Passed over once more on the kernel's word, then changed.
			definition(t)
			if !covered(t, orders) {
				t.Fatal("orders.go is not covered by the kernel's watch after requests elsewhere: the reads stat it")
			}
			step.change(t, step.lines)
			want += step.lines
			definition(t)
			if !covered(t, orders) {
				t.Fatal("orders.go is not covered again once reloaded")
			}
		})
	}

	t.Run("beyond the watches allowed, a stat", func(t *testing.T) {
		// No watch allowed (M.max_watches), every cover forgotten (as at
		// teardown): nothing is covered again, and a change is still seen.
		if err := s.ExecLua(ctx, "local w = require('nvbridge.watch'); w.close(); w.max_watches = 0", nil); err != nil {
			t.Fatal(err)
		}
		defer func() {
			if err := s.ExecLua(ctx, "require('nvbridge.watch').max_watches = 1024", nil); err != nil {
				t.Fatal(err)
			}
		}()
		definition(t)
		definition(t)
		if covered(t, orders) {
			t.Fatal("orders.go is covered with no watch allowed")
		}
		insertAtTop(t, orders, 1)
		want++
		definition(t)
	})

	t.Run("the directory above its directory moved away and another put in its place", func(t *testing.T) {
		inner := filepath.Join(root, "deep", "nest", "inner", "inner.go")
		answer := func(t *testing.T, line int) {
			t.Helper()
			definitionAt(t, "deep/use.go", 6, "Answer", "deep/nest/inner/inner.go", line)
		}
		if _, err := client.Info(ctx, "deep/nest/inner/inner.go", false); err != nil {
			t.Fatal(err)
		}
		answer(t, 4)
		answer(t, 4)
		if !covered(t, inner) {
			t.Fatal("inner.go is not covered by the kernel's watch after requests elsewhere")
		}
		// nest/ goes; a copy with two more lines in inner.go takes its
		// place: inner/ itself did not move within nest/, and inner.go did
		// not change.
		away := filepath.Join(t.TempDir(), "nest")
		if err := os.Rename(filepath.Join(root, "deep", "nest"), away); err != nil {
			t.Fatal(err)
		}
		if err := os.CopyFS(filepath.Join(root, "deep", "nest"), os.DirFS(away)); err != nil {
			t.Fatal(err)
		}
		insertAtTop(t, inner, 2)
		answer(t, 6)
	})
}

// TestLoadAgreesAfterItsCall: a file a read loads is found in agreement
// with its file once that call is done (buffers.lua, agree_loaded), not by
// the next read's refresh before its request leaves: that read reconciles
// nothing and finds the file covered by the kernel's watch. A file written
// between its load and then is not taken as agreeing: the next read
// elsewhere reloads it.
func TestLoadAgreesAfterItsCall(t *testing.T) {
	testenv.Require(t, "nvim", "gopls", "go")
	root := testenv.CopySample(t, "go")
	s, client := testenv.Embedded(t, root)
	ctx := testenv.Context(t)
	reconciles := func() int { return testenv.Reconciles(t, s) }
	elsewhere := func() {
		t.Helper()
		res, err := client.Definition(ctx, "main.go", lsp.Target{Line: 27, Symbol: "Process"})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Locations) != 1 || res.Locations[0].File != "orders/orders.go" {
			t.Fatalf("definition of Process: %+v, want orders/orders.go", res.Locations)
		}
	}
	// main.go loaded, and found in agreement by the second read.
	elsewhere()
	elsewhere()

	orders := filepath.Join(root, "orders", "orders.go")
	before := reconciles()
	if _, err := client.Definition(ctx, "orders/orders.go", lsp.Target{Line: 33, Symbol: "Process"}); err != nil {
		t.Fatal(err)
	}
	elsewhere()
	if n := reconciles() - before; n != 0 {
		t.Errorf("the read after orders.go's load reconciled %d times, want 0 (found in agreement after its load)", n)
	}
	var covered bool
	if err := s.ExecLua(ctx, "return require('nvbridge.watch').covered((...))", &covered, orders); err != nil {
		t.Fatal(err)
	}
	if !covered {
		t.Error("orders.go is not covered by the kernel's watch after its load")
	}

	// payment.go loaded, then written before the call that loaded it is
	// done (in the same call): its agreement would hold the text before.
	payment := filepath.Join(root, "payment", "payment.go")
	const appended = "// appended between the load and the agreement"
	var state string
	if err := s.ExecLua(ctx, `local path, line = ...
local st = require('nvbridge.buffers').open(path, true)
local f = assert(io.open(path, 'a'))
f:write(line .. '\n')
f:close()
return st.state`, &state, payment, appended); err != nil {
		t.Fatal(err)
	}
	if state != "loaded" {
		t.Fatalf("payment.go: open's state %q, want loaded", state)
	}
	before = reconciles()
	elsewhere()
	if reconciles() == before {
		t.Error("the read after payment.go was written reconciled nothing")
	}
	var last string
	if err := s.ExecLua(ctx, `local path = ...
for _, b in ipairs(vim.api.nvim_list_bufs()) do
  if vim.api.nvim_buf_get_name(b) == path then
    return vim.api.nvim_buf_get_lines(b, -2, -1, false)[1]
  end
end
return ''`, &last, payment); err != nil {
		t.Fatal(err)
	}
	if last != appended {
		t.Errorf("payment.go's buffer ends with %q, want the line written after its load (%q)", last, appended)
	}
}
