package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Prompts are the common flows as MCP prompts (prompts/list, prompts/get):
// each is a user message naming the tools to call, in order, with their
// arguments filled from the prompt's.
type prompt struct {
	name, description string
	args              []promptArg
	text              func(a map[string]string) string
}

type promptArg struct {
	name, description string
	required          bool
}

var prompts = []prompt{
	{
		name:        "rename_safely",
		description: "Rename a symbol everywhere, after weighing what the change reaches, with a reviewed preview and a diagnostics check",
		args: []promptArg{
			{"file", "the file (relative to the workspace root) where the symbol appears", true},
			{"line", "its 1-based line there", true},
			{"symbol", "its current name, as on that line", true},
			{"new_name", "the new name", true},
		},
		text: func(a map[string]string) string {
			pos := fmt.Sprintf(`"file":%q,"line":%s,"symbol":%q`, a["file"], a["line"], a["symbol"])
			return strings.Join([]string{
				fmt.Sprintf("Rename %s (%s line %s) to %s safely with nvbridge:", a["symbol"], a["file"], a["line"], a["new_name"]),
				"1. get_status {}: check the language server for this file is ready (not crashed or missing).",
				"2. prepare_change {" + pos + "}: see the references, callers and packages the rename reaches and its risk.",
				"3. rename_symbol {" + pos + fmt.Sprintf(`,"new_name":%q}`, a["new_name"]) + ": this previews (nothing changes yet); read the diff and check every file it touches is intended.",
				`4. apply_changeset {"changeset_id": "<the id from step 3>"}: apply exactly the previewed change (CONFLICT means a file moved since: preview again).`,
				"5. get_diagnostics {} (whole workspace, or each touched file): no new errors. If there are, undo {} and report why.",
			}, "\n")
		},
	},
	{
		name:        "fix_diagnostics",
		description: "Fix the errors and warnings a language server reports in one file, preferring the server's own quick fixes",
		args:        []promptArg{{"file", "the file (relative to the workspace root)", true}},
		text: func(a map[string]string) string {
			f := fmt.Sprintf("%q", a["file"])
			return strings.Join([]string{
				"Fix the diagnostics of " + a["file"] + " with nvbridge:",
				`1. get_diagnostics {"file":` + f + `}: the current errors and warnings, each with its line.`,
				`2. For each, read_file {"file":` + f + `,"start_line":...,"end_line":...} around it, then apply_code_action {"file":` + f + `,"line":...} to list the server's fixes there; apply the right one by its title (it previews; apply_changeset applies).`,
				"3. Where no code action fits, change the text with replace_in_buffer (exact text) or edit_buffer (lines), previewed and applied the same way; rename identifiers only with rename_symbol.",
				`4. get_diagnostics {"file":` + f + `} again until nothing is left that should be fixed; save_buffer {"file":` + f + `} when the user wants it written.`,
			}, "\n")
		},
	},
	{
		name:        "debug_failing_test",
		description: "Run a failing test under the debugger, stop where it goes wrong and inspect the program's state",
		args: []promptArg{
			{"test", "the test's name (go test -run NAME, pytest -k NAME)", true},
			{"program", "the test's package folder (Go) or file (Python), relative to the root", false},
			{"file", "a file to break in", false},
			{"line", "a 1-based line of that file to break at", false},
		},
		text: func(a map[string]string) string {
			start := fmt.Sprintf(`"test":%q`, a["test"])
			if a["program"] != "" {
				start += fmt.Sprintf(`,"program":%q`, a["program"])
			}
			bp := "stop_on_entry, or breakpoints at the test's first lines"
			if a["file"] != "" && a["line"] != "" {
				bp = fmt.Sprintf(`"breakpoints":[{"file":%q,"line":%s}]`, a["file"], a["line"])
			}
			return strings.Join([]string{
				"Debug the failing test " + a["test"] + " with nvbridge:",
				"1. start_debug_session {" + start + ", " + bp + "}: runs the test under dlv (Go) or debugpy (Python) and waits (bounded) for the first stop.",
				`2. inspect_state {}: the stack, the scopes and variables where it stopped; evaluate expressions with {"expression": "..."}.`,
				`3. control_execution {"action":"step_over"} (or step_into, step_out, continue) to move on; each waits for the next stop and reports it (complete=false when the bound was hit).`,
				`4. set_breakpoints {"file":...,"breakpoints":[{"line":...,"condition":"..."}]} to stop later where the wrong value appears.`,
				"5. stop_debug_session {} when done; then fix the code with the editing tools and run the test again.",
			}, "\n")
		},
	},
}

// addPrompts registers the prompts on s.
func addPrompts(s *server.MCPServer) {
	for _, p := range prompts {
		opts := []mcp.PromptOption{mcp.WithPromptDescription(p.description)}
		for _, a := range p.args {
			aopts := []mcp.ArgumentOption{mcp.ArgumentDescription(a.description)}
			if a.required {
				aopts = append(aopts, mcp.RequiredArgument())
			}
			opts = append(opts, mcp.WithArgument(a.name, aopts...))
		}
		p := p
		s.AddPrompt(mcp.NewPrompt(p.name, opts...), func(ctx context.Context, r mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			for _, a := range p.args {
				if a.required && r.Params.Arguments[a.name] == "" {
					return nil, fmt.Errorf("INVALID_PARAMETER: the prompt %s needs the argument %s (%s)", p.name, a.name, a.description)
				}
			}
			return mcp.NewGetPromptResult(p.description, []mcp.PromptMessage{
				mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent(p.text(r.Params.Arguments))),
			}), nil
		})
	}
}
