package lang

// Rust: rust-analyzer when installed (not part of the test set up: see
// README). Identifier rules are the generic ones.

func init() { Register(Rust) }

// Rust is Rust: registered from init; a feature's part for a language is
// registered under its value (a table keyed by *Language), never by name.
var Rust = &Language{
	Name:       "rust",
	Display:    "Rust",
	Filetypes:  []string{"rust"},
	Extensions: []string{".rs"},
	Markers:    []string{"Cargo.toml"},
	Servers:    []ServerSpec{{Name: "rust-analyzer", Cmd: []string{"rust-analyzer"}}},
}
