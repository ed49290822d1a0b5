package lang

// YAML: yaml-language-server (syntax and schema diagnostics, symbols,
// definitions of aliases at their anchors). The schema store is off: it
// is fetched from the network, which a workspace may not reach.

func init() { Register(yamlLang) }

var yamlLang = &Language{
	Name:       "yaml",
	Display:    "YAML",
	Filetypes:  []string{"yaml"},
	Extensions: []string{".yaml", ".yml"},
	Servers: []ServerSpec{{
		Name: "yaml-language-server",
		Cmd:  []string{"yaml-language-server", "--stdio"},
		Settings: map[string]any{"yaml": map[string]any{
			"validate": true, "hover": true, "completion": true,
			"schemaStore": map[string]any{"enable": false},
		}},
	}},
	Ident: Ident{HashComments: true},
}
