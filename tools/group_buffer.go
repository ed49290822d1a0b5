package tools

// bufferTools read buffers as Neovim holds them.
func bufferTools(env *Env) []Tool {
	return []Tool{getBufferInfoTool(env), readFileTool(env), getEditorContextTool(env)}
}
