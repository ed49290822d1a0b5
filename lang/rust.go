package lang

// Rust: rust-analyzer when installed (not part of the test set up: see
// README). Identifier rules are the generic ones.

func init() { Register(rustLang) }

var rustLang = &Language{
	Name:       "rust",
	Display:    "Rust",
	Filetypes:  []string{"rust"},
	Extensions: []string{".rs"},
	Markers:    []string{"Cargo.toml"},
	Servers:    []ServerSpec{{Name: "rust-analyzer", Cmd: []string{"rust-analyzer"}}},
}
