package preview

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// This file checks rendered diffs with the real tools: git apply must
// accept them and produce what Apply produces, and diff -u must agree on
// the hunks where the change is unambiguous.

// tool returns the path of a command or skips the test.
func tool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("%s not installed", name)
	}
	return p
}

// run runs a command in dir with a git configuration isolated from the
// machine's (no autocrlf or similar surprises) and returns its stdout.
func run(t *testing.T, dir string, okCodes []int, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir, "LC_ALL=C")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	for _, ok := range append(okCodes, 0) {
		if code == ok {
			return stdout.String()
		}
	}
	t.Fatalf("%s %v: exit %d\nstderr: %s", name, args, code, stderr.String())
	return ""
}

// gitApplyCheck writes the changeset's old files into a new repository,
// runs git apply --check and git apply on diff, and compares every touched
// file with what Apply gives.
func gitApplyCheck(t *testing.T, cs Changeset, diff string) {
	t.Helper()
	git := tool(t, "git")
	root := t.TempDir()
	repo := filepath.Join(root, "repo")
	if err := os.Mkdir(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	run(t, repo, nil, git, "init", "-q")
	for _, fc := range cs.Files {
		if fc.Kind != OpCreate {
			writeFile(t, filepath.Join(repo, filepath.FromSlash(fc.Path)), fc.Old.Bytes())
		}
	}
	if diff == "" {
		return // git apply rejects an empty patch; nothing to apply anyway
	}
	patch := filepath.Join(root, "changes.diff")
	writeFile(t, patch, []byte(diff))
	run(t, repo, nil, git, "apply", "--check", "--whitespace=nowarn", patch)
	run(t, repo, nil, git, "apply", "--whitespace=nowarn", patch)

	for _, fc := range cs.Files {
		path := filepath.Join(repo, filepath.FromSlash(fc.Path))
		if fc.Kind == OpDelete || fc.Kind == OpRename {
			if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s: still exists after git apply (err %v)", fc.Path, err)
			}
			if fc.Kind == OpDelete {
				continue
			}
			path = filepath.Join(repo, filepath.FromSlash(fc.NewPath))
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%s: %v", fc.Path, err)
			continue
		}
		if want := mustApply(t, fc.Old, fc.Edits).Bytes(); !bytes.Equal(got, want) {
			t.Errorf("%s: git apply gave\n%q\nApply gives\n%q\ndiff:\n%s", fc.Path, got, want, diff)
		}
	}
}

func writeFile(t *testing.T, path string, content []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, content, 0o644); err != nil {
		t.Fatal(err)
	}
}

// hunksOnly drops everything before the first @@ line.
func hunksOnly(diff string) string {
	if i := strings.Index(diff, "\n@@ "); i >= 0 {
		return diff[i+1:]
	}
	return diff
}

