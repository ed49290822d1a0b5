package lang

// JSON (and JSON with comments): vscode-json-language-server from
// vscode-langservers-extracted (syntax and schema diagnostics, symbols).
// Schemas named by a document's $schema are read from the workspace; the
// schema store is not fetched.

func init() { Register(jsonLang) }

var jsonLang = &Language{
	Name:       "json",
	Display:    "JSON",
	Filetypes:  []string{"json", "jsonc"},
	Extensions: []string{".json", ".jsonc"},
	Servers: []ServerSpec{{
		Name:        "vscode-json-language-server",
		Cmd:         []string{"vscode-json-language-server", "--stdio"},
		InitOptions: map[string]any{"provideFormatter": true},
		Settings:    map[string]any{"json": map[string]any{"validate": map[string]any{"enable": true}}},
	}},
}
