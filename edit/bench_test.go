package edit_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/nvbridge/nvbridge/edit"
	"github.com/nvbridge/nvbridge/preview"
	"github.com/nvbridge/nvbridge/refactor"
)

// Benchmarks (make bench, or go test ./edit -run '^$' -bench .):
//   - 1,000 scattered one-line edits in a 100,000-line buffer: preview,
//     apply, and the same edit as a WorkspaceEdit through the engine and
//     through Neovim's own vim.lsp.util.apply_workspace_edit;
//   - a changeset over 200 files, the same three ways.
// Each apply is undone between iterations, outside the timer.

const (
	bigLines    = 100_000
	bigEdits    = 1_000
	manyFiles   = 200
	manyLines   = 40
	manyPerFile = 3
)

func bigText() string {
	var b strings.Builder
	for i := range bigLines {
		fmt.Fprintf(&b, "line %d: the quick brown fox jumps over the lazy dog\n", i)
	}
	return b.String()
}

// bigEditsOf returns every 100th line replaced, as text edits and as the
// WorkspaceEdit a server would send.
func bigEditsOf(v *env) ([]preview.TextEdit, json.RawMessage) {
	var edits []preview.TextEdit
	var lspEdits []protocol.TextEdit
	for i := range bigEdits {
		line := i * (bigLines / bigEdits)
		old := fmt.Sprintf("line %d: the quick brown fox jumps over the lazy dog", line)
		text := fmt.Sprintf("line %d: edited", line)
		edits = append(edits, preview.TextEdit{StartLine: line, EndLine: line, EndCol: len(old), NewText: text})
		lspEdits = append(lspEdits, protocol.TextEdit{NewText: text, Range: protocol.Range{
			Start: protocol.Position{Line: uint32(line)}, End: protocol.Position{Line: uint32(line), Character: uint32(len(old))}}})
	}
	we, _ := json.Marshal(protocol.WorkspaceEdit{Changes: map[uri.URI][]protocol.TextEdit{uri.File(v.abs("big.txt")): lspEdits}})
	return edits, we
}

func manyFilesOf(v *env) (preview.Changeset, json.RawMessage) {
	var cs preview.Changeset
	changes := map[uri.URI][]protocol.TextEdit{}
	for f := range manyFiles {
		rel := fmt.Sprintf("many/f%03d.txt", f)
		var edits []preview.TextEdit
		for k := range manyPerFile {
			line := k * (manyLines / manyPerFile)
			old := fmt.Sprintf("file %d line %d", f, line)
			edits = append(edits, preview.TextEdit{StartLine: line, EndLine: line, EndCol: len(old), NewText: "renamed"})
			changes[uri.File(v.abs(rel))] = append(changes[uri.File(v.abs(rel))], protocol.TextEdit{NewText: "renamed", Range: protocol.Range{
				Start: protocol.Position{Line: uint32(line)}, End: protocol.Position{Line: uint32(line), Character: uint32(len(old))}}})
		}
		cs.Files = append(cs.Files, preview.FileChange{Kind: preview.OpEdit, Path: rel, Edits: edits})
	}
	we, _ := json.Marshal(protocol.WorkspaceEdit{Changes: changes})
	return cs, we
}

func benchEnv(b *testing.B) (*env, []string) { return benchEnvT(b) }

func benchEnvT(b testing.TB) (*env, []string) {
	files := map[string]string{"big.txt": bigText()}
	var many []string
	for f := range manyFiles {
		var s strings.Builder
		for l := range manyLines {
			fmt.Fprintf(&s, "file %d line %d\n", f, l)
		}
		rel := fmt.Sprintf("many/f%03d.txt", f)
		files[rel] = s.String()
		many = append(many, rel)
	}
	v := newEnv(b, files)
	// The benchmarks hold 201 buffers open, as a user with that many
	// files open would: none of them is released as a read-only buffer.
	v.lua(`vim.g.nvbridge_max_loaded = ...`, nil, len(files)+1)
	v.open("big.txt")
	for _, rel := range many {
		v.open(rel)
	}
	return v, many
}

