package lsp_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/diagdelta"
	"github.com/nvbridge/nvbridge/edit"
	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/lsp"
	"github.com/nvbridge/nvbridge/refactor"
)

// userView is what the user of an attached Neovim sees of a buffer: its
// text, changedtick, undo tree, marks, cursor and diagnostics display.
const userView = `
local path = ...
local b = vim.fn.bufnr(path)
local out = {}
vim.api.nvim_buf_call(b, function()
  local ut = vim.fn.undotree()
  out.undo = vim.json.encode({ seq_cur = ut.seq_cur, seq_last = ut.seq_last, entries = #ut.entries })
  out.marks = vim.json.encode(vim.fn.getmarklist(b))
end)
out.text = table.concat(vim.api.nvim_buf_get_lines(b, 0, -1, false), '\n')
out.tick = vim.b[b].changedtick
out.modified = vim.bo[b].modified
out.cursor = vim.json.encode(vim.api.nvim_win_get_cursor(0))
local ds = {}
for _, d in ipairs(vim.diagnostic.get(b)) do
  table.insert(ds, string.format('%d:%d %s', d.lnum, d.col, d.message))
end
table.sort(ds)
out.diagnostics = table.concat(ds, '\n')
out.buffers = #vim.api.nvim_list_bufs()
return out
`

// The user's unsaved edit: a helper calling Process, typed into
// orders.go after its imports, and mark a on it.
const userEdit = `
local path = ...
vim.cmd.edit(vim.fn.fnameescape(path))
local b = vim.fn.bufnr(path)
vim.api.nvim_buf_set_lines(b, 8, 8, false, { 'func userHelper() { _, _ = Process(Order{}) }', '' })
vim.api.nvim_buf_set_mark(b, 'a', 9, 5, {})
vim.api.nvim_win_set_cursor(0, { 9, 8 })
`

const userGopls = `
vim.api.nvim_create_autocmd('FileType', {
  pattern = 'go',
  callback = function(ev)
    vim.lsp.start({ name = 'user-gopls', cmd = { 'gopls' }, root_dir = vim.fs.root(ev.buf, { 'go.mod' }),
      settings = { gopls = { verboseWorkDoneProgress = true } } })
  end,
})
`

// checkingVerifier runs a function (a user's edit) right after the check.
type checkingVerifier struct {
	edit.Verifier
	during func()
}

func (w checkingVerifier) Check(ctx context.Context, files []diagdelta.CheckFile) (*diagdelta.Delta, error) {
	d, err := w.Verifier.Check(ctx, files)
	w.during()
	return d, err
}

