package tools

// navigationTools lists the navigation tools (one file per tool).
func navigationTools(env *Env) []Tool {
	return nil
}
