package tools_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/tools"
)

// TestModeCeiling over the protocol: the start mode (--mode) is a ceiling.
// Started in explore, set_mode all or edit is refused with
// PRECONDITION_FAILED and how to lift it, and a writing tool stays refused
// (nothing changes on disk or in the buffer); started in all, switching
// down and back up works and the write lands.
func TestModeCeiling(t *testing.T) {
	testenv.Require(t, "nvim")
	root := t.TempDir()
	notes := filepath.Join(root, "notes.txt")
	if err := os.WriteFile(notes, []byte("hello world\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, lspClient := testenv.Embedded(t, root)
	serve := func(t *testing.T, start string) *client.Client {
		t.Helper()
		env := tools.NewEnv(s, lspClient, t.Logf)
		t.Cleanup(env.Close)
		var err error
		if env.Modes, err = tools.NewModes(start, false); err != nil {
			t.Fatal(err)
		}
		return mcpClient(t, env)
	}
	errorOf := func(t *testing.T, res *mcp.CallToolResult) (code, message, remediation string) {
		t.Helper()
		var body struct {
			Error struct{ Code, Message, Remediation string } `json:"error"`
		}
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, &body); err != nil || !res.IsError {
			t.Fatalf("want an error, got %s (%v)", b, err)
		}
		return body.Error.Code, body.Error.Message, body.Error.Remediation
	}
	modeOf := func(t *testing.T, c *client.Client) (mode, max string) {
		t.Helper()
		var st struct {
			Mode    string `json:"mode"`
			MaxMode string `json:"max_mode"`
		}
		b, _ := json.Marshal(mcpCall(t, c, "get_status", `{}`).StructuredContent)
		if err := json.Unmarshal(b, &st); err != nil {
			t.Fatal(err)
		}
		return st.Mode, st.MaxMode
	}
	const write = `{"file":"notes.txt","edits":[{"line_start":1,"line_end":1,"new_text":"bye"}],"preview":false,"save":true}`

	t.Run("started in explore", func(t *testing.T) {
		c := serve(t, tools.ModeExplore)
		for _, wider := range []string{tools.ModeAll, tools.ModeEdit, tools.ModeDebug} {
			code, msg, how := errorOf(t, mcpCall(t, c, "set_mode", `{"mode":"`+wider+`"}`))
			if code != "PRECONDITION_FAILED" || !strings.Contains(msg, "--mode explore") || !strings.Contains(how, "restart nvbridge with --mode all") {
				t.Errorf("set_mode %s: %s: %s (remediation %q)", wider, code, msg, how)
			}
		}
		if mode, max := modeOf(t, c); mode != tools.ModeExplore || max != tools.ModeExplore {
			t.Errorf("after refused widenings: mode %s, max_mode %s", mode, max)
		}
		if res := mcpCall(t, c, "set_mode", `{"mode":"explore"}`); res.IsError {
			t.Errorf("set_mode explore within explore: %v", res.Content)
		}
		code, msg, how := errorOf(t, mcpCall(t, c, "edit_buffer", write))
		if code != "PRECONDITION_FAILED" || !strings.Contains(msg, "not available in mode explore") ||
			!strings.Contains(how, "restart nvbridge with --mode all") || strings.Contains(how, "call set_mode") {
			t.Errorf("edit_buffer after the refusals: %s: %s (remediation %q)", code, msg, how)
		}
		if got, _ := os.ReadFile(notes); string(got) != "hello world\n" {
			t.Errorf("notes.txt = %q after a refused write", got)
		}
		info, _ := json.Marshal(mcpCall(t, c, "get_buffer_info", `{"file":"notes.txt"}`).StructuredContent)
		if !strings.Contains(string(info), `"content":"hello world\n"`) || strings.Contains(string(info), `"is_modified":true`) {
			t.Errorf("the buffer after a refused write: %s", info)
		}
		res, err := c.ListTools(testenv.Context(t), mcp.ListToolsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		if slices.ContainsFunc(res.Tools, func(tl mcp.Tool) bool { return tl.Name == "edit_buffer" }) {
			t.Error("tools/list shows edit_buffer in explore")
		}
	})

	t.Run("started in all", func(t *testing.T) {
		c := serve(t, tools.ModeAll)
		for _, m := range []string{tools.ModeExplore, tools.ModeDebug, tools.ModeEdit} {
			if res := mcpCall(t, c, "set_mode", `{"mode":"`+m+`"}`); res.IsError {
				t.Fatalf("set_mode %s under all: %v", m, res.Content)
			}
		}
		mcpCall(t, c, "set_mode", `{"mode":"explore"}`)
		if _, _, how := errorOf(t, mcpCall(t, c, "edit_buffer", write)); !strings.Contains(how, `call set_mode {"mode": "edit"}`) {
			t.Errorf("edit_buffer in explore under all: remediation %q, want set_mode", how)
		}
		if res := mcpCall(t, c, "set_mode", `{"mode":"all"}`); res.IsError {
			t.Fatalf("set_mode all back up: %v", res.Content)
		}
		if mode, max := modeOf(t, c); mode != tools.ModeAll || max != tools.ModeAll {
			t.Errorf("mode %s, max_mode %s", mode, max)
		}
		if res := mcpCall(t, c, "edit_buffer", write); res.IsError {
			t.Fatalf("edit_buffer in all: %v", res.Content)
		}
		if got, _ := os.ReadFile(notes); string(got) != "bye\n" {
			t.Errorf("notes.txt = %q after the write", got)
		}
	})
}
