package lang

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestNameRulesModules: the module segments qualifying a file's
// declarations, per language, and the folders tsconfig.json includes.
func TestNameRulesModules(t *testing.T) {
	root := t.TempDir()
	write := func(rel, text string) string {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("go.mod", "module example.com/shop\n")
	write("src/requests/__init__.py", "")
	write("tsconfig.json", "{\n  // comments are allowed\n  \"include\": [\"src/v3/**/*\", \"../outside\"],\n  \"compilerOptions\": {\"rootDir\": \"./lib\"}\n}\n")
	s := NewScope(root)
	for _, tc := range []struct {
		file string
		want []string
	}{
		{"orders/orders.go", []string{"orders"}},
		{"main.go", []string{"shop"}},
		{"src/requests/sessions.py", []string{"requests", "sessions"}},
		{"src/requests/__init__.py", []string{"requests"}},
		{"src/v3/types.ts", []string{"src", "v3", "types"}},
		{"src/methods/index.ts", []string{"src", "methods"}},
	} {
		abs := filepath.Join(root, filepath.FromSlash(tc.file))
		if got := NameRulesFor(tc.file).ModuleSegments(s, abs); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: module %v, want %v", tc.file, got, tc.want)
		}
	}
	if got := tsSourceDirs(root); !reflect.DeepEqual(got, []string{"src/v3", "lib"}) {
		t.Errorf("tsSourceDirs = %v", got)
	}
	if got := SplitName(" requests..sessions.Session.request "); !reflect.DeepEqual(got, []string{"requests", "sessions", "Session", "request"}) {
		t.Errorf("SplitName = %v", got)
	}
}
