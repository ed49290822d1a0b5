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
	"sync"

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

type keptDoc struct {
	text string
	dos  bool
	doc  preview.Document
}

// keptDocs are the documents kept, the most recently used first.
var keptDocs struct {
	sync.Mutex
	list []keptDoc
}

// snapshotDoc is the document a snapshot holds.
func snapshotDoc(s nvim.FileSnapshot) preview.Document {
	return parsedBuffer(s.Text, s.Loaded && s.FileFormat == "dos")
}

// parsedBuffer is preview.ParseBuffer(text, dos), split once for the
// same text and line ending while kept.
func parsedBuffer(text string, dos bool) preview.Document {
	if len(text) > maxKeptDocText {
		return parseBuffer(text, dos)
	}
	keptDocs.Lock()
	for i, k := range keptDocs.list {
		if k.dos == dos && k.text == text {
			copy(keptDocs.list[1:i+1], keptDocs.list[:i])
			keptDocs.list[0] = k
			keptDocs.Unlock()
			k.doc.Lines = slices.Clone(k.doc.Lines)
			return k.doc
		}
	}
	keptDocs.Unlock()
	doc := parseBuffer(text, dos)
	kept := doc
	kept.Lines = slices.Clone(doc.Lines)
	keptDocs.Lock()
	defer keptDocs.Unlock()
	if len(keptDocs.list) < maxKeptDocs {
		keptDocs.list = append(keptDocs.list, keptDoc{})
	}
	copy(keptDocs.list[1:], keptDocs.list[:len(keptDocs.list)-1])
	keptDocs.list[0] = keptDoc{text: text, dos: dos, doc: kept}
	total := 0
	for i, k := range keptDocs.list {
		if total += len(k.text); total > maxKeptDocText {
			clear(keptDocs.list[i:])
			keptDocs.list = keptDocs.list[:i]
			break
		}
	}
	return doc
}

// parseBuffer is preview.ParseBuffer (a test counts the parses).
var parseBuffer = preview.ParseBuffer
