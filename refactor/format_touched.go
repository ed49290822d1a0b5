package refactor

// The project's formatter on what a refactoring touched: a server's edit
// (gopls's rename changes a name's length, and gofmt aligns the fields and
// comments around it) is formatted where the file was formatted before; a
// file that was not keeps its other lines as they were, only the lines the
// change made formatted.

import (
	"github.com/nvbridge/nvbridge/lang"
	"github.com/nvbridge/nvbridge/preview"
)

// formatTouched formats each edited or created file of cs whose language
// has a formatter (lang.Language.Format): the whole file when it was clean
// before, else the lines the change touched.
func formatTouched(cs preview.Changeset) (preview.Changeset, error) {
	texts := map[string]string{}
	for _, fc := range cs.Files {
		if fc.Kind != preview.OpEdit && fc.Kind != preview.OpCreate {
			continue
		}
		l := lang.ForFile(fc.Path)
		if l == nil || l.Format == nil {
			continue
		}
		doc, err := preview.Apply(fc.Old, fc.Edits)
		if err != nil {
			continue
		}
		after := doc.Text()
		formatted, err := l.Format(after)
		if err != nil || formatted == after {
			continue // it does not parse: the server's edit stays as it is
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
			texts[fc.Path] = formatted
		}
	}
	if len(texts) == 0 {
		return cs, nil
	}
	return withTexts(cs, texts)
}
