package refactor

import (
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/nvbridge/nvbridge/preview"
)

// BenchmarkConvertEdits40kOneLine: a server's 40,000 edits on one line of
// 1 MB (an "a" every 25 bytes, a multibyte character and an emoji between),
// converted from each encoding to byte columns (issue 8: quadratic work).
func BenchmarkConvertEdits40kOneLine(b *testing.B) {
	const n = 40_000
	const unit = "a" + "bcdefghijklmnopqrs" + "é" + "🎉" // 25 bytes
	doc := preview.Document{Lines: []string{strings.Repeat(unit, n)}, EOL: "\n", FinalNewline: true}
	for _, enc := range []preview.Encoding{preview.UTF8, preview.UTF16, preview.UTF32} {
		per := uint32(preview.ByteToUnits(unit, len(unit), enc))
		text := "A"
		edits := make([]wireTextEdit, n)
		for i := range edits {
			// Descending, as some servers send them.
			at := uint32(n-1-i) * per
			edits[i] = wireTextEdit{Range: &protocol.Range{Start: protocol.Position{Character: at}, End: protocol.Position{Character: at + 1}}, NewText: &text}
		}
		b.Run(string(enc), func(b *testing.B) {
			for b.Loop() {
				out, err := convertEdits(doc, edits, enc)
				if err != nil {
					b.Fatal(err)
				}
				if out[0].StartCol != (n-1)*len(unit) {
					b.Fatalf("last edit at byte %d", out[0].StartCol)
				}
			}
		})
	}
}