// TestVerifiedCheckAttached: check: true on a preview, in an attached
// Neovim whose user has unsaved edits in the file. The check sees the
// user's text (the error it introduces in the user's unsaved helper is
// reported) and the callers' errors, and afterwards the user's buffer,
// undo tree, marks, cursor, diagnostics and buffer list are exactly as
// before; nothing was applied. A user edit while the check runs fails it
// with CONFLICT.
func TestVerifiedCheckAttached(t *testing.T) {
	testenv.Require(t, "nvim", "gopls", "go")
	root := testenv.CopySample(t, "go")
	// The user's own gopls, configured to report its diagnosis runs (so
	// that the test knows when the user's display has settled).
	initLua := filepath.Join(t.TempDir(), "init.lua")
	if err := os.WriteFile(initLua, []byte(userGopls), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := testenv.Listening(t, root, "-c", "luafile "+initLua)
	s, c := testenv.Attached(t, addr, root)
	v := newVerifyEnv(t, s, c)
	orders := filepath.Join(s.Root().Dir(), "orders", "orders.go")
	if err := s.ExecLua(v.ctx, userEdit, nil, orders); err != nil {
		t.Fatal(err)
	}
	// The user's server has diagnosed the user's text.
	if _, err := c.DiagnosticsFor(v.ctx, lspQuery("orders/orders.go")); err != nil {
		t.Fatal(err)
	}
	view := func() map[string]any {
		t.Helper()
		var out map[string]any
		if err := s.ExecLua(v.ctx, userView, &out, orders); err != nil {
			t.Fatal(err)
		}
		return out
	}
	before := view()
	if before["modified"] != true || !strings.Contains(before["text"].(string), "userHelper") {
		t.Fatalf("the user's edit is not there: %+v", before)
	}

	r, err := v.e.EditLines(v.ctx, "orders/orders.go", []edit.LineEdit{{LineStart: 35, LineEnd: 35, NewText: "func Proces(o Order) (Total, error) {"}},
		edit.Options{Preview: true, Check: true})
	if err != nil {
		t.Fatal(err)
	}
	d := r.Diagnostics
	if d == nil || r.ChangesetID == "" || r.Applied {
		t.Fatalf("check result: %+v", r)
	}
	wantComplete(t, d)
	if d.Mode != "check" || !strings.HasPrefix(d.Verdict, "check (nothing applied): introduces ") {
		t.Fatalf("verdict %q", d.Verdict)
	}
	helper := hasItem(d.Introduced, "orders/orders.go", "Process")
	if helper == nil || helper.Line != 9 || !strings.Contains(helper.Text, "userHelper") {
		t.Fatalf("the check did not see the user's unsaved helper: introduced %+v\nresolved %+v\nfiles %v note %q", d.Introduced, d.Resolved, d.FilesChecked, d.Note)
	}
	if hasItem(d.Introduced, "main.go", "Process") == nil || hasItem(d.Introduced, "orders/batch.go", "Process") == nil {
		t.Fatalf("introduced %+v, want the callers' errors", d.Introduced)
	}
	after := view()
	for k, want := range before {
		if got := after[k]; !equalAny(got, want) {
			t.Errorf("the user's %s moved: %v, was %v", k, got, want)
		}
	}
	t.Logf("verdict: %s", d.Verdict)

	// A user edit while the check runs: CONFLICT, nothing stored.
	v.e.Verifier = checkingVerifier{Verifier: v.v, during: func() {
		if err := s.ExecLua(context.Background(), `vim.api.nvim_buf_set_lines(vim.fn.bufnr(...), 0, 0, false, { '// typed during the check' })`, nil, orders); err != nil {
			t.Error(err)
		}
	}}
	_, err = v.e.EditLines(v.ctx, "orders/orders.go", []edit.LineEdit{{LineStart: 35, LineEnd: 35, NewText: "func Proces(o Order) (Total, error) {"}},
		edit.Options{Preview: true, Check: true})
	if apierr.As(err).Code != apierr.Conflict {
		t.Fatalf("a user edit during the check: %v, want CONFLICT", err)
	}
}

func equalAny(a, b any) bool {
	return strings.TrimSpace(toString(a)) == strings.TrimSpace(toString(b))
}

func toString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	default:
		return strings.TrimSpace(strings.ReplaceAll(strings.ReplaceAll(fmtAny(x), "\n", " "), "  ", " "))
	}
}

func fmtAny(v any) string { return fmt.Sprint(v) }

func lspQuery(file string) lsp.DiagnosticsQuery { return lsp.DiagnosticsQuery{File: file} }

// TestVerifiedSilentServer: a user's gopls started by vim.lsp.start on
// its defaults (as nvbridge's own runs) reports no end of its diagnosis
// runs and publishes only diagnostics that changed (a dependant whose
// diagnostics stay the same gets no publish at all), and its default
// diagnosticsDelay holds its full diagnosis a second. The delta asks it
// instead (pull): complete and true at once. A comment changes nothing;
// renaming Process's declaration introduces errors in main.go (another
// package, open) and orders/batch.go (the same package, not open), and
// get_diagnostics on main.go right after names it (asked too, not
// answered from the publish for the old orders.go); restoring it
// resolves them.
func TestVerifiedSilentServer(t *testing.T) {
	verifiedUserServer(t, "{}", "pull: user-gopls")
}

