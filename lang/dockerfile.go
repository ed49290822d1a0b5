package lang

// Dockerfile: dockerfile-language-server-nodejs (instructions as symbols,
// the build's validation as diagnostics, ARG/ENV variables and build
// stages: definitions, references and rename). Its files are named, not
// extended: ForFile knows Dockerfile and Containerfile by name through
// Neovim's filetype detection (ForFiletype); .dockerfile by extension.

func init() { Register(dockerfileLang) }

var dockerfileLang = &Language{
	Name:       "dockerfile",
	Display:    "Dockerfile",
	Filetypes:  []string{"dockerfile"},
	Extensions: []string{".dockerfile"},
	Servers: []ServerSpec{{
		Name: "docker-langserver",
		Cmd:  []string{"docker-langserver", "--stdio"},
	}},
	Ident: Ident{HashComments: true},
}
