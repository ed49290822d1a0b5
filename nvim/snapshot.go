package nvim

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/neovim/go-client/msgpack"
	"github.com/neovim/go-client/nvim"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/internal/safego"
)

// FileSnapshot is a file as Neovim holds it at one moment: its loaded
// buffer, or the file on disk when no buffer holds it (lua/nvbridge/snapshot.lua:
// files).
type FileSnapshot struct {
	Path   string `msgpack:"path"`
	Exists bool   `msgpack:"exists"` // a regular file is on disk at Path
	IsDir  bool   `msgpack:"is_dir"`
	Loaded bool   `msgpack:"loaded"`

	// Text is what writing the buffer would produce (lines joined by the
	// fileformat's line ending, a final one when 'eol' is set), or the disk
	// content of a file that is not loaded; without a BOM either way (Bomb
	// says there was one). Parse it with preview.ParseDocument.
	Text string `msgpack:"text"`
	Bomb bool   `msgpack:"bomb"`
	// Disk is the file's content on disk, when asked for (WithDisk).
	Disk *string `msgpack:"disk"`
	// Fingerprint identifies the disk content of a file that is not loaded;
	// the apply step compares it to detect changes since the snapshot.
	Fingerprint string `msgpack:"fingerprint"`

	// Loaded buffers only.
	Bufnr       int `msgpack:"bufnr"`
	ChangedTick int `msgpack:"changedtick"`
	// LSPVersion is the document version language servers know, nil when
	// no server has the buffer open.
	LSPVersion *int `msgpack:"lsp_version"`
	Modified   bool `msgpack:"modified"`
	// UserModified: the unsaved changes are not all nvbridge\'s own.
	UserModified bool   `msgpack:"user_modified"`
	Modifiable   bool   `msgpack:"modifiable"`
	FileFormat   string `msgpack:"fileformat"`
	// FileEncoding is the encoding of the file on disk ('fileencoding'; for
	// a file not loaded, the one Neovim will pick from 'fileencodings').
	// Text is always UTF-8, as Neovim holds it.
	FileEncoding string `msgpack:"fileencoding"`
	LineCount    int    `msgpack:"line_count"`
	// EOL is the buffer's 'eol' option.
	EOL bool `msgpack:"eol"`
	// RenamedFrom is the file a pending nvbridge rename moves away from.
	RenamedFrom string `msgpack:"renamed_from"`
	// same: Neovim skipped the text, which the session's text cache holds.
	Same bool `msgpack:"same"`
	// fetch: Neovim left the text of a large buffer for Snapshot to read
	// (readLines).
	Fetch bool `msgpack:"fetch"`
	// delta: Neovim sent only the lines changed since the text the cache
	// holds (Known), for Snapshot to splice in (spliceLines).
	Delta *LineDelta `msgpack:"delta"`
	// diskText: a file not loaded whose text is its bytes on disk (UTF-8,
	// no BOM), which Snapshot reads (readDiskText).
	DiskText bool `msgpack:"disk_text"`
	// Parsed, with SnapshotOptions.Parsed, stands for Text (then empty): a
	// text never made, as the caller that remembered it parsed it
	// (RememberTextOf).
	Parsed any `msgpack:"-"`

	Err *LuaError `msgpack:"err"`
}

// SnapshotOptions say what Snapshot does besides reading.
type SnapshotOptions struct {
	// Reconcile loaded buffers with the disk first (buffers.lua: reconcile).
	Reconcile bool `msgpack:"reconcile"`
	// WithDisk also returns the disk content of loaded files.
	WithDisk bool `msgpack:"with_disk"`
	// known is what the text cache holds, so Neovim can skip those texts.
	Known map[string]bufferKey `msgpack:"known,omitempty"`
	// APILinesMin: buffers of at least this many lines are left for
	// Snapshot to read with nvim_buf_get_lines (apiLinesMin).
	APILinesMin int `msgpack:"api_lines_min,omitempty"`
	// TrackMin: Neovim follows the line changes of buffers of at least
	// this many bytes, the texts the cache may keep (smallTextMin).
	TrackMin int `msgpack:"track_min,omitempty"`
	// DiskText: Neovim leaves the text of a file not loaded that is its
	// bytes on disk for Snapshot to read (FileSnapshot.DiskText).
	DiskText bool `msgpack:"disk_text,omitempty"`
	// Parsed: the caller takes a remembered text's parse (FileSnapshot.
	// Parsed) in place of its text, which is then not made (an apply's
	// new text, remembered as lines: joining 100,000 of them is most of
	// what planning the next change of that buffer would cost). Ignored
	// within a snapshot memo, whose snapshots other callers read.
	Parsed bool `msgpack:"-"`
}

