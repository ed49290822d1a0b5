package lsp

import (
	"context"
	"strings"
)

// BufferInfo is what get_buffer_info reports about a file.
type BufferInfo struct {
	File        string   `json:"file"`
	IsOpen      bool     `json:"is_open"`
	IsModified  bool     `json:"is_modified"`
	LineCount   int      `json:"line_count"`
	Language    string   `json:"language"`
	ChangedTick int      `json:"changedtick"`
	FileFormat  string   `json:"fileformat"`
	Servers     []Server `json:"language_servers"`
	// ReloadedFromDisk says the buffer was re-read because the file changed
	// on disk (and had no unsaved changes).
	ReloadedFromDisk bool    `json:"reloaded_from_disk,omitempty"`
	Content          *string `json:"content,omitempty"`
}

// Info loads file (if needed) and describes its buffer.
func (c *Client) Info(ctx context.Context, file string, withContent bool) (BufferInfo, error) {
	doc, err := c.Open(ctx, file)
	if err != nil {
		return BufferInfo{}, err
	}
	info := BufferInfo{
		File:             doc.Rel,
		IsOpen:           doc.Buffer.State != "loaded",
		IsModified:       doc.Buffer.Modified,
		LineCount:        doc.Buffer.LineCount,
		Language:         doc.Buffer.Filetype,
		ChangedTick:      doc.Buffer.ChangedTick,
		FileFormat:       doc.Buffer.FileFormat,
		Servers:          doc.Servers,
		ReloadedFromDisk: doc.Buffer.State == "reloaded",
	}
	if info.Servers == nil {
		info.Servers = []Server{}
	}
	if withContent {
		lines, err := c.Session.Lines(ctx, doc.Buffer.Bufnr, 0, -1)
		if err != nil {
			return BufferInfo{}, err
		}
		text := strings.Join(lines, "\n")
		if len(lines) > 0 && doc.Buffer.EOL {
			text += "\n"
		}
		info.Content = &text
	}
	return info, nil
}

// NumberedLine is one line of read_file's answer.
type NumberedLine struct {
	Line        int          `json:"line"`
	Text        string       `json:"text"`
	Diagnostics []Diagnostic `json:"diagnostics,omitempty"`
}

// FileExcerpt is read_file's answer.
type FileExcerpt struct {
	File       string         `json:"file"`
	StartLine  int            `json:"start_line"`
	EndLine    int            `json:"end_line"`
	LineCount  int            `json:"line_count"`
	IsModified bool           `json:"is_modified"`
	Lines      []NumberedLine `json:"lines"`
	// DiagnosticsComplete is false when a server had not yet published
	// diagnostics for the current text within the wait bound.
	DiagnosticsComplete bool `json:"diagnostics_complete"`
	// DiagnosticsIncomplete says why they are not complete.
	DiagnosticsIncomplete string `json:"diagnostics_incomplete,omitempty"`
}

// ReadLines returns lines [start, end] (1-based, inclusive; 0 means the
// file's start or end) of file with the diagnostics on them.
func (c *Client) ReadLines(ctx context.Context, file string, start, end int) (FileExcerpt, error) {
	doc, err := c.Open(ctx, file)
	if err != nil {
		return FileExcerpt{}, err
	}
	n := doc.Buffer.LineCount
	if start == 0 {
		start = 1
	}
	if end == 0 || end > n {
		end = n
	}
	if start < 1 || start > n || end < start {
		return FileExcerpt{}, lineRangeError(doc, start, end)
	}
	lines, err := c.Session.Lines(ctx, doc.Buffer.Bufnr, start-1, end)
	if err != nil {
		return FileExcerpt{}, err
	}
	diags, fresh, err := c.Diagnostics(ctx, doc)
	if err != nil {
		return FileExcerpt{}, err
	}
	out := FileExcerpt{File: doc.Rel, StartLine: start, EndLine: start + len(lines) - 1, LineCount: n,
		IsModified: doc.Buffer.Modified, DiagnosticsComplete: fresh.Complete, DiagnosticsIncomplete: fresh.Why, Lines: make([]NumberedLine, len(lines))}
	for i, text := range lines {
		out.Lines[i] = NumberedLine{Line: start + i, Text: text}
	}
	for _, d := range diags {
		if d.Line >= out.StartLine && d.Line <= out.EndLine {
			l := &out.Lines[d.Line-start]
			l.Diagnostics = append(l.Diagnostics, d)
		}
	}
	return out, nil
}
