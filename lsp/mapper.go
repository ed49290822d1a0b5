package lsp

// Reading source lines as the servers see them (loaded buffers first, else
// the disk), for positions and for the source shown in results.

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"sort"
	"strings"
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
	if err := c.Session.Call(ctx, "nvbridge.buffers", "get_lines", &raw, wanted); err != nil {
		return nil, err
	}
	var byKey map[string]map[string]string
	if err := json.Unmarshal([]byte(raw), &byKey); err != nil {
		return nil, err
	}
	out := make(map[string]map[int]string, len(byKey))
	for path, lines := range byKey {
		m := make(map[int]string, len(lines))
		for k, text := range lines {
			var n int
			if _, err := fmt.Sscan(k, &n); err == nil {
				m[n] = text
			}
		}
		out[path] = m
	}
	return out, nil
}

// sourceBlocks reads, for each location, up to n lines starting at its line
// (from the buffer when loaded, else the disk). A block stops early at a
// blank line after its first line, and where the declaration on its first
// line ends (declarationExtent). Keys are the locations' indexes.
func (c *Client) sourceBlocks(ctx context.Context, paths []string, lines []int, n int) (map[int]string, error) {
	wanted := map[string][]int{}
	addBlockLines(wanted, paths, lines, n)
	texts, err := c.Lines(ctx, wanted)
	if err != nil {
		return nil, err
	}
	return blocksFrom(texts, paths, lines, n), nil
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

// blocksFrom is sourceBlocks with the line texts already read.
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