// TestVerifiedReportingServer: the same with a user's gopls that reports
// its diagnosis runs (verboseWorkDoneProgress) and runs them at once
// (diagnosticsDelay 0): the delta waits for the end of its runs instead of
// asking.
func TestVerifiedReportingServer(t *testing.T) {
	verifiedUserServer(t, `{ gopls = { verboseWorkDoneProgress = true, diagnosticsDelay = '0s' } }`, "user-gopls: the end of its diagnosis runs ($/progress)")
}

func verifiedUserServer(t *testing.T, settings, waitedOn string) {
	testenv.Require(t, "nvim", "gopls", "go")
	root := testenv.CopySample(t, "go")
	addr := testenv.Listening(t, root, testenv.UserLSPConfigWith(t, "user-gopls", settings)...)
	s, c := testenv.Attached(t, addr, root)
	v := newVerifyEnv(t, s, c)
	v.open(t, "main.go", "orders/orders.go")
	_, d := v.editLine(t, "orders/orders.go", 9, "// Line is one item of an order (a comment changes no diagnostic).", edit.Options{})
	wantComplete(t, d)
	if len(d.Introduced)+len(d.Resolved) != 0 || !strings.HasPrefix(d.WaitedOn, waitedOn) {
		t.Fatalf("a comment: %+v", d)
	}
	mainErrors := func(when string) bool {
		t.Helper()
		rep, err := c.DiagnosticsFor(v.ctx, lspQuery("main.go"))
		if err != nil {
			t.Fatal(err)
		}
		if !*rep.DiagnosticsComplete {
			t.Fatalf("get_diagnostics main.go %s: %+v", when, rep)
		}
		for _, x := range rep.Diagnostics {
			if strings.Contains(x.Message, "Process") {
				return true
			}
		}
		return false
	}
	if mainErrors("before the change") {
		t.Fatal("main.go has an error before the change")
	}
	_, d = v.editLine(t, "orders/orders.go", 33, "func Proces(o Order) (Total, error) {", edit.Options{})
	wantComplete(t, d)
	if hasItem(d.Introduced, "main.go", "Process") == nil || hasItem(d.Introduced, "orders/batch.go", "Process") == nil {
		t.Fatalf("introduced %+v, want the callers' errors (files checked %v)", d.Introduced, d.FilesChecked)
	}
	if !mainErrors("after the change") {
		t.Fatal("get_diagnostics main.go right after the change: no error (answered from the old orders.go)")
	}
	_, d = v.editLine(t, "orders/orders.go", 33, "func Process(o Order) (Total, error) {", edit.Options{})
	wantComplete(t, d)
	if len(d.Introduced) != 0 || hasItem(d.Resolved, "main.go", "Process") == nil || hasItem(d.Resolved, "orders/batch.go", "Process") == nil {
		t.Fatalf("introduced %+v, resolved %+v", d.Introduced, d.Resolved)
	}
}

