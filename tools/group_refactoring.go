package tools

// refactoringTools lists the refactoring tools (one file per tool).
func refactoringTools(env *Env) []Tool {
	return nil
}