// LineDelta is what changed in a buffer since a text of it the cache holds
// (lua/nvbridge/buffers.lua: changes): lines [First, OldEnd) of that text,
// which had BaseCount lines, are now Lines.
type LineDelta struct {
	First     int      `msgpack:"first"`
	OldEnd    int      `msgpack:"old_end"`
	BaseCount int      `msgpack:"base_count"`
	Lines     []string `msgpack:"lines"`
}

// apiLinesMin is the size from which a buffer's text is read with
// nvim_buf_get_lines from Go rather than joined in Lua: the API serializes
// the lines straight from the buffer, without a Lua string per line (on
// 100,000 lines, 3-5 times faster; below a few thousand lines the extra
// round trip costs more than it saves).
const apiLinesMin = 5000

// Snapshot reads files (absolute paths, already confined to the workspace)
// as Neovim holds them, all in one call. A per-file problem (a reconcile
// CONFLICT, an unreadable file) is in that file's Err.
//
// Reading a large buffer out of Neovim is what a snapshot costs (about 10
// ms for 100,000 lines), so the session remembers the texts it read, keyed
// by buffer, changedtick and the options that shape the written bytes; a
// buffer still in that state is not read again, and one changed since is
// made from the remembered text and the lines Neovim says changed
// (spliceLines).
func (s *Session) Snapshot(ctx context.Context, paths []string, opts SnapshotOptions) ([]FileSnapshot, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	// Within a planned change, a file already snapshotted is not read
	// again (snapshot_memo.go).
	if memo := memoOf(ctx); memo != nil && !opts.WithDisk {
		opts.Parsed = false
		hits, misses := memo.lookup(paths)
		if len(hits) > 0 {
			read, err := s.snapshot(ctx, misses, opts)
			if err != nil {
				return nil, err
			}
			memo.store(misses, read)
			out := make([]FileSnapshot, len(paths))
			next := 0 // snapshot answers one entry per path, in order
			for i, p := range paths {
				if f, ok := hits[p]; ok {
					out[i] = f
				} else if next < len(read) {
					out[i] = read[next]
					next++
				}
			}
			return out, nil
		}
		read, err := s.snapshot(ctx, paths, opts)
		if err == nil {
			memo.store(paths, read)
		}
		return read, err
	}
	return s.snapshot(ctx, paths, opts)
}

func (s *Session) snapshot(ctx context.Context, paths []string, opts SnapshotOptions) ([]FileSnapshot, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	opts = s.snapshotOptions(paths, opts)
	var out []FileSnapshot
	if err := luaSnapshot.call(ctx, s, &out, paths, opts); err != nil {
		return nil, err
	}
	return s.finishSnapshot(ctx, out, opts)
}

// snapshotOptions is opts as snapshot.lua takes them for paths: with the
// texts the cache holds of them, and the sizes the cache goes by.
func (s *Session) snapshotOptions(paths []string, opts SnapshotOptions) SnapshotOptions {
	opts.Known = textCacheOf(s).known(paths)
	opts.APILinesMin = apiLinesMin
	opts.TrackMin = smallTextMin
	opts.DiskText = !opts.WithDisk
	return opts
}

