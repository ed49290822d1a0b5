package tools_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/edit"
	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/nvim"
	"github.com/nvbridge/nvbridge/tools"
)

// TestEditingToolsOverMCP runs the query -> diff -> review -> apply loop of
// the editing tools over the protocol, on a workspace of its own.
func TestEditingToolsOverMCP(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	write := func(rel, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(root, rel), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	disk := func(rel string) string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			return "<missing>"
		}
		return string(b)
	}
	write("notes.txt", "alpha\nbeta\ngamma\nbeta\n")
	write("other.txt", "one\ntwo\n")
	s, client := testenv.Embedded(t, root)
	c := mcpClient(t, tools.NewEnv(s, client, nil))

	// Preview (the default), then apply what was previewed.
	pv := okContent(t, c, "edit_buffer", `{"file":"notes.txt","edits":[{"line_start":2,"line_end":2,"new_text":"BETA"},{"line_start":5,"line_end":4,"new_text":"delta"}]}`)
	if mustAt(t, pv, "applied") != false || !strings.Contains(mustAt(t, pv, "diff").(string), "+BETA\n") {
		t.Fatalf("preview: %v", pv)
	}
	id := mustAt(t, pv, "changeset_id").(string)
	ap := okContent(t, c, "apply_changeset", `{"changeset_id":"`+id+`"}`)
	if mustAt(t, ap, "applied") != true || mustAt(t, ap, "files.0.is_modified") != true || mustAt(t, ap, "files.0.line_count") != float64(5) {
		t.Fatalf("apply: %v", ap)
	}
	wantError(t, mcpCall(t, c, "apply_changeset", `{"changeset_id":"`+id+`"}`), apierr.ResourceNotFound)
	if d := okContent(t, c, "get_buffer_diff", `{"file":"notes.txt"}`); mustAt(t, d, "has_changes") != true || !strings.Contains(mustAt(t, d, "diff").(string), "+delta") {
		t.Fatalf("get_buffer_diff: %v", d)
	}

	// One "beta" is left: count 1 applies; "a\n" occurs more than once.
	wantError(t, mcpCall(t, c, "replace_in_buffer", `{"file":"notes.txt","old":"a\n","new":"A\n","count":1,"preview":false}`), apierr.Ambiguous, "occurs")
	r := okContent(t, c, "replace_in_buffer", `{"file":"notes.txt","old":"beta","new":"b","count":1,"preview":false}`)
	if mustAt(t, r, "matches_found") != float64(1) || mustAt(t, r, "buffer_state.line_count") != float64(5) || mustAt(t, r, "matches.0.line") != float64(4) {
		t.Fatalf("replace: %v", r)
	}
	r = okContent(t, c, "replace_in_buffer", `{"file":"notes.txt","old":"(?m)^(\\w)","new":"- $1","regex":true,"preview":false}`)
	if mustAt(t, r, "matches_replaced") != float64(5) {
		t.Fatalf("regex replace: %v", r)
	}
	u := okContent(t, c, "undo", `{"file":"notes.txt"}`)
	if mustAt(t, u, "remaining_undo") != float64(2) {
		t.Fatalf("undo: %v", u)
	}

	// The user edits notes.txt (nvbridge's own unsaved edits would be saved
	// by save=true; the user's are not).
	if err := s.ExecLua(testenv.Context(t), `local path = ...
local b = vim.fn.bufnr(path)
vim.api.nvim_buf_call(b, function() vim.bo.undolevels = vim.bo.undolevels end)
vim.api.nvim_buf_set_lines(b, 4, 5, true, { 'delta (user)' })`, nil, filepath.Join(root, "notes.txt")); err != nil {
		t.Fatal(err)
	}

	// A patch over two files, checked against the buffers, then saved.
	patch := "--- a/notes.txt\n+++ b/notes.txt\n@@ -1,2 +1,2 @@\n alpha\n-BETA\n+Beta\n--- a/other.txt\n+++ b/other.txt\n@@ -1,2 +1,3 @@\n one\n two\n+three\n"
	pp := okContent(t, c, "apply_patch", `{"patch":`+jsonString(patch)+`}`)
	okContent(t, c, "discard_changeset", `{"changeset_id":"`+mustAt(t, pp, "changeset_id").(string)+`"}`)
	wantError(t, mcpCall(t, c, "discard_changeset", `{"changeset_id":"`+mustAt(t, pp, "changeset_id").(string)+`"}`), apierr.ResourceNotFound)
	// save: true saves all the files or none: notes.txt holds the user's
	// edit, so the whole changeset is refused, nothing changed.
	wantError(t, mcpCall(t, c, "apply_patch", `{"patch":`+jsonString(patch)+`,"preview":false,"save":true}`), apierr.PreconditionFailed, "notes.txt", "not make")
	if disk("other.txt") != "one\ntwo\n" || disk("notes.txt") != "alpha\nbeta\ngamma\nbeta\n" {
		t.Fatalf("disk after a refused save: %q %q", disk("other.txt"), disk("notes.txt"))
	}
	pp = okContent(t, c, "apply_patch", `{"patch":`+jsonString(patch)+`,"preview":false}`)
	if mustAt(t, pp, "files.0.saved") != false || mustAt(t, pp, "files.1.saved") != false {
		t.Fatalf("apply_patch without save: %v", pp)
	}
	if sv := okContent(t, c, "save_buffer", `{"file":"other.txt"}`); mustAt(t, sv, "saved") != true || disk("other.txt") != "one\ntwo\nthree\n" {
		t.Fatalf("save_buffer other.txt: %v, disk %q", sv, disk("other.txt"))
	}
	bad := "--- a/other.txt\n+++ b/other.txt\n@@ -1 +1 @@\n-uno\n+1\n"
	wantError(t, mcpCall(t, c, "apply_patch", `{"patch":`+jsonString(bad)+`}`), apierr.Conflict, "hunk 1", "uno")

	// Save, then discard an unsaved change.
	sv := okContent(t, c, "save_buffer", `{"file":"notes.txt"}`)
	if mustAt(t, sv, "saved") != true || disk("notes.txt") != "alpha\nBeta\ngamma\nb\ndelta (user)\n" {
		t.Fatalf("save_buffer: %v, disk %q", sv, disk("notes.txt"))
	}
	okContent(t, c, "edit_buffer", `{"file":"notes.txt","edits":[{"line_start":1,"line_end":1,"new_text":""}],"preview":false}`)
	dc := okContent(t, c, "discard_buffer", `{"file":"notes.txt"}`)
	if mustAt(t, dc, "discarded") != true || mustAt(t, dc, "is_modified") != false || mustAt(t, dc, "line_count") != float64(5) {
		t.Fatalf("discard_buffer: %v", dc)
	}
	// The user's own unsaved edit is not thrown away without force.
	if err := s.ExecLua(testenv.Context(t), `local b = vim.fn.bufnr(...)
vim.api.nvim_buf_call(b, function() vim.bo.undolevels = vim.bo.undolevels end)
vim.api.nvim_buf_set_lines(b, 0, 1, true, { 'alpha (user)' })`, nil, filepath.Join(root, "notes.txt")); err != nil {
		t.Fatal(err)
	}
	wantError(t, mcpCall(t, c, "discard_buffer", `{"file":"notes.txt"}`), apierr.Conflict, "did not make")
	dc = okContent(t, c, "discard_buffer", `{"file":"notes.txt","force":true}`)
	if mustAt(t, dc, "discarded") != true || mustAt(t, dc, "is_modified") != false {
		t.Fatalf("discard_buffer with force: %v", dc)
	}
	wantError(t, mcpCall(t, c, "read_file", `{"file":"."}`), apierr.InvalidParameter, "directory")
	wantError(t, mcpCall(t, c, "save_buffer", `{"file":"."}`), apierr.InvalidParameter, "directory")
	wantError(t, mcpCall(t, c, "edit_buffer", `{"file":"notes.txt","edits":[{"line_start":9,"line_end":9,"new_text":"x"}]}`), apierr.InvalidParameter, "only 5 lines")
	wantError(t, mcpCall(t, c, "edit_buffer", `{"file":"notes.txt","edits":[],"preveiw":false}`), apierr.InvalidParameter, "preveiw")
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestLargePreviewOverMCP: a preview whose diff is larger than an answer
// carries shows its start with diff_cut; get_changeset_diff reads the rest
// page by page, each answer within its output schema; the pages put
// together are the change (applied as a patch, they give the replaced
// text). A wrong offset or id is a structured error.
func TestLargePreviewOverMCP(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var orig strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&orig, "\tvalue%d := compute(%d) // é\n", i, i)
	}
	if err := os.WriteFile(filepath.Join(root, "big.txt"), []byte(orig.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	s, client := testenv.Embedded(t, root)
	c := mcpClient(t, tools.NewEnv(s, client, nil))

	res := callOK(t, c, "replace_in_buffer", `{"file":"big.txt","old":"compute","new":"calc"}`)
	checkOutputSchema(t, "replace_in_buffer", res)
	pv := content(t, res)
	id := mustAt(t, pv, "changeset_id").(string)
	diff := mustAt(t, pv, "diff").(string)
	total := int(mustAt(t, pv, "diff_cut.total_bytes").(float64))
	next := int(mustAt(t, pv, "diff_cut.next_offset").(float64))
	// The preview shows its first hunks; the pages are larger.
	if len(diff) > edit.DefaultMaxPreviewDiffBytes || len(diff) < edit.DefaultMaxPreviewDiffBytes/2 || next != len(diff) || total < 2*edit.DefaultMaxShownDiffBytes {
		t.Fatalf("preview: %d bytes of diff shown, next_offset %d, total %d", len(diff), next, total)
	}
	if txt := res.Content[0].(mcp.TextContent).Text; !strings.Contains(txt, "get_changeset_diff") || len(txt) > 2*edit.DefaultMaxPreviewDiffBytes {
		t.Fatalf("the text answer (%d bytes) does not say how to read the rest", len(txt))
	}
	for pages := 0; ; pages++ {
		res := callOK(t, c, "get_changeset_diff", fmt.Sprintf(`{"changeset_id":%q,"offset":%d}`, id, next))
		checkOutputSchema(t, "get_changeset_diff", res)
		page := content(t, res)
		if mustAt(t, page, "offset") != float64(next) || mustAt(t, page, "total_bytes") != float64(total) || pages > 10 ||
			len(mustAt(t, page, "diff").(string)) > edit.DefaultMaxShownDiffBytes {
			t.Fatalf("page %d: %v", pages, page)
		}
		diff += mustAt(t, page, "diff").(string)
		n, ok := at(page, "next_offset")
		if !ok {
			break
		}
		next = int(n.(float64))
	}
	if len(diff) != total {
		t.Fatalf("the pages hold %d bytes, the diff %d", len(diff), total)
	}
	wantError(t, mcpCall(t, c, "get_changeset_diff", fmt.Sprintf(`{"changeset_id":%q,"offset":%d}`, id, total+1)), apierr.InvalidParameter, "offset")
	wantError(t, mcpCall(t, c, "get_changeset_diff", `{"changeset_id":"cs_nope"}`), apierr.ResourceNotFound)

	okContent(t, c, "apply_patch", `{"patch":`+jsonString(diff)+`,"preview":false}`)
	snaps, err := s.Snapshot(testenv.Context(t), []string{filepath.Join(root, "big.txt")}, nvim.SnapshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if snaps[0].Text != strings.ReplaceAll(orig.String(), "compute", "calc") {
		t.Fatal("the paged diff, applied as a patch, does not give the replaced text")
	}
}
