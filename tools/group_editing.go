package tools

// editingTools lists the editing tools (one file per tool).
func editingTools(env *Env) []Tool {
	return nil
}