// TestRenameVerdictRepeated: a rename over 21 files and back, 10 times
// each way, with nvbridge's gopls (pulled) and with a user's gopls that
// reports its diagnosis runs at once (verboseWorkDoneProgress,
// diagnosticsDelay 0): every verdict complete and "no new errors" (a
// verdict never names an error the server has already withdrawn: one
// diagnosed from the files renamed so far, published before the last
// file's change reached it).
func TestRenameVerdictRepeated(t *testing.T) {
	testenv.Require(t, "nvim", "gopls", "go")
	for _, mode := range []string{"embedded", "attached"} {
		t.Run(mode, func(t *testing.T) {
			root := testenv.CopySample(t, "go")
			var v verifyEnv
			if mode == "embedded" {
				s, c := testenv.Embedded(t, root)
				v = newVerifyEnv(t, s, c)
			} else {
				addr := testenv.Listening(t, root, testenv.UserLSPConfigWith(t, "user-gopls", `{ gopls = { verboseWorkDoneProgress = true, diagnosticsDelay = '0s' } }`)...)
				s, c := testenv.Attached(t, addr, root)
				v = newVerifyEnv(t, s, c)
			}
			v.open(t, "widgets/widget.go", "main.go")
			names := []string{"NewWidget", "MakeWidget"}
			for i := range 20 {
				from, to := names[i%2], names[(i+1)%2]
				_, d := v.rename(t, refactor.RenameRequest{File: "widgets/widget.go", Target: lsp.Target{Line: 12, Symbol: from}, NewName: to})
				wantComplete(t, d)
				if len(d.Introduced) != 0 || !strings.HasPrefix(d.Verdict, "no new errors") {
					t.Fatalf("rename %d (%s to %s): verdict %q, introduced %+v", i+1, from, to, d.Verdict, d.Introduced)
				}
			}
		})
	}
}

// TestCheckManyFiles: a check over more files than nvbridge keeps loaded
// for reading (20): the copy's Neovim must not release the first files
// before the check writes their new text. Renaming NewWidget touches 22
// files of the sample; a pure rename introduces nothing.
func TestCheckManyFiles(t *testing.T) {
	testenv.Require(t, "nvim", "gopls", "go")
	s, c := testenv.Embedded(t, testenv.CopySample(t, "go"))
	v := newVerifyEnv(t, s, c)
	v.open(t, "widgets/widget.go")
	plan, err := refactor.Rename(v.ctx, c, refactor.RenameRequest{File: "widgets/widget.go", Target: lsp.Target{Line: 12, Symbol: "NewWidget"}, NewName: "MakeWidget"})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Files) <= 20 {
		t.Fatalf("the rename touches %d files; the test needs more than 20", len(plan.Files))
	}
	r, err := v.e.Submit(v.ctx, plan.Changeset, edit.Options{Preview: true, Check: true})
	if err != nil {
		t.Fatal(err)
	}
	d := r.Diagnostics
	if d == nil || !d.Complete || len(d.FilesChecked) != len(plan.Files) || len(d.Introduced) != 0 {
		t.Fatalf("check over %d files: %+v", len(plan.Files), d)
	}
	if r.Applied {
		t.Fatal("a check with preview applied the rename")
	}
}

// checkedSample is the Go sample in an embedded session with main.go and
// orders/orders.go open, and its verifier.
func checkedSample(t *testing.T) (string, verifyEnv) {
	t.Helper()
	testenv.Require(t, "nvim", "gopls", "go")
	root := testenv.CopySample(t, "go")
	s, c := testenv.Embedded(t, root)
	v := newVerifyEnv(t, s, c)
	v.open(t, "main.go", "orders/orders.go")
	return root, v
}

// wantCallersBroken fails unless d is complete and names the errors of
// Process's callers in main.go and orders/batch.go (Process renamed).
func wantCallersBroken(t *testing.T, what string, d *diagdelta.Delta) {
	t.Helper()
	wantComplete(t, d)
	if hasItem(d.Introduced, "main.go", "Process") == nil || hasItem(d.Introduced, "orders/batch.go", "Process") == nil {
		t.Fatalf("%s: introduced %+v, want the callers' errors (files checked %v)", what, d.Introduced, d.FilesChecked)
	}
}

