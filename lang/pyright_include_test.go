package lang

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestPyrightInclude(t *testing.T) {
	cases := []struct {
		name, file, text string
		want             []string
	}{
		{"requests' pyproject", "pyproject.toml", "[project]\nname = \"requests\"\ninclude = [\"x\"]\n\n[tool.pyright]\ninclude = [\"src/requests\"]\ntypeCheckingMode = \"strict\"\n", []string{"src/requests"}},
		{"several lines, comments, a glob", "pyproject.toml", "[tool.pyright]\ninclude = [\n  \"src\",  # the package\n  \"tools/**/*.py\",\n]\n", []string{"src", "tools"}},
		{"no include", "pyproject.toml", "[tool.pyright]\nstrict = [\"src\"]\n", nil},
		{"the root", "pyproject.toml", "[tool.pyright]\ninclude = [\".\"]\n", nil},
		{"pyrightconfig.json", "pyrightconfig.json", "{\n  // comment\n  \"include\": [\"pkg\", \"../other\"]\n}\n", []string{"pkg"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			if err := os.WriteFile(filepath.Join(root, c.file), []byte(c.text), 0o644); err != nil {
				t.Fatal(err)
			}
			if got := pyrightInclude(root); !reflect.DeepEqual(got, c.want) {
				t.Errorf("pyrightInclude = %#v, want %#v", got, c.want)
			}
		})
	}
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "pyproject.toml"), []byte("[tool.pyright]\ninclude = [\"src/requests\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for rel, want := range map[string]bool{"src/requests/utils.py": true, "src/requests": true, "tests/test_utils.py": false, "src/requestsx/a.py": false} {
		if got := Checked(Python, root, rel); got != want {
			t.Errorf("Checked(%s) = %v, want %v", rel, got, want)
		}
	}
	if !Checked(Go, root, "tests/x_test.go") {
		t.Error("a language without CheckedDirs checks every file")
	}
}