// finishSnapshot makes snapshot.lua's answer out (asked with opts) the
// snapshots: the texts left to read from the disk or from Neovim's lines,
// those the cache holds, the texts kept.
func (s *Session) finishSnapshot(ctx context.Context, out []FileSnapshot, opts SnapshotOptions) ([]FileSnapshot, error) {
	cache := textCacheOf(s)
	snapshotAnswered(cache)
	if err := s.readDiskTexts(ctx, cache, out, opts); err != nil {
		return nil, err
	}
	// What the cache holds is taken first, every text kept after: a text
	// kept may evict another this snapshot has yet to take (a rename's
	// files, past maxSmallTexts).
	for i := range out {
		f := &out[i]
		if !f.Loaded || f.Err != nil {
			continue
		}
		if f.Delta != nil {
			f.Text, f.Fetch = spliceFromCache(cache, f, opts.Known[f.Path])
			f.Delta = nil
		}
		if f.Same {
			if text, parsed, ok := cache.lookup(f.Path, f.key(), opts.Parsed); ok {
				f.Text, f.Parsed = text, parsed // one of the two
				cache.taken.Add(1)
			} else {
				// Evicted since Neovim was told it was known (another
				// call's snapshot): read whole, at the same changedtick.
				f.Fetch = true
			}
		}
	}
	for i := range out {
		f := &out[i]
		if f.Loaded && f.Err == nil {
			if f.Fetch {
				cache.fetched.Add(1)
				if err := s.readLines(ctx, f); err != nil {
					return nil, err
				}
				f.Same = false
			}
			if !f.Same { // a text not taken from the cache is kept
				cache.put(f.Path, f.key(), f.Text)
			}
			f.Same = false
		}
		// A unix buffer whose every line ends in "\r" would read back as a
		// CRLF file with shorter lines: positions would not match Neovim's.
		// (A parse in place of the text passed it: RememberTextOf.)
		if f.Loaded && f.Err == nil && f.FileFormat != "dos" && allLinesEndInCR(f.Text) {
			f.Err = &LuaError{Code: string(apierr.Unsupported), Path: f.Path,
				Message: f.Path + " has fileformat=unix but every line ends in a carriage return; :set fileformat=dos in Neovim first"}
		}
		if f.Loaded && f.FileFormat == "mac" {
			f.Err = &LuaError{Code: string(apierr.Unsupported), Path: f.Path,
				Message: f.Path + " has fileformat=mac (CR line endings), which nvbridge does not edit"}
		}
	}
	return out, nil
}

// key is the cache's key of f's text (a loaded buffer's).
func (f *FileSnapshot) key() bufferKey {
	return bufferKey{f.Bufnr, f.ChangedTick, f.FileFormat, f.EOL, f.Bomb}
}

// snapshotAnswered is called once Neovim answered a snapshot, before its
// texts are taken from cache (tests evict them there).
var snapshotAnswered = func(*textCache) {}

// readDiskText reads a file's text for readDiskTexts (tests change the
// file first).
var readDiskText = os.ReadFile

// readDiskTexts reads the texts Neovim left to read from the disk
// (FileSnapshot.DiskText): a file's bytes now, when they are the ones
// Neovim read (its fingerprint); a file changed in between is
// snapshotted again, its text sent by Neovim this time.
func (s *Session) readDiskTexts(ctx context.Context, cache *textCache, out []FileSnapshot, opts SnapshotOptions) error {
	var again []int
	for i := range out {
		f := &out[i]
		if !f.DiskText {
			continue
		}
		f.DiskText = false
		data, err := readDiskText(f.Path)
		if err != nil || Fingerprint(data) != f.Fingerprint {
			again = append(again, i)
			continue
		}
		cache.diskRead.Add(1)
		f.Text = unsafe.String(unsafe.SliceData(data), len(data)) // the bytes read are the text's alone
	}
	if len(again) == 0 {
		return nil
	}
	cache.diskAgain.Add(int64(len(again)))
	paths := make([]string, len(again))
	for k, i := range again {
		paths[k] = out[i].Path
	}
	opts.DiskText = false
	var read []FileSnapshot
	if err := luaSnapshot.call(ctx, s, &read, paths, opts); err != nil {
		return err
	}
	if len(read) != len(again) {
		return fmt.Errorf("snapshot: %d files read again, %d answered", len(again), len(read))
	}
	for k, i := range again {
		out[i] = read[k]
	}
	return nil
}

// readLines fills f.Text from the buffer's lines, read with
// nvim_buf_get_lines in one atomic call with its changedtick: the text is
// the snapshot's only if the tick is still the one the snapshot saw (else
// the user typed in between: CONFLICT, nothing is applied).
func (s *Session) readLines(ctx context.Context, f *FileSnapshot) error {
	text := joinedLines{nl: "\n"}
	if f.FileFormat == "dos" {
		text.nl = "\r\n"
	}
	var tick int
	err := s.bounded(ctx, func() error {
		b := s.v.NewBatch()
		b.BufferOffset(nvim.Buffer(f.Bufnr), f.LineCount, &text.size)
		b.Request("nvim_buf_get_lines", &text, nvim.Buffer(f.Bufnr), 0, -1, false)
		b.BufferVar(nvim.Buffer(f.Bufnr), "changedtick", &tick)
		return b.Execute()
	})
	if err != nil {
		return err
	}
	if tick != f.ChangedTick {
		return apierr.Errorf(apierr.Conflict, "retry; the buffer was being edited in Neovim",
			"%s changed while it was read (changedtick %d, then %d)", f.Path, f.ChangedTick, tick)
	}
	if f.EOL {
		text.b.WriteString(text.nl)
	}
	f.Text, f.Fetch = text.b.String(), false
	return nil
}