// TestCheckAfterApplies: checks and applies in turn on nvbridge's gopls,
// as an agent alternates them (the check's copy follows each apply). A
// check of renaming Process names the callers it breaks in another package
// (main.go) and in its own (orders/batch.go, not open) and applies
// nothing; the apply of it names them too; the check of restoring it,
// starting from the applied text, resolves them; a comment changes nothing.
// Every other round applies the checked preview of the restore as stored
// (its texts after the change are kept for the copy to follow while it
// runs: Following).
func TestCheckAfterApplies(t *testing.T) {
	root, v := checkedSample(t)
	const renamed, restored = "func Proces(o Order) (Total, error) {", "func Process(o Order) (Total, error) {"
	if v.v.Following() {
		t.Fatal("Following before any check")
	}
	for round := range 3 {
		_, d := v.editLine(t, "orders/orders.go", 33, renamed, edit.Options{Preview: true, Check: true})
		wantCallersBroken(t, fmt.Sprintf("round %d: check of the rename", round), d)
		if !v.v.Following() {
			t.Fatalf("round %d: not Following after a check", round)
		}
		if b, err := os.ReadFile(filepath.Join(root, "orders/orders.go")); err != nil || !strings.Contains(string(b), restored) {
			t.Fatalf("the check changed the file: %v", err)
		}
		_, d = v.editLine(t, "orders/orders.go", 33, renamed, edit.Options{})
		wantCallersBroken(t, fmt.Sprintf("round %d: apply of the rename", round), d)
		r, d := v.editLine(t, "orders/orders.go", 33, restored, edit.Options{Preview: true, Check: true})
		wantComplete(t, d)
		if len(d.Introduced) != 0 || hasItem(d.Resolved, "main.go", "Process") == nil || hasItem(d.Resolved, "orders/batch.go", "Process") == nil {
			t.Fatalf("round %d: check of the restore: introduced %+v, resolved %+v", round, d.Introduced, d.Resolved)
		}
		if round%2 == 1 {
			applied, err := v.e.ApplyStored(v.ctx, r.ChangesetID, false)
			if err != nil || applied.Diagnostics == nil {
				t.Fatalf("round %d: apply of the checked restore: %v (%+v)", round, err, applied)
			}
			d = applied.Diagnostics
		} else {
			_, d = v.editLine(t, "orders/orders.go", 33, restored, edit.Options{})
		}
		wantComplete(t, d)
		if len(d.Introduced) != 0 || hasItem(d.Resolved, "main.go", "Process") == nil {
			t.Fatalf("round %d: apply of the restore: introduced %+v, resolved %+v", round, d.Introduced, d.Resolved)
		}
		_, d = v.editLine(t, "orders/orders.go", 9, fmt.Sprintf("// Line is one item of an order (round %d).", round), edit.Options{Preview: true, Check: true})
		wantComplete(t, d)
		if len(d.Introduced)+len(d.Resolved) != 0 {
			t.Fatalf("round %d: check of a comment: %+v", round, d)
		}
	}
}

