package lsp

import (
	"context"
	"strings"
)

// CopyBuffer is, for tests, the text and modified flag of path's buffer
// in the check's copy (loaded false: no copy, or no loaded buffer).
func (v *Verifier) CopyBuffer(ctx context.Context, path string) (text string, modified, loaded bool, err error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.shadow == nil {
		return "", false, false, nil
	}
	var out struct {
		Text     string `msgpack:"text"`
		Modified bool   `msgpack:"modified"`
		Loaded   bool   `msgpack:"loaded"`
	}
	err = v.shadow.Session.ExecLua(ctx, `
local b = vim.fn.bufnr((...))
if b < 0 or not vim.api.nvim_buf_is_loaded(b) then
  return { text = '', modified = false, loaded = false }
end
return { text = table.concat(vim.api.nvim_buf_get_lines(b, 0, -1, false), '\n'), modified = vim.bo[b].modified, loaded = true }
`, &out, path)
	return out.Text, out.Modified, out.Loaded, err
}

// CopyPulls is, for tests, how many pulls of diagnostics the check's copy
// has made among the exchanges its trace keeps.
func (v *Verifier) CopyPulls() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.shadow == nil {
		return 0
	}
	n := 0
	for _, e := range v.shadow.Session.Trace() {
		if e.Kind == "rpc" && strings.HasPrefix(e.Text, "nvbridge.verify.pull(") {
			n++
		}
	}
	return n
}

// NavigationMethods is, for tests, navigationMethods (read.lua has them
// as status.navigation_methods).
var NavigationMethods = navigationMethods
