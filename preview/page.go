package preview

import (
	"strings"
	"unicode/utf8"
)

// DiffPage returns the part of diff from offset on that fits in max bytes,
// and the offset where the rest starts (len(diff) when nothing is left).
// A page that cannot hold the rest ends where a file or a hunk starts, else
// after a line, else between two characters, whichever comes first of
// those in the page's second half: a page is never less than half full, so
// the headers before a megabyte-long line come with its start. offset must
// be 0..len(diff) and max positive.
func DiffPage(diff string, offset, max int) (page string, next int) {
	rest := diff[offset:]
	if len(rest) <= max {
		return rest, len(diff)
	}
	window := rest[:max]
	half := (max + 1) / 2
	end := 0
	for _, start := range []string{"\ndiff --git ", "\n@@ "} {
		if i := strings.LastIndex(window, start); i >= 0 && i+1 > end {
			end = i + 1
		}
	}
	if end < half {
		end = strings.LastIndexByte(window, '\n') + 1
	}
	if end < half {
		// A line longer than half the page.
		end = max
		for end > 0 && !utf8.RuneStart(rest[end]) {
			end--
		}
		if end == 0 {
			// max is shorter than one character: give that character.
			_, end = utf8.DecodeRuneInString(rest)
		}
	}
	return rest[:end], offset + end
}