// BufferBytes reads what writing buffer bufnr produces: its lineCount lines
// joined by nl, nl after the last when eol, after bom (a save's bytes, for
// the disk commit, when Lua leaves them to Go: apply.lua's Lua strings for
// 100,000 lines cost it 30 ms and 9 MB of garbage). Read with
// nvim_buf_get_lines, serialized straight from the buffer, in one atomic
// call with its changedtick: the bytes are the buffer's at changedtick,
// else CONFLICT.
func (s *Session) BufferBytes(ctx context.Context, bufnr, changedtick, lineCount int, nl string, eol bool, bom string) ([]byte, error) {
	out := linesBytes{nl: nl, head: bom}
	var tick int
	err := s.bounded(ctx, func() error {
		b := s.v.NewBatch()
		b.BufferOffset(toBuffer(bufnr), lineCount, &out.size)
		b.Request("nvim_buf_get_lines", &out, toBuffer(bufnr), 0, -1, true)
		b.BufferVar(toBuffer(bufnr), "changedtick", &tick)
		return b.Execute()
	})
	if err != nil {
		return nil, err
	}
	if tick != changedtick || out.lines != lineCount {
		return nil, apierr.Errorf(apierr.Conflict, "retry; the buffer was being edited in Neovim",
			"buffer %d changed while it was written (changedtick %d, then %d; %d lines, then %d)", bufnr, changedtick, tick, lineCount, out.lines)
	}
	if eol {
		out.b = append(out.b, nl...)
	}
	return out.b, nil
}

// linesBytes decodes nvim_buf_get_lines' answer into head and the lines
// joined by nl, as bytes, in one allocation of the buffer's size (size:
// nvim_buf_get_offset, read first in the same batch).
type linesBytes struct {
	nl, head    string
	size, lines int
	b           []byte
}

func (j *linesBytes) UnmarshalMsgPack(d *msgpack.Decoder) error {
	return eachLine(d, func(n int) {
		j.lines = n
		j.b = make([]byte, 0, len(j.head)+j.size+n*(len(j.nl)-1)+len(j.nl))
		j.b = append(j.b, j.head...)
	}, func(i int, line []byte) {
		if i > 0 {
			j.b = append(j.b, j.nl...)
		}
		j.b = append(j.b, line...)
	})
}

// eachLine walks nvim_buf_get_lines' answer: begin is told how many lines
// there are, then line is given each one's bytes (valid until the next).
func eachLine(d *msgpack.Decoder, begin func(n int), line func(i int, b []byte)) error {
	if d.Type() != msgpack.ArrayLen {
		return fmt.Errorf("nvim_buf_get_lines answered %v, not an array", d.Type())
	}
	n := d.Len()
	begin(n)
	for i := range n {
		if err := d.Unpack(); err != nil {
			return err
		}
		if t := d.Type(); t != msgpack.String && t != msgpack.Binary {
			return fmt.Errorf("nvim_buf_get_lines answered a line of type %v", t)
		}
		line(i, d.BytesNoCopy())
	}
	return nil
}

// joinedLines decodes nvim_buf_get_lines' answer straight into the lines
// joined by nl, in one allocation of the buffer's size (nvim_buf_get_offset,
// read first in the same batch): the reflection decoder made a slice of
// every line, which a second pass then joined.
type joinedLines struct {
	nl   string
	size int
	b    strings.Builder
}

func (j *joinedLines) UnmarshalMsgPack(d *msgpack.Decoder) error {
	return eachLine(d, func(n int) {
		j.b.Grow(j.size + n*(len(j.nl)-1) + len(j.nl))
	}, func(i int, line []byte) {
		if i > 0 {
			j.b.WriteString(j.nl)
		}
		j.b.Write(line)
	})
}

// spliceFromCache makes f's text from the cached text at known and the
// lines Neovim says changed since; when they do not fit that text (or the
// cache let it go) it answers fetch: read the buffer whole.
func spliceFromCache(cache *textCache, f *FileSnapshot, known bufferKey) (text string, fetch bool) {
	cached, ok := cache.get(f.Path, known)
	if !ok {
		return "", true
	}
	nl := "\n"
	if f.FileFormat == "dos" {
		nl = "\r\n"
	}
	text, ok = spliceLines(cached, nl, f.EOL, *f.Delta, f.LineCount)
	if ok {
		cache.spliced.Add(1)
	}
	return text, !ok
}

