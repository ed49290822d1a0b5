package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/internal/testenv"
)

// TestCIRecipe runs the README's CI recipe (scripts/ci-check.sh) as a CI job
// would: nvbridge on PATH, no Neovim running. On a module with an unused
// import it organizes imports, renames across files, writes them and passes;
// once a file has a type error, it prints the error and fails. Its daemon is
// stopped at the end of each run.
func TestCIRecipe(t *testing.T) {
	testenv.Require(t, "nvim", "gopls", "go", "jq", "bash")
	root := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/ci\n\ngo 1.22\n")
	write("shop/shop.go", "package shop\n\nfunc Process(n int) int { return n * 2 }\n")
	write("main.go", "package main\n\nimport (\n\t\"fmt\"\n\t\"os\"\n\n\t\"example.com/ci/shop\"\n)\n\nfunc main() { fmt.Println(shop.Process(2)) }\n")

	c := newCLI(t, "--root", root)
	script := filepath.Join(testenv.RepoRoot(t), "scripts", "ci-check.sh")
	recipe := func(rename string) (string, int) {
		t.Helper()
		cmd := exec.Command("bash", script, root)
		cmd.Env = append(os.Environ(), "NVIM=", "XDG_RUNTIME_DIR="+c.runtime, "RENAME="+rename,
			"PATH="+filepath.Dir(binary(t))+string(os.PathListSeparator)+os.Getenv("PATH"))
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return out.String(), exit.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return out.String(), 0
	}

	out, code := recipe(`{"file":"shop/shop.go","line":3,"symbol":"Process","new_name":"Double"}`)
	if code != 0 {
		t.Fatalf("recipe on a clean module: exit %d\n%s", code, out)
	}
	main, _ := os.ReadFile(filepath.Join(root, "main.go"))
	shop, _ := os.ReadFile(filepath.Join(root, "shop", "shop.go"))
	if strings.Contains(string(main), `"os"`) || !strings.Contains(string(main), "shop.Double(2)") || !strings.Contains(string(shop), "func Double(") {
		t.Errorf("after the recipe:\nmain.go:\n%s\nshop.go:\n%s\noutput:\n%s", main, shop, out)
	}
	for _, want := range []string{`organized main.go: removed ["\"os\""]`, "renamed Process to Double in main.go, shop/shop.go"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if _, ok := c.status(); ok {
		t.Error("the recipe left its daemon running")
	}

	write("broken/broken.go", "package broken\n\nfunc F() int { return \"x\" }\n")
	out, code = recipe("")
	if code != 1 || !strings.Contains(out, "broken/broken.go:3:") || !strings.Contains(out, "error:") {
		t.Fatalf("recipe with a type error: exit %d, want 1 and the error\n%s", code, out)
	}
}
