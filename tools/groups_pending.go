package tools

// Tool families; each file adds its tools here as they land.

func bufferTools(env *Env) []Tool {
	return []Tool{getBufferInfoTool(env), readFileTool(env)}
}

func navigationTools(env *Env) []Tool { return nil }
func editingTools(env *Env) []Tool    { return nil }
func refactoringTools(env *Env) []Tool {
	return nil
}
func structureTools(env *Env) []Tool { return nil }
