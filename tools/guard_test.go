package tools_test

// A refactoring that would break another file is not applied silently:
// applying it (preview=false, or apply_changeset of its preview) checks it
// on the check's copy first and refuses it with PRECONDITION_FAILED naming
// each error it introduces, nothing changed; accept_errors: true applies
// it all the same; a clean refactoring applies as before. Samples:
// testdata/refactor/guard (README.md there).

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/tools"
)

// guardSample copies testdata/refactor/guard/NAME into a temp folder.
func guardSample(t *testing.T, name string) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), name)
	if err := testenv.CopyDir(filepath.Join(testenv.RepoRoot(t), "testdata", "refactor", "guard", name), root); err != nil {
		t.Fatal(err)
	}
	return root
}

// readAll is every file under root, by relative path.
func readAll(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		out[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameFiles(t *testing.T, what string, before, after map[string]string) {
	t.Helper()
	for f, b := range before {
		if after[f] != b {
			t.Errorf("%s changed %s:\n%s", what, f, after[f])
		}
	}
	for f := range after {
		if _, ok := before[f]; !ok && !strings.Contains(f, "__pycache__") {
			t.Errorf("%s created %s", what, f)
		}
	}
}

func TestRefactoringGuardPython(t *testing.T) {
	testenv.Require(t, "nvim", "pyright-langserver")
	root := guardSample(t, "python")
	s, client := testenv.Embedded(t, root)
	c := mcpClient(t, tools.NewEnv(s, client, nil))
	original := readAll(t, root)
	move := `{"file":"pkg/auth.py","name":"_basic","target_file":"pkg/util.py"`

	t.Run("applied at once: refused, naming the error, nothing changed", func(t *testing.T) {
		wantError(t, mcpCall(t, c, "move_symbol", move+`,"preview":false,"save":true}`), apierr.PreconditionFailed,
			"introduces", "pkg/util.py", `"_basic" is not accessed`, "reportUnusedFunction")
		sameFiles(t, "a refused move", original, readAll(t, root))
		for _, f := range []string{"pkg/auth.py", "pkg/util.py"} {
			info := okContent(t, c, "get_buffer_info", `{"file":"`+f+`","include_content":false}`)
			if info["is_modified"] == true {
				t.Errorf("%s is modified after a refused move: %v", f, info)
			}
		}
	})

	t.Run("a checked preview says so first; apply_changeset refuses, accept_errors applies", func(t *testing.T) {
		res := callOK(t, c, "move_symbol", move+`,"check":true}`)
		pv, text := content(t, res), res.Content[0].(mcp.TextContent).Text
		w := strings.Index(text, "WARNING: this change introduces 1 error(s)")
		if pv["guarded"] != true || w < 0 || w > strings.Index(text, "Preview of") {
			t.Fatalf("preview: %v\n%s", pv, text)
		}
		id := mustAt(t, pv, "changeset_id").(string)
		wantError(t, mcpCall(t, c, "apply_changeset", `{"changeset_id":"`+id+`","save":true}`), apierr.PreconditionFailed,
			"its preview's check found some", "reportUnusedFunction")
		sameFiles(t, "a refused apply", original, readAll(t, root))
		ap := okContent(t, c, "apply_changeset", `{"changeset_id":"`+id+`","save":true,"accept_errors":true}`)
		if ap["applied"] != true || mustAt(t, ap, "diagnostics_delta.introduced_counts.error") != float64(1) {
			t.Fatalf("accepted apply: %v", ap)
		}
		if disk := readAll(t, root); !strings.Contains(disk["pkg/util.py"], "def _basic(") || strings.Contains(disk["pkg/auth.py"], "def _basic(") {
			t.Errorf("not moved on disk:\n%s\n%s", disk["pkg/auth.py"], disk["pkg/util.py"])
		}
		okContent(t, c, "undo", `{"changeset_id":"`+mustAt(t, ap, "applied_changeset_id").(string)+`"}`)
		okContent(t, c, "save_buffer", `{"file":"pkg/auth.py"}`)
		okContent(t, c, "save_buffer", `{"file":"pkg/util.py"}`)
	})

	t.Run("a clean move applies", func(t *testing.T) {
		got := okContent(t, c, "move_symbol", `{"file":"pkg/auth.py","name":"encode","target_file":"pkg/util.py","preview":false,"save":true}`)
		if n, _ := at(got, "diagnostics_delta.introduced_counts.error"); got["applied"] != true || n != nil {
			t.Fatalf("clean move: %v", got)
		}
		if disk := readAll(t, root); !strings.Contains(disk["pkg/util.py"], "def encode(") {
			t.Errorf("not moved:\n%s", disk["pkg/util.py"])
		}
	})

	// The check's copy followed the last apply (its buffers hold the text
	// the save then wrote): the next check of the same files reloads them
	// instead of failing with CONFLICT.
	t.Run("another apply of the same files, checked again", func(t *testing.T) {
		got := okContent(t, c, "move_symbol", `{"file":"pkg/util.py","name":"to_bytes","target_file":"pkg/auth.py","preview":false,"save":true}`)
		if got["applied"] != true {
			t.Fatalf("second move: %v", got)
		}
		if disk := readAll(t, root); !strings.Contains(disk["pkg/auth.py"], "def to_bytes(") {
			t.Errorf("not moved:\n%s", disk["pkg/auth.py"])
		}
	})
}

func TestRefactoringGuardTypeScript(t *testing.T) {
	testenv.Require(t, "nvim", "typescript-language-server")
	root := guardSample(t, "ts")
	s, client := testenv.Embedded(t, root)
	c := mcpClient(t, tools.NewEnv(s, client, nil))
	original := readAll(t, root)
	rename := `{"file":"src/prices.ts","name":"total","new_name":"sum"`

	// No check's copy runs yet: in an embedded session the apply's own
	// delta decides, and the change is taken back before anything is saved.
	t.Run("a rename that breaks another file is refused", func(t *testing.T) {
		wantError(t, mcpCall(t, c, "rename_symbol", rename+`,"preview":false,"save":true}`), apierr.PreconditionFailed,
			"introduces", "src/report.ts", "typescript", "found in the diagnostics of its apply", "taken back")
		sameFiles(t, "a refused rename", original, readAll(t, root))
		for _, f := range []string{"src/report.ts", "src/prices.ts"} {
			info := okContent(t, c, "get_buffer_info", `{"file":"`+f+`","include_content":false}`)
			if info["is_modified"] == true {
				t.Errorf("%s is modified after a refused rename: %v", f, info)
			}
		}
	})

	t.Run("a checked preview's errors refuse its apply", func(t *testing.T) {
		pv := okContent(t, c, "rename_symbol", rename+`,"check":true}`)
		if pv["guarded"] != true || mustAt(t, pv, "diagnostics_delta.introduced_counts.error").(float64) < 1 {
			t.Fatalf("preview: %v", pv)
		}
		wantError(t, mcpCall(t, c, "apply_changeset", `{"changeset_id":"`+pv["changeset_id"].(string)+`"}`), apierr.PreconditionFailed,
			"its preview's check found some", "src/report.ts")
		sameFiles(t, "a refused apply", original, readAll(t, root))
	})

	// The check's copy runs now: an unchecked preview is checked on it
	// when applied, before the user's buffers change.
	t.Run("an unchecked preview is checked on the copy when applied", func(t *testing.T) {
		pv := okContent(t, c, "rename_symbol", rename+`}`)
		if pv["guarded"] != true {
			t.Fatalf("preview not guarded: %v", pv)
		}
		wantError(t, mcpCall(t, c, "apply_changeset", `{"changeset_id":"`+pv["changeset_id"].(string)+`"}`), apierr.PreconditionFailed,
			"checked on a copy first", "src/report.ts")
		sameFiles(t, "a refused apply", original, readAll(t, root))
	})

	t.Run("accept_errors applies it", func(t *testing.T) {
		got := okContent(t, c, "rename_symbol", rename+`,"preview":false,"accept_errors":true}`)
		if got["applied"] != true || mustAt(t, got, "diagnostics_delta.introduced_counts.error").(float64) < 1 {
			t.Fatalf("accepted rename: %v", got)
		}
	})
}
