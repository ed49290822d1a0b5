package refactor

// The documents snapshots hold, kept by their whole text: a rename parses
// the snapshot of the file it was asked in while the server computes it
// (ahead.start), then its changeset parsed the same snapshot again once
// the server's edit came (a split into lines: 23 us on zap's logger.go,
// on the way to the preview), and the next call in the same file parsed
// it again. A document is a function of its text and line ending alone:
// the key is the whole text, compared byte by byte (no stamp trusted; the
// same string within a call compares at once), and each caller gets lines
// of its own (a copy of the slice, the strings shared).

import (
	"slices"

	"github.com/nvbridge/nvbridge/nvim"
	"github.com/nvbridge/nvbridge/preview"
)

const (
	// maxKeptDocs bounds the documents kept (the least recently used go
	// first): the files a few calls in a row read.
	maxKeptDocs = 4
	// maxKeptDocText bounds the texts of the documents kept, all together
	// (a larger one is split every time; the least recently used go
	// first): with their lines' headers, 16 bytes a line, well under
	// 1 MiB kept.
	maxKeptDocText = 256 << 10
)

// keptDocs are the documents kept, by line ending beside the text.
var keptDocs = textKept[bool, preview.Document]{max: maxKeptDocs, maxText: maxKeptDocText}

// snapshotDoc is the document a snapshot holds.
func snapshotDoc(s nvim.FileSnapshot) preview.Document {
	return parsedBuffer(s.Text, s.Loaded && s.FileFormat == "dos")
}

// parsedBuffer is preview.ParseBuffer(text, dos), split once for the
// same text and line ending while kept; the lines are the caller's own.
func parsedBuffer(text string, dos bool) preview.Document {
	doc := keptDocs.get(dos, text, func() preview.Document { return parseBuffer(text, dos) })
	doc.Lines = slices.Clone(doc.Lines)
	return doc
}

// parseBuffer is preview.ParseBuffer (a test counts the parses).
var parseBuffer = preview.ParseBuffer
