package refactor

// The texts of the files renames were asked in, as ahead.locate read them
// from the disk, kept while the root's notifications (fileChanges) say
// nothing happened to the file since: a rename asked again in the same
// file (a preview asked again, or another name in the same file) read it
// whole once more on its way to the server (on zap's logger.go, ten
// system calls and a copy of its 11 KB, taken from Neovim while it starts
// the request). A text is kept only when the file was watched before it
// was read (workspace.Changes.Watch: a regular file on a local file
// system), and is taken again only while no notification named the file
// after the moment it was read at; no stamp or time is trusted. The text
// is a guess anyway: its parse is used only for the buffer's very text
// (parsedAs).

import (
	"sync"

	"github.com/nvbridge/nvbridge/workspace"
)

// maxDiskTexts bounds the texts kept (the files the last renames were
// asked in; the least recently read go first), and maxDiskText the size
// of one (a larger file is read every time).
const (
	maxDiskTexts = 4
	maxDiskText  = maxKeptParseText
)

type keptDiskText struct {
	text string
	at   workspace.Moment
	used uint64
}

var diskTexts = struct {
	sync.Mutex
	m     map[string]*keptDiskText
	clock uint64
}{m: map[string]*keptDiskText{}}

// readDiskText is readText (a test counts the reads).
var readDiskText = readText

// diskText is the text of the file at abs under the root dir, as on the
// disk now: the text kept when nothing happened to the file since it was
// read, else read (and kept, when the notifications follow the file).
func diskText(dir, abs string) (string, bool) {
	changes := fileChanges(dir)
	at := changes.Begin() // drained: what happened before now is told
	diskTexts.Lock()
	kept := diskTexts.m[abs]
	diskTexts.Unlock()
	if kept != nil && changes.Unchanged(abs, kept.at) {
		diskTexts.Lock()
		diskTexts.clock++
		kept.used = diskTexts.clock
		diskTexts.Unlock()
		return kept.text, true
	}
	// Watched before it is read: a change after the read is told.
	watched := at.OK() && changes.Watch(abs)
	text, ok := readDiskText(abs)
	if !ok || !watched || len(text) > maxDiskText {
		return text, ok
	}
	diskTexts.Lock()
	defer diskTexts.Unlock()
	if _, ok := diskTexts.m[abs]; !ok && len(diskTexts.m) >= maxDiskTexts {
		oldest := ""
		for p, k := range diskTexts.m {
			if oldest == "" || k.used < diskTexts.m[oldest].used {
				oldest = p
			}
		}
		delete(diskTexts.m, oldest)
	}
	diskTexts.clock++
	diskTexts.m[abs] = &keptDiskText{text: text, at: at, used: diskTexts.clock}
	return text, true
}