// undoAll takes one undo step in each buffer (outside the timer) and checks
// the first buffer is back to its text.
func (v *env) undoAll(b *testing.B, rels []string, want string) {
	b.StopTimer()
	for _, rel := range rels {
		v.undo(rel)
	}
	if got := v.buffer(rels[0]).Text; got != want {
		b.Fatalf("%s not restored by undo", rels[0])
	}
	b.StartTimer()
}

const neovimApply = `local we, enc = ...
vim.lsp.util.apply_workspace_edit(vim.json.decode(we), enc)`

// benchWorkspaceEdit applies we, a server's WorkspaceEdit over rels, through
// the engine and through Neovim's own apply_workspace_edit, each apply undone
// (outside the timer) back to orig, the first buffer's text.
func (v *env) benchWorkspaceEdit(b *testing.B, we json.RawMessage, rels []string, orig string) {
	b.Run("apply-workspace-edit/nvbridge", func(b *testing.B) {
		for range b.N {
			cs, err := refactor.Changeset(v.ctx, v.client, preview.UTF16, we)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := v.e.Submit(v.ctx, cs, edit.Options{}); err != nil {
				b.Fatal(err)
			}
			v.undoAll(b, rels, orig)
		}
	})
	b.Run("apply-workspace-edit/neovim", func(b *testing.B) {
		for range b.N {
			v.lua(neovimApply, nil, string(we), "utf-16")
			v.undoAll(b, rels, orig)
		}
	})
}

func BenchmarkBigBuffer(b *testing.B) {
	v, _ := benchEnv(b)
	edits, we := bigEditsOf(v)
	orig := v.buffer("big.txt").Text
	cs := func() preview.Changeset {
		return preview.Changeset{Files: []preview.FileChange{{Kind: preview.OpEdit, Path: "big.txt", Edits: edits}}}
	}
	b.Run("diff-only", func(b *testing.B) { // pure: no Neovim
		doc := preview.ParseDocument(orig)
		for b.Loop() {
			if _, err := preview.UnifiedDiff(preview.Changeset{Files: []preview.FileChange{{Kind: preview.OpEdit, Path: "big.txt", Old: doc, Edits: edits}}}); err != nil {
				b.Fatal(err)
			}
		}
	})
	preview := func(b *testing.B, between func()) {
		for range b.N {
			b.StopTimer()
			between()
			b.StartTimer()
			res, err := v.e.Submit(v.ctx, cs(), edit.Options{Preview: true})
			if err != nil {
				b.Fatal(err)
			}
			_ = v.e.Discard(res.ChangesetID)
		}
	}
	b.Run("preview-first-read", func(b *testing.B) {
		// Reloaded from disk: no text of the buffer is known, it is read
		// out of Neovim whole.
		preview(b, func() {
			v.lua(`vim.api.nvim_buf_call(vim.fn.bufnr((...)), function() vim.cmd('edit!') end)`, nil, v.abs("big.txt"))
		})
	})
	b.Run("preview-after-user-edit", func(b *testing.B) {
		// The user changed a line (changedtick moved): only the lines
		// Neovim says changed are read and spliced into the cached text.
		preview(b, func() {
			v.userEdit("big.txt", 0, "x")
			v.undo("big.txt")
		})
	})
	b.Run("preview-unchanged-buffer", func(b *testing.B) { // its text is cached
		for b.Loop() {
			res, err := v.e.Submit(v.ctx, cs(), edit.Options{Preview: true})
			if err != nil {
				b.Fatal(err)
			}
			_ = v.e.Discard(res.ChangesetID)
		}
	})
	b.Run("apply", func(b *testing.B) {
		for range b.N {
			if _, err := v.e.Submit(v.ctx, cs(), edit.Options{}); err != nil {
				b.Fatal(err)
			}
			v.undoAll(b, []string{"big.txt"}, orig)
		}
	})
	b.Run("apply-stored", func(b *testing.B) { // apply_changeset: the Neovim call alone
		for range b.N {
			b.StopTimer()
			res, err := v.e.Submit(v.ctx, cs(), edit.Options{Preview: true})
			if err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			if _, err := v.e.ApplyStored(v.ctx, res.ChangesetID, false); err != nil {
				b.Fatal(err)
			}
			v.undoAll(b, []string{"big.txt"}, orig)
		}
	})
	v.benchWorkspaceEdit(b, we, []string{"big.txt"}, orig)
}

