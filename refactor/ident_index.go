package refactor

// Which identifiers a workspace file names, kept between renames so that
// a file unchanged since is neither read nor lexed again: per file, a
// Bloom filter of its identifiers (strings and comments skipped, by its
// language's lexer) under the file's stamp (device, inode, size, mtime,
// ctime). A filter never answers no for an identifier the file names; a
// false yes (about 1 in 100) only costs the read the scan did before.
// A file found naming a renamed name keeps its identifiers, and its
// imports once a rename's first scan (namingFiles) parsed them.
// A file whose stamp is not settled (changed within a few seconds of
// the read, when a further change could leave the same times) is not
// kept: it is read every time until it is.

import (
	"hash/maphash"
	"math"
	"os"
	"sort"
	"sync"
	"time"
	"unsafe"

	"github.com/nvbridge/nvbridge/lang"
	"github.com/nvbridge/nvbridge/workspace"
)

// identFilter is a Bloom filter of identifiers.
type identFilter struct {
	bits []uint64
}

// identHashes is the number of bits set per identifier; about 10 bits
// an identifier keep false yeses near 1%.
const identHashes = 4

var identSeed = maphash.MakeSeed()

func newIdentFilter(text string, spans []lang.Span) identFilter {
	uniq := map[string]struct{}{}
	for _, sp := range spans {
		uniq[text[sp.Start:sp.End]] = struct{}{}
	}
	words := 1
	for words*64 < len(uniq)*10 {
		words *= 2
	}
	f := identFilter{bits: make([]uint64, words)}
	for w := range uniq {
		h1, h2 := identHash(w)
		for i := range uint64(identHashes) {
			b := (h1 + i*h2) & uint64(len(f.bits)*64-1)
			f.bits[b/64] |= 1 << (b % 64)
		}
	}
	return f
}

func identHash(w string) (uint64, uint64) {
	h := maphash.String(identSeed, w)
	return h, h>>32 | 1
}

// has reports whether w may be one of the identifiers (false: it is
// not).
func (f identFilter) has(w string) bool {
	return f.hasHashed(hashIdent(w))
}

// hashedIdent is an identifier with its hashes, made once for a scan of
// many files' filters.
type hashedIdent struct {
	w      string
	h1, h2 uint64
}

func hashIdent(w string) hashedIdent {
	h1, h2 := identHash(w)
	return hashedIdent{w, h1, h2}
}

// hasHashed is has(n.w).
func (f identFilter) hasHashed(n hashedIdent) bool {
	h1, h2 := n.h1, n.h2
	for i := range uint64(identHashes) {
		b := (h1 + i*h2) & uint64(len(f.bits)*64-1)
		if f.bits[b/64]&(1<<(b%64)) == 0 {
			return false
		}
	}
	return true
}

type identKey struct {
	abs  string
	lang *lang.Language
}

type identEntry struct {
	stamp  workspace.Stamp
	filter identFilter
	// spans are the file's identifiers, kept once a scan found the name
	// it looked for in the file (such a file is read again, not lexed).
	spans packedSpans
	// imports are the file's imports (its language's Imports.Parse), kept
	// once namingFiles parsed them (importsKept).
	imports     []lang.Import
	importsKept bool
	used        uint64
	// seen is the moment of the root's notifications (fileChanges) at
	// which a scan last confirmed stamp (the file's directories watched
	// before it was taken): while none names the file since, the next
	// scans take stamp as the file's without taking it again.
	seen workspace.Moment
}

func (e *identEntry) size() int {
	n := len(e.filter.bits)*8 + len(e.spans)*4
	for _, imp := range e.imports {
		n += int(unsafe.Sizeof(imp)) + len(imp.Path) + len(imp.Alias)
		for _, name := range imp.Names {
			n += int(unsafe.Sizeof(name)) + len(name)
		}
	}
	return n
}

// packedSpans are spans as start and end offsets in 32 bits each, in a
// slice of their exact length: 8 bytes a span where the lexer's []Span,
// 16 bytes a span in a slice grown by appends, held up to 32.
type packedSpans []uint32

// packSpans packs spans; nil when an offset does not fit in 32 bits.
func packSpans(spans []lang.Span) packedSpans {
	out := make(packedSpans, 2*len(spans))
	for i, sp := range spans {
		if sp.End > math.MaxUint32 {
			return nil
		}
		out[2*i], out[2*i+1] = uint32(sp.Start), uint32(sp.End)
	}
	return out
}

