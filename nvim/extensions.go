package nvim

import (
	"context"
	"encoding/json"
)

// extensions.lua: the changes MCP resources follow, the user's own tools,
// the after_tool hooks and the agent events.
var (
	luaExtWatch      = fn2[int, bool]("nvbridge.extensions", "watch")
	luaExtTexts      = fn2[int, bool]("nvbridge.extensions", "texts")
	luaExtBuffers    = fn0("nvbridge.extensions", "buffers")
	luaExtListed     = fn0("nvbridge.extensions", "listed")
	luaExtBufferText = fn1[string]("nvbridge.extensions", "buffer_text")
	luaExtUserTools  = fn0("nvbridge.extensions", "user_tools")
	luaExtAfterTool  = fn3[string, string, string]("nvbridge.extensions", "after_tool")
	luaExtEvent      = fn2[string, string]("nvbridge.extensions", "event")
	luaExtRunTool    = async2[string, string]("nvbridge.extensions", "run_tool")
)

// LoadedFiles lists the loaded file buffers as JSON: [{file, modified,
// listed}].
func (s *Session) LoadedFiles(ctx context.Context) (string, error) {
	var out string
	err := luaExtBuffers.call(ctx, s, &out)
	return out, err
}

// Listed is what the resource list names of Neovim, in one call, as
// JSON {buffers: LoadedFiles', diagnostic_files: [the files Neovim holds
// diagnostics for]}.
func (s *Session) Listed(ctx context.Context) (string, error) {
	var out string
	err := luaExtListed.call(ctx, s, &out)
	return out, err
}

// BufferText is a loaded buffer's text as Neovim holds it, as JSON
// {loaded, text, modified, changedtick, line_count, filetype} (loaded
// false when no buffer holds path, absolute).
func (s *Session) BufferText(ctx context.Context, path string) (string, error) {
	var out string
	err := luaExtBufferText.call(ctx, s, &out, path)
	return out, err
}

// UserTools lists the tools the user registered in their config
// (require('nvbridge').tool), as JSON [{name, description, schema, writes}].
func (s *Session) UserTools(ctx context.Context) (string, error) {
	var out string
	err := luaExtUserTools.call(ctx, s, &out)
	return out, err
}

// AfterTool runs the user's after_tool hooks on a result (JSON {structured,
// text, is_error}); it answers the changed result as JSON, or "" when no
// hook changed it.
func (s *Session) AfterTool(ctx context.Context, tool, argsJSON, resultJSON string) (string, error) {
	var out string
	err := luaExtAfterTool.call(ctx, s, &out, tool, argsJSON, resultJSON)
	return out, err
}

// UserEvent runs User pattern (NvbridgeAgentAttach, NvbridgeAgentDetach,
// NvbridgeToolProgress) with data (JSON).
func (s *Session) UserEvent(ctx context.Context, pattern, dataJSON string) error {
	return luaExtEvent.call(ctx, s, nil, pattern, dataJSON)
}

// RunUserTool runs the user's tool name with its arguments (JSON) in
// Neovim and answers JSON {result}; its progress goes to ctx's reporter.
func (s *Session) RunUserTool(ctx context.Context, name, argsJSON string) (json.RawMessage, error) {
	return luaExtRunTool.start(ctx, s, name, argsJSON)
}