// spliceLines replaces lines [d.First, d.OldEnd) of text (lines joined by
// nl, a final nl when eol) with d.Lines. It answers false, and no text,
// when text does not have d.BaseCount lines or the result would not have
// lineCount: then the delta does not describe this text.
func spliceLines(text, nl string, eol bool, d LineDelta, lineCount int) (string, bool) {
	body := text
	if eol {
		if !strings.HasSuffix(body, nl) {
			return "", false
		}
		body = body[:len(body)-len(nl)]
	}
	if d.First < 0 || d.OldEnd < d.First || d.OldEnd > d.BaseCount || d.BaseCount-(d.OldEnd-d.First)+len(d.Lines) != lineCount {
		return "", false
	}
	if strings.Count(body, nl)+1 != d.BaseCount {
		return "", false
	}
	// The byte offsets where lines First and OldEnd start (when they are
	// lines of text).
	var firstAt, oldEndAt int
	for line, off := 0, 0; line <= d.OldEnd && line < d.BaseCount; line++ {
		if line == d.First {
			firstAt = off
		}
		if line == d.OldEnd {
			oldEndAt = off
		}
		off += strings.Index(body[off:], nl) + len(nl)
	}
	// The kept runs of lines: before First and from OldEnd on; each is
	// absent, not empty, when it has no line.
	var runs []string
	if d.First > 0 {
		end := len(body)
		if d.First < d.BaseCount {
			end = firstAt - len(nl)
		}
		runs = append(runs, body[:end])
	}
	if len(d.Lines) > 0 {
		runs = append(runs, strings.Join(d.Lines, nl))
	}
	if d.OldEnd < d.BaseCount {
		runs = append(runs, body[oldEndAt:])
	}
	out := strings.Join(runs, nl)
	if eol {
		out += nl
	}
	return out, true
}

func allLinesEndInCR(text string) bool {
	// Most texts answer at their first line, without a pass over all.
	if i := strings.IndexByte(text, '\n'); i < 1 || text[i-1] != '\r' {
		return false
	}
	n := strings.Count(text, "\n")
	return n > 0 && strings.Count(text, "\r\n") == n
}

// RememberText tells the session's text cache what a buffer holds after a
// change nvbridge made (the text as Snapshot returns it), so that the next
// snapshot need not read it back.
func (s *Session) RememberText(path string, bufnr, changedtick int, fileformat string, eol, bomb bool, text string) {
	textCacheOf(s).add(cachedText{path: path, key: bufferKey{bufnr, changedtick, fileformat, eol, bomb}, text: text, size: len(text)})
}

// RememberTextOf is RememberText of a text made only when a snapshot first
// needs it (text, called once; size is its length): an apply that knows
// its new text as lines need not join them unless the text is read.
// parsed, when not nil, is that text as the caller holds it (its lines): a
// snapshot asking for it (SnapshotOptions.Parsed) gets it in place of the
// text, which is then not made. The caller vouches for what the snapshot
// would check in the text: with fileformat unix, not every line ends in a
// carriage return.
func (s *Session) RememberTextOf(path string, bufnr, changedtick int, fileformat string, eol, bomb bool, size int, text func() string, parsed any) {
	textCacheOf(s).add(cachedText{path: path, key: bufferKey{bufnr, changedtick, fileformat, eol, bomb}, size: size, make: text, parsed: parsed})
}

// bufferKey identifies a buffer's bytes: its text only changes with its
// changedtick, and the written bytes also depend on these options.
type bufferKey struct {
	Bufnr       int    `msgpack:"bufnr"`
	ChangedTick int    `msgpack:"changedtick"`
	FileFormat  string `msgpack:"fileformat"`
	EOL         bool   `msgpack:"eol"`
	Bomb        bool   `msgpack:"bomb"`
}

// textCache keeps recently read buffer texts, least recently used first,
// within a byte budget.
type textCache struct {
	mu      sync.Mutex
	entries []cachedText
	size    int
	// small counts the entries smaller than textCacheMin (put's: at most
	// maxSmallTexts).
	small int
	// spliced counts the texts made from a cached one and Neovim's line
	// changes, fetched the large buffers read whole, taken the texts
	// Neovim said the cache held; diskRead the texts of files not loaded
	// read from the disk here, diskAgain those sent again by Neovim, the
	// file changed in between (all for tests).
	spliced, fetched, taken, diskRead, diskAgain atomic.Int64
}