// names reports whether an identifier of text (whose identifiers p are)
// is name.
func (p packedSpans) names(text, name string) bool {
	for i := 0; i+1 < len(p); i += 2 {
		if int(p[i+1]-p[i]) == len(name) && text[p[i]:p[i+1]] == name {
			return true
		}
	}
	return false
}

func (p packedSpans) unpack() []lang.Span {
	out := make([]lang.Span, len(p)/2)
	for i := range out {
		out[i] = lang.Span{Start: int(p[2*i]), End: int(p[2*i+1])}
	}
	return out
}

// Bounds of the index: its bytes in all, and one file's filter and spans
// (a file with more identifiers is read and lexed every time).
const (
	maxIdentIndexBytes  = 16 << 20
	maxIdentFilterBytes = 64 << 10
	maxIdentSpans       = 32 << 10
)

var identIndex = struct {
	sync.Mutex
	m     map[identKey]*identEntry
	bytes int
	clock uint64
}{m: map[identKey]*identEntry{}}

// readNaming returns the text of the file at abs (of language l) and its
// identifiers when it may name name as one; ok is false when it
// certainly does not (its filter says so) or cannot be read. The text is
// the file's as read now, the identifiers lexed from it (or kept from
// when the file had the same settled stamp, the stamp the same after
// this read too).
func readNaming(l *lang.Language, abs, name string) (text string, spans []lang.Span, ok bool) {
	text, spans, kept, _, ok, _ := readNamingEntry(l, abs, hashIdent(name), time.Now(), nil, workspace.Moment{})
	if kept != nil {
		spans = kept.unpack()
	}
	return text, spans, ok
}

// readNamingEntry is readNaming, with the identifiers kept by the index
// (packed, spans nil) when they were, and the index's entry of the file
// when it is the entry of the text read (nil otherwise); now is a time
// before the call (a stamp settled then is settled), name hashed once for
// a scan. With changes (the root's notifications, drained at the scan's
// moment at), a file whose entry was confirmed at a moment no
// notification of it followed is taken as it was then, without a stamp;
// another is watched before its stamp is taken, and its entry confirmed
// at at. followed: the notifications tell the file's changes after at
// (confirmed, or watched before it was read).
func readNamingEntry(l *lang.Language, abs string, name hashedIdent, now time.Time, changes *workspace.Changes, at workspace.Moment) (text string, spans []lang.Span, packed packedSpans, entry *identEntry, ok, followed bool) {
	key := identKey{abs: abs, lang: l}
	var stamp workspace.Stamp
	stamped, confirmed, watched := false, false, false
	if changes != nil {
		identIndex.Lock()
		e := identIndex.m[key]
		var seen workspace.Moment
		if e != nil {
			stamp, seen = e.stamp, e.seen
		}
		identIndex.Unlock()
		confirmed = e != nil && changes.Unchanged(abs, seen)
		stamped = confirmed
	}
	if !confirmed {
		watched = changes != nil && changes.Watch(abs)
		stamp, stamped = stampPath(abs, true)
	}
	followed = confirmed || watched
	stamped = stamped && !stamp.Missing
	if stamped {
		identIndex.Lock()
		e := identIndex.m[key]
		if e != nil && e.stamp == stamp {
			identIndex.clock++
			e.used = identIndex.clock
			if watched {
				e.seen = at
			}
			has, kept := e.filter.hasHashed(name), e.spans
			identIndex.Unlock()
			if !has {
				return "", nil, nil, nil, false, followed
			}
			if text, ok = readText(abs); !ok {
				return "", nil, nil, nil, false, followed
			}
			same := int64(len(text)) == stamp.Size && unchangedSince(abs, stamp)
			if kept != nil && same {
				return text, nil, kept, e, true, followed
			}
			spans = lang.Identifiers(l, text)
			if same && len(spans) <= maxIdentSpans {
				identIndex.Lock()
				imports, importsKept := e.imports, e.importsKept
				identIndex.Unlock()
				ne := &identEntry{stamp: stamp, filter: e.filter, spans: packSpans(spans), imports: imports, importsKept: importsKept}
				if watched || confirmed {
					ne.seen = at
				}
				storeIdent(key, ne)
				return text, spans, nil, ne, true, followed
			}
			if same {
				return text, spans, nil, e, true, followed
			}
			return text, spans, nil, nil, true, followed
		}
		identIndex.Unlock()
	}
	if text, ok = readText(abs); !ok {
		return "", nil, nil, nil, false, followed
	}
	if !stamped || !stamp.Settled(now) || int64(len(text)) != stamp.Size {
		return text, nil, nil, nil, true, followed
	}
	spans = lang.Identifiers(l, text)
	e := &identEntry{stamp: stamp, filter: newIdentFilter(text, spans)}
	if watched {
		e.seen = at
	}
	if e.filter.hasHashed(name) && len(spans) <= maxIdentSpans {
		e.spans = packSpans(spans)
	}
	if len(e.filter.bits)*8 <= maxIdentFilterBytes && unchangedSince(abs, stamp) {
		storeIdent(key, e)
		return text, spans, nil, e, true, followed
	}
	return text, spans, nil, nil, true, followed
}