// TestCheckCopyKeepsUnsavedTexts: the check's copy is left holding the
// text it was shown of a file the user holds unsaved changes in (the next
// check need not show it again and wait for its diagnosis before the
// change), and a file the user no longer holds changed gets the disk's
// text back before the next check: a helper defined only in the user's
// unsaved edit of orders/batch.go satisfies a checked use of it while the
// edit is there, and no longer once the user discarded it.
func TestCheckCopyKeepsUnsavedTexts(t *testing.T) {
	root, v := checkedSample(t)
	v.open(t, "orders/batch.go")
	s := v.s
	orders, batch := filepath.Join(root, "orders", "orders.go"), filepath.Join(root, "orders", "batch.go")
	const bufferText = `return table.concat(vim.api.nvim_buf_get_lines(vim.fn.bufnr((...)), 0, -1, false), '\n')`
	userText := func(path string) string {
		t.Helper()
		var text string
		if err := s.ExecLua(v.ctx, bufferText, &text, path); err != nil {
			t.Fatal(err)
		}
		return text
	}
	// The user's unsaved changes: a helper typed at the end of batch.go,
	// and an applied, unsaved comment in orders.go.
	if err := s.ExecLua(v.ctx, `vim.api.nvim_buf_set_lines(vim.fn.bufnr((...)), -1, -1, false, { '', 'func userHelper() int { return 1 }' })`, nil, batch); err != nil {
		t.Fatal(err)
	}
	v.editLine(t, "orders/orders.go", 9, "// Line is one item of an order (unsaved).", edit.Options{})
	const uses = "var usesHelper = userHelper()"
	_, d := v.editLine(t, "orders/orders.go", 9, uses, edit.Options{Preview: true, Check: true})
	wantComplete(t, d)
	if len(d.Introduced) != 0 {
		t.Fatalf("check with the user's helper: introduced %+v", d.Introduced)
	}
	for _, p := range []string{orders, batch} {
		text, modified, loaded, err := v.v.CopyBuffer(v.ctx, p)
		if err != nil || !loaded || !modified || text != userText(p) {
			t.Fatalf("the copy's %s after the check (loaded %v, modified %v, %v): %q, want the user's unsaved text", p, loaded, modified, err, text)
		}
	}
	// The user discards the helper: batch.go closed without saving.
	if err := s.ExecLua(v.ctx, `vim.cmd.bwipeout({ vim.fn.bufnr((...)), bang = true })`, nil, batch); err != nil {
		t.Fatal(err)
	}
	_, d = v.editLine(t, "orders/orders.go", 9, uses, edit.Options{Preview: true, Check: true})
	wantComplete(t, d)
	if hasItem(d.Introduced, "orders/orders.go", "userHelper") == nil {
		t.Fatalf("check after the helper was discarded: introduced %+v, want userHelper undefined", d.Introduced)
	}
	disk, err := os.ReadFile(batch)
	if err != nil {
		t.Fatal(err)
	}
	if text, modified, loaded, err := v.v.CopyBuffer(v.ctx, batch); err != nil || loaded && (modified || text+"\n" != string(disk)) {
		t.Fatalf("the copy's batch.go after the user discarded their change (loaded %v, modified %v, %v): %q", loaded, modified, err, text)
	}
}

// TestCheckKeepsItsBaseline: checks in a row in the same state (an agent
// trying variants before applying one) ask the copy's gopls for the
// diagnostics before the change once: the copy is set back to the texts
// its baseline described, and the next check takes that baseline. Each
// delta stays true: the rename breaks the callers every time, the comment
// changes nothing. A change on disk in the package (the fingerprint
// moves) has the next check ask again.
func TestCheckKeepsItsBaseline(t *testing.T) {
	root, v := checkedSample(t)
	const renamed = "func Proces(o Order) (Total, error) {"
	check := func(what string, line int, text string) (*diagdelta.Delta, int) {
		t.Helper()
		before := v.v.CopyPulls()
		_, d := v.editLine(t, "orders/orders.go", line, text, edit.Options{Preview: true, Check: true})
		wantComplete(t, d)
		return d, v.v.CopyPulls() - before
	}
	d, _ := check("first check", 33, renamed)
	wantCallersBroken(t, "first check", d)
	for i := range 2 {
		d, pulls := check("again", 33, renamed)
		wantCallersBroken(t, fmt.Sprintf("check %d in the same state", i+2), d)
		if pulls != 1 {
			t.Fatalf("check %d in the same state pulled %d times, want 1 (the change only)", i+2, pulls)
		}
		d, pulls = check("a comment", 9, fmt.Sprintf("// Line is one item of an order (%d).", i))
		if len(d.Introduced)+len(d.Resolved) != 0 || pulls != 1 {
			t.Fatalf("check of a comment: pulled %d, delta %+v", pulls, d)
		}
	}
	// A file of the package changed on disk (the fingerprint moves): the
	// next check asks for the diagnostics before the change again. (What
	// the copy's gopls then answers about batch.go depends on when it
	// learns of the file's change: not asserted here.)
	batch := filepath.Join(root, "orders", "batch.go")
	text, err := os.ReadFile(batch)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(batch, append(text, "\n// Changed on disk.\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, pulls := check("after the disk changed", 33, renamed); pulls != 2 {
		t.Fatalf("check after batch.go changed on disk: pulled %d times, want 2 (before and after the change)", pulls)
	}
}
