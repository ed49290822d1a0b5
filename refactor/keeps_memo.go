package refactor

// The FormatKeeps of the files renames were asked in, kept between
// renames: a rename parses the file it was asked in (ahead.locate, while
// the server computes the rename) to tell whether gofmt would leave the
// renamed text as it is, and the next rename of the same name in the
// same file (a preview asked again, or applied after its preview) parsed
// it again: on zap's logger.go, about 0.45 ms of CPU a rename, taken from
// Neovim and gopls while they answer it. The key is the whole text
// (compared byte by byte, after its length), the language and the name:
// no stamp is trusted, a text changed in any byte is parsed again, and
// FormatKeeps is a function of those alone. Its answers are not kept: a
// rename asks each new name once, and an answer kept for the offsets and
// name asked last only served the same rename asked again.

import "github.com/nvbridge/nvbridge/lang"

const (
	// maxKeptParses bounds the parses kept (the least recently used go
	// first): the files a few renames in a row were asked in.
	maxKeptParses = 4
	// maxKeptParseText bounds the texts of the parses kept, all together
	// (a larger one is parsed every time; the least recently used go
	// first): a parse holds its syntax tree, 5 to 8 times its text's size
	// (go/parser on the standard library's files), and the memory goal
	// counts every MiB: at most about 2 MiB kept.
	maxKeptParseText = 256 << 10
)

// keptParses are the parses kept, by language and old name beside the
// text.
var keptParses = textKept[parseKey, func(at []int, renamed string) bool]{max: maxKeptParses, maxText: maxKeptParseText}

type parseKey struct {
	l    *lang.Language
	name string
}

// formatKeepsOf is l.FormatKeeps(text, name), parsed once for the same
// language, text and name while kept.
func formatKeepsOf(l *lang.Language, text, name string) func(at []int, renamed string) bool {
	return keptParses.get(parseKey{l, name}, text, func() func(at []int, renamed string) bool {
		return l.FormatKeeps(text, name)
	})
}
