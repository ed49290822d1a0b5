package refactor

// What a change leaves behind, from files alone: the old name found as an
// identifier (not in strings or comments) in the files as the changeset
// leaves them and in the untouched ones; a C macro's body renamed unless
// the name is one of its parameters.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/lang"
	"github.com/nvbridge/nvbridge/preview"
	"github.com/nvbridge/nvbridge/workspace"
)

func writeTree(t *testing.T, files map[string]string) workspace.Root {
	t.Helper()
	dir := t.TempDir()
	for rel, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func TestFindLeftBehind(t *testing.T) {
	root := writeTree(t, map[string]string{
		"src/pkg/utils.py":    "def get_auth(url):\n    return url\n",
		"src/pkg/models.py":   "from .utils import get_auth\n\nx = get_auth('u')\n",
		"tests/test_utils.py": "from pkg.utils import get_auth\n# get_auth in a comment\ns = 'get_auth'\nassert get_auth('a') == 'a'\n",
		"node_modules/x.py":   "get_auth\n",
	})
	// The rename as the server gives it: the files it sees.
	old := preview.ParseDocument("def get_auth(url):\n    return url\n")
	cs := preview.Changeset{Files: []preview.FileChange{{Kind: preview.OpEdit, Path: "src/pkg/utils.py", Old: old,
		Edits: []preview.TextEdit{{StartLine: 0, StartCol: 4, EndLine: 0, EndCol: 12, NewText: "auth_of"}}}}}
	lb, total := findLeftBehind(root, lang.Python, "get_auth", cs, nil)
	var got []string
	for _, l := range lb {
		got = append(got, l.File+":"+string(rune('0'+l.Line)))
	}
	if want := "src/pkg/models.py:1 src/pkg/models.py:3 tests/test_utils.py:1 tests/test_utils.py:4"; strings.Join(got, " ") != want || total != 4 {
		t.Errorf("left behind %v (%d), want %s", got, total, want)
	}
}

func TestMacroBodyEdits(t *testing.T) {
	root := writeTree(t, map[string]string{
		"src/mem.h": "#define luaM_error(L)\tluaD_throw(L, 4)\n#define APPLY(luaD_throw) luaD_throw(1)\n#define TWO(L) \\\n  (luaD_throw(L, 1), \\\n   luaD_throw(L, 2))\n/* luaD_throw */\n",
		"src/do.c":  "void luaD_throw(int L, int e) {}\n",
	})
	cs, macros, err := macroBodyEdits(root, lang.C, "luaD_throw", "luaD_raise", preview.Changeset{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(macros, ",") != "mem.h: luaM_error,mem.h: TWO" || len(cs.Files) != 1 {
		t.Fatalf("macros %v, files %d", macros, len(cs.Files))
	}
	after := afterTexts(cs)["src/mem.h"]
	want := "#define luaM_error(L)\tluaD_raise(L, 4)\n#define APPLY(luaD_throw) luaD_throw(1)\n#define TWO(L) \\\n  (luaD_raise(L, 1), \\\n   luaD_raise(L, 2))\n/* luaD_throw */\n"
	if after != want {
		t.Errorf("mem.h:\n%s\nwant\n%s", after, want)
	}
}