// fileChanges is the notifications of the files under the root dir
// (workspace.Changes), one per root for the process: namingFiles, every
// rename's first scan, stamps only the files they named since the last
// scan (a stamp is a system call: on zap, 117 of them took 0.25 to
// 0.4 ms of every rename).
func fileChanges(dir string) *workspace.Changes {
	rootChanges.Lock()
	defer rootChanges.Unlock()
	c := rootChanges.m[dir]
	if c == nil {
		if len(rootChanges.m) >= maxRootChanges {
			for d, old := range rootChanges.m {
				old.Close()
				delete(rootChanges.m, d)
			}
		}
		c = workspace.NewChanges(dir)
		rootChanges.m[dir] = c
	}
	return c
}

var rootChanges = struct {
	sync.Mutex
	m map[string]*workspace.Changes
}{m: map[string]*workspace.Changes{}}

// maxRootChanges bounds the roots followed (a process serves one; tests
// make many).
const maxRootChanges = 8

// stampPath is workspace.StampPath (a test counts the stamps a scan
// takes).
var stampPath = workspace.StampPath

// unchangedSince reports whether abs still has stamp (a file read
// between two equal settled stamps is the one they stamp).
func unchangedSince(abs string, stamp workspace.Stamp) bool {
	s, ok := workspace.StampPath(abs, true)
	return ok && s == stamp
}

// readText is the text of the file at abs, read once: the bytes read
// become the string (nothing else holds them), not a copy of them.
func readText(abs string) (string, bool) {
	data, err := os.ReadFile(abs)
	if err != nil {
		return "", false
	}
	return unsafe.String(unsafe.SliceData(data), len(data)), true
}

// importsOf is l's imports of text, the text of the file at abs whose
// index entry is e (nil: none, they are parsed), parsed once per entry.
func importsOf(l *lang.Language, abs string, e *identEntry, text string) []lang.Import {
	if e != nil {
		identIndex.Lock()
		imports, kept := e.imports, e.importsKept
		identIndex.Unlock()
		if kept {
			return imports
		}
	}
	imports := l.Imports.Parse(text)
	if e != nil {
		identIndex.Lock()
		if identIndex.m[identKey{abs: abs, lang: l}] == e && !e.importsKept {
			identIndex.bytes -= e.size()
			e.imports, e.importsKept = imports, true
			identIndex.bytes += e.size()
		} else {
			e.imports, e.importsKept = imports, true // no longer indexed: not counted
		}
		identIndex.Unlock()
	}
	return imports
}

// storeIdent keeps e, dropping the least recently used entries past
// maxIdentIndexBytes.
func storeIdent(key identKey, e *identEntry) {
	identIndex.Lock()
	defer identIndex.Unlock()
	if old := identIndex.m[key]; old != nil {
		identIndex.bytes -= old.size()
	}
	identIndex.clock++
	e.used = identIndex.clock
	identIndex.m[key] = e
	identIndex.bytes += e.size()
	if identIndex.bytes <= maxIdentIndexBytes {
		return
	}
	keys := make([]identKey, 0, len(identIndex.m))
	for k := range identIndex.m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return identIndex.m[keys[i]].used < identIndex.m[keys[j]].used })
	for _, k := range keys {
		if identIndex.bytes <= maxIdentIndexBytes*3/4 {
			break
		}
		identIndex.bytes -= identIndex.m[k].size()
		delete(identIndex.m, k)
	}
}
