package edit_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"unsafe"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/edit"
	"github.com/nvbridge/nvbridge/preview"
)

// noLeftovers fails when a commit left a temporary file or a backup in the
// workspace, or a journal.
func (v *env) noLeftovers() {
	v.t.Helper()
	_ = filepath.WalkDir(v.root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".nvbridge-") {
			v.t.Errorf("left behind: %s", p)
		}
		return nil
	})
	if entries, err := os.ReadDir(v.s.Root().JournalDir()); err == nil && len(entries) > 0 {
		v.t.Errorf("the journal folder holds %d entries", len(entries))
	}
}

// TestSaveIsNeovimsOwnWrite: nvbridge writes the bytes itself (through the
// root handle), yet to Neovim and the user it is a :write: the user's
// BufWritePre and BufWritePost run once, in the buffer; the buffer is
// unmodified; undo marks it modified again and redo clean (Neovim knows
// the saved state); and Neovim knows the file's new time: it sees nothing
// changed on disk, until something else changes it.
func TestSaveIsNeovimsOwnWrite(t *testing.T) {
	v := newEnv(t, map[string]string{"a.txt": "one\ntwo\n", "other.txt": "other\n"})
	undoDir := t.TempDir()
	b := v.open("a.txt")
	v.lua(`local b = ...
vim.o.autoread = true
vim.cmd.buffer(b) -- shown in the current window: :checktime looks at it
vim.cmd.edit(vim.fn.fnameescape(vim.fn.fnamemodify(vim.api.nvim_buf_get_name(b), ':h') .. '/other.txt'))
vim.cmd.split()
vim.cmd.buffer(b)
vim.cmd.wincmd('p') -- the user is in other.txt
vim.g.t_pre, vim.g.t_post, vim.g.t_local = {}, {}, 0
vim.api.nvim_create_autocmd('BufWritePre', { pattern = '*.txt', callback = function(ev)
  vim.g.t_pre = vim.list_extend(vim.g.t_pre, { ev.buf == vim.api.nvim_get_current_buf() and ev.buf or -1 })
end })
vim.api.nvim_create_autocmd('BufWritePost', { pattern = '*.txt', callback = function(ev)
  vim.g.t_post = vim.list_extend(vim.g.t_post, { ev.buf == vim.api.nvim_get_current_buf() and ev.buf or -1 })
end })
vim.api.nvim_create_autocmd('BufWritePost', { buffer = b, callback = function() vim.g.t_local = vim.g.t_local + 1 end })
vim.o.undodir = select(2, ...)
vim.bo[b].undofile = true`, nil, b, undoDir)

	if _, err := v.e.Submit(v.ctx, preview.Changeset{Files: []preview.FileChange{fileChange("a.txt", te(1, 0, 1, 3, "TWO"))}}, edit.Options{Save: true}); err != nil {
		t.Fatal(err)
	}
	if got := v.disk("a.txt"); got != "one\nTWO\n" {
		t.Fatalf("disk = %q", got)
	}
	var st struct {
		Pre      []int `msgpack:"pre"`
		Post     []int `msgpack:"post"`
		Local    int   `msgpack:"local"`
		Modified bool  `msgpack:"modified"`
		Tick     int   `msgpack:"tick"`
		Cur      int   `msgpack:"cur"`
	}
	state := `local b = ...
return { pre = vim.g.t_pre, post = vim.g.t_post, ['local'] = vim.g.t_local, modified = vim.bo[b].modified,
  tick = vim.b[b].changedtick, cur = vim.api.nvim_get_current_buf() }`
	v.lua(state, &st, b)
	if len(st.Pre) != 1 || st.Pre[0] != b || len(st.Post) != 1 || st.Post[0] != b || st.Local != 1 {
		t.Errorf("write autocmds: pre %v post %v buffer-local %d; want each once, in buffer %d", st.Pre, st.Post, st.Local, b)
	}
	if st.Modified {
		t.Error("the buffer is still modified after the save")
	}
	if st.Cur == b {
		t.Error("the save took the user to the saved buffer")
	}
	// 'undofile': the undo file is written, as :write does.
	if entries, _ := os.ReadDir(undoDir); len(entries) != 1 {
		t.Errorf("undo files after the save: %d, want 1", len(entries))
	}
	tick := st.Tick

	// Neovim knows the time of what was written: :checktime finds nothing.
	v.lua(`vim.cmd('checktime')`, nil)
	v.lua(state, &st, b)
	if st.Tick != tick {
		t.Errorf("checktime reloaded the buffer after nvbridge's own save (tick %d -> %d)", tick, st.Tick)
	}

	// Undo knows the saved state: undo modifies, redo is clean again.
	var mods []bool
	v.lua(`local b = ...
local out = {}
vim.api.nvim_buf_call(b, function() vim.cmd('silent undo') end)
table.insert(out, vim.bo[b].modified)
vim.api.nvim_buf_call(b, function() vim.cmd('silent redo') end)
table.insert(out, vim.bo[b].modified)
return out`, &mods, b)
	if len(mods) != 2 || !mods[0] || mods[1] {
		t.Errorf("modified after undo, redo = %v; want [true false]", mods)
	}

	// Something else changes the file: Neovim notices (autoread reloads).
	v.lua(state, &st, b)
	tick = st.Tick
	v.write("a.txt", "changed outside\n")
	v.lua(`vim.cmd('checktime')`, nil)
	if got := v.buffer("a.txt"); got.Text != "changed outside\n" {
		t.Errorf("after an outside change, checktime left the buffer as %q", got.Text)
	}
	v.lua(state, &st, b)
	if st.Tick == tick {
		t.Errorf("checktime reloaded the changed file without a new changedtick (%d)", tick)
	}
	v.noLeftovers()
}

