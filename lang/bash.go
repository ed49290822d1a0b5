package lang

// Bash (and POSIX sh): bash-language-server, whose diagnostics are
// shellcheck's (make deps installs both); rooted at the workspace. No debug
// adapter installs from the reachable registries (bashdb is not in Debian
// bookworm, the VS Code Bash Debug adapter is not on npm).

import "regexp"

func init() { Register(bashLang) }

var bashLang = &Language{
	Name:       "bash",
	Display:    "Bash",
	Filetypes:  []string{"sh", "bash"},
	Extensions: []string{".sh", ".bash"},
	Servers: []ServerSpec{{
		Name: "bash-language-server",
		Cmd:  []string{"bash-language-server", "start"},
		// shellcheck from PATH (.deps/bin first under make); the
		// background analysis reads the workspace's scripts so references
		// and definitions cross files.
		Settings: map[string]any{"bashIde": map[string]any{"shellcheckPath": "shellcheck", "backgroundAnalysisMaxFiles": 500}},
	}},
	Ident: Ident{
		Keywords: WordSet(`if then else elif fi case esac for select while until do done in function time
			coproc`),
		HashComments: true,
	},
	TestFile: regexp.MustCompile(`(^|/)test_[^/]*\.(ba)?sh$|_test\.(ba)?sh$|\.bats$`),
}
