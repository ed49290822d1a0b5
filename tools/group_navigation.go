package tools

// navigationTools lists the navigation tools (one file per tool).
func navigationTools(env *Env) []Tool {
	return []Tool{
		findDefinitionTool(env),
		findImplementationsTool(env),
		findReferencesTool(env),
		getCompletionsTool(env),
		getDiagnosticsTool(env),
		getHoverInfoTool(env),
		getSignatureHelpTool(env),
		getSymbolsTool(env),
	}
}