// TestSaveAllOrNothing: a file the system refuses to replace (immutable)
// refuses the whole changeset: every file keeps its old content on disk,
// every buffer its old text, and nothing is left behind.
func TestSaveAllOrNothing(t *testing.T) {
	v := newEnv(t, map[string]string{"a.txt": "a\n", "locked.txt": "locked\n", "z.txt": "z\n"})
	v.open("a.txt")
	if err := setImmutable(v.abs("locked.txt"), true); err != nil {
		t.Skipf("cannot make a file immutable here (needs root and a file system with attributes): %v", err)
	}
	defer setImmutable(v.abs("locked.txt"), false)
	_, err := v.e.Submit(v.ctx, preview.Changeset{Files: []preview.FileChange{
		fileChange("a.txt", te(0, 0, 0, 1, "A")),
		fileChange("locked.txt", te(0, 0, 0, 6, "LOCKED")),
		fileChange("z.txt", te(0, 0, 0, 1, "Z")),
	}}, edit.Options{Save: true})
	e := wantCode(t, err, apierr.OperationFailed)
	if !strings.Contains(e.Message, "nothing was changed") {
		t.Errorf("message %q does not say nothing changed", e.Message)
	}
	for rel, want := range map[string]string{"a.txt": "a\n", "locked.txt": "locked\n", "z.txt": "z\n"} {
		if got := v.disk(rel); got != want {
			t.Errorf("disk %s = %q, want %q", rel, got, want)
		}
		if buf := v.buffer(rel); buf.Loaded && (buf.Text != want || buf.Modified) {
			t.Errorf("buffer %s = %q (modified %v), want %q unmodified", rel, buf.Text, buf.Modified, want)
		}
	}
	v.noLeftovers()
}

// setImmutable sets or clears a file's immutable attribute (chattr +i).
func setImmutable(path string, on bool) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	const (
		getFlags      = 0x80086601 // FS_IOC_GETFLAGS
		setFlags      = 0x40086602 // FS_IOC_SETFLAGS
		immutableFlag = 0x10       // FS_IMMUTABLE_FL
	)
	var flags int
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), getFlags, uintptr(unsafe.Pointer(&flags))); e != 0 {
		return e
	}
	if on {
		flags |= immutableFlag
	} else {
		flags &^= immutableFlag
	}
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), setFlags, uintptr(unsafe.Pointer(&flags))); e != 0 {
		return e
	}
	return nil
}

