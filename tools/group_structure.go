package tools

// structureTools lists the structure tools (one file per tool).
func structureTools(env *Env) []Tool {
	return []Tool{
		analyzeDependenciesTool(env),
		batchTool(env),
		exploreTool(env),
		getCallHierarchyTool(env),
		getProjectStructureTool(env),
		getTypeHierarchyTool(env),
		prepareChangeTool(env),
		detectChangesTool(env),
		understandSymbolTool(env),
	}
}