// TestDiffUAgrees: for changes with only one sensible diff, UnifiedDiff's
// hunks equal GNU diff -u's.
func TestDiffUAgrees(t *testing.T) {
	diffCmd := tool(t, "diff")
	twenty := numbered(20)
	cases := []struct {
		name  string
		old   Document
		edits []TextEdit
	}{
		{"change middle line", twenty, []TextEdit{{9, 0, 9, 4, "LINE"}}},
		{"insert at start", twenty, []TextEdit{{0, 0, 0, 0, "first\n"}}},
		{"append at end", twenty, []TextEdit{{20, 0, 20, 0, "last\n"}}},
		{"delete last line", twenty, []TextEdit{{19, 0, 20, 0, ""}}},
		{"gap of 6 shares a hunk", twenty, []TextEdit{{4, 0, 4, 4, "L"}, {11, 0, 11, 4, "L"}}},
		{"gap of 7 splits hunks", twenty, []TextEdit{{4, 0, 4, 4, "L"}, {12, 0, 12, 4, "L"}}},
		{"change unterminated last line", doc("a\nb\nc"), []TextEdit{{2, 0, 2, 1, "C"}}},
		{"add final newline", doc("a\nb\nc"), []TextEdit{{2, 1, 2, 1, "\n"}}},
		{"remove final newline", doc("a\nb\nc\n"), []TextEdit{{2, 1, 3, 0, ""}}},
		{"delete everything", doc("a\nb\n"), []TextEdit{{0, 0, 2, 0, ""}}},
		{"empty file gets content", doc(""), []TextEdit{{0, 0, 0, 0, "x\ny\n"}}},
		{"crlf", doc("a\r\nb\r\nc\r\n"), []TextEdit{{1, 0, 1, 1, "B"}}},
		{"unicode", doc("日本語\ne\u0301\n😀\n"), []TextEdit{{0, 3, 0, 6, "本"}, {2, 0, 2, 4, "🙂"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			oldPath, newPath := filepath.Join(dir, "old"), filepath.Join(dir, "new")
			writeFile(t, oldPath, c.old.Bytes())
			writeFile(t, newPath, mustApply(t, c.old, c.edits).Bytes())
			want := hunksOnly(run(t, dir, []int{1}, diffCmd, "-u", "old", "new"))
			if want == "" {
				t.Fatal("diff -u saw no change")
			}
			ours, err := UnifiedDiff(Changeset{Files: []FileChange{{Kind: OpEdit, Path: "f", Old: c.old, Edits: c.edits}}})
			if err != nil {
				t.Fatal(err)
			}
			if got := hunksOnly(ours); got != want {
				t.Errorf("diff -u:\n%s\nUnifiedDiff:\n%s", want, got)
			}
		})
	}
}

// numbered is a document of lines "line 1".."line n" with a final newline.
func numbered(n int) Document {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return doc(b.String())
}

// TestGitDiffAgrees commits each golden scenario's old files, makes the
// change in the work tree and compares `git diff --cached -M` with
// UnifiedDiff, ignoring what git adds and we do not: index lines and the
// function name after a hunk header.
func TestGitDiffAgrees(t *testing.T) {
	git := tool(t, "git")
	for _, sc := range goldenScenarios {
		if skip := gitDiffDiffers[sc.name]; skip != "" {
			continue
		}
		t.Run(sc.name, func(t *testing.T) {
			repo := t.TempDir()
			run(t, repo, nil, git, "init", "-q")
			run(t, repo, nil, git, "config", "user.email", "t@example.com")
			run(t, repo, nil, git, "config", "user.name", "t")
			for _, fc := range sc.cs.Files {
				if fc.Kind != OpCreate {
					writeFile(t, filepath.Join(repo, fc.Path), fc.Old.Bytes())
				}
			}
			run(t, repo, nil, git, "add", "-A")
			run(t, repo, nil, git, "commit", "-qm", "old", "--allow-empty")
			for _, fc := range sc.cs.Files {
				path := filepath.Join(repo, fc.Path)
				switch fc.Kind {
				case OpDelete:
					os.Remove(path)
					continue
				case OpRename:
					os.Remove(path)
					path = filepath.Join(repo, fc.NewPath)
				}
				writeFile(t, path, mustApply(t, fc.Old, fc.Edits).Bytes())
			}
			run(t, repo, nil, git, "add", "-A")
			got := run(t, repo, nil, git, "-c", "core.quotePath=false", "diff", "--cached", "-M")
			var kept []string
			for _, l := range strings.SplitAfter(got, "\n") {
				if strings.HasPrefix(l, "index ") {
					continue
				}
				if strings.HasPrefix(l, "@@ ") {
					l = l[:strings.Index(l[3:], " @@")+6] + "\n"
				}
				kept = append(kept, l)
			}
			ours, err := UnifiedDiff(sc.cs)
			if err != nil {
				t.Fatal(err)
			}
			if gitOut := strings.Join(kept, ""); gitOut != ours {
				t.Errorf("git diff:\n%s\nUnifiedDiff:\n%s", gitOut, ours)
			}
		})
	}
}

// gitDiffDiffers lists scenarios git renders differently, and why.
var gitDiffDiffers = map[string]string{
	"path_quoted": "git sees a delete and a create: the rename keeps 0% of the file",
	"multi_file":  "git orders files by name and pairs the deletion with the creation as a rename",
}
