package lang

// PHP: intelephense (free features: symbols, definitions, references,
// diagnostics; rename and implementations need its licence, so it does
// not offer them and nvbridge answers UNSUPPORTED naming it); rooted by
// composer.json.

import (
	"regexp"
	"strings"
)

func init() { Register(phpLang) }

var phpLang = &Language{
	Name:       "php",
	Display:    "PHP",
	Filetypes:  []string{"php"},
	Extensions: []string{".php"},
	Markers:    []string{"composer.json"},
	Servers: []ServerSpec{{
		Name: "intelephense",
		Cmd:  []string{"intelephense", "--stdio"},
		// No telemetry (a workspace may reach no such host). Its index
		// goes under the user's config folder ($XDG_CONFIG_HOME/intelephense:
		// the test's own folder under testenv.Isolate).
		Settings: map[string]any{"intelephense": map[string]any{"telemetry": map[string]any{"enabled": false}}},
	}},
	Ident: Ident{
		Keywords: WordSet(`abstract and array as break callable case catch class clone const continue declare
			default do echo else elseif empty enddeclare endfor endforeach endif endswitch endwhile enum eval exit
			extends final finally fn for foreach function global goto if implements include include_once instanceof
			insteadof interface isset list match namespace new or print private protected public readonly require
			require_once return static switch throw trait try unset use var while xor yield`),
		Dollar: true,
	},
	TestFile: regexp.MustCompile(`Test\.php$`),
	Exported: func(name, declLine, _ string) bool {
		line := strings.TrimSpace(declLine)
		return !strings.HasPrefix(line, "private ") && !strings.HasPrefix(line, "protected ")
	},
}