func BenchmarkManyFiles(b *testing.B) {
	v, many := benchEnv(b)
	cs, we := manyFilesOf(v)
	orig := v.buffer(many[0]).Text
	b.Run("preview", func(b *testing.B) {
		for b.Loop() {
			res, err := v.e.Submit(v.ctx, cs, edit.Options{Preview: true})
			if err != nil {
				b.Fatal(err)
			}
			_ = v.e.Discard(res.ChangesetID)
		}
	})
	b.Run("apply", func(b *testing.B) {
		for range b.N {
			if _, err := v.e.Submit(v.ctx, cs, edit.Options{}); err != nil {
				b.Fatal(err)
			}
			v.undoAll(b, many, orig)
		}
	})
	v.benchWorkspaceEdit(b, we, many, orig)
}

// BenchmarkReplace40k: replace_in_buffer with 40,000 matches (issue 8:
// quadratic work), previewed and applied through Neovim: regex "a" on one
// line of 1 MB holding 40,000 of them, and one plain match on each line of a
// 40,000-line file.
func BenchmarkReplace40k(b *testing.B) {
	const n = 40_000
	const unit = "a" + "bcdefghijklmnopqrstuvw" + "é" // 25 bytes
	var lines strings.Builder
	for i := range n {
		fmt.Fprintf(&lines, "\tvalue%d := compute(%d) // é\n", i, i)
	}
	v := newEnv(b, map[string]string{"line.txt": strings.Repeat(unit, n) + "\n", "lines.txt": lines.String()})
	for _, c := range []struct {
		name, file string
		r          edit.Replacement
	}{
		{"one-line-regex", "line.txt", edit.Replacement{Old: "a", New: "A", Regex: true}},
		{"one-per-line", "lines.txt", edit.Replacement{Old: "compute", New: "calc"}},
	} {
		v.open(c.file)
		orig := v.buffer(c.file).Text
		check := func(b *testing.B, res edit.ReplaceResult) {
			if res.MatchesFound != n {
				b.Fatalf("%d matches, want %d", res.MatchesFound, n)
			}
		}
		b.Run(c.name+"/preview", func(b *testing.B) {
			for b.Loop() {
				res, err := v.e.Replace(v.ctx, c.file, c.r, edit.Options{Preview: true})
				if err != nil {
					b.Fatal(err)
				}
				check(b, res)
				_ = v.e.Discard(res.ChangesetID)
			}
		})
		b.Run(c.name+"/apply", func(b *testing.B) {
			for range b.N {
				res, err := v.e.Replace(v.ctx, c.file, c.r, edit.Options{})
				if err != nil {
					b.Fatal(err)
				}
				check(b, res)
				v.undoAll(b, []string{c.file}, orig)
			}
		})
	}
}

// BenchmarkReplace200k: replace_in_buffer of a word with 200,000 matches in
// a 200,000-line file (11 MB), through Neovim: previewed then discarded,
// and previewed then applied (each apply undone outside the timer).
// diff-MB is the size of the whole diff the preview keeps; the answer
// carries its first 64 KiB.
func BenchmarkReplace200k(b *testing.B) {
	const n = 200_000
	v := newEnv(b, map[string]string{"huge.txt": numberedLines(n)})
	v.open("huge.txt")
	orig := v.buffer("huge.txt").Text
	r := edit.Replacement{Old: "compute", New: "calc"}
	preview := func(b *testing.B) edit.ReplaceResult {
		res, err := v.e.Replace(v.ctx, "huge.txt", r, edit.Options{Preview: true})
		if err != nil {
			b.Fatal(err)
		}
		if res.MatchesFound != n || res.DiffCut == nil {
			b.Fatalf("%d matches, cut %+v; want %d, cut", res.MatchesFound, res.DiffCut, n)
		}
		b.ReportMetric(float64(res.DiffCut.TotalBytes)/(1<<20), "diff-MB")
		return res
	}
	b.Run("preview-discard", func(b *testing.B) {
		for b.Loop() {
			if err := v.e.Discard(preview(b).ChangesetID); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("preview-apply", func(b *testing.B) {
		for b.Loop() {
			if _, err := v.e.ApplyStored(v.ctx, preview(b).ChangesetID, false); err != nil {
				b.Fatal(err)
			}
			v.undoAll(b, []string{"huge.txt"}, orig)
		}
	})
}
