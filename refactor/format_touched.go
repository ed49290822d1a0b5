package refactor

// The project's formatter on what a refactoring touched: a server's edit
// (gopls's rename changes a name's length, and gofmt aligns the fields and
// comments around it) is formatted where the file was formatted before; a
// file that was not keeps its other lines as they were, only the lines the
// change made formatted.

import (
	"runtime"
	"sync"

	"github.com/nvbridge/nvbridge/internal/safego"
	"github.com/nvbridge/nvbridge/lang"
	"github.com/nvbridge/nvbridge/preview"
)

// formatTouched formats each edited or created file of cs whose language
// has a formatter (lang.Language.Format): the whole file when it was clean
// before, else the lines the change touched.
func formatTouched(cs preview.Changeset) (preview.Changeset, error) {
	texts := formattedTexts(cs, "", nil)
	if len(texts) == 0 {
		return cs, nil
	}
	return withTexts(cs, texts)
}

// formattedTexts are the texts formatTouched gives the files of cs it
// changes, by path (withTexts makes them the changeset's), files formatted
// side by side. With renamed (a rename's new name), a file whose edits
// only put renamed in place of identifiers where the language's formatter
// lays nothing out by width (lang.Language.FormatKeeps: most of a Go
// rename's uses) is not formatted: formatted before, it still is; a file
// that was not keeps its lines as they were, the name aside. ready, when
// not nil, gives a FormatKeeps made ahead of a file's text (nil: none).
func formattedTexts(cs preview.Changeset, renamed string, ready func(path string, doc preview.Document) func([]int, string) bool) map[string]string {
	var texts map[string]string // made for the first text formatted
	var mu sync.Mutex
	var wg sync.WaitGroup
	formats := 0
	for _, fc := range cs.Files {
		if formattable(fc) {
			formats++
		}
	}
	// Files formatted side by side, as many as there are cores; one file
	// (most renames) is formatted here, with neither.
	var slots chan struct{}
	if formats > 1 {
		slots = make(chan struct{}, runtime.GOMAXPROCS(0))
	}
	for _, fc := range cs.Files {
		if !formattable(fc) {
			continue
		}
		l := lang.ForFile(fc.Path)
		wg.Add(1)
		if slots != nil {
			slots <- struct{}{}
		}
		format := func() {
			defer func() {
				if slots != nil {
					<-slots
				}
				wg.Done()
			}()
			if renamed != "" && l.FormatKeeps != nil && fc.Kind == preview.OpEdit {
				if at, ok := renamedAt(fc, renamed); ok {
					var keeps func([]int, string) bool
					if ready != nil {
						keeps = ready(fc.Path, fc.Old)
					}
					if keeps == nil {
						text := fc.Old.Mapper().Text()
						keeps = l.FormatKeeps(text, identAround(text, at[0]))
					}
					if keeps(at, renamed) {
						return
					}
				}
			}
			doc, err := preview.Apply(fc.Old, fc.Edits)
			if err != nil {
				return
			}
			after := doc.Text()
			formatted, err := l.Format(after)
			if err != nil || formatted == after {
				return // it does not parse: the server's edit stays as it is
			}
			orig := ""
			if fc.Kind == preview.OpEdit {
				orig = fc.Old.Text()
			}
			if orig != "" {
				if clean, err := l.Format(orig); err != nil || clean != orig {
					formatted = formatInside(orig, after, formatted)
				}
			}
			if formatted != after {
				mu.Lock()
				if texts == nil {
					texts = map[string]string{}
				}
				texts[fc.Path] = formatted
				mu.Unlock()
			}
		}
		if formats == 1 {
			// One file (most renames): formatted here, not handed to a
			// goroutine to be waited for.
			_ = safego.Call("formatting a changed file", format)
			continue
		}
		safego.Go("formatting a changed file", format, nil)
	}
	wg.Wait()
	return texts
}

// formattable reports whether formattedTexts formats fc: an edit or a
// creation in a language with a formatter.
func formattable(fc preview.FileChange) bool {
	if fc.Kind != preview.OpEdit && fc.Kind != preview.OpCreate {
		return false
	}
	l := lang.ForFile(fc.Path)
	return l != nil && l.Format != nil
}

// renamedAt is the byte offsets in fc's old text ("\n" line breaks) of
// the identifiers fc's edits replace, when each edit puts renamed in
// place of one whole identifier on its line (ok false otherwise).
func renamedAt(fc preview.FileChange, renamed string) ([]int, bool) {
	if len(fc.Edits) == 0 {
		return nil, false
	}
	at := make([]int, 0, len(fc.Edits))
	// The offset of line l, counted from the last one asked (the edits
	// come in order): a Mapper's index of every line's offset was made
	// for the nine of a rename on zap's logger.go (3 KB of its 35, on
	// the way to the preview).
	l, lineOff := 0, 0
	for _, e := range fc.Edits {
		if e.NewText != renamed || e.StartLine != e.EndLine || e.StartLine < 0 || e.StartLine >= len(fc.Old.Lines) {
			return nil, false
		}
		line := fc.Old.Lines[e.StartLine]
		if e.StartCol < 0 || e.StartCol >= e.EndCol || e.EndCol > len(line) || identAround(line, e.StartCol) != line[e.StartCol:e.EndCol] {
			return nil, false
		}
		if e.StartLine < l {
			l, lineOff = 0, 0
		}
		for ; l < e.StartLine; l++ {
			lineOff += len(fc.Old.Lines[l]) + 1
		}
		at = append(at, lineOff+e.StartCol)
	}
	return at, true
}