type cachedText struct {
	path string
	key  bufferKey
	text string
	size int           // len(text), known before a lazy text is made
	make func() string // makes text when first read (RememberTextOf); nil once made
	// parsed: the text as its rememberer parsed it (RememberTextOf),
	// until the text is made.
	parsed any
}

const textCacheBudget = 64 << 20

// textCacheMin: smaller texts are not kept, but for the few last read by
// a snapshot (smallTextMin, maxSmallTexts).
const textCacheMin = 64 << 10

// smallTextMin and maxSmallTexts: a snapshot keeps the texts it read from
// smallTextMin bytes, the last maxSmallTexts of those under textCacheMin.
// The same buffer is snapshotted again and again unchanged (a rename's
// preview asked twice, its apply, the next rename in the file): an 11 KB
// buffer cost Neovim about 100 us each time to join its lines into a
// string and send it (zap's logger.go, the file every rename preview of
// the bench is asked in); known, Neovim answers "same" (snapshot.lua).
const (
	smallTextMin  = 1 << 10
	maxSmallTexts = 32
)

// TextCacheMin is the size from which RememberText and RememberTextOf
// keep a text: a smaller one is not kept (a caller need not hold one for
// them).
const TextCacheMin = textCacheMin

// textCaches holds one cache per session (dropped when it closes); kept
// here rather than in Session so that only this file knows of it.
var textCaches sync.Map // *Session -> *textCache

func textCacheOf(s *Session) *textCache {
	if c, ok := textCaches.Load(s); ok {
		return c.(*textCache)
	}
	c, loaded := textCaches.LoadOrStore(s, &textCache{})
	if !loaded {
		safego.Go("the text cache cleanup", func() {
			<-s.Done()
			textCaches.Delete(s)
		}, nil)
	}
	return c.(*textCache)
}

func (c *textCache) known(paths []string) map[string]bufferKey {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out map[string]bufferKey
	for _, e := range c.entries {
		for _, p := range paths {
			if p == e.path {
				if out == nil {
					out = map[string]bufferKey{}
				}
				out[p] = e.key
			}
		}
	}
	return out
}

func (c *textCache) get(path string, key bufferKey) (string, bool) {
	text, _, ok := c.lookup(path, key, false)
	return text, ok
}

// lookup returns the text cached for path at key, or with parsed, when the
// text was not made yet and a parse was remembered, that parse instead
// (the text is left unmade).
func (c *textCache) lookup(path string, key bufferKey, parsed bool) (string, any, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, e := range c.entries {
		if e.path == path && e.key == key {
			if e.make != nil && !(parsed && e.parsed != nil) {
				// Made, the text stands for the parse, which is let go
				// (it may hold as much again: its own lines).
				e.text, e.make, e.parsed = e.make(), nil, nil
			}
			// Most recently used last.
			c.entries = append(append(c.entries[:i:i], c.entries[i+1:]...), e)
			return e.text, e.parsed, true
		}
	}
	return "", nil, false
}

// put keeps a text a snapshot read: a small one too (smallTextMin).
func (c *textCache) put(path string, key bufferKey, text string) {
	c.keep(cachedText{path: path, key: key, text: text, size: len(text)}, len(text) >= smallTextMin)
}

// add keeps a text remembered (RememberText): from textCacheMin bytes
// only, the size its callers hold texts from.
func (c *textCache) add(entry cachedText) { c.keep(entry, false) }

// keep keeps entry, when it is textCacheMin bytes or more, or smallOK,
// replacing path's text; the least recently used texts go first past the
// budget, and the least recently used small one past maxSmallTexts.
func (c *textCache) keep(entry cachedText, smallOK bool) {
	path, size := entry.path, entry.size
	small := size < textCacheMin
	if small && !smallOK || size > textCacheBudget/2 {
		return // huge texts would evict everything
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, e := range c.entries {
		if e.path == path {
			c.drop(i)
			break
		}
	}
	if small && c.small >= maxSmallTexts {
		for i, e := range c.entries {
			if e.size < textCacheMin {
				c.drop(i)
				break
			}
		}
	}
	c.entries = append(c.entries, entry)
	c.size += size
	if small {
		c.small++
	}
	for c.size > textCacheBudget {
		c.drop(0)
	}
}

// drop forgets entry i (c.mu held).
func (c *textCache) drop(i int) {
	e := c.entries[i]
	c.size -= e.size
	if e.size < textCacheMin {
		c.small--
	}
	c.entries = append(c.entries[:i:i], c.entries[i+1:]...)
}
