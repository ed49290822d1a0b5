package lsp

// Reading source lines as the servers see them (loaded buffers first, else
// the disk), for positions and for the source shown in results.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"maps"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/nvbridge/nvbridge/workspace"
)

// Lines returns some lines of some files (0-based line numbers) as the
// servers see them: loaded buffers first, else the disk.
//
// Files the workspace policy holds sensitive (.env, keys, .git/...) are not
// read: their lines are absent, so results show where, never what.
func (c *Client) Lines(ctx context.Context, wanted map[string][]int) (map[string]map[int]string, error) {
	// Locations with non-file URIs (PathOf "") have no text to read, and
	// sensitive files are not read. The caller's map is left as it is.
	root := c.Session.Root()
	wanted = maps.Clone(wanted)
	for p := range wanted {
		if p == "" || root.Sensitive(p) {
			delete(wanted, p)
		}
	}
	if len(wanted) == 0 {
		return map[string]map[int]string{}, nil
	}
	var raw string
	if err := c.Session.LoadedLines(ctx, &raw, wanted); err != nil {
		return nil, err
	}
	var byKey map[string]map[string]string
	if err := json.Unmarshal([]byte(raw), &byKey); err != nil {
		return nil, err
	}
	out := make(map[string]map[int]string, len(wanted))
	for path, lines := range byKey {
		m := make(map[int]string, len(lines))
		for k, text := range lines {
			if n, err := strconv.Atoi(k); err == nil {
				m[n] = text
			}
		}
		out[path] = m
	}
	readUnloaded(ctx, out, wanted)
	return out, nil
}

// linesWith is Lines where known already holds the lines of the loaded
// buffers (a read's answer, read.lua; nil: not read, Lines reads them):
// only the files no buffer holds are read, from the disk.
func (c *Client) linesWith(ctx context.Context, known map[string]map[int]string, wanted map[string][]int) (map[string]map[int]string, error) {
	if known == nil {
		return c.Lines(ctx, wanted)
	}
	root := c.Session.Root()
	out := make(map[string]map[int]string, len(wanted))
	unloaded := make(map[string][]int, len(wanted))
	for p, lines := range wanted {
		switch t, ok := known[p]; {
		case p == "" || root.Sensitive(p):
		case ok:
			out[p] = t
		default:
			unloaded[p] = lines
		}
	}
	readUnloaded(ctx, out, unloaded)
	return out, nil
}

// readUnloaded adds to out the wanted lines of the files out does not
// hold (no buffer holds them: the disk is what the servers see).
func readUnloaded(ctx context.Context, out map[string]map[int]string, wanted map[string][]int) {
	var unloaded []string
	for p := range wanted {
		if _, ok := out[p]; ok {
			continue
		}
		// Lines kept of a file unchanged are answered here, without a
		// goroutine.
		if stamp, ok := workspace.StatHot(p); ok && stamp.Mode.IsRegular() && !stamp.Missing {
			m := make(map[int]string, len(wanted[p]))
			if cachedLines(p, stamp, wanted[p], m) {
				out[p] = m
				continue
			}
		}
		unloaded = append(unloaded, p)
	}
	texts := make([]map[int]string, len(unloaded))
	runBounded(ctx, len(unloaded), 8, func(i int) { texts[i] = diskLines(unloaded[i], wanted[unloaded[i]]) })
	for i, p := range unloaded {
		out[p] = texts[i]
	}
}

// diskReaders: a result names a dozen files, each read with a 64 KiB
// buffer; allocating (and zeroing) one per file was a tenth of a call
// hierarchy's CPU.
var diskReaders = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 64<<10) }}

// diskLines reads the lines of a file on disk (0-based numbers), only as
// far as the last one wanted: a reference near the top of a large file
// does not read the rest of it. A line's trailing CR is dropped (CRLF
// files read as Neovim shows them); a file that cannot be read, or is not
// a regular file, has none.
func diskLines(path string, lines []int) map[int]string {
	out := make(map[int]string, len(lines))
	last := -1
	want := make(map[int]bool, len(lines))
	for _, l := range lines {
		want[l] = true
		last = max(last, l)
	}
	// A regular file only: a FIFO or a device a server's answer names
	// would block the open or never end. The stat is raw when the path is
	// hot (workspace.StatHot): a warm read makes no ordinary system call.
	stamp, known := workspace.StatHot(path)
	switch {
	case known && (stamp.Missing || !stamp.Mode.IsRegular()):
		return out
	case !known:
		// No stamp (a system that gives no inode, a stat that failed):
		// read when regular, keep nothing.
		if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
			return out
		}
	case cachedLines(path, stamp, lines, out):
		// Lines read before of a file unchanged since (diskcache.go).
		return out
	}
	clear(out)
	f, err := os.Open(path)
	if err != nil {
		return out
	}
	defer f.Close()
	r := diskReaders.Get().(*bufio.Reader)
	r.Reset(f)
	defer func() {
		r.Reset(nil)
		diskReaders.Put(r)
	}()
	count := -1 // the file's line count, once the read reaches its end
	defer func() {
		if known {
			keepLines(path, stamp, out, count)
		}
	}()
	for n := 0; n <= last; n++ {
		line, err := r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// A line longer than the buffer (minified code): read the rest.
			long := append([]byte(nil), line...)
			for err == bufio.ErrBufferFull {
				line, err = r.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if len(line) == 0 && err != nil {
			if err == io.EOF {
				count = n
			}
			break
		}
		if want[n] {
			text := bytes.TrimSuffix(line, []byte("\n"))
			out[n] = string(bytes.TrimSuffix(text, []byte("\r")))
		}
		if err != nil {
			if err == io.EOF {
				count = n + 1
			}
			break
		}
	}
	return out
}

// addBlockLines adds to wanted the n lines from each of lines (in the file
// of the same index in paths).
func addBlockLines(wanted map[string][]int, paths []string, lines []int, n int) {
	for i, p := range paths {
		for l := lines[i]; l < lines[i]+n; l++ {
			wanted[p] = append(wanted[p], l)
		}
	}
	for p := range wanted {
		sort.Ints(wanted[p])
		wanted[p] = dedupInts(wanted[p])
	}
}

// blocksFrom reads, for each location, up to n lines starting at its line
// from texts. A block stops early at a blank line after its first line,
// and where the declaration on its first line ends (declarationExtent).
// Keys are the locations' indexes.
func blocksFrom(texts map[string]map[int]string, paths []string, lines []int, n int) map[int]string {
	out := make(map[int]string, len(paths))
	for i, p := range paths {
		var block []string
		for l := lines[i]; l < lines[i]+n; l++ {
			text, ok := texts[p][l]
			if !ok || (l > lines[i] && strings.TrimSpace(text) == "") {
				break
			}
			block = append(block, text)
		}
		out[i] = strings.Join(block[:declarationExtent(block)], "\n")
	}
	return out
}

func dedupInts(s []int) []int {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}
