package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/websearch"
)

// The README's tool table must list every tool, and nothing else.
func TestREADMEListsEveryTool(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	begin, end := strings.Index(text, "<!-- tools:begin -->"), strings.Index(text, "<!-- tools:end -->")
	if begin < 0 || end < begin {
		t.Fatal("README.md has no tools:begin/tools:end markers")
	}
	listed := map[string]bool{}
	for _, line := range strings.Split(text[begin:end], "\n") {
		if strings.HasPrefix(line, "| `") {
			name := strings.TrimPrefix(line, "| `")
			listed[name[:strings.Index(name, "`")]] = true
		}
	}
	// Optional tools count as configured: the table lists them with when
	// they appear.
	for _, tool := range All(&Env{Search: &websearch.Client{}}) {
		if !listed[tool.Tool.Name] {
			t.Errorf("README.md does not list %s", tool.Tool.Name)
		}
		delete(listed, tool.Tool.Name)
	}
	for name := range listed {
		t.Errorf("README.md lists %s, which is not a tool", name)
	}
}
