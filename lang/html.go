package lang

// HTML: vscode-html-language-server from vscode-langservers-extracted
// (the document's elements as symbols; diagnostics of its embedded
// <style> and <script>; rename of a tag with its closing tag).

func init() { Register(htmlLang) }

var htmlLang = &Language{
	Name:       "html",
	Display:    "HTML",
	Filetypes:  []string{"html"},
	Extensions: []string{".html", ".htm"},
	Servers: []ServerSpec{{
		Name: "vscode-html-language-server",
		Cmd:  []string{"vscode-html-language-server", "--stdio"},
		InitOptions: map[string]any{
			"provideFormatter":     true,
			"embeddedLanguages":    map[string]any{"css": true, "javascript": true},
			"configurationSection": []string{"html", "css", "javascript"},
		},
		// Each embedded language's diagnostics read their own section.
		Settings: map[string]any{
			"html":       map[string]any{"validate": map[string]any{"scripts": true, "styles": true}},
			"css":        map[string]any{"validate": true},
			"javascript": map[string]any{"validate": map[string]any{"enable": true}},
		},
	}},
}