// TestOneShotEditsDoNotConflict: agents editing different lines of one file
// at the same moment with one-shot edits (preview false) all land: none
// lost, none duplicated, none refused ("changed since" only when the text
// an edit touches really moved).
func TestOneShotEditsDoNotConflict(t *testing.T) {
	const agents, each = 8, 40
	var base strings.Builder
	for i := 0; i < agents; i++ {
		fmt.Fprintf(&base, "base %d\n", i)
	}
	v := newEnv(t, map[string]string{"shared.txt": base.String()})
	v.open("shared.txt")
	var wg sync.WaitGroup
	errs := make(chan error, agents*each)
	for a := 0; a < agents; a++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; k < each; k++ {
				// Agent a inserts before the line of its own base line's
				// number at start: lines numbered as the file is now.
				_, err := v.e.EditLines(v.ctx, "shared.txt", []edit.LineEdit{{LineStart: a + 1, LineEnd: a, NewText: fmt.Sprintf("agent %d edit %d", a, k)}}, edit.Options{})
				if err != nil {
					errs <- fmt.Errorf("agent %d edit %d: %v", a, k, err)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	text := v.buffer("shared.txt").Text
	seen := map[string]int{}
	for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		seen[line]++
	}
	for a := 0; a < agents; a++ {
		if seen[fmt.Sprintf("base %d", a)] != 1 {
			t.Errorf("base %d appears %d times", a, seen[fmt.Sprintf("base %d", a)])
		}
		for k := 0; k < each; k++ {
			if n := seen[fmt.Sprintf("agent %d edit %d", a, k)]; n != 1 {
				t.Errorf("agent %d edit %d appears %d times", a, k, n)
			}
		}
	}
	if len(seen) != agents*(each+1) {
		t.Errorf("%d distinct lines, want %d", len(seen), agents*(each+1))
	}
}

// TestSaveRefusesAFileChangedOnDisk: a buffer holding nvbridge's unsaved
// change whose file something else rewrote (the same size, its mtime put
// back, as cp -p or rsync do) is not saved over: applying with save is
// refused and nothing is written, the disk keeps the other program's
// bytes. Its content is compared once, right before the write (apply.lua,
// write.disk_changed).
func TestSaveRefusesAFileChangedOnDisk(t *testing.T) {
	v := newEnv(t, map[string]string{"a.txt": "one\ntwo\n"})
	v.open("a.txt")
	if _, err := v.e.EditLines(v.ctx, "a.txt", []edit.LineEdit{{LineStart: 1, LineEnd: 1, NewText: "ONE"}}, edit.Options{}); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(v.abs("a.txt"))
	if err != nil {
		t.Fatal(err)
	}
	v.write("a.txt", "uno\ntwo\n")
	if err := os.Chtimes(v.abs("a.txt"), fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	_, err = v.e.EditLines(v.ctx, "a.txt", []edit.LineEdit{{LineStart: 2, LineEnd: 2, NewText: "TWO"}}, edit.Options{Save: true})
	wantCode(t, err, apierr.Conflict)
	if got := v.disk("a.txt"); got != "uno\ntwo\n" {
		t.Errorf("the disk holds %q: the save wrote over the other program's change", got)
	}
	if buf := v.buffer("a.txt"); buf.Text != "ONE\ntwo\n" || !buf.Modified {
		t.Errorf("the buffer holds %q (modified %v), want nvbridge's first change, unsaved", buf.Text, buf.Modified)
	}
}

// TestSaveRecordsWhatItWrote: after a save, the buffer's record of the disk
// (the stat key and content fingerprint that decide "changed on disk") is
// that of the file as it is, whether the bytes were read from the buffer
// by the commit (a large buffer) or taken in Lua, and with the write
// autocmds run (a BufWritePost handler records the disk again, from the
// fingerprint the save already has); a later change on disk is still seen.
func TestSaveRecordsWhatItWrote(t *testing.T) {
	var big strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&big, "line %d é\n", i)
	}
	v := newEnv(t, map[string]string{"big.txt": big.String(), "small.txt": "one\ntwo\n"})
	const record = `local path = ...
local B = require('nvbridge.buffers')
local b = vim.fn.bufnr(path)
return { vim.b[b].nvbridge_disk_hash or '', B.fingerprint(B.read_file(path)), vim.b[b].nvbridge_disk or '',
  B.stat_key(vim.uv.fs_stat(path)), vim.bo[b].modified }`
	for _, rel := range []string{"big.txt", "small.txt"} {
		v.open(rel)
		for _, noautocmd := range []bool{false, true} {
			if _, err := v.e.EditLines(v.ctx, rel, []edit.LineEdit{{LineStart: 2, LineEnd: 2, NewText: fmt.Sprint("saved ", noautocmd)}},
				edit.Options{Save: true, NoAutocmd: noautocmd}); err != nil {
				t.Fatal(err)
			}
			var got []any
			v.lua(record, &got, v.abs(rel))
			if got[0] != got[1] || got[2] != got[3] || got[4] != false {
				t.Fatalf("%s (noautocmd %v): recorded %v at %v, the file is %v at %v (modified %v)", rel, noautocmd, got[0], got[2], got[1], got[3], got[4])
			}
			if v.disk(rel) != v.buffer(rel).Text {
				t.Fatalf("%s: the disk is not the buffer's text", rel)
			}
		}
		// The saved buffer is clean: a change on disk is taken in (the
		// buffer reloaded), and the next change applies to it.
		v.write(rel, "changed by someone else\n")
		if _, err := v.e.EditLines(v.ctx, rel, []edit.LineEdit{{LineStart: 1, LineEnd: 1, NewText: "x"}}, edit.Options{Save: true}); err != nil {
			t.Fatal(err)
		}
		if got, b := v.disk(rel), v.buffer(rel); got != "x\n" || b.Text != "x\n" {
			t.Fatalf("%s: the change on disk was not seen: the disk holds %q, the buffer %q", rel, got, b.Text)
		}
	}
}

