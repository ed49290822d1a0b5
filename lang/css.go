package lang

// CSS, SCSS and Less: vscode-css-language-server from
// vscode-langservers-extracted (syntax and lint diagnostics, selectors as
// symbols, custom properties' definitions, references and rename).

func init() { Register(cssLang) }

var cssLang = &Language{
	Name:       "css",
	Display:    "CSS",
	Filetypes:  []string{"css", "scss", "less"},
	Extensions: []string{".css", ".scss", ".less"},
	Servers: []ServerSpec{{
		Name:        "vscode-css-language-server",
		Cmd:         []string{"vscode-css-language-server", "--stdio"},
		InitOptions: map[string]any{"provideFormatter": true},
		Settings: map[string]any{
			"css":  map[string]any{"validate": true},
			"scss": map[string]any{"validate": true},
			"less": map[string]any{"validate": true},
		},
	}},
	Ident: Ident{LineComment: "//", Hyphens: true},
}
