package refactor

// The refactorings with a part per language (move_symbol, inline_function,
// change_signature) keep a table keyed by the language: each language's
// part is one file that registers itself from init under its lang.Language
// (move_go.go: movers.register(lang.Go, ...)), and the shared code looks
// the part up, never a language's name. Adding a language's move or inline
// is one file.

import (
	"strings"

	"github.com/nvbridge/nvbridge/lang"
)

// byLanguage is one refactoring's parts, one per language.
type byLanguage[T any] map[*lang.Language]T

// register adds l's part; registering a language twice is a programming
// error, caught by any test run.
func (t byLanguage[T]) register(l *lang.Language, part T) {
	if _, dup := t[l]; dup {
		panic("refactor: a part for " + l.Name + " is registered twice")
	}
	t[l] = part
}

// languages names the languages with a part, in the registry's order
// ("Go, Python and TypeScript/JavaScript"), for messages.
func (t byLanguage[T]) languages() string {
	var names []string
	for _, l := range lang.All() {
		if _, ok := t[l]; ok {
			names = append(names, l.DisplayName())
		}
	}
	switch len(names) {
	case 0:
		return "no language"
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