// Deleting every line of a file empties it: the apply succeeds (the
// plan's empty op list once reached Lua as vim.NIL, and it failed), the
// buffer and the disk are the empty text the preview showed (not "\n":
// a cleared buffer keeps one empty line, so 'eol' goes off), the next
// line written makes "x\n", and undo brings back each text in turn
// ('eol' with it).
func TestDeleteEveryLine(t *testing.T) {
	v := newEnv(t, map[string]string{"a.txt": "one\ntwo\n"})
	v.open("a.txt")
	res, err := v.e.EditLines(v.ctx, "a.txt", []edit.LineEdit{{LineStart: 1, LineEnd: 2, NewText: ""}}, edit.Options{Save: true})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Diff, "-one\n-two\n") || v.buffer("a.txt").Text != "" || v.disk("a.txt") != "" {
		t.Fatalf("after deleting every line: buffer %q, disk %q, diff\n%s", v.buffer("a.txt").Text, v.disk("a.txt"), res.Diff)
	}
	if _, err := v.e.EditLines(v.ctx, "a.txt", []edit.LineEdit{{LineStart: 1, LineEnd: 0, NewText: "x"}}, edit.Options{Save: true}); err != nil {
		t.Fatal(err)
	}
	if b, d := v.buffer("a.txt").Text, v.disk("a.txt"); b != "x\n" || d != "x\n" {
		t.Fatalf("a line written into the emptied file: buffer %q, disk %q, want \"x\\n\"", b, d)
	}
	for _, want := range []string{"", "one\ntwo\n"} {
		if _, err := v.e.Undo(v.ctx, "a.txt"); err != nil {
			t.Fatal(err)
		}
		if got := v.buffer("a.txt").Text; got != want {
			t.Fatalf("undone: buffer %q, want %q", got, want)
		}
	}
}
