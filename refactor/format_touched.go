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
	texts := formattedTexts(cs)
	if len(texts) == 0 {
		return cs, nil
	}
	return withTexts(cs, texts)
}

// formattedTexts are the texts formatTouched gives the files of cs it
// changes, by path (withTexts makes them the changeset's), files formatted
// side by side.
func formattedTexts(cs preview.Changeset) map[string]string {
	texts := map[string]string{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	slots := make(chan struct{}, runtime.GOMAXPROCS(0))
	for _, fc := range cs.Files {
		if fc.Kind != preview.OpEdit && fc.Kind != preview.OpCreate {
			continue
		}
		l := lang.ForFile(fc.Path)
		if l == nil || l.Format == nil {
			continue
		}
		wg.Add(1)
		slots <- struct{}{}
		safego.Go("formatting a changed file", func() {
			defer func() { <-slots; wg.Done() }()
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
				texts[fc.Path] = formatted
				mu.Unlock()
			}
		}, nil)
	}
	wg.Wait()
	return texts
}
