package lua_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/apierr"
)

// hunkAnswers is a user who answers each change by accepting the hunks in
// _G.hunks (by index), after running _G.before (their typing meanwhile).
const hunkAnswers = `require('nvbridge').setup({ approve = 'writes' })
_G.hunks, _G.seen = {}, {}
vim.api.nvim_create_autocmd('User', {
  pattern = 'NvbridgeApprove',
  callback = function(ev)
    local key = ev.data.key
    vim.schedule(function()
      for _, p in ipairs(require('nvbridge.review').list()) do
        if p.key == key then table.insert(_G.seen, p.hunks) end
      end
      if _G.before then _G.before() end
      require('nvbridge.review').answer('accept', nil, key, nil, _G.hunks)
    end)
  end,
})
`

// TestHunkReview: a change over three files, saved, reviewed hunk by
// hunk: of a.txt's two hunks the user accepts the second, b.txt's one
// hunk is accepted, the creation of c.txt rejected. Exactly that is
// applied and saved (a.txt planned again from its accepted hunk), and the
// agent is told which. When the user types in a file while reviewing, the
// accepted hunks are refused with CONFLICT and nothing changes.
func TestHunkReview(t *testing.T) {
	var a strings.Builder
	for i := 1; i <= 12; i++ {
		fmt.Fprintf(&a, "a%d\n", i)
	}
	root := writeFiles(t, map[string]string{"a.txt": a.String(), "b.txt": "b1\nb2\n"})
	u := startUser(t, root, hunkAnswers)
	patch := "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n-a1\n+A1\n a2\n a3\n@@ -10,3 +10,3 @@\n a10\n-a11\n+A11\n a12\n" +
		"--- a/b.txt\n+++ b/b.txt\n@@ -1,2 +1,2 @@\n b1\n-b2\n+B2\n" +
		"--- /dev/null\n+++ b/c.txt\n@@ -0,0 +1 @@\n+new\n"
	u.lua(`_G.hunks = { 2, 3 }`, nil)
	out := u.mustCall("apply_patch", `{"patch":`+jsonString(patch)+`,"preview":false,"save":true}`)
	var seen []int
	u.lua(`return _G.seen`, &seen)
	if len(seen) != 1 || seen[0] != 4 {
		t.Fatalf("the review offered %v hunk(s), want 4 (a.txt 2, b.txt 1, the creation of c.txt)", seen)
	}
	if got := u.disk("a.txt"); !strings.HasPrefix(got, "a1\na2\n") || !strings.Contains(got, "\nA11\n") {
		t.Errorf("a.txt on disk: %q (only its second hunk accepted)", got)
	}
	if got := u.disk("b.txt"); got != "b1\nB2\n" {
		t.Errorf("b.txt on disk: %q", got)
	}
	if _, err := os.Stat(filepath.Join(root, "c.txt")); err == nil {
		t.Error("c.txt was created although its hunk was rejected")
	}
	var got []struct {
		Index    int    `json:"index"`
		File     string `json:"file"`
		Header   string `json:"header"`
		Accepted bool   `json:"accepted"`
	}
	hunks, _ := json.Marshal(out["hunks"])
	if err := json.Unmarshal(hunks, &got); err != nil || len(got) != 4 {
		t.Fatalf("hunks %s", hunks)
	}
	// The headers are those of the diff the user was shown (nvbridge's,
	// with three lines of context).
	for i, w := range []struct {
		file, header string
		accepted     bool
	}{{"a.txt", "@@ -1,", false}, {"a.txt", "@@ -8,", true}, {"b.txt", "@@ -1,", true}, {"c.txt", "create c.txt", false}} {
		if h := got[i]; h.Index != i+1 || h.File != w.file || !strings.HasPrefix(h.Header, w.header) || h.Accepted != w.accepted {
			t.Errorf("hunk %d: %+v, want %+v", i+1, h, w)
		}
	}
	applied, _ := out["applied_diff"].(string)
	if !strings.Contains(applied, "+A11") || !strings.Contains(applied, "+B2") || strings.Contains(applied, "A1\n") || strings.Contains(applied, "c.txt") {
		t.Errorf("applied_diff:\n%s", applied)
	}

	// The user types in a.txt while reviewing a change of two hunks in it,
	// and accepts one: it is refused, nothing changes.
	u.lua(`_G.hunks = { 1 }
_G.before = function()
  vim.cmd.edit(vim.fs.joinpath(vim.fn.getcwd(), 'a.txt'))
  vim.api.nvim_buf_set_lines(0, 5, 6, true, { 'typed' })
end`, nil)
	patch = "--- a/a.txt\n+++ b/a.txt\n@@ -1,1 +1,1 @@\n-a1\n+ONE\n@@ -12,1 +12,1 @@\n-a12\n+TWELVE\n"
	u.wantError("apply_patch", `{"patch":`+jsonString(patch)+`,"preview":false}`, apierr.Conflict, "a.txt", "changed while the user reviewed")
	if got := u.bufText("a.txt"); !strings.HasPrefix(got, "a1\n") || strings.Contains(got, "TWELVE") || !strings.Contains(got, "typed") {
		t.Errorf("a.txt after the refused change: %q", got)
	}
}
