package tools_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/tools"
)

// TestPaging over the protocol with gopls: find_references and get_symbols
// read page by page (max_results, offset, next_offset) give exactly the
// full list, in order, with total constant; a bad offset is refused.
func TestPaging(t *testing.T) {
	testenv.Require(t, "nvim", "gopls")
	root := testenv.CopySample(t, "go")
	s, client := testenv.Embedded(t, root)
	env := tools.NewEnv(s, client, t.Logf)
	t.Cleanup(env.Close)
	c := mcpClient(t, env)
	type answer struct {
		Total      int  `json:"total"`
		NextOffset *int `json:"next_offset"`
		Files      []struct {
			File       string
			References []struct{ Line, Column int }
		} `json:"files"`
		Symbols []struct {
			Name string
			Line int
		} `json:"symbols"`
	}
	get := func(tool, args string) answer {
		t.Helper()
		res := mcpCall(t, c, tool, args)
		if res.IsError {
			t.Fatalf("%s %s: %v", tool, args, res.Content)
		}
		b, _ := json.Marshal(res.StructuredContent)
		var a answer
		if err := json.Unmarshal(b, &a); err != nil {
			t.Fatal(err)
		}
		return a
	}
	items := func(a answer) []string {
		var out []string
		for _, f := range a.Files {
			for _, r := range f.References {
				out = append(out, fmt.Sprintf("%s:%d:%d", f.File, r.Line, r.Column))
			}
		}
		for _, s := range a.Symbols {
			out = append(out, fmt.Sprintf("%s@%d", s.Name, s.Line))
		}
		return out
	}
	for _, tc := range []struct{ tool, args string }{
		{"find_references", `"file":"orders/orders.go","line":33,"symbol":"Process"`},
		{"get_symbols", `"file":"orders/orders.go"`},
	} {
		full := get(tc.tool, "{"+tc.args+"}")
		want := items(full)
		if len(want) < 3 || full.NextOffset != nil {
			t.Fatalf("%s: the full list %v (next_offset %v) is too short to page", tc.tool, want, full.NextOffset)
		}
		var got []string
		offset := 0
		for pages := 0; ; pages++ {
			if pages > len(want) {
				t.Fatalf("%s: more pages than items", tc.tool)
			}
			a := get(tc.tool, fmt.Sprintf(`{%s,"max_results":2,"offset":%d}`, tc.args, offset))
			if a.Total != full.Total {
				t.Errorf("%s: total %d on a page, %d in all", tc.tool, a.Total, full.Total)
			}
			got = append(got, items(a)...)
			if a.NextOffset == nil {
				break
			}
			offset = *a.NextOffset
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: pages gave %v, want %v", tc.tool, got, want)
		}
		res := mcpCall(t, c, tc.tool, fmt.Sprintf(`{%s,"offset":-1}`, tc.args))
		if b, _ := json.Marshal(res.StructuredContent); !res.IsError || !strings.Contains(string(b), "INVALID_PARAMETER") {
			t.Errorf("%s offset -1: %s", tc.tool, b)
		}
	}
	// Workspace diagnostics: past the end is an empty last page.
	a := get("get_diagnostics", `{"offset":1000}`)
	if a.NextOffset != nil {
		t.Errorf("get_diagnostics past the end: next_offset %v", *a.NextOffset)
	}
}
