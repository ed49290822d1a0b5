package refactor

// What a rename costs nvbridge's own memory on a large workspace: the
// standard library (GOROOT/src) renaming strings.Cut, as gopls would
// answer it (every strings.Cut selector and the declaration), through
// the steps that work on files: formatTouched and the left-behind scan.

import (
	"go/scanner"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/lang"
	"github.com/nvbridge/nvbridge/preview"
	"github.com/nvbridge/nvbridge/workspace"
)

// stdCutRename is the changeset renaming strings.Cut to CutRenamed in
// GOROOT/src: the declaration, and every strings.Cut selector.
func stdCutRename(tb testing.TB) (workspace.Root, preview.Changeset) {
	tb.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		tb.Fatalf("go env GOROOT: %v", err)
	}
	src := filepath.Join(strings.TrimSpace(string(out)), "src")
	root, err := workspace.New(src)
	if err != nil {
		tb.Fatal(err)
	}
	var cs preview.Changeset
	var files []string
	err = filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".go") && !strings.Contains(p, "/testdata/") {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	for _, p := range files {
		rel := filepath.ToSlash(p[len(src)+1:])
		data, err := os.ReadFile(p)
		if err != nil || !strings.Contains(string(data), "Cut") {
			continue
		}
		doc := preview.ParseDocument(string(data))
		m := doc.Mapper()
		var edits []preview.TextEdit
		fset := token.NewFileSet()
		file := fset.AddFile(rel, -1, len(data))
		var s scanner.Scanner
		s.Init(file, data, nil, 0)
		var prev [2]string
		for {
			pos, tok, lit := s.Scan()
			if tok == token.EOF {
				break
			}
			decl := rel == "strings/strings.go" && prev[1] == "func" && lit == "Cut"
			if tok == token.IDENT && lit == "Cut" && (decl || prev[0] == "strings" && prev[1] == ".") {
				off := file.Offset(pos)
				line, col := m.Position(off)
				edits = append(edits, preview.TextEdit{StartLine: line, StartCol: col, EndLine: line, EndCol: col + 3, NewText: "CutRenamed"})
			}
			prev[0], prev[1] = prev[1], lit
			if lit == "" {
				prev[1] = tok.String()
			}
		}
		if len(edits) > 0 {
			cs.Files = append(cs.Files, preview.FileChange{Kind: preview.OpEdit, Path: rel, Old: doc, Edits: edits})
		}
	}
	if len(cs.Files) < 50 {
		tb.Fatalf("renaming strings.Cut in %s edits %d files, want the standard library's uses (more than 50)", src, len(cs.Files))
	}
	return root, cs
}

// BenchmarkStdRenameFiles: formatTouched and the left-behind scan of a
// rename of strings.Cut over the standard library (-benchmem, -memprofile:
// what a rename allocates).
func BenchmarkStdRenameFiles(b *testing.B) {
	root, cs := stdCutRename(b)
	b.Logf("%d files edited", len(cs.Files))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		formatted, err := formatTouched(cs)
		if err != nil {
			b.Fatal(err)
		}
		findLeftBehindMember(root, lang.Go, "Cut", formatted, nil, false)
	}
}
